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
export const DELEGATE_EVENTS: readonly string[] = Object.freeze([
  AGENT_SPAWNED,
  AGENT_COMPLETED,
  AGENT_RESUMED,
  AGENT_CANCELLED,
  DELEGATE_ERROR,
]);
