/**
 * `amplifier mcp serve` without `--agent`: the tools of the plan, mounted in
 * one session with the plan's hooks (no provider: no model is involved), each
 * call run through those hooks (`runServedCall`).
 */
import path from 'node:path';
import { AmplifierSession, errorMessage, type JSONSchema, type Logger, type Tool } from '@amplifier/core';
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { CliApproval } from './approval.js';
import type { Display } from './display.js';
import { CliError } from './errors.js';
import type { ServeBackend, ServedCallContext } from './mcp-server.js';
import { createLoader } from './modules.js';
import type { ResolvedPlan } from './plan.js';
import { runServedCall } from './served-call.js';
import { SessionStore } from './sessions.js';

/** Which mounted tools are served. */
export interface ToolFilter {
  /** `--tools`: only these names (default: every tool). */
  allow?: ReadonlySet<string> | undefined;
  /** `--include-mcp`: also serve `mcp_*` tools (proxied MCP tools; off by default against loops). */
  includeMcp: boolean;
}

/** An MCP tool input schema: the tool's own, with `type: "object"` when it says nothing else (never null). */
export function mcpInputSchema(schema: JSONSchema | undefined): McpTool['inputSchema'] {
  if (schema === undefined || typeof schema !== 'object' || schema === null) return { type: 'object' };
  const type = (schema as { type?: unknown }).type;
  return (type === undefined ? { type: 'object', ...schema } : schema) as McpTool['inputSchema'];
}

/** Open the session whose tools are served; every tool and hook of the plan must load. */
export async function openToolSession(
  resolved: ResolvedPlan,
  cwd: string,
  display: Display,
): Promise<AmplifierSession> {
  const logger: Logger = {
    debug: (m) => display.debug(m),
    info: (m) => display.debug(m),
    warn: (m) => {
      if (!/^(provider|tool|hook) '[^']*' was not loaded: /.test(m)) display.warn(m);
    },
    error: (m) => display.error(m),
  };
  const session = new AmplifierSession(resolved.plan, {
    loader: createLoader(cwd, { logger }),
    logger,
    display,
    // No person can answer over MCP: the approval default of each hook decides.
    approval: new CliApproval({ display, interactive: false }),
    baseDir: cwd,
    workingDir: cwd,
  });
  session.coordinator.registerCapability(
    'session.directory',
    path.join(new SessionStore().projectDir(cwd), session.sessionId),
  );
  try {
    await session.initialize();
    const failed = session.failures.filter((f) => f.section !== 'providers');
    if (failed.length > 0) {
      throw new CliError(
        failed
          .map((f) => `Could not load ${f.section.replace(/s$/, '')} '${f.module}': ${errorMessage(f.error)}`)
          .join('\n\n'),
      );
    }
  } catch (error) {
    await session.cleanup().catch(() => undefined);
    throw error;
  }
  return session;
}

/** The served tools of a session, in a stable order (by name). */
export class ToolsBackend implements ServeBackend {
  readonly #session: AmplifierSession;
  readonly #filter: ToolFilter;
  #listed = '';

  constructor(session: AmplifierSession, filter: ToolFilter) {
    this.#session = session;
    this.#filter = filter;
  }

  /** The exposed tools, by name. */
  exposed(): Tool[] {
    const byName = new Map<string, Tool>();
    for (const tool of this.#session.coordinator.get('tools').values()) {
      if (byName.has(tool.name)) continue;
      if (this.#filter.allow !== undefined && !this.#filter.allow.has(tool.name)) continue;
      if (!this.#filter.includeMcp && tool.name.startsWith('mcp_')) continue;
      byName.set(tool.name, tool);
    }
    return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  listTools(): McpTool[] {
    const tools = this.exposed();
    this.#listed = tools.map((t) => t.name).join('\0');
    return tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: mcpInputSchema(tool.inputSchema),
    }));
  }

  toolsChanged(): boolean {
    return (
      this.exposed()
        .map((t) => t.name)
        .join('\0') !== this.#listed
    );
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    context: ServedCallContext,
  ): Promise<CallToolResult | undefined> {
    const tool = this.exposed().find((t) => t.name === name);
    if (tool === undefined) return undefined;
    const outcome = await runServedCall(this.#session.coordinator, tool, args, {
      signal: context.signal,
      onProgress: (p) => context.progress(p),
    });
    return { content: [{ type: 'text', text: outcome.text }], isError: outcome.isError };
  }
}
