/**
 * Canonical event names (Amplifier's current set of 42, in its order). Each
 * name is written once, here: `CanonicalEventPayloads` is keyed by these
 * constants and `ALL_EVENTS` lists them, checked complete by the compiler.
 * Modules that emit other events type them by augmenting `EventPayloads` and
 * declare them on the `observability.events` contribution channel so loggers
 * subscribe to them.
 */
import type { CanonicalEventName } from './event-payloads.js';

/** `session:start`: the first `execute` of a new session (the kernel). Payload: `SessionStartEvent`. */
export const SESSION_START = 'session:start';
/** `session:end`: the session is cleaned up (the kernel; only after it was initialized). Payload: `SessionEndEvent`. */
export const SESSION_END = 'session:end';
/** `session:fork`: a child session finished initializing (the kernel). Payload: `SessionForkEvent`. */
export const SESSION_FORK = 'session:fork';
/** `session:resume`: the first `execute` of a resumed session (the kernel); the fields of `session:start`. Payload: `SessionResumeEvent`. */
export const SESSION_RESUME = 'session:resume';

/** `prompt:submit`: the orchestrator received the prompt, before anything else of the turn. Payload: `PromptSubmitEvent`. */
export const PROMPT_SUBMIT = 'prompt:submit';
/** `prompt:complete`: the turn's answer (loop-basic sends a preview and its length, ScriptedOrchestrator the prompt and response). Payload: `PromptCompleteEvent`. */
export const PROMPT_COMPLETE = 'prompt:complete';

/** `plan:start`: no field is defined (no emitter in this project). Payload: `PlanStartEvent`. */
export const PLAN_START = 'plan:start';
/** `plan:end`: no field is defined (no emitter in this project). Payload: `PlanEndEvent`. */
export const PLAN_END = 'plan:end';

/** `provider:request`: the orchestrator is about to call the provider (loop-basic: iterations from 0). Payload: `ProviderRequestEvent`. */
export const PROVIDER_REQUEST = 'provider:request';
/** `provider:response`: the provider answered. Payload: `ProviderResponseEvent`. */
export const PROVIDER_RESPONSE = 'provider:response';
/** `provider:retry`: a retryable failure, before retry number `attempt` (provider-http). Payload: `ProviderRetryEvent`. */
export const PROVIDER_RETRY = 'provider:retry';
/** `provider:error`: the provider call failed (the orchestrator); `retryable` and `status_code` only for an `LLMError`. Payload: `ProviderErrorEvent`. */
export const PROVIDER_ERROR = 'provider:error';
/** `provider:throttle`: no field is defined (no emitter in this project). Payload: `ProviderThrottleEvent`. */
export const PROVIDER_THROTTLE = 'provider:throttle';
/** `provider:tool_sequence_repaired`: tool calls without a result got a synthetic error result (provider-http). Payload: `ProviderToolSequenceRepairedEvent`. */
export const PROVIDER_TOOL_SEQUENCE_REPAIRED = 'provider:tool_sequence_repaired';
/** `provider:resolve`: no field is defined (no emitter in this project). Payload: `ProviderResolveEvent`. */
export const PROVIDER_RESOLVE = 'provider:resolve';

/** `llm:request`: a provider is about to send a model call (the mock sends the first three fields only). Payload: `LLMRequestEvent`. */
export const LLM_REQUEST = 'llm:request';
/** `llm:response`: a model call ended, `status: 'ok'` with `usage` or `status: 'error'` with `error`. Payload: `LLMResponseEvent`. */
export const LLM_RESPONSE = 'llm:response';

/** `content_block:start`: one per block of a response, in order (the orchestrator). Payload: `ContentBlockStartEvent`. */
export const CONTENT_BLOCK_START = 'content_block:start';
/** `content_block:delta`: no field is defined (no emitter in this project; providers stream `llm:stream_block_delta`). Payload: `ContentBlockDeltaEvent`. */
export const CONTENT_BLOCK_DELTA = 'content_block:delta';
/** `content_block:end`: the whole block, after its `content_block:start` (the orchestrator). Payload: `ContentBlockEndEvent`. */
export const CONTENT_BLOCK_END = 'content_block:end';

/** `thinking:delta`: no field is defined (no emitter in this project). Payload: `ThinkingDeltaEvent`. */
export const THINKING_DELTA = 'thinking:delta';
/** `thinking:final`: no field is defined (no emitter in this project). Payload: `ThinkingFinalEvent`. */
export const THINKING_FINAL = 'thinking:final';

/** `tool:pre`: before a tool call runs; `deny` refuses it, `modify` may replace `tool_input`. Payload: `ToolPreEvent`. */
export const TOOL_PRE = 'tool:pre';
/** `tool:post`: a tool call returned; `modify` may replace `result`. Payload: `ToolPostEvent`. */
export const TOOL_POST = 'tool:post';
/** `tool:error`: a tool call failed (unknown tool, invalid input, the tool threw). Payload: `ToolErrorEvent`. */
export const TOOL_ERROR = 'tool:error';

/** `context:pre_compact`: no field is defined (no emitter in this project). Payload: `ContextPreCompactEvent`. */
export const CONTEXT_PRE_COMPACT = 'context:pre_compact';
/** `context:post_compact`: no field is defined (no emitter in this project). Payload: `ContextPostCompactEvent`. */
export const CONTEXT_POST_COMPACT = 'context:post_compact';
/** `context:compaction`: the context was compacted; context-simple sends all these stats. Payload: `ContextCompactionEvent`. */
export const CONTEXT_COMPACTION = 'context:compaction';
/** `context:include`: no field is defined (no emitter in this project). Payload: `ContextIncludeEvent`. */
export const CONTEXT_INCLUDE = 'context:include';

/** `orchestrator:complete`: the orchestrator's last event of a turn. Payload: `OrchestratorCompleteEvent`. */
export const ORCHESTRATOR_COMPLETE = 'orchestrator:complete';

/** `execution:start`: the first event of an orchestrator that emits it (not loop-basic). Payload: `ExecutionStartEvent`. */
export const EXECUTION_START = 'execution:start';
/** `execution:end`: an orchestrator that emits `execution:start` ends the turn (some send no field). Payload: `ExecutionEndEvent`. */
export const EXECUTION_END = 'execution:end';

/** `user:notification`: no field is defined (no emitter in this project). Payload: `UserNotificationEvent`. */
export const USER_NOTIFICATION = 'user:notification';

/** `artifact:write`: a tool wrote a file. Payload: `ArtifactWriteEvent`. */
export const ARTIFACT_WRITE = 'artifact:write';
/** `artifact:read`: a tool read a file. Payload: `ArtifactReadEvent`. */
export const ARTIFACT_READ = 'artifact:read';

/** `policy:violation`: no field is defined (no emitter in this project). Payload: `PolicyViolationEvent`. */
export const POLICY_VIOLATION = 'policy:violation';

/** `approval:required`: a tool call is checked for approval. Payload: `ApprovalRequiredEvent`. */
export const APPROVAL_REQUIRED = 'approval:required';
/** `approval:granted`: a tool call may run. Payload: `ApprovalGrantedEvent`. */
export const APPROVAL_GRANTED = 'approval:granted';
/** `approval:denied`: a tool call is refused; `tool_name` is null when the event had none. Payload: `ApprovalDeniedEvent`. */
export const APPROVAL_DENIED = 'approval:denied';

/** `cancel:requested`: the kernel sends `level` and the running tools; an orchestrator sends its name, `state` and `turn_count`. Payload: `CancelRequestedEvent`. */
export const CANCEL_REQUESTED = 'cancel:requested';
/** `cancel:completed`: a cancelled turn ended (the kernel; orchestrators add their name and `turn_count`). Payload: `CancelCompletedEvent`. */
export const CANCEL_COMPLETED = 'cancel:completed';

/** `module:on_session_ready_failed`: a module's `onSessionReady` threw (the kernel). Payload: `ModuleOnSessionReadyFailedEvent`. */
export const MODULE_ON_SESSION_READY_FAILED = 'module:on_session_ready_failed';

const CANONICAL_ORDER = [
  SESSION_START,
  SESSION_END,
  SESSION_FORK,
  SESSION_RESUME,
  PROMPT_SUBMIT,
  PROMPT_COMPLETE,
  PLAN_START,
  PLAN_END,
  PROVIDER_REQUEST,
  PROVIDER_RESPONSE,
  PROVIDER_RETRY,
  PROVIDER_ERROR,
  PROVIDER_THROTTLE,
  PROVIDER_TOOL_SEQUENCE_REPAIRED,
  PROVIDER_RESOLVE,
  LLM_REQUEST,
  LLM_RESPONSE,
  CONTENT_BLOCK_START,
  CONTENT_BLOCK_DELTA,
  CONTENT_BLOCK_END,
  THINKING_DELTA,
  THINKING_FINAL,
  TOOL_PRE,
  TOOL_POST,
  TOOL_ERROR,
  CONTEXT_PRE_COMPACT,
  CONTEXT_POST_COMPACT,
  CONTEXT_COMPACTION,
  CONTEXT_INCLUDE,
  ORCHESTRATOR_COMPLETE,
  EXECUTION_START,
  EXECUTION_END,
  USER_NOTIFICATION,
  ARTIFACT_WRITE,
  ARTIFACT_READ,
  POLICY_VIOLATION,
  APPROVAL_REQUIRED,
  APPROVAL_GRANTED,
  APPROVAL_DENIED,
  CANCEL_REQUESTED,
  CANCEL_COMPLETED,
  MODULE_ON_SESSION_READY_FAILED,
] as const;

/** The canonical names missing from the list above: `never`, or the list does not compile. */
type Missing = Exclude<CanonicalEventName, (typeof CANONICAL_ORDER)[number]>;
const complete: [Missing] extends [never] ? true : Missing = true;
void complete;

/** Every canonical event, each once, in Amplifier's order. */
export const ALL_EVENTS: readonly CanonicalEventName[] = Object.freeze(CANONICAL_ORDER);

/** Channel on which modules contribute the names of the extra events they emit. */
export const OBSERVABILITY_EVENTS_CHANNEL = 'observability.events';
