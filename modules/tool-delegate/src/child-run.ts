/**
 * One child run (a spawn or a resume) under the parent call's signal and the
 * optional timeout: the child gets a signal that aborts on either, and the
 * call ends as soon as one fires, without waiting for a child that does not
 * honour its signal (its promise is still observed, so nothing is unhandled).
 */
import type { SpawnResult } from '@amplifier/core';

export type ChildOutcome =
  | { kind: 'result'; result: unknown }
  | { kind: 'threw'; error: unknown }
  | { kind: 'cancelled' }
  | { kind: 'timed_out'; ms: number };

/** Run `start(signal)`; settles with what happened first. */
export async function runChild(
  start: (signal: AbortSignal) => Promise<SpawnResult>,
  parent: AbortSignal | undefined,
  timeoutMs: number | undefined,
): Promise<ChildOutcome> {
  const controller = new AbortController();
  let stop: ((outcome: ChildOutcome) => void) | undefined;
  const stopped = new Promise<ChildOutcome>((resolve) => {
    stop = resolve;
  });
  const onParentAbort = (): void => {
    controller.abort(parent?.reason);
    stop?.({ kind: 'cancelled' });
  };
  let timer: NodeJS.Timeout | undefined;
  if (parent?.aborted) return { kind: 'cancelled' };
  parent?.addEventListener('abort', onParentAbort, { once: true });
  if (timeoutMs !== undefined) {
    timer = setTimeout(() => {
      const reason = new Error(`the delegation timed out after ${timeoutMs / 1000} s`);
      reason.name = 'TimeoutError';
      controller.abort(reason);
      stop?.({ kind: 'timed_out', ms: timeoutMs });
    }, timeoutMs);
  }
  try {
    const running = (async (): Promise<ChildOutcome> => {
      try {
        return { kind: 'result', result: await start(controller.signal) };
      } catch (error) {
        return { kind: 'threw', error };
      }
    })();
    const outcome = await Promise.race([running, stopped]);
    // A child that settled because its signal fired counts as what fired it.
    if (outcome.kind === 'result' || outcome.kind === 'threw') {
      if (parent?.aborted) return { kind: 'cancelled' };
      if (controller.signal.aborted && timeoutMs !== undefined) return { kind: 'timed_out', ms: timeoutMs };
    }
    return outcome;
  } finally {
    clearTimeout(timer);
    parent?.removeEventListener('abort', onParentAbort);
  }
}
