/**
 * What one mount of tool-mcp holds: a connection per enabled server, started
 * in parallel at mount (each under its startup timeout), the tools each one
 * mounts (filtered, named collision-free), their remounting on
 * `tools/list_changed`, definition hashes (a change after first use emits
 * `mcp:tool_definition_changed`), server stderr to a log file, and cleanup.
 */
import fs from 'node:fs';
import path from 'node:path';
import { AmplifierError, type Coordinator, type EventPayload, type Logger, type Tool } from '@amplifier/core';
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
  type McpEventName,
} from './events.js';
import { createPromptTool, createResourceTool } from './exposed.js';
import { mountedToolName, preferredToolName, sanitizePart } from './names.js';
import type { McpServerConfig } from './servers.js';
import { createMcpTool } from './tool.js';
import { cleanText, definitionHash, safeLogger, shownName } from './untrusted.js';

/** The most characters of one server's `instructions` given to the model. */
const MAX_INSTRUCTIONS = 8000;

interface MountedTool {
  mountedName: string;
  aliases: string[];
  hash: string;
  tool: Tool;
  /** The bytes of its definition as the model receives it (`definitionBytes`). */
  bytes: number;
}

/** The tools a listing could not mount, by the cap that stopped them. */
interface Dropped {
  count: string[];
  bytes: string[];
}

/** The bytes of a tool's definition in a request: its name, description and input schema as JSON. */
export function definitionBytes(tool: Tool): number {
  return Buffer.byteLength(
    JSON.stringify({ name: tool.name, description: tool.description, input_schema: tool.inputSchema ?? {} }),
  );
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
  /** Resource and prompt tools mounted per server, and their definitions' bytes. */
  readonly #exposed = new Map<string, number>();
  #exposedBytes = 0;
  /** The coordinator's logger, every message made terminal-safe (they quote the servers' text). */
  readonly #log: Logger;

  constructor(options: RuntimeOptions) {
    this.#options = options;
    this.#log = safeLogger(options.coordinator.logger);
  }

  #emit<E extends McpEventName>(event: E, data: EventPayload<E>): void {
    void Promise.resolve(this.#options.coordinator.hooks.emit(event, data)).catch(() => {});
  }

  /**
   * Start every server in parallel, then mount the tools of those that
   * started in the order of the config (so the definition budget goes to
   * servers in a stable order). Throws MOUNT_FAILED when a `required` one fails.
   */
  async start(): Promise<void> {
    const entries = Object.entries(this.#options.servers).filter(([, config]) => config.enabled);
    const outcomes = await Promise.all(
      entries.map(async ([name, config]) => {
        const connection = this.#connection(name, config);
        try {
          await connection.connect();
          return { connection };
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          this.#log.error(`tool-mcp: ${message}`);
          this.#emit(MCP_SERVER_FAILED, {
            server: name,
            error: cleanText(message, 4000),
            required: config.required === true,
          });
          return { failed: config.required === true ? message : undefined };
        }
      }),
    );
    for (const outcome of outcomes) {
      const { connection } = outcome;
      if (connection === undefined) continue;
      const mounted = this.#mountTools(connection, connection.tools);
      mounted.push(...this.#mountExposed(connection));
      this.#emit(MCP_SERVER_STARTED, {
        server: connection.name,
        transport: connection.transportKind,
        server_info: connection.serverInfo ?? null,
        tools: connection.tools.length,
        mounted,
      });
    }
    const required = outcomes.flatMap((outcome) => (outcome.failed === undefined ? [] : [outcome.failed]));
    if (required.length > 0) {
      await this.close();
      throw new AmplifierError(
        'MOUNT_FAILED',
        `tool-mcp: a required MCP server failed to start: ${cleanText(required.join('; '), 8000)}`,
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
        this.#log.error(`tool-mcp: ${reason}; its tools fail until it restarts (on the next call)`);
        this.#emit(MCP_SERVER_DIED, { server: name, error: reason });
      },
      expose: { resources: settings.expose_resources, prompts: settings.expose_prompts },
      onWarning: (message) => this.#log.warn(`tool-mcp: ${message}`),
      ...(this.#options.listChangedDebounceMs !== undefined
        ? { listChangedDebounceMs: this.#options.listChangedDebounceMs }
        : {}),
    });
    this.connections.set(name, connection);
    return connection;
  }

  #stderr(server: string, line: string): void {
    const { settings } = this.#options;
    if (settings.verbose_servers) {
      this.#log.info(`[mcp:${server}] ${line}`);
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

  /** How many tools a server has mounted (its tools, resources and prompts). */
  #count(server: string): number {
    return (this.#mounted.get(server)?.size ?? 0) + (this.#exposed.get(server) ?? 0);
  }

  /** The bytes of every definition this module has mounted. */
  #bytes(): number {
    let total = this.#exposedBytes;
    for (const mounted of this.#mounted.values()) for (const entry of mounted.values()) total += entry.bytes;
    return total;
  }

  /**
   * Whether one more tool of `server`, of `bytes`, fits under
   * `max_tools_per_server` and `max_definition_bytes`; records what does not
   * in `dropped` (logged once per listing by `#reportDropped`).
   */
  #fits(server: string, name: string, bytes: number, dropped: Dropped): boolean {
    const { max_tools_per_server, max_definition_bytes } = this.#options.settings;
    if (this.#count(server) >= max_tools_per_server) {
      dropped.count.push(name);
      return false;
    }
    if (this.#bytes() + bytes > max_definition_bytes) {
      dropped.bytes.push(name);
      return false;
    }
    return true;
  }

  /** One log line per cap that dropped tools of a server, naming the server, the cap and the first names. */
  #reportDropped(server: string, listed: number, dropped: Dropped): void {
    const { max_tools_per_server, max_definition_bytes } = this.#options.settings;
    const names = (list: string[]): string => {
      const shown = list.slice(0, 5).map((name) => `'${shownName(name)}'`);
      return `${shown.join(', ')}${list.length > shown.length ? `, and ${list.length - shown.length} more` : ''}`;
    };
    const label = shownName(server);
    if (dropped.count.length > 0)
      this.#log.warn(
        `tool-mcp: server '${label}' lists ${listed} tools; ${dropped.count.length} are not mounted (max_tools_per_server is ${max_tools_per_server}): ${names(dropped.count)}. Choose the ones you need with enabled_tools, or raise max_tools_per_server`,
      );
    if (dropped.bytes.length > 0)
      this.#log.warn(
        `tool-mcp: ${dropped.bytes.length} tools of server '${label}' are not mounted: their definitions would pass max_definition_bytes (${max_definition_bytes} bytes of tool definitions in every request): ${names(dropped.bytes)}. Choose the ones you need with enabled_tools, or raise max_definition_bytes`,
      );
  }

  /** Mount the allowed tools of a server, within the caps; returns the mounted names. */
  #mountTools(connection: McpConnection, tools: readonly McpTool[]): string[] {
    const { coordinator, settings } = this.#options;
    const mounted = this.#mounted.get(connection.name) ?? new Map<string, MountedTool>();
    this.#mounted.set(connection.name, mounted);
    const names: string[] = [];
    const taken = this.#taken();
    const dropped: Dropped = { count: [], bytes: [] };
    const server = shownName(connection.name);
    for (const definition of tools) {
      if (!toolAllowed(connection.config, definition.name) || mounted.has(definition.name)) continue;
      const key = `${connection.name}\0${definition.name}`;
      if (this.#disabled.has(key)) continue;
      const tool = shownName(definition.name);
      // Cheap first: no definition is built for a tool over the count cap.
      if (this.#count(connection.name) >= settings.max_tools_per_server) {
        dropped.count.push(definition.name);
        continue;
      }
      const mountedName = mountedToolName(connection.name, definition.name, (name) => taken.has(name));
      if (mountedName === undefined) {
        this.#log.warn(`tool-mcp: tool '${tool}' of server '${server}' is not mounted: its names are taken`);
        continue;
      }
      const { alias, name: preferred } = preferredToolName(connection.name, definition.name);
      const aliases = alias.length <= 64 && !taken.has(alias) && mountedName === preferred ? [alias] : [];
      let schemaProblem: string | undefined;
      const created = createMcpTool({
        connection,
        definition,
        mountedName,
        aliases,
        maxContentSize: settings.max_content_size,
        maxToolTimeoutMs: settings.max_tool_timeout_ms,
        onUse: () => this.#used.add(key),
        onSchemaProblem: (note) => {
          schemaProblem = note.split(':')[0];
        },
      });
      const bytes = definitionBytes(created);
      if (!this.#fits(connection.name, definition.name, bytes, dropped)) continue;
      if (mountedName !== preferred)
        this.#log.warn(
          `tool-mcp: tool '${tool}' of server '${server}' is mounted as '${mountedName}' (the usual name is too long or taken)`,
        );
      if (schemaProblem !== undefined)
        this.#log.warn(
          `tool-mcp: tool '${tool}' of server '${server}': ${schemaProblem}; local validation is skipped`,
        );
      taken.add(mountedName);
      for (const a of aliases) taken.add(a);
      coordinator.mount('tools', created, { name: mountedName });
      mounted.set(definition.name, {
        mountedName,
        aliases,
        hash: definitionHash(definition),
        tool: created,
        bytes,
      });
      names.push(mountedName);
    }
    this.#reportDropped(connection.name, tools.length, dropped);
    return names;
  }

  /**
   * Mount the resources and prompts listed at start as tools (once: their
   * list_changed notifications are not followed), within the same caps as
   * tools. Names clash as tools do (hash suffix); a resource whose suffixed
   * name is taken too is named after its URI.
   */
  #mountExposed(connection: McpConnection): string[] {
    const { coordinator, settings } = this.#options;
    const taken = this.#taken();
    const names: string[] = [];
    const dropped: Dropped = { count: [], bytes: [] };
    const options = (mountedName: string) => ({
      connection,
      mountedName,
      maxContentSize: settings.max_content_size,
      maxToolTimeoutMs: settings.max_tool_timeout_ms,
    });
    const mount = (candidates: string[], what: string, create: (name: string) => Tool): void => {
      if (this.#count(connection.name) >= settings.max_tools_per_server) {
        dropped.count.push(what);
        return;
      }
      for (const candidate of candidates) {
        const name = mountedToolName(connection.name, candidate, (n) => taken.has(n));
        if (name === undefined) continue;
        const tool = create(name);
        const bytes = definitionBytes(tool);
        if (!this.#fits(connection.name, what, bytes, dropped)) return;
        taken.add(name);
        coordinator.mount('tools', tool, { name });
        this.#exposed.set(connection.name, (this.#exposed.get(connection.name) ?? 0) + 1);
        this.#exposedBytes += bytes;
        names.push(name);
        return;
      }
      this.#log.warn(
        `tool-mcp: ${shownName(what)} of server '${shownName(connection.name)}' is not mounted: its names are taken`,
      );
    };
    for (const resource of connection.resources) {
      mount([`resource_${resource.name}`, `resource_${resource.uri}`], `resource ${resource.uri}`, (name) =>
        createResourceTool(options(name), resource),
      );
    }
    for (const prompt of connection.prompts) {
      mount([`prompt_${prompt.name}`], `prompt ${prompt.name}`, (name) =>
        createPromptTool(options(name), prompt),
      );
    }
    this.#reportDropped(connection.name, connection.resources.length + connection.prompts.length, dropped);
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
        this.#log.warn(
          `tool-mcp: the definition of tool '${shownName(toolName)}' of server '${shownName(server)}' changed after it was used${action === 'disable' ? '; it is unmounted until the session restarts' : ''}`,
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
