/**
 * What one mount of tool-mcp holds: a connection per enabled server, started
 * in parallel at mount (each under its startup timeout), the tools each one
 * mounts (filtered, named collision-free), their remounting on
 * `tools/list_changed`, definition hashes (a change after first use emits
 * `mcp:tool_definition_changed`), server stderr to a log file, and cleanup.
 */
import fs from 'node:fs';
import path from 'node:path';
import { AmplifierError, type Coordinator, type Tool } from '@amplifier/core';
import type { Sandbox } from '@amplifier/process';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { McpModuleConfig } from './config.js';
import { McpConnection } from './connection.js';
import {
  MCP_SERVER_DIED,
  MCP_SERVER_FAILED,
  MCP_SERVER_STARTED,
  MCP_TOOL_DEFINITION_CHANGED,
  MCP_TOOLS_CHANGED,
} from './events.js';
import { createPromptTool, createResourceTool } from './exposed.js';
import { mountedToolName, preferredToolName, sanitizePart } from './names.js';
import type { McpServerConfig } from './servers.js';
import { createMcpTool } from './tool.js';
import { cleanText, definitionHash } from './untrusted.js';

/** The most characters of one server's `instructions` given to the model. */
const MAX_INSTRUCTIONS = 8000;

interface MountedTool {
  mountedName: string;
  aliases: string[];
  hash: string;
  tool: Tool;
}

/** The server's own tool names that pass `enabled_tools` then `disabled_tools`. */
export function toolAllowed(config: McpServerConfig, tool: string): boolean {
  if (config.enabled_tools && !config.enabled_tools.includes(tool)) return false;
  return !config.disabled_tools?.includes(tool);
}

export interface RuntimeOptions {
  coordinator: Coordinator;
  settings: McpModuleConfig;
  servers: Record<string, McpServerConfig>;
  cwd: string;
  hostEnv: NodeJS.ProcessEnv;
  sandbox?: Sandbox;
  /** Debounce of `tools/list_changed` (tests shorten it). */
  listChangedDebounceMs?: number;
}

export class McpRuntime {
  readonly connections: Map<string, McpConnection> = new Map();
  readonly #options: RuntimeOptions;
  readonly #mounted = new Map<string, Map<string, MountedTool>>();
  readonly #used = new Set<string>();
  readonly #disabled = new Set<string>();
  readonly #logs = new Map<string, fs.WriteStream>();

  constructor(options: RuntimeOptions) {
    this.#options = options;
  }

  #emit(event: string, data: Record<string, unknown>): void {
    void Promise.resolve(this.#options.coordinator.hooks.emit(event, data)).catch(() => {});
  }

  /** Start every server in parallel; mount the tools of those that started. Throws MOUNT_FAILED when a `required` one fails. */
  async start(): Promise<void> {
    const { coordinator } = this.#options;
    const entries = Object.entries(this.#options.servers).filter(([, config]) => config.enabled);
    const outcomes = await Promise.all(
      entries.map(async ([name, config]) => {
        const connection = this.#connection(name, config);
        try {
          await connection.connect();
          const mounted = this.#mountTools(connection, connection.tools);
          mounted.push(...this.#mountExposed(connection));
          this.#emit(MCP_SERVER_STARTED, {
            server: name,
            transport: connection.transportKind,
            server_info: connection.serverInfo ?? null,
            tools: connection.tools.length,
            mounted,
          });
          return undefined;
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          coordinator.logger.error(`tool-mcp: ${message}`);
          this.#emit(MCP_SERVER_FAILED, { server: name, error: message, required: config.required === true });
          return config.required === true ? message : undefined;
        }
      }),
    );
    const required = outcomes.filter((outcome): outcome is string => outcome !== undefined);
    if (required.length > 0) {
      await this.close();
      throw new AmplifierError(
        'MOUNT_FAILED',
        `tool-mcp: a required MCP server failed to start: ${required.join('; ')}`,
      );
    }
  }

  #connection(name: string, config: McpServerConfig): McpConnection {
    const { settings } = this.#options;
    const connection = new McpConnection({
      name,
      config,
      cwd: this.#options.cwd,
      hostEnv: this.#options.hostEnv,
      ...(this.#options.sandbox && config.type === 'stdio' ? { sandbox: this.#options.sandbox } : {}),
      stop: { stdinGraceMs: settings.shutdown_grace_ms, termGraceMs: settings.shutdown_grace_ms },
      onStderr: (line) => this.#stderr(name, line),
      onToolsChanged: (tools) => this.#remount(connection, tools),
      onDied: (reason) => {
        this.#options.coordinator.logger.error(
          `tool-mcp: ${reason}; its tools fail until it restarts (on the next call)`,
        );
        this.#emit(MCP_SERVER_DIED, { server: name, error: reason });
      },
      expose: { resources: settings.expose_resources, prompts: settings.expose_prompts },
      onWarning: (message) => this.#options.coordinator.logger.warn(`tool-mcp: ${message}`),
      ...(this.#options.listChangedDebounceMs !== undefined
        ? { listChangedDebounceMs: this.#options.listChangedDebounceMs }
        : {}),
    });
    this.connections.set(name, connection);
    return connection;
  }

  #stderr(server: string, line: string): void {
    const { settings, coordinator } = this.#options;
    if (settings.verbose_servers) {
      coordinator.logger.info(`[mcp:${server}] ${line}`);
      return;
    }
    let stream = this.#logs.get(server);
    if (!stream) {
      try {
        fs.mkdirSync(settings.server_log_dir, { recursive: true });
        stream = fs.createWriteStream(path.join(settings.server_log_dir, `${sanitizePart(server)}.log`), {
          flags: 'a',
        });
        stream.on('error', () => {});
      } catch {
        return;
      }
      this.#logs.set(server, stream);
    }
    stream.write(`${line}\n`);
  }

  #taken(): Set<string> {
    const taken = new Set<string>();
    for (const [name, tool] of this.#options.coordinator.get('tools')) {
      taken.add(name);
      for (const alias of tool.aliases ?? []) taken.add(alias);
    }
    return taken;
  }

  /** Mount the allowed tools of a server; returns the mounted names. */
  #mountTools(connection: McpConnection, tools: readonly McpTool[]): string[] {
    const { coordinator, settings } = this.#options;
    const mounted = this.#mounted.get(connection.name) ?? new Map<string, MountedTool>();
    this.#mounted.set(connection.name, mounted);
    const names: string[] = [];
    const taken = this.#taken();
    for (const definition of tools) {
      if (!toolAllowed(connection.config, definition.name) || mounted.has(definition.name)) continue;
      const key = `${connection.name}\0${definition.name}`;
      if (this.#disabled.has(key)) continue;
      const mountedName = mountedToolName(connection.name, definition.name, (name) => taken.has(name));
      if (mountedName === undefined) {
        coordinator.logger.warn(
          `tool-mcp: tool '${definition.name}' of server '${connection.name}' is not mounted: its names are taken`,
        );
        continue;
      }
      if (mountedName !== preferredToolName(connection.name, definition.name).name) {
        coordinator.logger.warn(
          `tool-mcp: tool '${definition.name}' of server '${connection.name}' is mounted as '${mountedName}' (the usual name is too long or taken)`,
        );
      }
      const { alias } = preferredToolName(connection.name, definition.name);
      const aliases =
        alias.length <= 64 &&
        !taken.has(alias) &&
        mountedName === preferredToolName(connection.name, definition.name).name
          ? [alias]
          : [];
      taken.add(mountedName);
      for (const a of aliases) taken.add(a);
      const tool = createMcpTool({
        connection,
        definition,
        mountedName,
        aliases,
        maxContentSize: settings.max_content_size,
        maxToolTimeoutMs: settings.max_tool_timeout_ms,
        onUse: () => this.#used.add(key),
        onSchemaProblem: (note) =>
          coordinator.logger.warn(
            `tool-mcp: tool '${definition.name}' of server '${connection.name}': ${note.split(':')[0]}; local validation is skipped`,
          ),
      });
      coordinator.mount('tools', tool, { name: mountedName });
      mounted.set(definition.name, { mountedName, aliases, hash: definitionHash(definition), tool });
      names.push(mountedName);
    }
    return names;
  }

  /**
   * Mount the resources and prompts listed at start as tools (once: their
   * list_changed notifications are not followed). Names clash as tools do
   * (hash suffix); a resource whose suffixed name is taken too is named after its URI.
   */
  #mountExposed(connection: McpConnection): string[] {
    const { coordinator, settings } = this.#options;
    const taken = this.#taken();
    const names: string[] = [];
    const options = (mountedName: string) => ({
      connection,
      mountedName,
      maxContentSize: settings.max_content_size,
      maxToolTimeoutMs: settings.max_tool_timeout_ms,
    });
    const mount = (candidates: string[], what: string, create: (name: string) => Tool): void => {
      for (const candidate of candidates) {
        const name = mountedToolName(connection.name, candidate, (n) => taken.has(n));
        if (name === undefined) continue;
        taken.add(name);
        coordinator.mount('tools', create(name), { name });
        names.push(name);
        return;
      }
      coordinator.logger.warn(
        `tool-mcp: ${what} of server '${connection.name}' is not mounted: its names are taken`,
      );
    };
    for (const resource of connection.resources) {
      mount([`resource_${resource.name}`, `resource_${resource.uri}`], `resource '${resource.uri}'`, (name) =>
        createResourceTool(options(name), resource),
      );
    }
    for (const prompt of connection.prompts) {
      mount([`prompt_${prompt.name}`], `prompt '${prompt.name}'`, (name) =>
        createPromptTool(options(name), prompt),
      );
    }
    return names;
  }

  #unmount(server: string, toolName: string): string | undefined {
    const mounted = this.#mounted.get(server);
    const entry = mounted?.get(toolName);
    if (!entry || !mounted) return undefined;
    if (this.#options.coordinator.get('tools', entry.mountedName) === entry.tool)
      this.#options.coordinator.unmount('tools', { name: entry.mountedName });
    mounted.delete(toolName);
    return entry.mountedName;
  }

  /** Apply a new tool list: unmount removed tools, remount changed ones, mount new ones. */
  #remount(connection: McpConnection, tools: readonly McpTool[]): void {
    const server = connection.name;
    const mounted = this.#mounted.get(server) ?? new Map<string, MountedTool>();
    const next = new Map(tools.map((tool) => [tool.name, tool]));
    const removed: string[] = [];
    const changed: string[] = [];
    for (const [toolName, entry] of [...mounted]) {
      const definition = next.get(toolName);
      if (definition === undefined || !toolAllowed(connection.config, toolName)) {
        const name = this.#unmount(server, toolName);
        if (name) removed.push(name);
        continue;
      }
      if (definitionHash(definition) === entry.hash) continue;
      const key = `${server}\0${toolName}`;
      const action = this.#options.settings.on_tool_change;
      this.#unmount(server, toolName);
      if (this.#used.has(key)) {
        this.#emit(MCP_TOOL_DEFINITION_CHANGED, {
          server,
          tool: toolName,
          mounted_name: entry.mountedName,
          action,
        });
        this.#options.coordinator.logger.warn(
          `tool-mcp: the definition of tool '${toolName}' of server '${server}' changed after it was used${action === 'disable' ? '; it is unmounted until the session restarts' : ''}`,
        );
        if (action === 'disable') {
          this.#disabled.add(key);
          removed.push(entry.mountedName);
          continue;
        }
      }
      changed.push(entry.mountedName);
    }
    const added = this.#mountTools(connection, tools).filter((name) => !changed.includes(name));
    if (added.length + removed.length + changed.length > 0)
      this.#emit(MCP_TOOLS_CHANGED, { server, added, removed, changed });
  }

  /**
   * The `instructions` of the connected servers, each wrapped in a tag that
   * names the server and says it is untrusted, hidden characters stripped and
   * capped; undefined when no server gave any.
   */
  instructions(): string | undefined {
    const parts: string[] = [];
    for (const connection of this.connections.values()) {
      const text = connection.connected ? connection.instructions?.trim() : undefined;
      if (!text) continue;
      parts.push(
        `<mcp_server_instructions server="${sanitizePart(connection.name)}" trust="untrusted: from the server, not the user">\n${cleanText(text, MAX_INSTRUCTIONS)}\n</mcp_server_instructions>`,
      );
    }
    return parts.length > 0 ? parts.join('\n') : undefined;
  }

  /** Names mounted for a server (tests, status). */
  mountedNames(server: string): string[] {
    return [...(this.#mounted.get(server)?.values() ?? [])].map((entry) => entry.mountedName);
  }

  /** Stop every server in parallel (stdin, SIGTERM, SIGKILL to each group; HTTP sessions deleted). */
  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map((connection) => connection.close()));
    await Promise.all(
      [...this.#logs.values()].map((stream) => new Promise<void>((resolve) => stream.end(() => resolve()))),
    );
    this.#logs.clear();
    this.#options.sandbox?.cleanup();
  }
}
