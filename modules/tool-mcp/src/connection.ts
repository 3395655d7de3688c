/**
 * One MCP server: its SDK `Client` over stdio (`ProcessTransport`), Streamable
 * HTTP, or legacy SSE (`http` falls back to SSE on 400/404/405), the
 * initialize deadline, the full (paged) tool list (and, when exposed, the
 * resource and prompt lists), `tools/list_changed`
 * (debounced re-list), death detection (exit code, signal and last stderr
 * lines) and restart on the next call with exponential backoff. Stopping
 * closes stdin, then SIGTERMs and SIGKILLs the whole process group.
 */
import { AmplifierError, type CodesOf, defineErrors, type ErrorTable } from '@amplifier/core';
import { childEnvironment, type Sandbox, type StopServiceOptions } from '@amplifier/process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  type GetPromptResult,
  type Implementation,
  type Tool as McpTool,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_STARTUP_TIMEOUT_MS, DEFAULT_TOOL_TIMEOUT_MS, type McpServerConfig } from './servers.js';
import { ProcessTransport } from './stdio-transport.js';

const MAX_LIST_PAGES = 64;

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Every page of a paged list: follows `nextCursor` until it is absent (`""`
 * is a cursor); a repeated cursor or more than 64 pages is an error, never a
 * silent partial list.
 */
async function paginate<T>(
  method: string,
  page: (params: { cursor?: string }) => Promise<{ items: T[]; nextCursor?: string | undefined }>,
): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let n = 0; ; n++) {
    if (n >= MAX_LIST_PAGES)
      throw new Error(`${method} returned more than ${MAX_LIST_PAGES} pages; refusing a partial list`);
    const result = await page(cursor === undefined ? {} : { cursor });
    items.push(...result.items);
    if (result.nextCursor === undefined) return items;
    if (seen.has(result.nextCursor))
      throw new Error(
        `${method} repeated the cursor ${JSON.stringify(result.nextCursor)}; refusing a partial list`,
      );
    seen.add(result.nextCursor);
    cursor = result.nextCursor;
  }
}

export const CLIENT_INFO: Implementation = { name: 'amplifier-ts', version: '0.1.0' };

const rows = {
  MCP_SERVER_UNAVAILABLE: {
    name: 'ServerUnavailableError',
    description:
      'an MCP server is closed, died or could not be reached (tool results say `mcp_server_unavailable`)',
  },
} as const;

/** The code of this module, declared in core's error factory (the thrower writes the message). */
export const MCP_ERRORS: ErrorTable<typeof rows> = defineErrors(rows);

declare module '@amplifier/core' {
  interface DeclaredErrorCodes extends CodesOf<typeof MCP_ERRORS> {}
}

/** A failure the tools report as `mcp_server_unavailable` (code `MCP_SERVER_UNAVAILABLE`). */
export class ServerUnavailableError extends AmplifierError {
  declare readonly code: 'MCP_SERVER_UNAVAILABLE';
  constructor(message: string) {
    super('MCP_SERVER_UNAVAILABLE', message);
  }
}

export interface ConnectionOptions {
  name: string;
  config: McpServerConfig;
  /** Working directory of stdio servers without `cwd`, and the sandbox's workspace. */
  cwd: string;
  /** The host environment the server's is built from (secret policy applied). */
  hostEnv: NodeJS.ProcessEnv;
  sandbox?: Sandbox;
  stop?: StopServiceOptions;
  /** Each stderr line of a stdio server. */
  onStderr?: (line: string) => void;
  /** The server's tool list changed (after the debounce and a full re-list). */
  onToolsChanged?: (tools: McpTool[]) => void;
  /** The server died (stdio exit or lost connection) while connected. */
  onDied?: (reason: string) => void;
  /** Debounce of `tools/list_changed` (default 300 ms). */
  listChangedDebounceMs?: number;
  /** Also list the server's resources and/or prompts at start (`expose_resources`, `expose_prompts`). */
  expose?: { resources?: boolean; prompts?: boolean };
  /** A non-fatal problem at start (a resource or prompt list that failed: the tools still mount). */
  onWarning?: (message: string) => void;
}

const MAX_BACKOFF_MS = 60_000;
const FIRST_BACKOFF_MS = 500;

export class McpConnection {
  readonly name: string;
  readonly config: McpServerConfig;
  #options: ConnectionOptions;
  #client: Client | undefined;
  #transport: Transport | undefined;
  #connecting: Promise<void> | undefined;
  #tools: McpTool[] = [];
  #resources: Resource[] = [];
  #prompts: Prompt[] = [];
  #serverInfo: Implementation | undefined;
  #instructions: string | undefined;
  #dead: string | undefined;
  /** The client whose start completed (deaths before that are start failures, not deaths). */
  #ready: Client | undefined;
  #failures = 0;
  #nextAttempt = 0;
  #closed = false;
  #debounce: NodeJS.Timeout | undefined;
  /** `http` (Streamable HTTP) or `sse` after a fallback; `stdio`. */
  transportKind: 'stdio' | 'http' | 'sse';

  constructor(options: ConnectionOptions) {
    this.#options = options;
    this.name = options.name;
    this.config = options.config;
    this.transportKind = options.config.type;
  }

  get startupTimeoutMs(): number {
    return this.config.startup_timeout_ms ?? DEFAULT_STARTUP_TIMEOUT_MS;
  }

  get toolTimeoutMs(): number {
    return this.config.tool_timeout_ms ?? DEFAULT_TOOL_TIMEOUT_MS;
  }

  get tools(): readonly McpTool[] {
    return this.#tools;
  }

  /** The resources listed at start (only with `expose.resources` and a server that has them). */
  get resources(): readonly Resource[] {
    return this.#resources;
  }

  /** The prompts listed at start (only with `expose.prompts` and a server that has them). */
  get prompts(): readonly Prompt[] {
    return this.#prompts;
  }

  get serverInfo(): Implementation | undefined {
    return this.#serverInfo;
  }

  get instructions(): string | undefined {
    return this.#instructions;
  }

  get connected(): boolean {
    return this.#client !== undefined && this.#dead === undefined;
  }

  /** Start, initialize (under `startup_timeout_ms`) and list every tool. Throws on failure (the server is stopped). */
  async connect(signal?: AbortSignal): Promise<void> {
    this.#connecting ??= this.#connect(signal).finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async #connect(signal?: AbortSignal): Promise<void> {
    if (this.#closed) throw new ServerUnavailableError(`MCP server '${this.name}' is closed`);
    await this.#disconnect();
    this.#dead = undefined;
    const deadline = AbortSignal.timeout(this.startupTimeoutMs);
    const both = signal ? AbortSignal.any([signal, deadline]) : deadline;
    try {
      if (this.config.type === 'http') {
        try {
          await this.#open('http', both);
        } catch (error) {
          if (!(error instanceof StreamableHTTPError) || ![400, 404, 405].includes(error.code ?? 0))
            throw error;
          await this.#disconnect();
          await this.#open('sse', both);
        }
      } else {
        await this.#open(this.config.type, both);
      }
      this.#tools = await this.#listAll({ signal: both });
      await this.#listExposed({ signal: both });
      this.#ready = this.#client;
    } catch (error) {
      const reason = this.#describeFailure(error, deadline.aborted);
      await this.#disconnect();
      throw new ServerUnavailableError(reason);
    }
  }

  async #open(kind: 'stdio' | 'http' | 'sse', signal: AbortSignal): Promise<void> {
    const transport = this.#transportFor(kind);
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    this.#client = client;
    this.#transport = transport;
    this.transportKind = kind;
    client.onclose = () => {
      if (this.#ready !== client || this.#closed) return;
      this.#markDead(this.#deathReason('connection closed'));
    };
    client.onerror = () => {
      // Garbage on stdout and transient transport errors: the SDK skips them.
    };
    // `initialize` is never cancelled by a message (SPEC): the deadline closes the transport instead.
    const timeout = new Promise<never>((_, reject) => {
      const fail = (): void => reject(signal.reason ?? new Error('aborted'));
      if (signal.aborted) fail();
      else signal.addEventListener('abort', fail, { once: true });
    });
    await Promise.race([client.connect(transport), timeout]);
    this.#serverInfo = client.getServerVersion();
    this.#instructions = client.getInstructions();
    if (client.getServerCapabilities()?.tools?.listChanged) {
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.#scheduleRelist(client));
    }
  }

  #transportFor(kind: 'stdio' | 'http' | 'sse'): Transport {
    const { config } = this;
    if (kind === 'stdio') {
      const { env } = childEnvironment(this.#options.hostEnv, {
        ...(config.env_vars ? { pass: config.env_vars } : {}),
        ...(config.env ? { set: config.env } : {}),
      });
      const cwd = config.cwd ?? this.#options.cwd;
      const sandbox = this.#options.sandbox;
      return new ProcessTransport({
        command: config.command!,
        args: config.args ?? [],
        cwd,
        env,
        ...(sandbox ? { sandbox: { sandbox, workspace: this.#options.cwd } } : {}),
        ...(this.#options.onStderr ? { onStderr: this.#options.onStderr } : {}),
        ...(this.#options.stop ? { stop: this.#options.stop } : {}),
      });
    }
    const url = new URL(config.url!);
    const requestInit: RequestInit = config.headers ? { headers: { ...config.headers } } : {};
    const common = { requestInit, redirectPolicy: 'same-origin' as const };
    return kind === 'http'
      ? new StreamableHTTPClientTransport(url, common)
      : new SSEClientTransport(url, common);
  }

  #listAll(options: RequestOptions): Promise<McpTool[]> {
    const client = this.#client!;
    return paginate('tools/list', async (params) => {
      const { tools, nextCursor } = await client.listTools(params, options);
      return { items: tools, nextCursor };
    });
  }

  /** The resource and prompt lists asked for by `expose`; a failure is a warning, not a failed start. */
  async #listExposed(options: RequestOptions): Promise<void> {
    const client = this.#client!;
    const capabilities = client.getServerCapabilities();
    const { expose, onWarning } = this.#options;
    const tryList = async <T>(what: string, list: () => Promise<T[]>): Promise<T[]> => {
      try {
        return await list();
      } catch (error) {
        if (options.signal?.aborted) throw error;
        onWarning?.(`MCP server '${this.name}': ${what} failed, none are exposed: ${errorText(error)}`);
        return [];
      }
    };
    this.#resources =
      expose?.resources && capabilities?.resources
        ? await tryList('resources/list', () =>
            paginate('resources/list', async (params) => {
              const { resources, nextCursor } = await client.listResources(params, options);
              return { items: resources, nextCursor };
            }),
          )
        : [];
    this.#prompts =
      expose?.prompts && capabilities?.prompts
        ? await tryList('prompts/list', () =>
            paginate('prompts/list', async (params) => {
              const { prompts, nextCursor } = await client.listPrompts(params, options);
              return { items: prompts, nextCursor };
            }),
          )
        : [];
  }

  #scheduleRelist(client: Client): void {
    clearTimeout(this.#debounce);
    this.#debounce = setTimeout(() => {
      if (this.#client !== client || this.#closed) return;
      this.#listAll({ timeout: this.startupTimeoutMs }).then(
        (tools) => {
          if (this.#client !== client) return;
          this.#tools = tools;
          this.#options.onToolsChanged?.(tools);
        },
        () => {},
      );
    }, this.#options.listChangedDebounceMs ?? 300);
  }

  /**
   * Call a tool by its server-side name. Restarts a dead server first (with
   * backoff: a call within the backoff window fails at once). A
   * `tools/call` is never retried.
   */
  callTool(name: string, args: Record<string, unknown>, options: RequestOptions): Promise<CallToolResult> {
    return this.#request(
      (client) => client.callTool({ name, arguments: args }, undefined, options) as Promise<CallToolResult>,
      options,
    );
  }

  /** `resources/read` of one URI, under the same restart and session rules as a tool call. */
  readResource(uri: string, options: RequestOptions): Promise<ReadResourceResult> {
    return this.#request((client) => client.readResource({ uri }, options), options);
  }

  /** `prompts/get` of one prompt with its (string) arguments. */
  getPrompt(name: string, args: Record<string, string>, options: RequestOptions): Promise<GetPromptResult> {
    return this.#request((client) => client.getPrompt({ name, arguments: args }, options), options);
  }

  /**
   * Send one request. Restarts a dead server first (with backoff: a request
   * within the backoff window fails at once). A request is never retried,
   * except once when an HTTP server forgot our session (it did not run it).
   */
  async #request<T>(send: (client: Client) => Promise<T>, options: RequestOptions): Promise<T> {
    await this.ensureConnected(options.signal);
    try {
      return await this.#send(send);
    } catch (error) {
      // The server forgot our session (it restarted): it did not run the request. Initialize again, retry once.
      // The spec says 404; some servers (server-everything) answer 400 "No valid session ID".
      if (!(error instanceof StreamableHTTPError) || this.transportKind !== 'http') throw error;
      if (error.code !== 404 && !(error.code === 400 && /session/i.test(error.message))) throw error;
      await this.connect(options.signal);
      this.#options.onToolsChanged?.(this.#tools);
      return this.#send(send);
    }
  }

  async #send<T>(send: (client: Client) => Promise<T>): Promise<T> {
    const client = this.#client!;
    try {
      const result = await send(client);
      this.#failures = 0;
      return result;
    } catch (error) {
      if (this.#dead !== undefined && this.#client === client) throw new ServerUnavailableError(this.#dead);
      throw error;
    }
  }

  /** Connect if not connected (restart after a death, under the backoff). */
  async ensureConnected(signal?: AbortSignal): Promise<void> {
    if (this.#closed)
      throw new ServerUnavailableError(`MCP server '${this.name}' is closed (the session ended)`);
    if (this.connected && !this.#connecting) return;
    if (this.#connecting) return this.#connecting;
    const wait = this.#nextAttempt - Date.now();
    if (wait > 0) {
      throw new ServerUnavailableError(
        `${this.#dead ?? `MCP server '${this.name}' is not running`}; next restart attempt in ${Math.ceil(wait / 1000)} s`,
      );
    }
    try {
      await this.connect(signal);
      this.#nextAttempt = 0;
      // A restarted server may list other tools: remount what changed.
      this.#options.onToolsChanged?.(this.#tools);
    } catch (error) {
      this.#failures++;
      this.#nextAttempt = Date.now() + Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (this.#failures - 1));
      throw error;
    }
  }

  #markDead(reason: string): void {
    if (this.#dead !== undefined) return;
    this.#dead = reason;
    this.#failures++;
    // The first restart is immediate (next call); repeated deaths back off.
    this.#nextAttempt =
      this.#failures <= 1
        ? 0
        : Date.now() + Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (this.#failures - 2));
    this.#options.onDied?.(reason);
  }

  /** Mark a lost HTTP connection (a fetch that failed): the next call reconnects. */
  markLost(error: unknown): void {
    if (this.transportKind === 'stdio' || this.#client === undefined) return;
    this.#markDead(`MCP server '${this.name}' connection lost: ${String(error)}`);
  }

  #deathReason(what: string): string {
    const transport = this.#transport;
    if (transport instanceof ProcessTransport) {
      const status = transport.exitStatus;
      const how = status
        ? status.signal
          ? `was killed by ${status.signal}`
          : `exited with code ${status.code}`
        : 'closed its stdio';
      const tail = transport
        .stderrTail()
        .filter((line) => line.trim() !== '')
        .slice(-5);
      return `MCP server '${this.name}' ${how}${tail.length ? `; last stderr: ${tail.join(' | ')}` : ''}`;
    }
    return `MCP server '${this.name}' ${what}`;
  }

  #describeFailure(error: unknown, timedOut: boolean): string {
    const base = timedOut
      ? `MCP server '${this.name}' did not answer initialize within ${this.startupTimeoutMs / 1000} s (startup_timeout_sec)`
      : `MCP server '${this.name}' failed to start: ${error instanceof Error ? error.message : String(error)}`;
    const transport = this.#transport;
    if (transport instanceof ProcessTransport) {
      const status = transport.exitStatus;
      const exit = status
        ? status.signal
          ? ` (killed by ${status.signal})`
          : ` (exit code ${status.code})`
        : '';
      const tail = transport
        .stderrTail()
        .filter((line) => line.trim() !== '')
        .slice(-5);
      const hint =
        (error as NodeJS.ErrnoException)?.code === 'ENOENT'
          ? `; is '${this.config.command}' installed and on PATH?`
          : '';
      return `${base}${exit}${hint}${tail.length ? `; last stderr: ${tail.join(' | ')}` : ''}`;
    }
    if (error instanceof StreamableHTTPError && (error.code === 401 || error.code === 403)) {
      return `${base}; the server refused the credentials (HTTP ${error.code}): set 'headers' or 'bearer_token_env_var' for it (OAuth is not supported yet)`;
    }
    return base;
  }

  async #disconnect(): Promise<void> {
    clearTimeout(this.#debounce);
    const client = this.#client;
    const transport = this.#transport;
    this.#client = undefined;
    this.#transport = undefined;
    if (transport instanceof StreamableHTTPClientTransport) {
      await transport.terminateSession().catch(() => {});
    }
    if (client) await client.close().catch(() => {});
    else if (transport) await transport.close().catch(() => {});
  }

  /** Stop the server (stdin, SIGTERM, SIGKILL to its group; HTTP: DELETE the session). */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#disconnect();
  }
}
