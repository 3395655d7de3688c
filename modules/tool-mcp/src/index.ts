/**
 * @amplifier/tool-mcp: the MCP client (module id `tool-mcp`). Mounts the tools
 * of the configured MCP servers (stdio through the process kit, Streamable
 * HTTP, legacy SSE) as `mcp_<server>_<tool>`.
 */
import {
  AmplifierError,
  type Cleanup,
  type Coordinator,
  events,
  OBSERVABILITY_EVENTS_CHANNEL,
} from '@amplifier/core';
import {
  requireProcessGroups,
  SANDBOX_STATUS_CHANNEL,
  Sandbox,
  SandboxUnavailableError,
} from '@amplifier/process';
import { MODULE_ID, parseConfig } from './config.js';
import { MCP_EVENTS, MCP_SERVER_FAILED } from './events.js';
import { McpRuntime } from './runtime.js';
import { loadMcpServers, mcpConfigPaths } from './servers.js';
import { safeLogger } from './untrusted.js';

export type { McpConfigInput, McpModuleConfig } from './config.js';
export { CONFIG_SCHEMA, parseConfig, SAFETY_KEYS } from './config.js';
export type { ConnectionOptions } from './connection.js';
export { MCP_ERRORS, McpConnection, ServerUnavailableError } from './connection.js';
export type {
  McpEventName,
  McpServerDiedEvent,
  McpServerFailedEvent,
  McpServerStartedEvent,
  McpToolDefinitionChangedEvent,
  McpToolsChangedEvent,
} from './events.js';
export {
  MCP_EVENTS,
  MCP_SERVER_DIED,
  MCP_SERVER_FAILED,
  MCP_SERVER_STARTED,
  MCP_TOOL_DEFINITION_CHANGED,
  MCP_TOOLS_CHANGED,
} from './events.js';
export type { ExposedToolOptions, McpExposedOutput } from './exposed.js';
export { createPromptTool, createResourceTool, promptText, resourceText } from './exposed.js';
export { hashedToolName, MAX_TOOL_NAME, mountedToolName, preferredToolName, sanitizePart } from './names.js';
export type { McpProbeResult } from './probe.js';
export { probeMcpServer } from './probe.js';
export type { McpToolOutput } from './result.js';
export { blockText, capContent, toToolResult } from './result.js';
export { definitionBytes, McpRuntime, toolAllowed } from './runtime.js';
export type { LoadedMcpServers, McpServerConfig } from './servers.js';
export {
  DEFAULT_STARTUP_TIMEOUT_MS,
  DEFAULT_TOOL_TIMEOUT_MS,
  expandVariables,
  loadMcpServers,
  mcpConfigPaths,
  parseServerEntry,
} from './servers.js';
export type { ProcessTransportOptions } from './stdio-transport.js';
export { ProcessTransport } from './stdio-transport.js';
export type { McpProgress } from './tool.js';
export { createMcpTool, requestFailure } from './tool.js';
export { cleanText, safeLogger, shownName } from './untrusted.js';

function commandLine(command: string | undefined, args: readonly string[] | undefined): string {
  return [command ?? '', ...(args ?? [])]
    .map((part) => (/^[\w./:@=-]+$/.test(part) ? part : JSON.stringify(part)))
    .join(' ');
}

/**
 * Mount the tools of every enabled server (config files and inline servers;
 * project servers only when trusted). Servers start in parallel at mount,
 * each under its startup timeout; one that fails is reported
 * (`mcp:server_failed`, error log) and skipped, unless `required`. The cleanup
 * stops every server and its whole process group.
 */
export async function mount(
  coordinator: Coordinator,
  config: Record<string, unknown> = {},
): Promise<Cleanup> {
  requireProcessGroups(MODULE_ID);
  const log = safeLogger(coordinator.logger);
  const settings = parseConfig(config, log);
  const cwd =
    settings.working_dir ?? coordinator.getCapability<string>('session.working_dir') ?? process.cwd();
  const hostEnv = process.env;
  const loaded = loadMcpServers({ cwd, env: hostEnv, inline: settings.inline, files: settings.config_files });
  for (const warning of loaded.warnings) log.warn(warning);
  coordinator.registerContributor(OBSERVABILITY_EVENTS_CHANNEL, MODULE_ID, () => [...MCP_EVENTS]);

  const projectFile = mcpConfigPaths({ cwd, env: hostEnv }).project;
  const servers = { ...loaded.servers };
  for (const [name, server] of Object.entries(servers)) {
    if (loaded.sources[name] !== projectFile || settings.trust_project || !server.enabled) continue;
    delete servers[name];
    log.warn(
      `tool-mcp: server '${name}' from ${projectFile} is not started: a project's MCP config runs ${server.type === 'stdio' ? `the command \`${commandLine(server.command, server.args)}\`` : `a connection to ${server.url}`}. Review it, then set trust_project: true in tool-mcp's config (or AMPLIFIER_MCP_TRUST_PROJECT=1)`,
    );
  }
  const failed = Object.entries(loaded.failed);
  for (const [name, error] of failed) {
    log.error(`tool-mcp: ${error}; the server is not started`);
    void Promise.resolve(
      coordinator.hooks.emit(MCP_SERVER_FAILED, { server: name, error, required: false }),
    ).catch(() => {});
  }

  let sandbox: Sandbox | undefined;
  if (Object.values(servers).some((server) => server.enabled && server.type === 'stdio')) {
    try {
      sandbox = new Sandbox(settings.sandbox, {
        module: MODULE_ID,
        notice: (message) => log.warn(message),
      });
    } catch (error) {
      if (error instanceof SandboxUnavailableError) throw new AmplifierError('MOUNT_FAILED', error.message);
      throw error;
    }
    const active = sandbox;
    coordinator.registerContributor(SANDBOX_STATUS_CHANNEL, MODULE_ID, () => active.status());
  }
  const runtime = new McpRuntime({
    coordinator,
    settings,
    servers,
    cwd,
    hostEnv,
    ...(sandbox ? { sandbox } : {}),
  });
  await runtime.start();
  // Server instructions are untrusted text: only when asked, marked, and never stored (ephemeral).
  const unregister = settings.use_instructions
    ? coordinator.hooks.register(
        events.PROVIDER_REQUEST,
        () => {
          const text = runtime.instructions();
          return text === undefined
            ? { action: 'continue' }
            : {
                action: 'inject_context',
                context_injection: text,
                context_injection_role: 'system',
                ephemeral: true,
                suppress_output: true,
              };
        },
        { name: `${MODULE_ID}:instructions` },
      )
    : undefined;
  return async () => {
    unregister?.();
    await runtime.close();
  };
}
