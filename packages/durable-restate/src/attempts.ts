/**
 * Invocation attempts as this package follows them. Restate runs a turn in
 * attempts: one per connection from the server to a worker. An attempt ends
 * when the handler finishes, or when the connection is gone (the server
 * restarted, a network cut): then the turn is abandoned on this worker (its
 * events suppressed, its waiting steps failed, its tools aborted, its
 * session cleaned up) and the next attempt replays it.
 *
 * The handler interceptor creates the attempt (by its `Request`); the worker
 * tags each HTTP/2 request with an attempt id header and ends the attempt
 * when the stream closes before its response finished, which the SDK itself
 * notices only when the turn next touches the journal.
 */
import { randomUUID } from 'node:crypto';

/** The header the worker adds to each request it hands to the SDK. */
export const ATTEMPT_HEADER = 'x-amplifier-attempt';

export class Attempt {
  ended = false;
  readonly #end: (reason: unknown) => void;
  /** Resolves with the reason when the attempt has ended. */
  readonly whenEnded: Promise<unknown>;
  constructor() {
    let end: (reason: unknown) => void = () => {};
    this.whenEnded = new Promise((resolve) => {
      end = resolve;
    });
    this.#end = end;
  }
  end(reason: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.#end(reason);
  }
}

/** The attempt of each running handler, by its request (`ctx.request()` is the same object). */
export const attemptsByRequest: WeakMap<object, Attempt> = new WeakMap();

const attemptsById = new Map<string, Attempt>();

/** A fresh attempt id for a request the worker received. */
export function newAttemptId(): string {
  return randomUUID();
}

/** Register the attempt the interceptor created under the worker's id (if the request has one). */
export function trackAttempt(id: string | undefined, attempt: Attempt): void {
  if (id === undefined) return;
  attemptsById.set(id, attempt);
  void attempt.whenEnded.then(() => attemptsById.delete(id));
}

/**
 * The worker saw the request's stream close. An attempt still running there
 * has lost its connection (one that finished was already forgotten).
 */
export function connectionClosed(id: string): void {
  attemptsById.get(id)?.end(connectionLost());
}

function connectionLost(): Error {
  return new Error('Restate closed the connection of this attempt: the turn continues in a new attempt');
}
