/**
 * One abort listener per turn on the run's signal, fanning out to whatever is
 * waiting now (the provider call, running tools). Node's EventTarget makes a
 * listener per call costly; an array entry is not.
 */

/** Something to tell when the run aborts. */
export interface AbortWatcher {
  onAbort(): void;
}

export class AbortHub {
  readonly signal: AbortSignal;
  /**
   * `signal.aborted`, kept by the hub's own listener: the loop asks several
   * times per tool call, and AbortSignal's getter (a brand check) costs more
   * than a field. It turns true when the abort event reaches the hub, which
   * then tells every watcher at once.
   */
  aborted: boolean;
  // An array, not a Set: a Set that goes 0 -> 1 -> 0 entries reallocates its table every call.
  #watchers: AbortWatcher[] = [];
  readonly #onAbort = (): void => {
    this.aborted = true;
    const watchers = this.#watchers;
    this.#watchers = [];
    for (const watcher of watchers) watcher.onAbort();
  };

  constructor(signal: AbortSignal) {
    this.signal = signal;
    this.aborted = signal.aborted;
    if (!this.aborted) signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  /** Call `watcher.onAbort()` once when the signal aborts (now, if it already has). */
  watch(watcher: AbortWatcher): void {
    if (this.aborted) watcher.onAbort();
    else this.#watchers.push(watcher);
  }

  unwatch(watcher: AbortWatcher): void {
    const watchers = this.#watchers;
    const i = watchers.lastIndexOf(watcher);
    if (i < 0) return;
    watchers[i] = watchers[watchers.length - 1]!;
    watchers.pop();
  }

  /** Settle with `promise`, or reject with the signal's reason as soon as it aborts. */
  race<T>(promise: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const watcher: AbortWatcher = { onAbort: () => reject(this.signal.reason) };
      this.watch(watcher);
      promise.then(
        (value) => {
          this.unwatch(watcher);
          resolve(value);
        },
        (error: unknown) => {
          this.unwatch(watcher);
          reject(error);
        },
      );
    });
  }

  /** Stop listening (end of the turn). */
  dispose(): void {
    this.signal.removeEventListener('abort', this.#onAbort);
    this.#watchers = [];
  }
}
