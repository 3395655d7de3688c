/**
 * The contracts every module implements or consumes. Objects with behaviour use
 * camelCase (`inputSchema`, `listModels()`); the data they exchange keeps
 * Amplifier's snake_case (see messages.ts, results.ts and module-types.ts). Structural typing
 * only: nothing here needs to be extended or instantiated.
 */
import type { Coordinator } from './coordinator.js';
import type { HookRegistry } from './hooks.js';
import type { ChatRequest, ChatResponse, JSONSchema, Message, StreamEvent, ToolCall } from './messages.js';
import type { ModelInfo, ModuleType, ProviderInfo } from './module-types.js';
import type { MessageLevel, ToolResult } from './results.js';

// ---------------------------------------------------------------------- Tool

/** A resource a tool call touches, for scheduling (`file:/abs/path`, `net:host`, ...). */
export interface ResourceKey {
  key: string;
  mode: 'read' | 'write';
}

/**
 * How a tool may be scheduled. Calls of one model response run concurrently
 * unless they conflict: no profile or `serial` conflicts with everything; the
 * same key with any write conflicts; read/read does not.
 */
export interface ExecutionProfile {
  serial?: boolean;
  resourceKeys?(input: Record<string, unknown>): readonly ResourceKey[];
  /** Per-call timeout in ms, overriding the orchestrator's default. */
  timeoutMs?: number;
  /** Never time this tool out (it manages its own deadlines). */
  disableTimeout?: boolean;
}

/**
 * What an orchestrator passes to `Tool.execute` for one call: the `signal` that
 * stops it, the call's id, and `onProgress` for the tool's progress reports.
 */
export interface ToolCallOptions {
  /** Aborted when the call must stop (timeout, immediate cancellation). */
  signal?: AbortSignal;
  toolCallId?: string;
  /**
   * A key that is the same each time this call runs, also when a durable
   * engine replays the turn on another worker (the tool call id): a tool with
   * side effects outside the machine (a payment, an email) passes it on so the
   * effect happens once.
   */
  idempotencyKey?: string;
  onProgress?(progress: unknown): void;
}

/** What a tool that runs sub-sessions declares (`Tool.subSessions`). */
export interface SubSessions {
  /** The name of the session a call with this input runs (the agent), or undefined. */
  sessionName(input: Record<string, unknown>): string | undefined;
}

/**
 * A function the model can call. `name` is snake_case and unique among the mounted
 * tools; `inputSchema` (JSON Schema, `{}` when absent) is what orchestrators
 * validate the model's input against before `execute`; `executionProfile` says
 * what a call touches, so calls that do not conflict run concurrently. `execute`
 * never throws for a bad call: it returns
 * `{ success: false, error: { message } }`, which tells the model what to fix.
 * Mounted with `coordinator.mount('tools', tool)`.
 *
 * @example
 * ```ts
 * import { Coordinator, type Tool } from '@amplifier/core';
 *
 * const echo: Tool = {
 *   name: 'echo',
 *   description: 'Returns the text it is given.',
 *   inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
 *   executionProfile: { resourceKeys: () => [] }, // touches nothing: may run beside any other call
 *   async execute(input, { signal } = {}) {
 *     signal?.throwIfAborted();
 *     if (typeof input.text !== 'string') {
 *       return { success: false, error: { message: 'text is required and must be a string' } };
 *     }
 *     return { success: true, output: input.text };
 *   },
 * };
 *
 * const coordinator = new Coordinator();
 * coordinator.mount('tools', echo);
 * await coordinator.get('tools', 'echo')?.execute({ text: 'hi' }); // { success: true, output: 'hi' }
 * ```
 */
export interface Tool {
  /** snake_case, unique among mounted tools. */
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the input; `{}` when absent. */
  readonly inputSchema?: JSONSchema;
  readonly executionProfile?: ExecutionProfile;
  /** Other names the model may use for this tool (`Read`, `read`). */
  readonly aliases?: readonly string[];
  /**
   * Declared by a tool whose calls run sub-sessions (delegate). An
   * orchestrator reads this, never the tool's name: while a call runs, the
   * cancellation token lists it under `sessionName(input)` (the agent) when
   * that gives a name.
   */
  readonly subSessions?: SubSessions;
  /**
   * Ask a provider with a strict mode (OpenAI) to constrain the model's input
   * to `inputSchema`, offered as the request's `tools[].strict`. The provider
   * applies its vendor's rules to the schema, or sends the tool non-strict
   * when the schema cannot follow them. Default: not strict.
   */
  readonly strict?: boolean;
  /** Never throws for a bad call: returns `{ success: false, error: { message } }`. */
  execute(input: Record<string, unknown>, options?: ToolCallOptions): Promise<ToolResult>;
}

// ------------------------------------------------------------------ Provider

/**
 * Per-call options of `Provider.complete`: the `signal` that aborts the request,
 * plus provider-specific overrides (the reference's keyword arguments).
 */
export interface CompleteOptions {
  signal?: AbortSignal;
  [key: string]: unknown;
}

/**
 * An LLM backend. `complete` sends a `ChatRequest` and returns the `ChatResponse`
 * (both snake_case data); `parseToolCalls` reads the tool calls of a response;
 * `getInfo` and `listModels` describe it; `stream` and `getModelInfo` are
 * optional. Failures are thrown as `LLMError`s, whose `kind` and `retryable` tell
 * the caller what to do. Mounted with `coordinator.mount('providers', provider)`,
 * keyed by `name`.
 *
 * @example
 * ```ts
 * import { type Coordinator, type Provider, responseToolCalls } from '@amplifier/core';
 *
 * // Answers every request with the text of its last message.
 * const parrot: Provider = {
 *   name: 'parrot',
 *   getInfo: () => ({ id: 'parrot', display_name: 'Parrot' }),
 *   listModels: async () => [],
 *   async complete(request, { signal } = {}) {
 *     signal?.throwIfAborted();
 *     const last = request.messages.at(-1);
 *     const text = typeof last?.content === 'string' ? last.content : '';
 *     return { content: [{ type: 'text', text }], finish_reason: 'stop' };
 *   },
 *   parseToolCalls: (response) => responseToolCalls(response),
 * };
 *
 * export function mount(coordinator: Coordinator): void {
 *   coordinator.mount('providers', parrot);
 * }
 * ```
 */
export interface Provider {
  readonly name: string;
  /** Lower runs first when an orchestrator picks a default provider (default 100). */
  readonly priority?: number;
  getInfo(): ProviderInfo;
  /** `[]` when the provider cannot list models. */
  listModels(): Promise<ModelInfo[]>;
  complete(request: ChatRequest, options?: CompleteOptions): Promise<ChatResponse>;
  parseToolCalls(response: ChatResponse): ToolCall[];
  stream?(request: ChatRequest, options?: { signal?: AbortSignal }): AsyncIterable<StreamEvent>;
  /** Info of the model currently selected, when known (context managers size budgets from it). */
  getModelInfo?(): ModelInfo | undefined;
}

// ------------------------------------------------------------- Orchestrator

/** Everything an orchestrator works with, passed as one object. */
export interface OrchestratorRun {
  context: ContextManager;
  /** Live collections from the coordinator. */
  providers: Map<string, Provider>;
  tools: Map<string, Tool>;
  hooks: HookRegistry;
  coordinator: Coordinator;
  signal?: AbortSignal;
}

/**
 * The agent loop. `execute(prompt, run)` runs one turn with what `run` holds (the
 * context, the live provider and tool Maps, the hooks, the coordinator and the
 * turn's abort `signal`) and returns the final response text. Mounted in the
 * single `orchestrator` slot; the session calls it once per `session.execute()`.
 *
 * @example
 * ```ts
 * import { type Coordinator, type Orchestrator, responseText } from '@amplifier/core';
 *
 * // One provider call per turn, no tools.
 * const singleShot: Orchestrator = {
 *   async execute(prompt, { context, providers, hooks, signal }) {
 *     await hooks.emit('prompt:submit', { prompt });
 *     await context.addMessage({ role: 'user', content: prompt });
 *     const [provider] = providers.values();
 *     if (provider === undefined) throw new Error('no provider mounted');
 *     const messages = await context.getMessagesForRequest({ provider });
 *     const response = await provider.complete({ messages }, { signal });
 *     const text = responseText(response.content);
 *     await context.addMessage({ role: 'assistant', content: text });
 *     return text;
 *   },
 * };
 *
 * export function mount(coordinator: Coordinator): void {
 *   coordinator.mount('orchestrator', singleShot);
 * }
 * ```
 */
export interface Orchestrator {
  /** Runs one turn and returns the final response text. */
  execute(prompt: string, run: OrchestratorRun): Promise<string>;
}

// ----------------------------------------------------------- ContextManager

/**
 * Options of `ContextManager.getMessagesForRequest`: the `provider` the request
 * goes to (the context sizes its budget from its model), or a `tokenBudget`.
 */
export interface GetMessagesOptions {
  /** Deprecated in the reference; `provider` is preferred. */
  tokenBudget?: number;
  provider?: Provider;
}

/**
 * The conversation memory of a session, as snake_case `Message` data.
 * `getMessages` returns the full history; `getMessagesForRequest` returns the view
 * to send next, which may be compacted but never changes the stored history;
 * `setMessages` replaces the history (on resume) and `clear` empties it. Mounted
 * in the single `context` slot.
 *
 * @example
 * ```ts
 * import type { ContextManager, Coordinator, Message } from '@amplifier/core';
 *
 * // Keeps every message and never compacts.
 * function memoryContext(): ContextManager {
 *   let messages: Message[] = [];
 *   return {
 *     async addMessage(message) {
 *       messages.push(message);
 *     },
 *     getMessagesForRequest: async () => [...messages],
 *     getMessages: async () => [...messages],
 *     async setMessages(next) {
 *       messages = [...next];
 *     },
 *     async clear() {
 *       messages = [];
 *     },
 *   };
 * }
 *
 * export function mount(coordinator: Coordinator): void {
 *   coordinator.mount('context', memoryContext());
 * }
 * ```
 */
export interface ContextManager {
  addMessage(message: Message): Promise<void>;
  /** The (possibly compacted) view to send with the next request; never modifies history. */
  getMessagesForRequest(options?: GetMessagesOptions): Promise<Message[]>;
  /** The full history, never compacted. */
  getMessages(): Promise<Message[]>;
  setMessages(messages: Message[]): Promise<void>;
  clear(): Promise<void>;
}

// ------------------------------------------------- approval and display (app)

/** What the kernel asks an approval provider (from an `ask_user` hook result). */
export interface ApprovalRequest {
  prompt: string;
  options: string[];
  /** Seconds; the kernel applies `default` when it passes. */
  timeout: number;
  default: 'allow' | 'deny';
  /** The event and hook that asked, when known. */
  event?: string;
  hook_name?: string;
}

/**
 * The app's way of asking a person. Returns the option chosen. Only "allow",
 * "allow once" and "allow always" (any case) allow; anything else denies.
 * It may throw `ApprovalTimeoutError`; the kernel also enforces the timeout itself
 * and aborts `signal` when it gives up waiting.
 */
export interface ApprovalProvider {
  requestApproval(request: ApprovalRequest, options?: { signal?: AbortSignal }): Promise<string>;
  /**
   * Why no person can answer (`no terminal to ask`), when that is so: the
   * provider then answers with the request's default, and a denial's reason
   * says this instead of "User denied".
   */
  readonly unattended?: string;
}

/** How hooks reach the user (`user_message`). Synchronous; errors are logged, never raised. */
export interface DisplaySystem {
  showMessage(message: string, level: MessageLevel, source: string): void;
}

/** Where the kernel writes its own diagnostics. */
export interface Logger {
  debug(message: string, ...details: unknown[]): void;
  info(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
}

// ---------------------------------------------------------------- modules

/** What a module's `mount` may return: a cleanup, or nothing. */
export type Cleanup = () => void | Promise<void>;

/**
 * A module's `mount(coordinator, config)`: mounts its objects on the coordinator
 * and may return a `Cleanup`; sync or async. `config` is the module's own copy of
 * the config in its plan entry. When it throws during a session's initialization,
 * everything it did through the coordinator is undone.
 */
export type MountFunction = (
  coordinator: Coordinator,
  config: Record<string, unknown>,
) => Cleanup | void | Promise<Cleanup | void>;

/** The exports of a module package's entry. */
export interface ModuleExports {
  mount: MountFunction;
  /** Called once every module of the session is mounted. */
  onSessionReady?: (coordinator: Coordinator) => void | Promise<void>;
}

/** A module the loader has resolved, ready to mount with its config. */
export interface LoadedModule {
  id: string;
  type: ModuleType | undefined;
  /** Mounts the module with the config it was loaded with. */
  mount(coordinator: Coordinator): Promise<Cleanup | void>;
  onSessionReady?: (coordinator: Coordinator) => Promise<void>;
  /** Its package declares `"required": true`: the session must not run without it. */
  required?: boolean;
  /** The module id `id` is an alias of (`loop-basic` for `loop-streaming`), when loaded through an alias. */
  aliasOf?: string;
  /** Package name, version and real path, when the module came from a package. */
  packageName?: string;
  version?: string;
  path?: string;
}

/** Options of `ModuleLoaderLike.load`: a `source` hint and the module `type` the caller expects. */
export interface LoadOptions {
  /** A path, a `file:` URL or a package name. */
  source?: string;
  /** The type the caller expects; a module declaring another type is refused. */
  type?: ModuleType;
  /**
   * Resolve module sources through this first (what is mounted at
   * `module-source-resolver`: the session passes its coordinator's on every
   * load). The loader needs no coordinator of its own.
   */
  sourceResolver?: ModuleSourceResolver;
}

/** What a session needs from a loader. `ModuleLoader` is the standard one. */
export interface ModuleLoaderLike {
  load(id: string, config?: Record<string, unknown>, options?: LoadOptions): Promise<LoadedModule>;
  cleanup?(): void;
}

/** A resolved location of a module: a package directory or an entry file. */
export interface ModuleSource {
  resolve(): string | Promise<string>;
}

/** App-supplied resolution (git URLs, registries, ...). Mounted at `module-source-resolver`. */
export interface ModuleSourceResolver {
  resolve(moduleId: string, options: { sourceHint?: string }): ModuleSource | Promise<ModuleSource>;
}
