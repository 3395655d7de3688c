/**
 * The contracts every module implements or consumes. Objects with behaviour use
 * camelCase (`inputSchema`, `listModels()`); the data they exchange keeps
 * Amplifier's snake_case (see messages.ts and models.ts). Structural typing
 * only: nothing here needs to be extended or instantiated.
 */
import type { Coordinator } from './coordinator.js';
import type { HookRegistry } from './hooks.js';
import type { ChatRequest, ChatResponse, JSONSchema, Message, StreamEvent, ToolCall } from './messages.js';
import type { MessageLevel, ModelInfo, ModuleType, ProviderInfo, ToolResult } from './models.js';

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

export interface ToolCallOptions {
  /** Aborted when the call must stop (timeout, immediate cancellation). */
  signal?: AbortSignal;
  toolCallId?: string;
  onProgress?(progress: unknown): void;
}

export interface Tool {
  /** snake_case, unique among mounted tools. */
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the input; `{}` when absent. */
  readonly inputSchema?: JSONSchema;
  readonly executionProfile?: ExecutionProfile;
  /** Other names the model may use for this tool (`Read`, `read`). */
  readonly aliases?: readonly string[];
  /** Never throws for a bad call: returns `{ success: false, error: { message } }`. */
  execute(input: Record<string, unknown>, options?: ToolCallOptions): Promise<ToolResult>;
}

// ------------------------------------------------------------------ Provider

export interface CompleteOptions {
  signal?: AbortSignal;
  [key: string]: unknown;
}

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

export interface Orchestrator {
  /** Runs one turn and returns the final response text. */
  execute(prompt: string, run: OrchestratorRun): Promise<string>;
}

// ----------------------------------------------------------- ContextManager

export interface GetMessagesOptions {
  /** Deprecated in the reference; `provider` is preferred. */
  tokenBudget?: number;
  provider?: Provider;
}

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
  /** Package name, version and real path, when the module came from a package. */
  packageName?: string;
  version?: string;
  path?: string;
}

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
