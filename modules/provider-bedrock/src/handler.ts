/**
 * The AWS SDK's HTTP layer over the provider kit's `Transport`: the SDK
 * builds, signs (SigV4 or Bearer) and decodes (JSON, the binary event
 * stream); the bytes travel through an undici pool per origin, the same
 * transport every other HTTP provider of the kit uses (`poolTransport`), so
 * timeouts, aborts and connection reuse behave alike. A transport failure is
 * thrown as the transport threw it; the provider maps it (`transportError`).
 */
import { type HttpHeaders, poolTransport, type Transport } from '@amplifier/provider-http';
import { Pool } from 'undici';

/** The request the SDK hands its HTTP handler (smithy's `HttpRequest`, the fields used here). */
export interface SdkHttpRequest {
  method: string;
  protocol: string;
  hostname: string;
  port?: number;
  path: string;
  query?: Record<string, string | readonly string[] | null>;
  headers: Record<string, string>;
  body?: unknown;
}

/** Per-request options the SDK passes through from `client.send(command, options)`. */
export interface SdkHandlerOptions {
  abortSignal?: AbortSignal | { aborted: boolean };
  requestTimeout?: number;
}

/** What the handler answers with (smithy's `HttpResponse` shape). */
export interface SdkHttpResponse {
  statusCode: number;
  reason?: string;
  headers: Record<string, string>;
  body: unknown;
}

/** Makes the transport of one origin (`https://bedrock-runtime.us-east-1.amazonaws.com`). */
export type TransportFactory = (origin: string) => Transport;

/** The default: one undici pool per origin, `connections` connections. */
export function poolTransports(connections: number): TransportFactory {
  return (origin) => poolTransport(new Pool(origin, { connections, pipelining: 1 }));
}

function queryString(query: SdkHttpRequest['query']): string {
  if (query === undefined) return '';
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    const name = encodeURIComponent(key);
    if (value === null) parts.push(name);
    else if (typeof value === 'string') parts.push(`${name}=${encodeURIComponent(value)}`);
    else for (const item of value) parts.push(`${name}=${encodeURIComponent(item)}`);
  }
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

function bodyText(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array)
    return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  throw new TypeError(`provider-bedrock: cannot send a request body of type ${typeof body}`);
}

function flatHeaders(headers: HttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : (value as string);
  }
  return out;
}

/** Headers the transport sets itself (undici refuses some of them as request headers). */
const HOP_HEADERS = new Set(['host', 'connection', 'transfer-encoding', 'expect']);

/**
 * A smithy `HttpHandler` (`requestHandler` of the SDK client) over the kit's
 * transports. `timeoutMs` applies when the request names no
 * `requestTimeout`; `close` releases every pool.
 */
export class TransportRequestHandler {
  readonly #transports = new Map<string, Transport>();
  readonly #create: TransportFactory;
  readonly #timeoutMs: number;
  readonly #headers: Record<string, string>;
  readonly metadata: { handlerProtocol: string } = { handlerProtocol: 'http/1.1' };

  /** `headers`: added to every request after the SDK signed it (config `headers`; an `authorization` there wins). */
  constructor(create: TransportFactory, timeoutMs: number, headers: Record<string, string> = {}) {
    this.#create = create;
    this.#timeoutMs = timeoutMs;
    this.#headers = headers;
  }

  async handle(
    request: SdkHttpRequest,
    options: SdkHandlerOptions = {},
  ): Promise<{ response: SdkHttpResponse }> {
    const origin = `${request.protocol.replace(/:?$/, ':')}//${request.hostname}${request.port ? `:${request.port}` : ''}`;
    let transport = this.#transports.get(origin);
    if (transport === undefined) {
      transport = this.#create(origin);
      this.#transports.set(origin, transport);
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (!HOP_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
    }
    Object.assign(headers, this.#headers);
    const body = bodyText(request.body);
    const signal = options.abortSignal instanceof AbortSignal ? options.abortSignal : undefined;
    const response = await transport.request({
      method: request.method as 'GET' | 'POST',
      path: `${request.path}${queryString(request.query)}`,
      headers,
      ...(body !== undefined && { body }),
      ...(signal !== undefined && { signal }),
      timeoutMs: options.requestTimeout ?? this.#timeoutMs,
    });
    return {
      response: { statusCode: response.status, headers: flatHeaders(response.headers), body: response.body },
    };
  }

  updateHttpClientConfig(): void {}

  httpHandlerConfigs(): Record<string, never> {
    return {};
  }

  /** Release every pool (in-flight requests are aborted). */
  async close(): Promise<void> {
    const transports = [...this.#transports.values()];
    this.#transports.clear();
    await Promise.all(transports.map((t) => t.close()));
  }

  destroy(): void {
    void this.close();
  }
}
