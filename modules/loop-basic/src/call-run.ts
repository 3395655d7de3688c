/**
 * One tool invocation under a deadline and the run's abort signal, built to
 * cost little per call: the call's AbortSignal is created only if the tool
 * reads `options.signal`, and all timeouts share one timer.
 */
import type { StepRunner, Tool, ToolCallOptions } from '@amplifier/core';
import type { AbortHub, AbortWatcher } from './abort-hub.js';

/**
 * How a call ended. Whatever the tool settled with is wrapped (`returned`,
 * `threw`): no value a tool returns or throws (a number, a symbol, an object
 * shaped like an outcome) can pass for a timeout or a cancellation.
 */
export type CallOutcome =
  | { readonly kind: 'returned'; readonly value: unknown }
  | { readonly kind: 'threw'; readonly thrown: unknown }
  | { readonly kind: 'stopped' }
  | { readonly kind: 'timed_out'; readonly ms: number };

/** The outcome of a call stopped by the run's abort (immediate cancellation). */
export const STOPPED: CallOutcome = Object.freeze({ kind: 'stopped' });

/** The longest delay `setTimeout` honours (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Something with a deadline (ms on the `performance.now()` clock). */
export interface Expirable {
  deadline: number;
  expire(): void;
}

/**
 * Deadlines of running calls, served by a single timer armed for the
 * earliest one. Adding a call with the usual (same) timeout never re-arms it,
 * so a call costs no timer of its own. The timer holds the process open only
 * while some call has a deadline.
 */
export class Deadlines {
  readonly #items: Expirable[] = [];
  #timer: NodeJS.Timeout | undefined;
  #armedFor = Number.POSITIVE_INFINITY;
  #holding = false;

  /** Items waiting for their deadline. */
  get size(): number {
    return this.#items.length;
  }

  /** Whether the timer keeps the process alive (only while an item waits). */
  get holdsProcess(): boolean {
    return this.#timer?.hasRef() ?? false;
  }

  add(item: Expirable, ms: number): void {
    const deadline = performance.now() + ms;
    item.deadline = deadline;
    const items = this.#items;
    let i = items.length;
    while (i > 0 && items[i - 1]!.deadline > deadline) i--;
    if (i === items.length) items.push(item);
    else items.splice(i, 0, item);
    if (this.#timer === undefined || deadline < this.#armedFor) this.#arm(deadline);
    else this.#hold(true);
  }

  remove(item: Expirable): void {
    const items = this.#items;
    const i = items.indexOf(item);
    if (i < 0) return;
    if (i === 0) items.shift();
    else items.splice(i, 1);
    if (items.length === 0) this.#hold(false);
  }

  #arm(deadline: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#armedFor = deadline;
    // Node fires a longer delay than 2^31 - 1 ms at once: wait that long, and re-arm for the rest.
    const wait = Math.min(MAX_TIMER_MS, Math.max(1, Math.ceil(deadline - performance.now())));
    this.#timer = setTimeout(this.#onTimer, wait);
    this.#holding = true;
  }

  #hold(hold: boolean): void {
    if (this.#holding === hold || this.#timer === undefined) return;
    this.#holding = hold;
    if (hold) this.#timer.ref();
    else this.#timer.unref();
  }

  readonly #onTimer = (): void => {
    this.#timer = undefined;
    this.#armedFor = Number.POSITIVE_INFINITY;
    const items = this.#items;
    const now = performance.now();
    let n = 0;
    while (n < items.length && items[n]!.deadline <= now) n++;
    const expired = items.splice(0, n);
    if (items.length > 0) this.#arm(items[0]!.deadline);
    for (const item of expired) item.expire();
  };
}

/**
 * Runs `tool.execute(input, this)`: the instance is the call's options.
 * The call's outcome is what the tool returned or threw, STOPPED (the run
 * aborted) or `timed_out`; once stopped or timed out the call's result is
 * ignored and nobody waits for it any longer. The outcome goes to `onOutcome`
 * once, possibly before the constructor returns (a tool that throws at once, a
 * run already aborted); `onOutcome` must not throw. The constructor throws only
 * before the call is registered anywhere (a deadline that is not a number).
 *
 * `signal` is a getter on the prototype (an own accessor per call costs a
 * microsecond in V8): a tool that copies the options with a spread loses it,
 * so tools pass `options` along or read `options.signal` directly.
 */
export class CallRun implements ToolCallOptions, AbortWatcher, Expirable {
  readonly toolCallId: string;
  deadline = 0;
  readonly #hub: AbortHub;
  readonly #deadlines: Deadlines;
  readonly #timeoutMs: number | null;
  readonly #onOutcome: (outcome: CallOutcome) => void;
  #controller: AbortController | undefined;
  #timedOut = false;
  #settled = false;

  constructor(
    tool: Tool,
    input: Record<string, unknown>,
    toolCallId: string,
    timeoutMs: number | null,
    hub: AbortHub,
    deadlines: Deadlines,
    step: { run: StepRunner; target: string; iteration: number } | undefined,
    onOutcome: (outcome: CallOutcome) => void,
  ) {
    this.toolCallId = toolCallId;
    this.#hub = hub;
    this.#deadlines = deadlines;
    this.#timeoutMs = timeoutMs;
    this.#onOutcome = onOutcome;
    // The deadline first: a bad one throws here, before the hub could call back.
    if (timeoutMs !== null) deadlines.add(this, timeoutMs);
    hub.watch(this);
    if (this.#settled) return;
    try {
      // Promise.resolve: a plain value (a tool breaking the contract) or a thenable settles like a promise.
      const result =
        step === undefined
          ? tool.execute(input, this)
          : step.run(`tool:${toolCallId}`, () => Promise.resolve(tool.execute(input, this)), {
              kind: 'tool',
              target: step.target,
              iteration: step.iteration,
              tool_call_id: toolCallId,
            });
      Promise.resolve(result).then(
        (value: unknown) => this.#finish({ kind: 'returned', value }),
        (thrown: unknown) => this.#finish({ kind: 'threw', thrown }),
      );
    } catch (thrown) {
      this.#finish({ kind: 'threw', thrown });
    }
  }

  /** The call's idempotency key: its tool call id (stable when a durable engine replays the turn). */
  get idempotencyKey(): string {
    return this.toolCallId;
  }

  /** The run's signal, or (with a timeout) a signal that also aborts on timeout. */
  get signal(): AbortSignal {
    const hub = this.#hub;
    if (this.#timeoutMs === null) return hub.signal;
    if (this.#controller === undefined) {
      const controller = new AbortController();
      this.#controller = controller;
      if (hub.aborted) controller.abort(hub.signal.reason);
      else if (this.#timedOut) controller.abort(timeoutReason(this.#timeoutMs));
    }
    return this.#controller.signal;
  }

  /** The run aborted: abort the call's signal and stop waiting. */
  onAbort(): void {
    this.#controller?.abort(this.#hub.signal.reason);
    this.#finish(STOPPED);
  }

  /** The deadline passed: abort the call's signal and stop waiting. */
  expire(): void {
    if (this.#settled) return;
    this.#timedOut = true;
    this.#controller?.abort(timeoutReason(this.#timeoutMs ?? 0));
    this.#finish({ kind: 'timed_out', ms: this.#timeoutMs ?? 0 });
  }

  #finish(outcome: CallOutcome): void {
    if (this.#settled) return;
    this.#settled = true;
    if (this.#timeoutMs !== null) this.#deadlines.remove(this);
    this.#hub.unwatch(this);
    // Once the call was stopped, it counts as cancelled, whatever it returned.
    this.#onOutcome(this.#hub.aborted ? STOPPED : outcome);
  }
}

/** `20 ms`, `120 s`. */
export function formatMs(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(3))} s`;
}

function timeoutReason(ms: number): Error {
  const error = new Error(`timed out after ${formatMs(ms)}`);
  error.name = 'TimeoutError';
  return error;
}
