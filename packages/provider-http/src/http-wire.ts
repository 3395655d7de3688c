/**
 * The HTTP side of a model call, for APIs that answer a JSON POST with JSON or
 * with Server-Sent Events: send the body, turn an error response into an
 * LLMError, keep the rate-limit headers for `llm:response`, read a whole
 * answer, or the events of a stream (also when a server answers a stream
 * request with plain JSON). What is API-specific is the provider's `HttpApi`.
 */
import type { ChatResponse, StreamEvent } from '@amplifier/core';
import type { ProviderCall, ProviderWire } from './calls.js';
import { type ApiErrorStyle, httpStatusError, parseJsonObject, rateLimitFields } from './errors.js';
import { type SseMessage, sseEvents } from './sse.js';
import {
  type HttpResponse,
  header,
  type ProviderHttpClient,
  type RequestContext,
  readErrorBody,
  readText,
} from './transport.js';

type Json = Record<string, unknown>;

/** One API's request and answer formats. */
export interface HttpApi extends Pick<ProviderWire<HttpResponse>, 'build'> {
  /** The completion endpoint under the base URL: `/chat/completions`, `/v1/messages` (a request's own `path` wins). */
  path: string;
  errors: ApiErrorStyle;
  /** A right base URL, quoted when an answer is not JSON: `https://api.anthropic.com`. */
  baseUrlExample: string;
  /** A server asking to wait (Retry-After) longer than this is not retried. */
  maxRetryDelayMs: number;
  /** A whole answer as a ChatResponse; throws the mapped LLMError for an error payload. */
  parse(payload: Json, context: RequestContext): ChatResponse;
  /** The StreamEvents of an SSE answer, ending with `message.end`; throws LLMErrors. */
  streamEvents(messages: AsyncIterable<SseMessage>, context: RequestContext): AsyncIterable<StreamEvent>;
  /** A whole answer as StreamEvents, for a server that answered a stream request with JSON. */
  responseEvents(response: ChatResponse): StreamEvent[];
}

/** `ProviderCalls`' wire over HTTP, plus `getJson` for the other endpoints (model listings). */
export class HttpWire implements ProviderWire<HttpResponse> {
  readonly #http: ProviderHttpClient;
  readonly #api: HttpApi;
  readonly #baseUrl: string;

  constructor(http: ProviderHttpClient, baseUrl: URL, api: HttpApi) {
    this.#http = http;
    this.#baseUrl = baseUrl.href;
    this.#api = api;
  }

  build(...args: Parameters<HttpApi['build']>): ReturnType<HttpApi['build']> {
    return this.#api.build(...args);
  }

  /** POST the body; resolves with a 2xx response, throws the mapped LLMError otherwise. */
  async open(call: ProviderCall): Promise<HttpResponse> {
    const { errors } = this.#api;
    const response = await this.#http.send('POST', call.path ?? this.#api.path, call);
    const limits = errors.rateLimits && rateLimitFields(response.headers, errors.rateLimits);
    if (limits !== undefined) call.rateLimits = limits;
    if (response.status >= 200 && response.status < 300) return response;
    const body = await readErrorBody(response.body);
    throw httpStatusError(
      errors,
      { status: response.status, headers: response.headers, body },
      call.context,
      this.#api.maxRetryDelayMs,
    );
  }

  async read(call: ProviderCall, response: HttpResponse): Promise<ChatResponse> {
    const text = await readText(response.body, call.context, call.signal);
    return this.#api.parse(this.#object(text, response.status, call.context), call.context);
  }

  /** The events of a streamed response (or of a plain JSON one, for servers that do not stream). */
  async *events(call: ProviderCall, response: HttpResponse): AsyncGenerator<StreamEvent> {
    if (header(response.headers, 'content-type')?.includes('application/json')) {
      yield* this.#api.responseEvents(await this.read(call, response));
      return;
    }
    yield* this.#api.streamEvents(sseEvents(response.body, call.context, call.signal), call.context);
  }

  /**
   * GET `path` as a JSON object. Anything but HTTP 200 throws the mapped
   * LLMError (never worth a retry: a Retry-After counts as too long), and so
   * does an answer that is not a JSON object.
   */
  async getJson(path: string, context: RequestContext, timeoutMs: number): Promise<Json> {
    const response = await this.#http.send('GET', path, { timeoutMs, context });
    if (response.status !== 200) {
      const body = await readErrorBody(response.body);
      throw httpStatusError(this.#api.errors, { ...response, body }, context, 0);
    }
    return this.#object(await readText(response.body, context, undefined), 200, context);
  }

  #object(text: string, status: number, context: RequestContext): Json {
    return parseJsonObject(text, status, context, {
      baseUrl: this.#baseUrl,
      example: this.#api.baseUrlExample,
    });
  }
}
