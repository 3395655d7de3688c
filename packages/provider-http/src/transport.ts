/**
 * HTTP for LLM providers, free of any HTTP client: a provider plugs its own
 * transport (an undici Pool, fetch) into `ProviderHttpClient`, which joins
 * the base path, sends JSON, turns transport failures into LLMErrors and
 * refuses requests once closed. Plus bounded body reads and `Retry-After`.
 */
import { createLLMError, errorMessage, LLMError, stringifyJson } from '@amplifier/core';
import { isLocalUrl } from './config.js';

/** Who a request is for, stamped on every error. */
export interface RequestContext {
  provider: string;
  model: string;
}

/** Response headers, lower-case names (Node's `IncomingHttpHeaders` fits). */
export type HttpHeaders = Readonly<Record<string, string | string[] | undefined>>;

/**
 * A response body: its bytes as they arrive. Stopping the iteration early
 * (`break`, `return()`) must release the connection, as Node streams and web
 * `ReadableStream`s do.
 */
export type ResponseBody = AsyncIterable<Uint8Array>;

export interface HttpResponse {
  status: number;
  headers: HttpHeaders;
  body: ResponseBody;
}

/** What `ProviderHttpClient` asks a transport to send. */
export interface TransportRequest {
  method: 'GET' | 'POST';
  /** Path and query, the base URL's path included. */
  path: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** Longest wait for the response headers and, once the body streams, between two chunks. */
  timeoutMs: number;
}

/** The part a provider brings: one connection pool bound to the base URL's origin. */
export interface Transport {
  /** Resolves once the response headers are in; rejects with the client's own error otherwise. */
  request(request: TransportRequest): Promise<HttpResponse>;
  /** Abort what is in flight and release the sockets. */
  close(): Promise<void>;
}

/**
 * The part of a connection pool `poolTransport` uses; undici's `Pool` (or
 * `Client`) fits as is, without core depending on undici.
 */
export interface PooledDispatcher {
  request(options: {
    method: TransportRequest['method'];
    path: string;
    headers: Record<string, string>;
    body?: string;
    signal?: AbortSignal;
    headersTimeout: number;
    bodyTimeout: number;
  }): Promise<{ statusCode: number; headers: HttpHeaders; body: ResponseBody }>;
  destroy(): Promise<void>;
  readonly destroyed: boolean;
}

/**
 * A transport over one pool bound to the base URL's origin, e.g.
 * `poolTransport(new Pool(baseUrl.origin, { connections, pipelining: 1 }))`:
 * the request timeout applies to the headers and between body chunks; `close`
 * destroys the pool (aborting what is in flight), once.
 */
export function poolTransport(pool: PooledDispatcher): Transport {
  return {
    async request({ timeoutMs, ...request }) {
      const response = await pool.request({ ...request, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
      return { status: response.statusCode, headers: response.headers, body: response.body };
    },
    async close() {
      if (!pool.destroyed) await pool.destroy();
    },
  };
}

/**
 * The JSON of a request body: `JSON.stringify` (fast, and exact for the plain
 * data providers build), or core's `stringifyJson` when that throws (a cycle,
 * a bigint, data nested deeper than the stack allows).
 */
function requestBody(body: unknown): string {
  try {
    return JSON.stringify(body);
  } catch {
    return stringifyJson(body);
  }
}

export interface SendOptions {
  /**
   * Sent as JSON. Never throws: when `JSON.stringify` cannot write it (data
   * nested deeper than the stack allows, a cycle, a bigint), core's
   * `stringifyJson` does, with `MAX_DEPTH_MARKER` below `MAX_DATA_DEPTH`.
   */
  body?: unknown;
  signal?: AbortSignal;
  timeoutMs: number;
  context: RequestContext;
}

/** Error bodies are read up to this many bytes (the rest is dropped). */
const ERROR_BODY_LIMIT = 64 * 1024;

/** Node and undici codes of a connection that could not be made or was lost. */
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
const CLOSED_CODES = new Set(['UND_ERR_DESTROYED', 'UND_ERR_CLOSED_CLIENT']);

/** One provider instance's HTTP: base URL, default headers, a transport. */
export class ProviderHttpClient {
  readonly #transport: Transport;
  readonly #basePath: string;
  readonly #headers: Record<string, string>;
  #closing: Promise<void> | undefined;

  constructor(baseUrl: URL, headers: Record<string, string>, transport: Transport) {
    this.#transport = transport;
    this.#basePath = baseUrl.pathname.replace(/\/+$/, '');
    this.#headers = headers;
  }

  /** Send a request; resolves once the response headers are in. Transport failures reject with LLMErrors. */
  async send(method: 'GET' | 'POST', path: string, options: SendOptions): Promise<HttpResponse> {
    const { signal, context } = options;
    if (signal?.aborted) throw abortError(context, signal.reason);
    if (this.#closing !== undefined) throw closedError(context);
    try {
      return await this.#transport.request({
        method,
        path: `${this.#basePath}${path}`,
        headers:
          options.body === undefined
            ? this.#headers
            : { ...this.#headers, 'content-type': 'application/json' },
        ...(options.body !== undefined && { body: requestBody(options.body) }),
        ...(signal !== undefined && { signal }),
        timeoutMs: options.timeoutMs,
      });
    } catch (error) {
      throw transportError(error, context, signal, false);
    }
  }

  /** Abort whatever is in flight and release the sockets; later requests fail with a configuration error. */
  close(): Promise<void> {
    this.#closing ??= this.#transport.close();
    return this.#closing;
  }
}

/** The caller aborted: an abort-kind LLMError carrying the signal's reason. */
export function abortError(context: RequestContext, reason?: unknown): LLMError {
  return createLLMError('abort', `${context.provider}: request aborted`, { ...context, cause: reason });
}

function closedError(context: RequestContext, cause?: unknown): LLMError {
  return createLLMError(
    'configuration',
    `${context.provider}: the provider was closed (session cleaned up)`,
    {
      ...context,
      cause,
    },
  );
}

/**
 * A failure without (or after) an HTTP response as an LLMError: abort when the
 * caller's signal fired; timeout for undici's headers/body/connect timeouts and
 * a `TimeoutError` (`AbortSignal.timeout`); `configuration` when the client was
 * closed; `stream` for a connection lost mid-response; network for refused,
 * reset or unresolvable connections; unknown otherwise.
 */
export function transportError(
  error: unknown,
  context: RequestContext,
  signal: AbortSignal | undefined,
  midStream: boolean,
): LLMError {
  if (signal?.aborted) return abortError(context, signal.reason ?? error);
  if (LLMError.is(error)) return error; // a transport that maps its own failures
  const code = errorCode(error);
  const detail = errorMessage(error);
  const options = { ...context, cause: error };
  if (TIMEOUT_CODES.has(code) || errorName(error) === 'TimeoutError') {
    const what = code === 'UND_ERR_BODY_TIMEOUT' ? 'between two chunks of the response' : 'for the response';
    return createLLMError('timeout', `${context.provider}: timed out waiting ${what} (${detail})`, options);
  }
  if (CLOSED_CODES.has(code)) return closedError(context, error);
  if (midStream) {
    return createLLMError(
      'stream',
      `${context.provider}: the connection was lost mid-response (${detail})`,
      options,
    );
  }
  if (code === 'ENOTFOUND') {
    return createLLMError(
      'network',
      `${context.provider}: could not reach the server: its host name does not resolve (${detail}); check base_url and this machine's DNS or network`,
      options,
    );
  }
  if (NETWORK_CODES.has(code) || code.startsWith('UND_ERR')) {
    return createLLMError('network', `${context.provider}: could not reach the server (${detail})`, options);
  }
  return createLLMError('unknown', `${context.provider}: request failed (${detail})`, options);
}

/**
 * How many retries a network failure deserves, at most `maxRetries`: none for
 * a host name that does not resolve (ENOTFOUND: no DNS answer appears by
 * waiting; a resolver that is only slow says EAI_AGAIN, which is retried),
 * one for a connection refused by a server on this machine, else all.
 */
export function retriesAllowed(error: LLMError, baseUrl: URL | undefined, maxRetries: number): number {
  if (error.kind === 'network' && errorCode(error.cause) === 'ENOTFOUND') return 0;
  return refusedByLocalServer(error, baseUrl) ? Math.min(1, maxRetries) : maxRetries;
}

/**
 * A connection refused by a server on this machine (`baseUrl` on a loopback
 * host): nothing listens there, and no local server appears by waiting.
 */
export function refusedByLocalServer(error: LLMError, baseUrl: URL | undefined): boolean {
  return (
    baseUrl !== undefined &&
    error.kind === 'network' &&
    errorCode(error.cause) === 'ECONNREFUSED' &&
    isLocalUrl(baseUrl)
  );
}

/** The first string `code` on the error or its causes (fetch wraps the socket error). */
function errorCode(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return '';
}

function errorName(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? (error as { name?: string }).name : undefined;
}

/** The body as text, at most `limit` bytes (the rest is discarded, the connection released). */
export async function readText(
  body: ResponseBody,
  context: RequestContext,
  signal: AbortSignal | undefined,
  limit: number = Number.POSITIVE_INFINITY,
): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      if (size + chunk.length > limit) {
        chunks.push(chunk.subarray(0, limit - size));
        break; // ends the iteration: the body is destroyed
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } catch (error) {
    throw transportError(error, context, signal, true);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** An error response's body (bounded). Never throws: a failed read gives ''. */
export async function readErrorBody(body: ResponseBody): Promise<string> {
  try {
    return await readText(body, { provider: '', model: '' }, undefined, ERROR_BODY_LIMIT);
  } catch {
    return '';
  }
}

/** A header's value (the first when repeated). */
export function header(headers: HttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Seconds the server asked to wait: `retry-after-ms`, else Azure's
 * `x-ms-retry-after-ms`, else `retry-after` as seconds or an HTTP date.
 * Undefined when absent or unreadable.
 */
export function retryAfterSeconds(headers: HttpHeaders, now: number = Date.now()): number | undefined {
  return retryAfterFrom(headers, now)?.seconds;
}

/** `retryAfterSeconds` and the header it was read from (`retry-after-ms`, `x-ms-retry-after-ms` or `retry-after`). */
export function retryAfterFrom(
  headers: HttpHeaders,
  now: number = Date.now(),
): { seconds: number; source: string } | undefined {
  for (const name of ['retry-after-ms', 'x-ms-retry-after-ms']) {
    const ms = header(headers, name);
    if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim()))
      return { seconds: Number(ms) / 1000, source: name };
  }
  const value = header(headers, 'retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return { seconds: Number(value), source: 'retry-after' };
  const date = Date.parse(value);
  return Number.isNaN(date)
    ? undefined
    : { seconds: Math.max(0, (date - now) / 1000), source: 'retry-after' };
}
