/**
 * The payload types of the canonical events, keyed by event name, so that
 * `hooks.emit('tool:pre', data)` and `hooks.register('tool:pre', handler)` are
 * checked by the compiler. Types only: nothing here exists at run time.
 *
 * Payloads are what the emitters send today: snake_case plain data, Amplifier's
 * field names. A field is required only when every emitter always sends it.
 * Each type keeps an index signature: `emit` merges the registry's default
 * fields (`session_id`, `parent_id`) and a `timestamp`, and emitters may add
 * fields of their own.
 *
 * The map is closed: an event name not in it is a type error in `emit` and
 * `register`, unless a module declares it by augmenting `EventPayloads`, or
 * the name is only known at run time and goes through `dynamicEvent(name)`.
 */
import type { CancellationState } from './cancellation.js';
import type * as E from './events.js';
import type { EventData } from './hooks.js';
import type { LLMErrorKind } from './llm-errors.js';
import type { ContentBlock, ContentBlockType, Usage } from './messages.js';
import type { SessionStatus } from './module-types.js';
import type { ToolResult } from './results.js';

// ------------------------------------------------------------ shared parts

/** An error in a payload (`tool:error`, `provider:error`): the error's class name and its message. */
export interface EventErrorInfo {
  type: string;
  msg: string;
  [key: string]: unknown;
}

/** The usage of `llm:response`: gross `input_tokens` (cache reads included), no `total_tokens`; the rest only when not zero. */
export interface LLMResponseUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
  reasoning_tokens?: number;
  /** A decimal string ("0.0123"). */
  cost_usd?: string;
  [key: string]: unknown;
}

// ------------------------------------------------------------ session (kernel)

/** `session:start`: the first `execute` of a new session (the kernel). */
export interface SessionStartEvent {
  session_id: string;
  /** Null for a top-level session. */
  parent_id: string | null;
  /** The mount plan's `session.metadata`, when not empty. */
  metadata?: Record<string, unknown>;
  /** The whole config with secrets redacted, when `session.raw` is on. */
  raw?: unknown;
  [key: string]: unknown;
}

/** `session:end`: the session is cleaned up (the kernel; only after it was initialized). */
export interface SessionEndEvent {
  session_id: string;
  status: SessionStatus['status'];
  [key: string]: unknown;
}

/** `session:fork`: a child session finished initializing (the kernel). */
export interface SessionForkEvent {
  /** The parent session's id. */
  parent: string;
  session_id: string;
  metadata?: Record<string, unknown>;
  raw?: unknown;
  [key: string]: unknown;
}

/** `session:resume`: the first `execute` of a resumed session (the kernel); the fields of `session:start`. */
export type SessionResumeEvent = SessionStartEvent;

// ------------------------------------------------------------ prompt, plan

/** `prompt:submit`: the orchestrator received the prompt, before anything else of the turn. */
export interface PromptSubmitEvent {
  prompt: string;
  [key: string]: unknown;
}

/** `prompt:complete`: the turn's answer (loop-basic sends a preview and its length, ScriptedOrchestrator the prompt and response). */
export interface PromptCompleteEvent {
  /** The first 200 characters of the answer. */
  response_preview?: string;
  /** The answer's length in characters. */
  length?: number;
  prompt?: string;
  response?: string;
  [key: string]: unknown;
}

/** `plan:start`: no field is defined (no emitter in this project). */
export interface PlanStartEvent {
  [key: string]: unknown;
}

/** `plan:end`: no field is defined (no emitter in this project). */
export interface PlanEndEvent {
  [key: string]: unknown;
}

// ------------------------------------------------------------ provider (orchestrators, providers)

/** `provider:request`: the orchestrator is about to call the provider (loop-basic: iterations from 0). */
export interface ProviderRequestEvent {
  provider: string;
  iteration: number;
  /** The extra call after `max_iterations`, which asks the model to wrap up. */
  max_reached?: boolean;
  [key: string]: unknown;
}

/** `provider:response`: the provider answered. */
export interface ProviderResponseEvent {
  provider: string;
  usage: Usage | null;
  /** The response asks for tool calls. */
  tool_calls: boolean;
  [key: string]: unknown;
}

/** `provider:retry`: a retryable failure, before retry number `attempt` (provider-http). */
export interface ProviderRetryEvent {
  provider: string;
  model: string;
  /** 1-based. */
  attempt: number;
  max_retries: number;
  /** Seconds until the retry. */
  delay: number;
  /** The error's class name (`RateLimitError`). */
  error_type: string;
  error_kind: LLMErrorKind;
  status_code: number | null;
  /** Seconds, from the response's `Retry-After`. */
  retry_after?: number;
  /** The error's message. */
  error?: string;
  /** The message of the error's innermost cause (`connect ECONNREFUSED 127.0.0.1:9`). */
  cause?: string;
  [key: string]: unknown;
}

/** `provider:error`: the provider call failed (the orchestrator); `retryable` and `status_code` only for an `LLMError`. */
export interface ProviderErrorEvent {
  provider: string;
  error: EventErrorInfo;
  retryable?: boolean;
  status_code?: number | null;
  [key: string]: unknown;
}

/** `provider:throttle`: a rate-limited call waits before its retry (provider-http, after `provider:retry`). */
export interface ProviderThrottleEvent {
  provider: string;
  model: string;
  /** The retry this wait is for (1-based). */
  attempt: number;
  /** Seconds waited before the retry (jitter included). */
  delay: number;
  /** Seconds the server asked to wait, when it said. */
  retry_after?: number;
  /** Where the wait came from: a header (`retry-after-ms`, `retry-after`, a rate-limit reset header), `body`, or `backoff`. */
  source: string;
  [key: string]: unknown;
}

/** `provider:tool_sequence_repaired`: tool calls without a result got a synthetic error result (provider-http). */
export interface ProviderToolSequenceRepairedEvent {
  provider: string;
  repair_count: number;
  repairs: readonly { tool_call_id: string; tool_name: string }[];
  /** Synthetic assistant messages inserted; only when not zero. */
  synthetic_assistant_count?: number;
  [key: string]: unknown;
}

/** `provider:resolve`: no field is defined (no emitter in this project). */
export interface ProviderResolveEvent {
  [key: string]: unknown;
}

// ------------------------------------------------------------ llm (providers)

/** `llm:request`: a provider is about to send a model call (the mock sends the first three fields only). */
export interface LLMRequestEvent {
  provider: string;
  model: string;
  message_count: number;
  /** A system or developer prompt is sent. */
  has_instructions?: boolean;
  reasoning_enabled?: boolean;
  thinking_enabled?: boolean;
  thinking_budget?: number | null;
  background_mode?: boolean;
  stream?: boolean;
  tool_count?: number;
  /** The wire body with secrets redacted, when the provider's `raw` is on. */
  raw?: unknown;
  [key: string]: unknown;
}

/** `llm:response`: a model call ended, `status: 'ok'` with `usage` or `status: 'error'` with `error`. */
export interface LLMResponseEvent {
  provider: string;
  model: string;
  status: 'ok' | 'error';
  duration_ms: number;
  /** With `status: 'ok'`. */
  usage?: LLMResponseUsage;
  continuation_count?: number;
  finish_reason?: string;
  rate_limits?: Record<string, unknown>;
  /** The response with secrets redacted, when the provider's `raw` is on. */
  raw?: unknown;
  /** With `status: 'error'`: the message. */
  error?: string;
  error_kind?: LLMErrorKind;
  status_code?: number;
  [key: string]: unknown;
}

// ------------------------------------------------------------ token streaming (providers)

/** The kind of a streamed block: `tool_use` blocks get start and end only, never deltas. */
export type StreamBlockType = 'text' | 'thinking' | 'tool_use';

/** `llm:stream_block_start`: a content block of a streamed response begins (before its deltas). */
export interface LLMStreamBlockStartEvent {
  /** One uuid per model call, shared by every stream event of that call. */
  request_id: string;
  /** 0-based, one index space for every block type of the response. */
  block_index: number;
  block_type: StreamBlockType;
  /** Only for `tool_use`, when the tool has a name. */
  name?: string;
  [key: string]: unknown;
}

/** `llm:stream_block_delta`: a non-empty fragment of a text or thinking block (never tool-input JSON). */
export interface LLMStreamBlockDeltaEvent {
  request_id: string;
  block_index: number;
  block_type: 'text' | 'thinking';
  /** 0-based, counted per block. */
  sequence: number;
  text: string;
  [key: string]: unknown;
}

/** `llm:stream_block_end`: a block completed (every started block ends by the end of the stream). */
export interface LLMStreamBlockEndEvent {
  request_id: string;
  block_index: number;
  block_type: StreamBlockType;
  [key: string]: unknown;
}

/** `llm:stream_aborted`: the stream failed after at least one delta, just before the error propagates. */
export interface LLMStreamAbortedEvent {
  request_id: string;
  /** The error's class name and message. */
  error: EventErrorInfo;
  [key: string]: unknown;
}

// ------------------------------------------------------------ content blocks, thinking

/** `content_block:start`: one per block of a response, in order (the orchestrator). */
export interface ContentBlockStartEvent {
  block_type: ContentBlockType;
  /** 0-based. */
  block_index: number;
  total_blocks: number;
  [key: string]: unknown;
}

/** `content_block:delta`: no field is defined (no emitter in this project; providers stream `llm:stream_block_delta`). */
export interface ContentBlockDeltaEvent {
  [key: string]: unknown;
}

/** `content_block:end`: the whole block, after its `content_block:start` (the orchestrator). */
export interface ContentBlockEndEvent {
  block_index: number;
  total_blocks: number;
  block: ContentBlock;
  /** The response's usage, when it has one. */
  usage?: Usage;
  [key: string]: unknown;
}

/** `thinking:delta`: no field is defined (no emitter in this project). */
export interface ThinkingDeltaEvent {
  [key: string]: unknown;
}

/** `thinking:final`: no field is defined (no emitter in this project). */
export interface ThinkingFinalEvent {
  [key: string]: unknown;
}

// ------------------------------------------------------------ tools (orchestrators)

/** `tool:pre`: before a tool call runs; `deny` refuses it, `modify` may replace `tool_input`. */
export interface ToolPreEvent {
  tool_name: string;
  tool_input: Record<string, unknown>;
  /** loop-basic always sends it. */
  tool_call_id?: string;
  /** The same for every call of one round. */
  parallel_group_id?: string;
  [key: string]: unknown;
}

/** `tool:post`: a tool call returned; `modify` may replace `result`. */
export interface ToolPostEvent {
  tool_name: string;
  tool_input?: Record<string, unknown>;
  /** loop-basic always sends it. */
  result?: ToolResult;
  tool_call_id?: string;
  parallel_group_id?: string;
  [key: string]: unknown;
}

/** `tool:error`: a tool call failed (unknown tool, invalid input, the tool threw). */
export interface ToolErrorEvent {
  tool_name: string;
  error: EventErrorInfo;
  tool_call_id?: string;
  parallel_group_id?: string;
  [key: string]: unknown;
}

// ------------------------------------------------------------ context (context managers)

/** `context:pre_compact`: no field is defined (no emitter in this project). */
export interface ContextPreCompactEvent {
  [key: string]: unknown;
}

/** `context:post_compact`: no field is defined (no emitter in this project). */
export interface ContextPostCompactEvent {
  [key: string]: unknown;
}

/** `context:compaction`: the context was compacted; context-simple sends all these stats. */
export interface ContextCompactionEvent {
  before_tokens?: number;
  after_tokens?: number;
  before_messages?: number;
  after_messages?: number;
  messages_removed?: number;
  messages_truncated?: number;
  user_messages_stubbed?: number;
  system_messages_preserved?: number;
  /** The highest strategy level reached (context-simple: 1-8). */
  strategy_level?: number;
  budget?: number;
  target_tokens?: number;
  protected_recent?: number;
  protected_tool_results?: number;
  [key: string]: unknown;
}

/** `context:include`: no field is defined (no emitter in this project). */
export interface ContextIncludeEvent {
  [key: string]: unknown;
}

// ------------------------------------------------------------ orchestrator, execution

/** `orchestrator:complete`: the orchestrator's last event of a turn. */
export interface OrchestratorCompleteEvent {
  /** The orchestrator's name (`loop-basic`). */
  orchestrator: string;
  turn_count: number;
  status: 'success' | 'incomplete' | 'cancelled';
  [key: string]: unknown;
}

/** `execution:start`: the first event of an orchestrator that emits it (not loop-basic). */
export interface ExecutionStartEvent {
  prompt: string;
  [key: string]: unknown;
}

/** `execution:end`: an orchestrator that emits `execution:start` ends the turn (some send no field). */
export interface ExecutionEndEvent {
  response?: string;
  status?: 'completed' | 'cancelled' | 'error';
  [key: string]: unknown;
}

// ------------------------------------------------------------ user, artifacts, policy

/** `user:notification`: no field is defined (no emitter in this project). */
export interface UserNotificationEvent {
  [key: string]: unknown;
}

/** `artifact:write`: a tool wrote a file. */
export interface ArtifactWriteEvent {
  path: string;
  bytes: number;
  /** The tool, when it says (`web_fetch`). */
  tool?: string;
  [key: string]: unknown;
}

/** `artifact:read`: a tool read a file. */
export interface ArtifactReadEvent {
  path: string;
  bytes: number;
  [key: string]: unknown;
}

/** `policy:violation`: no field is defined (no emitter in this project). */
export interface PolicyViolationEvent {
  [key: string]: unknown;
}

// ------------------------------------------------------------ approval (approval hooks)

/** `approval:required`: a tool call is checked for approval. */
export interface ApprovalRequiredEvent {
  tool_name: string;
  /** What the call does, for a person (`Execute: ls -la`). */
  action: string;
  /** `high` for shell tools, else `medium`. */
  risk_level: string;
  tool_call_id?: string;
  args_hash?: string;
  /** The rule that decided, null when the default did. */
  rule?: unknown;
  [key: string]: unknown;
}

/** `approval:granted`: a tool call may run. */
export interface ApprovalGrantedEvent {
  tool_name: string;
  reason: string;
  /** How long the approval holds (`once`, `session`). */
  scope?: string;
  tool_call_id?: string;
  args_hash?: string;
  rule?: unknown;
  /** What decided (a rule, a person, a grant, ...). */
  source?: string;
  [key: string]: unknown;
}

/** `approval:denied`: a tool call is refused; `tool_name` is null when the event had none. */
export interface ApprovalDeniedEvent {
  tool_name: string | null;
  reason: string;
  tool_call_id?: string | null;
  args_hash?: string;
  rule?: unknown;
  source?: string;
  [key: string]: unknown;
}

// ------------------------------------------------------------ cancellation

/** `cancel:requested`: the kernel sends `level` and the running tools; an orchestrator sends its name, `state` and `turn_count`. */
export interface CancelRequestedEvent {
  level?: 'graceful' | 'immediate';
  /** Ids of the tool calls running. */
  running_tools?: string[];
  running_tool_names?: string[];
  orchestrator?: string;
  state?: CancellationState;
  turn_count?: number;
  [key: string]: unknown;
}

/** `cancel:completed`: a cancelled turn ended (the kernel; orchestrators add their name and `turn_count`). */
export interface CancelCompletedEvent {
  was_immediate: boolean;
  /** The message of the error the turn ended with. */
  error?: string;
  orchestrator?: string;
  turn_count?: number;
  [key: string]: unknown;
}

// ------------------------------------------------------------ modules (kernel)

/** `module:on_session_ready_failed`: a module's `onSessionReady` threw (the kernel). */
export interface ModuleOnSessionReadyFailedEvent {
  module_id: string;
  /** The error's message. */
  error: string;
  [key: string]: unknown;
}

// ------------------------------------------------------------ the map

/**
 * The payload type of each of the 42 canonical events (`ALL_EVENTS`). Keyed by
 * the constants of events.ts, where each name is written once: a name in this
 * map that is not a constant, or a constant missing from `ALL_EVENTS`, does not
 * compile (see `CanonicalEventName`).
 */
export interface CanonicalEventPayloads {
  [E.SESSION_START]: SessionStartEvent;
  [E.SESSION_END]: SessionEndEvent;
  [E.SESSION_FORK]: SessionForkEvent;
  [E.SESSION_RESUME]: SessionResumeEvent;
  [E.PROMPT_SUBMIT]: PromptSubmitEvent;
  [E.PROMPT_COMPLETE]: PromptCompleteEvent;
  [E.PLAN_START]: PlanStartEvent;
  [E.PLAN_END]: PlanEndEvent;
  [E.PROVIDER_REQUEST]: ProviderRequestEvent;
  [E.PROVIDER_RESPONSE]: ProviderResponseEvent;
  [E.PROVIDER_RETRY]: ProviderRetryEvent;
  [E.PROVIDER_ERROR]: ProviderErrorEvent;
  [E.PROVIDER_THROTTLE]: ProviderThrottleEvent;
  [E.PROVIDER_TOOL_SEQUENCE_REPAIRED]: ProviderToolSequenceRepairedEvent;
  [E.PROVIDER_RESOLVE]: ProviderResolveEvent;
  [E.LLM_REQUEST]: LLMRequestEvent;
  [E.LLM_RESPONSE]: LLMResponseEvent;
  [E.CONTENT_BLOCK_START]: ContentBlockStartEvent;
  [E.CONTENT_BLOCK_DELTA]: ContentBlockDeltaEvent;
  [E.CONTENT_BLOCK_END]: ContentBlockEndEvent;
  [E.THINKING_DELTA]: ThinkingDeltaEvent;
  [E.THINKING_FINAL]: ThinkingFinalEvent;
  [E.TOOL_PRE]: ToolPreEvent;
  [E.TOOL_POST]: ToolPostEvent;
  [E.TOOL_ERROR]: ToolErrorEvent;
  [E.CONTEXT_PRE_COMPACT]: ContextPreCompactEvent;
  [E.CONTEXT_POST_COMPACT]: ContextPostCompactEvent;
  [E.CONTEXT_COMPACTION]: ContextCompactionEvent;
  [E.CONTEXT_INCLUDE]: ContextIncludeEvent;
  [E.ORCHESTRATOR_COMPLETE]: OrchestratorCompleteEvent;
  [E.EXECUTION_START]: ExecutionStartEvent;
  [E.EXECUTION_END]: ExecutionEndEvent;
  [E.USER_NOTIFICATION]: UserNotificationEvent;
  [E.ARTIFACT_WRITE]: ArtifactWriteEvent;
  [E.ARTIFACT_READ]: ArtifactReadEvent;
  [E.POLICY_VIOLATION]: PolicyViolationEvent;
  [E.APPROVAL_REQUIRED]: ApprovalRequiredEvent;
  [E.APPROVAL_GRANTED]: ApprovalGrantedEvent;
  [E.APPROVAL_DENIED]: ApprovalDeniedEvent;
  [E.CANCEL_REQUESTED]: CancelRequestedEvent;
  [E.CANCEL_COMPLETED]: CancelCompletedEvent;
  [E.MODULE_ON_SESSION_READY_FAILED]: ModuleOnSessionReadyFailedEvent;
}

/**
 * Every typed event: the canonical ones, the token-streaming events of
 * providers (`llm:stream_block_start|delta|end`, `llm:stream_aborted`: not
 * canonical, so not in `ALL_EVENTS`), and those modules add by declaration
 * merging (keep the index signature: `emit` adds fields):
 *
 * ```ts
 * declare module '@amplifier/core' {
 *   interface EventPayloads {
 *     'lint:finished': { file: string; problems: number; [key: string]: unknown };
 *   }
 * }
 * ```
 */
export interface EventPayloads extends CanonicalEventPayloads {
  'llm:stream_block_start': LLMStreamBlockStartEvent;
  'llm:stream_block_delta': LLMStreamBlockDeltaEvent;
  'llm:stream_block_end': LLMStreamBlockEndEvent;
  'llm:stream_aborted': LLMStreamAbortedEvent;
}

/** The name of one of the 42 canonical events (the element type of `ALL_EVENTS`). */
export type CanonicalEventName = keyof CanonicalEventPayloads;

/**
 * The name of a typed event: canonical, a provider's token-streaming event, or
 * one a module declared by augmenting `EventPayloads`. `emit` and `register`
 * take only these (and a `DynamicEventName`, see `dynamicEvent`).
 */
export type EventName = keyof EventPayloads & string;

/** The payload type of event `E`: its entry in `EventPayloads`, else `EventData` (a `dynamicEvent` name). */
export type EventPayload<E extends string> = E extends keyof EventPayloads ? EventPayloads[E] : EventData;
