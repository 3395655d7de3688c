/**
 * Cooperative cancellation: none -> graceful (finish running tools, stop at the
 * next boundary) -> immediate (stop now). `signal` aborts on immediate, so
 * everything that takes an AbortSignal (tools, HTTP, child processes) stops.
 */
import { CancelledError, isFatalError } from './errors.js';
import type { JournalSlot } from './mount-journal.js';

/**
 * Where a token stands: `none`, `graceful` (finish the running tools, stop at the
 * next boundary) or `immediate` (stop now: `signal` aborts). It only moves forward
 * until `reset()`.
 */
export type CancellationState = 'none' | 'graceful' | 'immediate';

/**
 * A callback registered with `onCancel`, awaited by `triggerCallbacks()` (which
 * `coordinator.requestCancel()` calls when the state changes). Sync or async; an
 * ordinary error is swallowed, a fatal one (`CancelledError`, `AbortError`) is
 * re-thrown after every callback ran.
 */
export type CancelCallback = () => void | Promise<void>;

/**
 * Cooperative cancellation of a turn: none -> graceful -> immediate. `signal`
 * aborts (its reason a `CancelledError`) when the state becomes immediate, so
 * everything given it (tool calls, HTTP requests, child processes) stops; a state
 * change reaches the child tokens, and `reset()` starts the next turn with a fresh
 * signal. Each coordinator owns one (`coordinator.cancellation`);
 * `coordinator.requestCancel()` moves it, emits `cancel:requested` and runs the
 * `onCancel` callbacks.
 *
 * @example
 * ```ts
 * import { CancellationToken, CancelledError, sleep } from '@amplifier/core';
 *
 * const token = new CancellationToken(); // in a session: coordinator.cancellation
 * token.registerToolStart('call_1', 'bash');
 * const waiting = sleep(60_000, token.signal); // anything that takes an AbortSignal
 *
 * token.requestGraceful(); // true: none -> graceful; token.signal.aborted is still false
 * token.requestImmediate(); // true: graceful -> immediate; token.signal aborts now
 * const stopped = await waiting.catch((error: unknown) => error instanceof CancelledError); // true
 * token.runningToolNames; // ['bash']
 * token.reset(); // the next turn: state 'none', running tools forgotten, a fresh signal
 * ```
 */
export class CancellationToken {
  #state: CancellationState = 'none';
  readonly #running = new Map<string, string>();
  readonly #children = new Set<CancellationToken>();
  readonly #callbacks: CancelCallback[] = [];
  #controller = new AbortController();
  readonly #journal: JournalSlot | undefined;

  /** `journal`: the coordinator's, so callbacks registered while a module mounts are removed if the mount fails. */
  constructor(options: { journal?: JournalSlot } = {}) {
    this.#journal = options.journal;
  }

  get state(): CancellationState {
    return this.#state;
  }
  get isCancelled(): boolean {
    return this.#state !== 'none';
  }
  get isGraceful(): boolean {
    return this.#state === 'graceful';
  }
  get isImmediate(): boolean {
    return this.#state === 'immediate';
  }

  /** Aborts when the state becomes immediate. A new signal after `reset()`. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Ids of the tool calls running now (a copy). */
  get runningTools(): Set<string> {
    return new Set(this.#running.keys());
  }
  /** Names of the tool calls running now. */
  get runningToolNames(): string[] {
    return [...this.#running.values()];
  }

  /** none -> graceful. Returns whether the state changed. */
  requestGraceful(): boolean {
    if (this.#state !== 'none') return false;
    this.#state = 'graceful';
    for (const child of this.#children) child.requestGraceful();
    return true;
  }

  /** none|graceful -> immediate, aborting `signal`. Returns whether the state changed. */
  requestImmediate(): boolean {
    if (this.#state === 'immediate') return false;
    this.#state = 'immediate';
    this.#controller.abort(new CancelledError('Cancelled immediately'));
    for (const child of this.#children) child.requestImmediate();
    return true;
  }

  /** Back to none for the next turn; running tools are forgotten, children and callbacks kept. */
  reset(): void {
    this.#state = 'none';
    this.#running.clear();
    if (this.#controller.signal.aborted) this.#controller = new AbortController();
  }

  registerToolStart(toolCallId: string, toolName: string): void {
    this.#running.set(toolCallId, toolName);
  }
  registerToolComplete(toolCallId: string): void {
    this.#running.delete(toolCallId);
  }

  /** Propagate this token's state (now and later) to `child`. */
  registerChild(child: CancellationToken): void {
    this.#children.add(child);
    this.#journal?.current?.record(() => this.#children.delete(child));
    if (this.#state === 'graceful') child.requestGraceful();
    else if (this.#state === 'immediate') child.requestImmediate();
  }
  unregisterChild(child: CancellationToken): void {
    this.#children.delete(child);
  }

  /** Run `callback` when cancellation is triggered. Returns a function that removes it. */
  onCancel(callback: CancelCallback): () => void {
    this.#callbacks.push(callback);
    const remove = (): void => {
      const i = this.#callbacks.indexOf(callback);
      if (i >= 0) this.#callbacks.splice(i, 1);
    };
    this.#journal?.current?.record(remove);
    return remove;
  }

  /**
   * Await every callback in order. Ordinary errors are swallowed; the first
   * fatal one (CancelledError, AbortError) is re-thrown after all have run.
   */
  async triggerCallbacks(): Promise<void> {
    let fatal: unknown;
    for (const callback of [...this.#callbacks]) {
      try {
        await callback();
      } catch (error) {
        if (fatal === undefined && isFatalError(error)) fatal = error;
      }
    }
    if (fatal !== undefined) throw fatal;
  }
}

/** Resolve after `ms`, or reject with the signal's reason when it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
