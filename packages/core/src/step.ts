/**
 * The execution-step seam: an orchestrator runs every provider call and every
 * tool call through the `session.step` capability when one is registered, so
 * a durable engine (Restate, Temporal, DBOS) can journal each step's result
 * and, when a turn is replayed on another worker, answer completed steps from
 * its journal instead of running them again. Without the capability a step is
 * the call itself: orchestrators check once per turn and call directly.
 */

/** What a step is: the kind, whom it calls, and where it is in the turn. */
export interface StepInfo {
  kind: 'provider' | 'tool';
  /** The provider's mount name, or the tool's name. */
  target: string;
  /** The turn's model call this step is or follows (0 for the first, as `provider:request`'s `iteration`). */
  iteration: number;
  /** For a tool step: the call's id, also its idempotency key. */
  tool_call_id?: string;
}

/**
 * Runs `run` as the step `name` and resolves with its result. `name` is
 * unique within a turn and the same when the turn is replayed: `llm:<n>` for
 * the model call of iteration n (`llm:0` first), `llm:wrap-up` for the call after max_iterations,
 * `tool:<tool call id>` for a tool call (tool call ids come from the journaled
 * model response, so they are stable). A runner may answer from its journal
 * without calling `run`; the result must then be what `run` gave the first time.
 */
export type StepRunner = <T>(name: string, run: () => Promise<T>, info: StepInfo) => Promise<T>;

/** Name of the capability that holds the session's `StepRunner` (absent: steps run directly). */
export const STEP_CAPABILITY = 'session.step';
