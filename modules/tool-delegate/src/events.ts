/**
 * The events the delegate tool emits (the reference's `delegate:*`), declared
 * on core's `observability.events` channel so loggers subscribe to them.
 */

/** A child is about to start: `{agent, sub_session_id, parent_session_id, context_depth, context_scope, tool_call_id, parallel_group_id, model_role, provider_preferences}`. */
export const AGENT_SPAWNED = 'delegate:agent_spawned';
/** A child answered: the spawned fields plus `success`, `status`, `turn_count`, `usage`. */
export const AGENT_COMPLETED = 'delegate:agent_completed';
/** A stored child is continued: `{agent, sub_session_id, parent_session_id, tool_call_id}`. */
export const AGENT_RESUMED = 'delegate:agent_resumed';
/** The parent cancelled while a child ran: the spawned (or resumed) fields. */
export const AGENT_CANCELLED = 'delegate:agent_cancelled';
/** A delegation failed (the child's error, a timeout, a limit): the fields plus `error`. */
export const DELEGATE_ERROR = 'delegate:error';

/** Every event of this module, for `observability.events`. */
export const DELEGATE_EVENTS: readonly DelegateEventName[] = Object.freeze([
  AGENT_SPAWNED,
  AGENT_COMPLETED,
  AGENT_RESUMED,
  AGENT_CANCELLED,
  DELEGATE_ERROR,
]);

/** The fields every `delegate:*` event carries. */
export interface DelegationEventFields {
  agent: string;
  /** Null when a limit refused the call before a child was named. */
  sub_session_id: string | null;
  parent_session_id: string;
  tool_call_id: string | null;
  parallel_group_id: string | null;
  [key: string]: unknown;
}

/** `delegate:agent_spawned`: a child is about to start. */
export interface AgentSpawnedEvent extends DelegationEventFields {
  context_depth: string;
  context_scope: string;
  model_role: string | null;
  provider_preferences: unknown;
}

/** `delegate:agent_completed`: a child answered. */
export interface AgentCompletedEvent extends DelegationEventFields {
  success: true;
  status: string;
  turn_count: number;
  usage: unknown;
}

/** `delegate:error`: a delegation failed; `code` when a limit refused it. */
export interface DelegateErrorEvent extends DelegationEventFields {
  error: string;
  code?: string;
}

/** The name of an event of this module. */
export type DelegateEventName =
  | typeof AGENT_SPAWNED
  | typeof AGENT_COMPLETED
  | typeof AGENT_RESUMED
  | typeof AGENT_CANCELLED
  | typeof DELEGATE_ERROR;

// The events typed in core's map, so `hooks.emit` and `hooks.register` check them.
declare module '@amplifier/core' {
  interface EventPayloads {
    [AGENT_SPAWNED]: AgentSpawnedEvent;
    [AGENT_COMPLETED]: AgentCompletedEvent;
    [AGENT_RESUMED]: DelegationEventFields;
    [AGENT_CANCELLED]: DelegationEventFields;
    [DELEGATE_ERROR]: DelegateErrorEvent;
  }
}
