/**
 * The protocol half of the server: an SDK low-level `Server` with `tools/list`
 * and `tools/call` handlers (JSON Schema tools) over a backend (a session's
 * tools, or the agent as one tool), one per connection. Progress a call
 * reports becomes `notifications/progress` when the request carries a
 * `progressToken`.
 */
import { createRequire } from 'node:module';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';

/** What a served call gets besides its arguments. */
export interface ServedCallContext {
  /** Aborts when the host cancels the request or the server shuts down. */
  signal: AbortSignal;
  /**
   * Report progress (a number, a message or `{progress, total, message}`).
   * Updates close together coalesce unless `each` is set (a few milestones, each worth sending).
   */
  progress(update: unknown, options?: { each?: boolean }): void;
  /** Who is calling: the MCP session over HTTP, `stdio` otherwise. Agent sessions stay with it. */
  principal: string;
}

/** The tools one server exposes and how a call runs (`toolsBackend`, `agentBackend`, or an app's own). */
export interface ServeBackend {
  /** The tools to list, as MCP tool descriptions. */
  listTools(): McpTool[];
  /** Run one call; `undefined` when no exposed tool has this name. */
  callTool(
    name: string,
    args: Record<string, unknown>,
    context: ServedCallContext,
  ): Promise<CallToolResult | undefined>;
  /** Tool names changed since the last `listTools` (a module mounted or unmounted a tool). */
  toolsChanged?(): boolean;
}

/** The fewest milliseconds between two progress notifications of one call (later ones coalesce). */
const PROGRESS_INTERVAL_MS = 100;

type Send = (params: { progress: number; total?: number; message?: string }) => Promise<void>;

/**
 * Progress of one call as increasing `notifications/progress`: at most one per
 * PROGRESS_INTERVAL_MS, the latest update kept for the next slot, and the last
 * one always sent before the result (`flush`).
 */
export class ProgressReporter {
  #last = 0;
  #sentAt = 0;
  #pending: { progress: number; total?: number; message?: string } | undefined;
  #timer: NodeJS.Timeout | undefined;
  readonly #send: Send;

  /** `send` writes one notification's params. */
  constructor(send: Send) {
    this.#send = send;
  }

  /** Record an update (a number, a message, or `{progress, total, message}`); `each` sends it now. */
  report(update: unknown, each = false): void {
    const record = typeof update === 'object' && update !== null ? (update as Record<string, unknown>) : {};
    const given = typeof update === 'number' ? update : record.progress;
    const progress =
      typeof given === 'number' && Number.isFinite(given) && given > this.#last ? given : this.#last + 1;
    this.#last = progress;
    const total = typeof record.total === 'number' && record.total >= progress ? record.total : undefined;
    const text =
      typeof update === 'string' ? update : typeof record.message === 'string' ? record.message : undefined;
    this.#pending = {
      progress,
      ...(total !== undefined && { total }),
      ...(text !== undefined && { message: text.slice(0, 500) }),
    };
    const wait = this.#sentAt + PROGRESS_INTERVAL_MS - Date.now();
    if (wait <= 0 || each) void this.#emit();
    else this.#timer ??= setTimeout(() => void this.#emit(), wait);
  }

  #emit(): Promise<void> {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending === undefined) return Promise.resolve();
    this.#sentAt = Date.now();
    return this.#send(pending).catch(() => undefined);
  }

  /** Send what is pending now; resolves once it is written (the result must not overtake it). */
  flush(): Promise<void> {
    return this.#emit();
  }
}

/** How the server names itself in `initialize` (`serverInfo`). */
export interface ServerInfo {
  name: string;
  version: string;
}

/** This package's version, the default `serverInfo.version`. */
export const PACKAGE_VERSION: string = (
  createRequire(import.meta.url)('@amplifier/mcp-server/package.json') as { version: string }
).version;

/** What one connection's server needs besides its backend. */
export interface ConnectionOptions {
  /** Who is calling: `stdio`, or `http:<random>` per MCP session. */
  principal: string;
  /** Aborts every running call when the server stops. */
  stopping: AbortSignal;
  /** Default: `{ name: 'amplifier', version: <this package's version> }`. */
  info?: ServerInfo | undefined;
}

/** A new SDK server for one connection (stdio, or one HTTP session) over `backend`. */
export function createProtocolServer(backend: ServeBackend, options: ConnectionOptions): Server {
  const server = new Server(options.info ?? { name: 'amplifier', version: PACKAGE_VERSION }, {
    capabilities: { tools: { listChanged: true } },
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: backend.listTools() }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params;
    const args = request.params.arguments ?? {};
    const token = request.params._meta?.progressToken;
    const reporter =
      token === undefined
        ? undefined
        : new ProgressReporter((params) =>
            extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, ...params },
            }),
          );
    const signal = AbortSignal.any([extra.signal, options.stopping]);
    let result: CallToolResult | undefined;
    try {
      result = await backend.callTool(name, args, {
        signal,
        progress: (update, opts) => reporter?.report(update, opts?.each ?? false),
        principal: options.principal,
      });
    } finally {
      await reporter?.flush();
    }
    if (result === undefined) {
      const known = backend
        .listTools()
        .map((t) => t.name)
        .join(', ');
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}. Tools: ${known || '(none)'}`);
    }
    if (backend.toolsChanged?.()) void server.sendToolListChanged().catch(() => undefined);
    return result;
  });
  return server;
}
