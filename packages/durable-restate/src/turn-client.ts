/**
 * Starting, awaiting and attaching to turns through Restate's ingress (what
 * an app's HTTP handler calls). Every start carries an idempotency key: a
 * re-sent request (the app's handler retried, the user double-clicked)
 * returns the same invocation instead of running the turn twice.
 */

import { Agent, fetch } from 'undici';
import { trim } from './admin.js';
import { DurableError } from './durable-error.js';
import { socketPathOf } from './restate-http.js';
import { DEFAULT_OBJECT_NAME, type TurnResult } from './session-object.js';

export interface TurnClientOptions {
  /** Restate's ingress, e.g. `http://127.0.0.1:8080`, or a local server's `http+unix://` socket URL. */
  ingressUrl: string;
  /** Headers sent with every request (`authorization` for `amplifier serve --durable`'s front). */
  headers?: Record<string, string>;
  /** The virtual object's name (default `amplifier-session`). */
  object?: string;
}

/** A turn accepted by `/send`. */
export interface SentTurn {
  invocationId: string;
  /** `Accepted`, or `PreviouslyAccepted` when the idempotency key was seen before. */
  status: string;
}

/** A turn that failed, was cancelled, or was refused; `status` is the ingress's HTTP status. */
export class TurnError extends DurableError {
  readonly status: number;
  constructor(status: number, message: string) {
    super('TURN_FAILED', message);
    this.status = status;
  }
}

/**
 * Turns last as long as their model calls and tools: no header or body
 * timeout on the ingress connection (fetch's default would give up on a turn
 * after 5 minutes). Pass a `signal` of your own to bound a wait.
 */
const patientAgent = new Agent({ headersTimeout: 0, bodyTimeout: 0 });

export class TurnClient {
  readonly #ingress: string;
  readonly #object: string;
  readonly #headers: Record<string, string>;
  readonly #dispatcher: Agent;

  constructor(options: TurnClientOptions) {
    const socketPath = socketPathOf(options.ingressUrl);
    this.#ingress = socketPath === undefined ? trim(options.ingressUrl) : 'http://localhost';
    this.#dispatcher =
      socketPath === undefined
        ? patientAgent
        : new Agent({ headersTimeout: 0, bodyTimeout: 0, connect: { socketPath } });
    this.#object = options.object ?? DEFAULT_OBJECT_NAME;
    this.#headers = { ...options.headers };
  }

  /** Run a turn and wait for its answer (the connection stays open for the whole turn). */
  run(sessionId: string, prompt: string, idempotencyKey: string): Promise<TurnResult> {
    return this.#request<TurnResult>(this.#turnUrl(sessionId), 'POST', { prompt }, idempotencyKey);
  }

  /** Start a turn and return at once with its invocation id; `attach` later for the answer. */
  send(sessionId: string, prompt: string, idempotencyKey: string): Promise<SentTurn> {
    return this.#request<SentTurn>(`${this.#turnUrl(sessionId)}/send`, 'POST', { prompt }, idempotencyKey);
  }

  /** Wait for a turn started earlier (by invocation id) and return its answer. */
  attach(invocationId: string): Promise<TurnResult> {
    return this.#request<TurnResult>(
      `${this.#ingress}/restate/invocation/${encodeURIComponent(invocationId)}/attach`,
      'GET',
    );
  }

  /** Wait for a turn started earlier, found by its session and idempotency key. */
  attachByKey(sessionId: string, idempotencyKey: string): Promise<TurnResult> {
    return this.#request<TurnResult>(
      `${this.#ingress}/restate/invocation/${this.#object}/${encodeURIComponent(sessionId)}/turn/${encodeURIComponent(idempotencyKey)}/attach`,
      'GET',
    );
  }

  /** The session's stored transcript. */
  transcript(sessionId: string): Promise<unknown[]> {
    return this.#request<unknown[]>(
      `${this.#ingress}/${this.#object}/${encodeURIComponent(sessionId)}/transcript`,
      'POST',
      null,
    );
  }

  #turnUrl(sessionId: string): string {
    return `${this.#ingress}/${this.#object}/${encodeURIComponent(sessionId)}/turn`;
  }

  async #request<T>(url: string, method: string, body?: unknown, idempotencyKey?: string): Promise<T> {
    const headers: Record<string, string> = { ...this.#headers };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    let response: Awaited<ReturnType<typeof fetch>>;
    try {
      response = await fetch(url, {
        method,
        headers,
        dispatcher: this.#dispatcher,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw new TurnError(
        0,
        `Could not reach Restate's ingress at ${this.#ingress} (${(error as Error).message}); attach again later with the invocation id or the idempotency key: the turn keeps running`,
      );
    }
    const text = await response.text();
    if (!response.ok) {
      let message = text;
      try {
        message = (JSON.parse(text) as { message?: string }).message ?? text;
      } catch {
        // keep the text
      }
      throw new TurnError(response.status, message || `HTTP ${response.status} from ${url}`);
    }
    return (text ? JSON.parse(text) : undefined) as T;
  }
}
