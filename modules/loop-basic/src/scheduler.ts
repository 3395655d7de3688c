/**
 * Resource-keyed scheduling of the tool calls of one model response (the Amp
 * tool system's rule). Calls run concurrently unless they conflict; a call
 * that conflicts with earlier calls starts only after all of them finished,
 * so conflicting calls keep the model's order. At most `limit` run at once.
 */
import type { ResourceKey } from '@amplifier/core';

/**
 * What the scheduler knows about one call: `keys` undefined means "unknown"
 * (a tool without an execution profile), which conflicts with everything,
 * like `serial`. An empty `keys` touches nothing and conflicts with nothing
 * (except unknown and serial calls).
 */
export interface ScheduleEntry {
  serial: boolean;
  keys: readonly ResourceKey[] | undefined;
}

/** Runs alone: conflicts with every other call. */
export const EXCLUSIVE: ScheduleEntry = Object.freeze({ serial: true, keys: undefined });
/** Touches nothing: conflicts only with exclusive calls. */
export const FREE: ScheduleEntry = Object.freeze({ serial: false, keys: Object.freeze([]) });

/** True when `a` and `b` must not run at the same time. */
export function conflicts(a: ScheduleEntry, b: ScheduleEntry): boolean {
  if (a.serial || b.serial || a.keys === undefined || b.keys === undefined) return true;
  for (const ka of a.keys) {
    for (const kb of b.keys) {
      if (ka.key === kb.key && (ka.mode === 'write' || kb.mode === 'write')) return true;
    }
  }
  return false;
}

/**
 * Run `run(i)` for every entry, respecting conflicts and `limit`. Ready calls
 * start in the model's order. Resolves when every call has settled; a
 * rejection of `run` is treated as completion (callers record their own errors).
 */
export function runScheduled(
  entries: readonly ScheduleEntry[],
  limit: number,
  run: (index: number) => Promise<unknown>,
): Promise<void> {
  const n = entries.length;
  if (n === 0) return Promise.resolve();
  if (n === 1) {
    try {
      return run(0).then(noop, noop);
    } catch {
      return Promise.resolve();
    }
  }

  if (n <= limit && !anyConflict(entries)) return runAll(n, run);
  if (allExclusive(entries)) return runInOrder(n, run);

  // waiting[j]: unfinished earlier calls j conflicts with; after[i]: later calls waiting on i.
  const waiting = new Array<number>(n).fill(0);
  const after: number[][] = Array.from({ length: n }, () => []);
  for (let j = 1; j < n; j++) {
    for (let i = 0; i < j; i++) {
      if (conflicts(entries[i]!, entries[j]!)) {
        waiting[j]!++;
        after[i]!.push(j);
      }
    }
  }

  return new Promise<void>((resolve) => {
    // Ready calls, kept sorted by index so they start in the model's order.
    const ready: number[] = [];
    for (let j = 0; j < n; j++) if (waiting[j] === 0) ready.push(j);
    let running = 0;
    let finished = 0;

    const finish = (i: number): void => {
      running--;
      finished++;
      for (const j of after[i]!) {
        if (--waiting[j]! === 0) insertSorted(ready, j);
      }
      if (finished === n) resolve();
      else pump();
    };
    const pump = (): void => {
      while (running < limit && ready.length > 0) {
        const i = ready.shift()!;
        running++;
        let settled: Promise<unknown>;
        try {
          settled = run(i);
        } catch {
          settled = Promise.resolve();
        }
        settled.then(
          () => finish(i),
          () => finish(i),
        );
      }
    };
    pump();
  });
}

function anyConflict(entries: readonly ScheduleEntry[]): boolean {
  for (let j = 1; j < entries.length; j++) {
    for (let i = 0; i < j; i++) if (conflicts(entries[i]!, entries[j]!)) return true;
  }
  return false;
}

/** True when every entry runs alone (serial, or unknown keys): each waits for all earlier ones. */
function allExclusive(entries: readonly ScheduleEntry[]): boolean {
  for (const entry of entries) if (!entry.serial && entry.keys !== undefined) return false;
  return true;
}

/**
 * One call after the other, in the model's order: what the general path does
 * when every call conflicts with every other (tools without an execution
 * profile, the common case), without its conflict table.
 */
function runInOrder(n: number, run: (index: number) => Promise<unknown>): Promise<void> {
  return new Promise<void>((resolve) => {
    let next = 0;
    const step = (): void => {
      if (next === n) {
        resolve();
        return;
      }
      let settled: Promise<unknown>;
      try {
        settled = run(next++);
      } catch {
        settled = Promise.resolve();
      }
      settled.then(step, step);
    };
    step();
  });
}

/**
 * Every call at once, in the model's order (no conflicts, within the limit):
 * what the general path does in that case, without its bookkeeping.
 */
function runAll(n: number, run: (index: number) => Promise<unknown>): Promise<void> {
  return new Promise<void>((resolve) => {
    let remaining = n;
    const done = (): void => {
      if (--remaining === 0) resolve();
    };
    for (let i = 0; i < n; i++) {
      let settled: Promise<unknown>;
      try {
        settled = run(i);
      } catch {
        settled = Promise.resolve();
      }
      settled.then(done, done);
    }
  });
}

function insertSorted(list: number[], value: number): void {
  let k = list.length;
  while (k > 0 && list[k - 1]! > value) k--;
  list.splice(k, 0, value);
}

function noop(): void {}
