/** Polling for tests that must wait on something without an event to await. */
import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitForOptions {
  /** Give up after this long (default 1000 ms). */
  timeoutMs?: number;
  /** Time between checks (default 10 ms). */
  intervalMs?: number;
}

/**
 * Resolve `true` as soon as `condition()` is truthy (checked at once, then
 * every `intervalMs`), or `false` once `timeoutMs` has passed. A throwing
 * condition rejects.
 */
export async function waitFor(
  condition: () => unknown | Promise<unknown>,
  options: WaitForOptions = {},
): Promise<boolean> {
  const { timeoutMs = 1000, intervalMs = 10 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(Math.max(0, Math.min(intervalMs, deadline - Date.now())));
  }
}
