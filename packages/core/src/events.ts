/**
 * Canonical event names (Amplifier's current set of 42, in its order). Modules
 * that emit other events declare them on the `observability.events`
 * contribution channel so loggers subscribe to them.
 */

export const SESSION_START = 'session:start';
export const SESSION_END = 'session:end';
export const SESSION_FORK = 'session:fork';
export const SESSION_RESUME = 'session:resume';

export const PROMPT_SUBMIT = 'prompt:submit';
export const PROMPT_COMPLETE = 'prompt:complete';

export const PLAN_START = 'plan:start';
export const PLAN_END = 'plan:end';

export const PROVIDER_REQUEST = 'provider:request';
export const PROVIDER_RESPONSE = 'provider:response';
export const PROVIDER_RETRY = 'provider:retry';
export const PROVIDER_ERROR = 'provider:error';
export const PROVIDER_THROTTLE = 'provider:throttle';
export const PROVIDER_TOOL_SEQUENCE_REPAIRED = 'provider:tool_sequence_repaired';
export const PROVIDER_RESOLVE = 'provider:resolve';

export const LLM_REQUEST = 'llm:request';
export const LLM_RESPONSE = 'llm:response';

export const CONTENT_BLOCK_START = 'content_block:start';
export const CONTENT_BLOCK_DELTA = 'content_block:delta';
export const CONTENT_BLOCK_END = 'content_block:end';

export const THINKING_DELTA = 'thinking:delta';
export const THINKING_FINAL = 'thinking:final';

export const TOOL_PRE = 'tool:pre';
export const TOOL_POST = 'tool:post';
export const TOOL_ERROR = 'tool:error';

export const CONTEXT_PRE_COMPACT = 'context:pre_compact';
export const CONTEXT_POST_COMPACT = 'context:post_compact';
export const CONTEXT_COMPACTION = 'context:compaction';
export const CONTEXT_INCLUDE = 'context:include';

export const ORCHESTRATOR_COMPLETE = 'orchestrator:complete';

export const EXECUTION_START = 'execution:start';
export const EXECUTION_END = 'execution:end';

export const USER_NOTIFICATION = 'user:notification';

export const ARTIFACT_WRITE = 'artifact:write';
export const ARTIFACT_READ = 'artifact:read';

export const POLICY_VIOLATION = 'policy:violation';

export const APPROVAL_REQUIRED = 'approval:required';
export const APPROVAL_GRANTED = 'approval:granted';
export const APPROVAL_DENIED = 'approval:denied';

export const CANCEL_REQUESTED = 'cancel:requested';
export const CANCEL_COMPLETED = 'cancel:completed';

export const MODULE_ON_SESSION_READY_FAILED = 'module:on_session_ready_failed';

/** Every canonical event, each once, in Amplifier's order. */
export const ALL_EVENTS: readonly string[] = Object.freeze([
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
]);

/** Channel on which modules contribute the names of the extra events they emit. */
export const OBSERVABILITY_EVENTS_CHANNEL = 'observability.events';
