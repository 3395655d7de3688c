/**
 * `expose: 'tools'`: the tools mounted on a coordinator (a session's), each
 * call run through that session's hooks (`runServedCall`). The list is read
 * at each request, so a tool a module mounts later is served too (and the
 * host is told the list changed).
 */
import type { Coordinator, JSONSchema, Tool } from '@amplifier/core';
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { ServeBackend, ServedCallContext } from './protocol.js';
import { runServedCall } from './served-call.js';

/** Which mounted tools are served. */
export interface ToolFilter {
  /** Only these names (default: every tool). */
  allow?: ReadonlySet<string> | readonly string[] | undefined;
  /** Also serve `mcp_*` tools (proxied MCP tools; off by default against proxy loops). */
  includeMcp?: boolean | undefined;
}

/** An MCP tool input schema: the tool's own, with `type: "object"` when it says nothing else (never null). */
export function mcpInputSchema(schema: JSONSchema | undefined): McpTool['inputSchema'] {
  if (schema === undefined || typeof schema !== 'object' || schema === null) return { type: 'object' };
  const type = (schema as { type?: unknown }).type;
  return (type === undefined ? { type: 'object', ...schema } : schema) as McpTool['inputSchema'];
}

/** The served tools of a coordinator, in a stable order (by name). */
export class ToolsBackend implements ServeBackend {
  readonly #coordinator: Coordinator;
  readonly #allow: ReadonlySet<string> | undefined;
  readonly #includeMcp: boolean;
  #listed = '';

  /** Serve the tools mounted on `coordinator` that `filter` lets through. */
  constructor(coordinator: Coordinator, filter: ToolFilter = {}) {
    this.#coordinator = coordinator;
    this.#allow = filter.allow === undefined ? undefined : new Set(filter.allow);
    this.#includeMcp = filter.includeMcp ?? false;
  }

  /** The exposed tools, by name. */
  exposed(): Tool[] {
    const byName = new Map<string, Tool>();
    for (const tool of this.#coordinator.get('tools').values()) {
      if (byName.has(tool.name)) continue;
      if (this.#allow !== undefined && !this.#allow.has(tool.name)) continue;
      if (!this.#includeMcp && tool.name.startsWith('mcp_')) continue;
      byName.set(tool.name, tool);
    }
    return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** The exposed tools as MCP tool descriptions. */
  listTools(): McpTool[] {
    const tools = this.exposed();
    this.#listed = tools.map((t) => t.name).join('\0');
    return tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: mcpInputSchema(tool.inputSchema),
    }));
  }

  /** Whether the exposed names differ from the last `listTools`. */
  toolsChanged(): boolean {
    return (
      this.exposed()
        .map((t) => t.name)
        .join('\0') !== this.#listed
    );
  }

  /** Run `name` through the session's hooks; `undefined` when it is not exposed. */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    context: ServedCallContext,
  ): Promise<CallToolResult | undefined> {
    const tool = this.exposed().find((t) => t.name === name);
    if (tool === undefined) return undefined;
    const outcome = await runServedCall(this.#coordinator, tool, args, {
      signal: context.signal,
      onProgress: (p) => context.progress(p),
    });
    return { content: [{ type: 'text', text: outcome.text }], isError: outcome.isError };
  }
}
