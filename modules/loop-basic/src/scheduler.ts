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
  if (entries.length === 0) return Promise.resolve();
  return new Promise<void>((resolve) => {
    scheduleCalls(
      entries,
      limit,
      (index, done) => {
        let settled: Promise<unknown>;
        try {
          settled = run(index);
        } catch {
          done();
          return;
        }
        // Promise.resolve: a plain value or a thenable counts as the call's end, like a promise.
        Promise.resolve(settled).then(done, done);
      },
      resolve,
    );
  });
}

/**
 * Start a call: `done` must be called once when it has finished, possibly
 * before `start` returns. Neither may throw.
 */
export type StartCall = (index: number, done: () => void) => void;

/**
 * `runScheduled` without a promise per call (the tool runner's path): `start(i, done)`
 * for every entry, by the same rules; `finished` once every call is done.
 */
export function scheduleCalls(
  entries: readonly ScheduleEntry[],
  limit: number,
  start: StartCall,
  finished: () => void,
): void {
  const n = entries.length;
  if (n === 0) finished();
  else if (n === 1) start(0, finished);
  else if (n <= limit && !anyConflict(entries)) startAll(n, start, finished);
  else if (allExclusive(entries)) startInOrder(n, start, finished);
  else startByConflicts(entries, limit, start, finished);
}

function startByConflicts(
  entries: readonly ScheduleEntry[],
  limit: number,
  start: StartCall,
  finished: () => void,
): void {
  const n = entries.length;
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
  // Ready calls, kept sorted by index so they start in the model's order.
  const ready: number[] = [];
  for (let j = 0; j < n; j++) if (waiting[j] === 0) ready.push(j);
  let running = 0;
  let done = 0;
  let pumping = false;

  const finish = (i: number): void => {
    running--;
    done++;
    for (const j of after[i]!) {
      if (--waiting[j]! === 0) insertSorted(ready, j);
    }
    if (done === n) finished();
    else if (!pumping) pump();
  };
  // A call that finishes while being started leaves its successors to the loop that started it.
  const pump = (): void => {
    pumping = true;
    while (running < limit && ready.length > 0) {
      const i = ready.shift()!;
      running++;
      start(i, () => finish(i));
    }
    pumping = false;
  };
  pump();
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
 * profile, the common case), without its conflict table. A call that finishes
 * while being started does not nest the next one inside it.
 */
function startInOrder(n: number, start: StartCall, finished: () => void): void {
  let next = 0;
  let starting = false;
  let finishedWhileStarting = false;
  const advance = (): void => {
    if (starting) {
      finishedWhileStarting = true;
      return;
    }
    starting = true;
    do {
      finishedWhileStarting = false;
      if (next === n) {
        starting = false;
        finished();
        return;
      }
      start(next++, advance);
    } while (finishedWhileStarting);
    starting = false;
  };
  advance();
}

/**
 * Every call at once, in the model's order (no conflicts, within the limit):
 * what the general path does in that case, without its bookkeeping.
 */
function startAll(n: number, start: StartCall, finished: () => void): void {
  let remaining = n;
  const done = (): void => {
    if (--remaining === 0) finished();
  };
  for (let i = 0; i < n; i++) start(i, done);
}

function insertSorted(list: number[], value: number): void {
  let k = list.length;
  while (k > 0 && list[k - 1]! > value) k--;
  list.splice(k, 0, value);
}
