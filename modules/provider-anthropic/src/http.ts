/**
 * HTTP for one provider instance: a pooled undici client bound to the base
 * URL's origin, per-request timeouts (to the first byte and between chunks),
 * abort through `signal`, transport failures turned into LLMErrors, bounded
 * body reads, and Server-Sent Events parsed with eventsource-parser.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { createLLMError, errorMessage, type LLMError } from '@amplifier/core';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { type Dispatcher, Pool } from 'undici';

/** Who a request is for, stamped on every error. */
export interface RequestContext {
  provider: string;
  model: string;
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Dispatcher.ResponseData['body'];
}

export interface SendOptions {
  body?: unknown;
  signal?: AbortSignal;
  timeoutMs: number;
  context: RequestContext;
}

/** Error bodies are read up to this many bytes (the rest is dropped). */
const ERROR_BODY_LIMIT = 64 * 1024;

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/** A pooled client for one base URL (one connection pool per provider instance). */
export class HttpClient {
  readonly #pool: Pool;
  readonly #basePath: string;
  readonly #headers: Record<string, string>;

  constructor(baseUrl: URL, headers: Record<string, string>, connections: number) {
    this.#pool = new Pool(baseUrl.origin, { connections, pipelining: 1 });
    this.#basePath = baseUrl.pathname.replace(/\/+$/, '');
    this.#headers = headers;
  }

  /** Send a request; resolves once the response headers are in. Transport failures reject with LLMErrors. */
  async send(method: 'GET' | 'POST', path: string, options: SendOptions): Promise<HttpResponse> {
    const { signal, context } = options;
    if (signal?.aborted) throw abortError(context, signal.reason);
    try {
      const response = await this.#pool.request({
        method,
        path: `${this.#basePath}${path}`,
        headers:
          options.body === undefined
            ? this.#headers
            : { ...this.#headers, 'content-type': 'application/json' },
        ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
        ...(signal !== undefined && { signal }),
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      });
      return { status: response.statusCode, headers: response.headers, body: response.body };
    } catch (error) {
      throw transportError(error, context, signal, false);
    }
  }

  /** Abort whatever is in flight and release the sockets. */
  async close(): Promise<void> {
    if (!this.#pool.destroyed) await this.#pool.destroy();
  }
}

/** The caller aborted: an AbortError-kind LLMError carrying the signal's reason. */
export function abortError(context: RequestContext, reason?: unknown): LLMError {
  return createLLMError('abort', `${context.provider}: request aborted`, { ...context, cause: reason });
}

/**
 * A failure without (or after) an HTTP response as an LLMError: abort when the
 * caller's signal fired; timeout for undici's headers/body/connect timeouts;
 * `stream` for a connection lost mid-stream; network for refused, reset or
 * unresolvable connections; `configuration` when the provider was closed.
 */
export function transportError(
  error: unknown,
  context: RequestContext,
  signal: AbortSignal | undefined,
  midStream: boolean,
): LLMError {
  if (signal?.aborted) return abortError(context, signal.reason ?? error);
  const code = errorCode(error);
  const detail = errorMessage(error);
  if (TIMEOUT_CODES.has(code)) {
    const what = code === 'UND_ERR_BODY_TIMEOUT' ? 'between two chunks of the response' : 'for the response';
    return createLLMError('timeout', `${context.provider}: timed out waiting ${what} (${detail})`, {
      ...context,
      cause: error,
    });
  }
  if (code === 'UND_ERR_DESTROYED' || code === 'UND_ERR_CLOSED_CLIENT') {
    return createLLMError(
      'configuration',
      `${context.provider}: the provider was closed (session cleaned up)`,
      {
        ...context,
        cause: error,
      },
    );
  }
  if (midStream) {
    return createLLMError('stream', `${context.provider}: the connection was lost mid-response (${detail})`, {
      ...context,
      cause: error,
    });
  }
  if (NETWORK_CODES.has(code) || code.startsWith('UND_ERR')) {
    return createLLMError('network', `${context.provider}: could not reach the server (${detail})`, {
      ...context,
      cause: error,
    });
  }
  return createLLMError('unknown', `${context.provider}: request failed (${detail})`, {
    ...context,
    cause: error,
  });
}

function errorCode(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return '';
}

/** The body as text, at most `limit` bytes (the rest is discarded, the socket released). */
export async function readText(
  body: HttpResponse['body'],
  context: RequestContext,
  signal: AbortSignal | undefined,
  limit: number = Number.POSITIVE_INFINITY,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      const buffer = chunk as Buffer;
      if (size + buffer.length > limit) {
        chunks.push(buffer.subarray(0, limit - size));
        body.destroy();
        break;
      }
      chunks.push(buffer);
      size += buffer.length;
    }
  } catch (error) {
    throw transportError(error, context, signal, true);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** An error response's body (bounded). Never throws: a failed read gives ''. */
export async function readErrorBody(body: HttpResponse['body']): Promise<string> {
  try {
    return await readText(body, { provider: '', model: '' }, undefined, ERROR_BODY_LIMIT);
  } catch {
    return '';
  }
}

/**
 * The Server-Sent Events of a response body, one message at a time. Chunks
 * split anywhere (inside a line, inside a UTF-8 character), multi-line
 * `data:`, comments and keep-alives, and CRLF line ends are all handled by
 * eventsource-parser. A transport failure throws a stream (or timeout, abort)
 * LLMError. An event cut off by the end of the body is dropped, as the
 * SSE spec says; callers detect the missing terminal event.
 */
export async function* sseEvents(
  body: HttpResponse['body'],
  context: RequestContext,
  signal: AbortSignal | undefined,
): AsyncGenerator<EventSourceMessage> {
  const pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event) });
  const decoder = new TextDecoder();
  const iterator = body[Symbol.asyncIterator]();
  try {
    for (;;) {
      let next: IteratorResult<unknown>;
      try {
        next = await iterator.next();
      } catch (error) {
        throw transportError(error, context, signal, true);
      }
      parser.feed(next.done ? decoder.decode() : decoder.decode(next.value as Buffer, { stream: true }));
      for (let i = 0; i < pending.length; i++) yield pending[i]!;
      pending.length = 0;
      if (next.done) return;
    }
  } finally {
    // Stopped early (consumer break, error): release the connection.
    if (!body.destroyed) body.destroy();
  }
}

/** A header's value (the first when repeated). */
export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Seconds the server asked to wait: `retry-after-ms`, else `retry-after` as
 * seconds or an HTTP date. Undefined when absent or unreadable.
 */
export function retryAfterSeconds(
  headers: IncomingHttpHeaders,
  now: number = Date.now(),
): number | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim())) return Number(ms) / 1000;
  const value = header(headers, 'retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}
