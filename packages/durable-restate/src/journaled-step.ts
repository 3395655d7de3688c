/**
 * The `session.step` runner on Restate: each provider call and tool call is
 * one `ctx.run(name, ...)`, so its result is written to the invocation's
 * journal, and when the turn is replayed (another worker, a restarted
 * server) a completed step answers from the journal without running again.
 *
 * A step that fails is journaled as a failure too (its error's name, message
 * and plain fields) and thrown again as the same kind of error, on the first
 * run and on every replay: a provider's LLMError is not retried by Restate
 * behind the provider's own retry policy, and the turn fails the same way
 * wherever it runs.
 */
import {
  createLLMError,
  LLM_ERROR_KINDS,
  type LLMErrorKind,
  type LLMErrorOptions,
  type StepInfo,
  type StepRunner,
} from '@amplifier/core';
import type { Context, internal, RestatePromise as RestatePromiseType } from '@restatedev/restate-sdk';
import { restate } from './restate.js';

type ContextInternal = internal.ContextInternal;
type RestatePromise<T> = RestatePromiseType<T>;
const { RestatePromise } = restate;

/** A step's error as the journal keeps it (plain data). */
export interface JournaledError {
  name: string;
  message: string;
  /** The error's own enumerable fields that are plain data (`code`, `retryable`, `status_code`...). */
  fields: Record<string, unknown>;
}

/** A step's outcome as the journal keeps it. */
export type StepOutcome<T> = { ok: true; value: T } | { ok: false; error: JournaledError };

/** What a runner reports for each step: whether it ran or was answered by the journal. */
export type StepObserver = (name: string, info: StepInfo, ran: boolean) => void;

export interface JournaledStepOptions {
  /** Told about every step (ran, or answered by the journal). */
  observe?: StepObserver;
  /**
   * Called once when Restate cancels the invocation (the handler must use
   * `explicitCancellation`): abort the turn there, so the running tools see
   * their signal; the steps still finish (aborted) and are journaled.
   */
  onCancel?: () => void;
  /**
   * Settles when the invocation attempt has ended (a lost connection, a
   * suspension): every step still waiting then fails with its reason, and so
   * does every later one, so the abandoned turn unwinds and is cleaned up.
   */
  ended?: Promise<unknown>;
}

interface Pending {
  promise: RestatePromise<StepOutcome<unknown>>;
  done: (outcome: StepOutcome<unknown>) => void;
  failed: (error: unknown) => void;
}

/**
 * The `StepRunner` that journals every step in `ctx` (see the file comment).
 *
 * The SDK lets a handler await one journal operation at a time (two
 * independent awaits fail with "awaitNext already pending"), while the loop
 * may run several tool calls at once. So steps are not awaited one by one:
 * a pump awaits every step started so far as one `RestatePromise.allSettled`
 * (their closures run concurrently), raced against Restate's cancellation,
 * and steps started meanwhile form the next batch. The pump starts one
 * macrotask after the first step, so the tool calls of one round, started
 * together, are one batch.
 */
export function journaledStepRunner(ctx: Context, options: JournaledStepOptions = {}): StepRunner {
  const internal = ctx as unknown as ContextInternal;
  let queue: Pending[] = [];
  let batch: Pending[] = [];
  let pumping = false;
  let cancelled = options.onCancel === undefined;
  let endedWith: { reason: unknown } | undefined;
  options.ended?.then(
    (reason) => abandon(reason),
    (reason: unknown) => abandon(reason),
  );
  function abandon(reason: unknown): void {
    endedWith = { reason };
    for (const pending of [...batch, ...queue.splice(0)]) pending.failed(reason);
  }

  const pump = async (): Promise<void> => {
    try {
      while (queue.length > 0 && endedWith === undefined) {
        batch = queue;
        queue = [];
        const settled = RestatePromise.allSettled(batch.map((p) => p.promise));
        let results: PromiseSettledResult<StepOutcome<unknown>>[] | undefined;
        if (!cancelled) {
          const first = await RestatePromise.race([
            settled,
            internal.cancellation().map((): typeof CANCELLED => CANCELLED),
          ]);
          if (first === CANCELLED) {
            cancelled = true;
            options.onCancel?.();
          } else {
            results = first;
          }
        }
        results ??= await settled;
        results.forEach((result, i) => {
          if (result.status === 'fulfilled') batch[i]!.done(result.value);
          else batch[i]!.failed(result.reason);
        });
      }
    } catch (error) {
      // The attempt ended (suspension, lost connection): every waiting step fails with it.
      for (const pending of queue.splice(0)) pending.failed(error);
      throw error;
    } finally {
      pumping = false;
    }
  };

  return async <T>(name: string, run: () => Promise<T>, info: StepInfo): Promise<T> => {
    if (endedWith !== undefined) throw endedWith.reason;
    let ran = false;
    const promise = ctx.run<StepOutcome<unknown>>(name, async () => {
      ran = true;
      try {
        return { ok: true, value: await run() };
      } catch (error) {
        return { ok: false, error: journaledError(error) };
      }
    });
    const outcome = await new Promise<StepOutcome<unknown>>((done, failed) => {
      queue.push({ promise, done, failed });
      if (!pumping) {
        // Start after the current macrotask: the other steps of this round (tool calls the
        // loop starts together) join the batch, so their closures run at once.
        pumping = true;
        setImmediate(() => {
          pump().catch(() => {});
        });
      }
    });
    options.observe?.(name, info, ran);
    if (outcome.ok) return outcome.value as T;
    throw rebuiltError(outcome.error);
  };
}

const CANCELLED: unique symbol = Symbol('cancelled');

/** The journal's record of `error`: name, message and plain fields. */
export function journaledError(error: unknown): JournaledError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error)) {
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) fields[key] = value;
  }
  return { name: error.name, message: error.message, fields };
}

/** The error again: an LLMError of the same kind for a provider failure, else an Error with the journaled name, message and fields. */
export function rebuiltError(record: JournaledError): Error {
  const { fields } = record;
  if (fields.code === 'LLM_ERROR' && LLM_ERROR_KINDS.includes(fields.kind as LLMErrorKind)) {
    const options: LLMErrorOptions = {};
    if (typeof fields.provider === 'string') options.provider = fields.provider;
    if (typeof fields.model === 'string') options.model = fields.model;
    if (typeof fields.status_code === 'number') options.status_code = fields.status_code;
    if (typeof fields.retryable === 'boolean') options.retryable = fields.retryable;
    if (typeof fields.retry_after === 'number') options.retry_after = fields.retry_after;
    return createLLMError(fields.kind as LLMErrorKind, record.message, options);
  }
  const error = new Error(record.message);
  Object.defineProperty(error, 'name', { value: record.name, configurable: true, writable: true });
  return Object.assign(error, record.fields);
}
