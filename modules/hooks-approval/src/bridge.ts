/**
 * How the hook learns what the person answered. Core asks the app's
 * ApprovalProvider (`coordinator.approval`) when an orchestrator passes our
 * `ask_user` result to `processHookResult`; this decorator stands in for that
 * provider, passes every request through unchanged, and when a request is one
 * of ours (the exact prompt we returned, which names the call id and args
 * hash), reports the answer, the timeout or the failure to the waiting call
 * before core sees it.
 */
import { AmplifierError, type ApprovalProvider, type ApprovalRequest } from '@amplifier/core';

/** How an ask ended without an answer. */
export type Unanswered = 'timeout' | 'cancelled' | 'abandoned';

/** One of our questions, waiting for core to ask it. */
export interface PendingAsk {
  readonly prompt: string;
  /** The person answered (any string; the kernel decides what allows). */
  answered(answer: string): Promise<void>;
  /** No answer: the kernel's timeout, a cancellation, or the question was never asked. */
  unanswered(why: Unanswered): void;
  /** The app's provider failed. */
  failed(error: unknown): void;
}

/** At most this many questions wait (older ones were never asked, e.g. another hook's ask won). */
const MAX_PENDING = 256;

export class ApprovalBridge implements ApprovalProvider {
  readonly inner: ApprovalProvider;
  readonly #pending = new Map<string, PendingAsk[]>();
  readonly #isCancelled: () => boolean;
  readonly #onDropped: (ask: PendingAsk) => void;
  #count = 0;

  constructor(inner: ApprovalProvider, isCancelled: () => boolean, onDropped: (ask: PendingAsk) => void) {
    this.inner = inner;
    this.#isCancelled = isCancelled;
    this.#onDropped = onDropped;
  }

  /** Wait for core to ask `ask.prompt`. */
  expect(ask: PendingAsk): void {
    const list = this.#pending.get(ask.prompt);
    if (list) list.push(ask);
    else this.#pending.set(ask.prompt, [ask]);
    if (++this.#count > MAX_PENDING) {
      const [prompt, oldest] = this.#pending.entries().next().value as [string, PendingAsk[]];
      const dropped = oldest.shift()!;
      if (oldest.length === 0) this.#pending.delete(prompt);
      this.#count--;
      this.#onDropped(dropped);
    }
  }

  /** Stop waiting for `ask` (its call was refused before core could ask). True when it was waiting. */
  forget(ask: PendingAsk): boolean {
    const list = this.#pending.get(ask.prompt);
    const at = list?.indexOf(ask) ?? -1;
    if (list === undefined || at < 0) return false;
    list.splice(at, 1);
    if (list.length === 0) this.#pending.delete(ask.prompt);
    this.#count--;
    return true;
  }

  /** Every question still waiting, removed. */
  drain(): PendingAsk[] {
    const all = [...this.#pending.values()].flat();
    this.#pending.clear();
    this.#count = 0;
    return all;
  }

  async requestApproval(request: ApprovalRequest, options: { signal?: AbortSignal } = {}): Promise<string> {
    const list = this.#pending.get(request.prompt);
    const ask = list?.shift();
    if (ask === undefined) return this.inner.requestApproval(request, options);
    if (list!.length === 0) this.#pending.delete(request.prompt);
    this.#count--;

    let settled = false;
    const signal = options.signal;
    const onAbort = (): void => {
      if (settled) return;
      settled = true;
      ask.unanswered(this.#isCancelled() ? 'cancelled' : 'timeout');
    };
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const answer = await this.inner.requestApproval(request, options);
      if (!settled) {
        settled = true;
        await ask.answered(typeof answer === 'string' ? answer : String(answer));
      }
      return answer;
    } catch (error) {
      if (!settled) {
        settled = true;
        if (AmplifierError.is(error, 'APPROVAL_TIMEOUT')) ask.unanswered('timeout');
        else if (signal?.aborted) ask.unanswered(this.#isCancelled() ? 'cancelled' : 'timeout');
        else ask.failed(error);
      }
      throw error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }
}
