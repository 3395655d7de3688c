/**
 * `probeMcpServer`: start one server, list its tools, call none, and stop it
 * with its whole process group (the CLI's `amplifier mcp test`). The names,
 * descriptions and server info it returns are terminal-safe (`shownName`,
 * `cleanText`); `mountedName` is the name tools are mounted under.
 */
import { Sandbox, sandboxPolicyFrom } from '@amplifier/process';
import { McpConnection } from './connection.js';
import { mountedToolName } from './names.js';
import type { McpServerConfig } from './servers.js';
import { cleanText, shownName } from './untrusted.js';

export interface McpProbeResult {
  serverInfo: { name: string; version: string };
  tools: Array<{ name: string; mountedName: string; description?: string }>;
  /** `http`, `sse` (after a fallback) or `stdio`. */
  transport: 'stdio' | 'http' | 'sse';
}

export async function probeMcpServer(
  name: string,
  config: McpServerConfig,
  options: {
    cwd?: string;
    signal?: AbortSignal;
    timeoutMs?: number;
    sandbox?: 'auto' | 'required' | 'off';
    env?: NodeJS.ProcessEnv;
  } = {},
): Promise<McpProbeResult> {
  const cwd = options.cwd ?? process.cwd();
  const sandbox =
    config.type === 'stdio'
      ? new Sandbox(sandboxPolicyFrom({ sandbox: options.sandbox ?? 'auto' }), { module: 'tool-mcp' })
      : undefined;
  const connection = new McpConnection({
    name,
    config: options.timeoutMs ? { ...config, startup_timeout_ms: options.timeoutMs } : config,
    cwd,
    hostEnv: options.env ?? process.env,
    ...(sandbox ? { sandbox } : {}),
  });
  try {
    await connection.connect(options.signal);
    const taken = new Set<string>();
    const tools = connection.tools.map((tool) => {
      const mountedName = mountedToolName(name, tool.name, (candidate) => taken.has(candidate)) ?? tool.name;
      taken.add(mountedName);
      // The server's text, made terminal-safe at the door: the CLI prints it.
      return {
        name: shownName(tool.name),
        mountedName,
        ...(tool.description ? { description: cleanText(tool.description) } : {}),
      };
    });
    const info = connection.serverInfo;
    return {
      serverInfo: { name: shownName(info?.name ?? name), version: shownName(info?.version ?? '') },
      tools,
      transport: connection.transportKind,
    };
  } finally {
    await connection.close();
    sandbox?.cleanup();
  }
}
