/**
 * One model call of an HTTP provider, from request to response, with what
 * every such provider does around the wire: tool-sequence repair,
 * `llm:request`, retries with backoff and `provider:retry`, stream block
 * events, cost, and `llm:response` (also on failure). The provider brings the
 * wire: how to build the body, send it, and read the answer.
 */

import { randomUUID } from 'node:crypto';
import type {
  ChatRequest,
  ChatResponse,
  CompleteOptions,
  EventKey,
  EventPayload,
  EventSink,
  Logger,
  Message,
  StreamEvent,
} from '@amplifier/core';
import { errorMessage, events, LLMError, silentLogger } from '@amplifier/core';
import { BlockEvents } from './block-events.js';
import type { CostMeter } from './cost.js';
import {
  type LlmRequestFacts,
  llmErrorPayload,
  llmRequestPayload,
  llmResponsePayload,
  providerRetryPayload,
} from './events.js';
import { retryWithBackoff } from './retry.js';
import { repairToolSequence } from './tool-sequence.js';
import { abortError, type RequestContext, retriesAllowed } from './transport.js';

type Json = Record<string, unknown>;

const DONE: Promise<void> = Promise.resolve();
const ignore = (): void => {};

/** Carries an error past the retries: the attempt already emitted stream events. */
class Final {
  readonly error: unknown;
  constructor(error: unknown) {
    this.error = error;
  }
}

/** The settings calls run with, as `ResolvedProviderConfig` holds them. */
export interface CallSettings {
  /** The model of a request that names none. */
  model: string;
  /** Per-request timeout unless the request sets `timeout` (seconds). */
  timeoutMs: number;
  maxRetries: number;
  minRetryDelayMs: number;
  maxRetryDelayMs: number;
  /** ± fraction of random jitter. */
  jitter: number;
  /** Include bodies (secrets redacted) in `llm:request` / `llm:response` as `raw`. */
  raw: boolean;
  /** The server: a refused connection to a loopback host is retried once at most (no local server appears by waiting). */
  baseUrl?: URL;
}

/** One call in flight: what was built for it and what its responses said. */
export interface ProviderCall {
  readonly context: RequestContext;
  readonly body: Json;
  readonly signal: AbortSignal | undefined;
  readonly timeoutMs: number;
  /** `performance.now()` when the call began. */
  readonly started: number;
  /** The endpoint of this call when the API's depends on the request (Gemini's model and method); default `HttpApi.path`. */
  readonly path?: string;
  /** The API's rate-limit headers of the last response, for `llm:response`. */
  rateLimits?: Json;
}

/** The wire body of a request and what `llm:request` says about it. */
export interface WireRequest extends Omit<LlmRequestFacts, 'stream' | 'toolCount' | 'raw'> {
  body: Json;
  /** The endpoint for this request (path and query under the base URL), when it is not always the same. */
  path?: string;
}

/** The API-specific part. `R` is an opened response (usually an `HttpResponse`). */
export interface ProviderWire<R> {
  /** The body for `request`, its messages already repaired. */
  build(
    request: ChatRequest,
    messages: Message[],
    settings: { model: string; stream: boolean; options: CompleteOptions },
  ): WireRequest;
  /** Send the call's body; resolve with a successful response, or throw the mapped LLMError. */
  open(call: ProviderCall): Promise<R>;
  /** A non-streamed response, read whole. */
  read(call: ProviderCall, response: R): Promise<ChatResponse>;
  /** The events of a streamed response, ending with `message.end`; throws LLMErrors. */
  events(call: ProviderCall, response: R): AsyncIterable<StreamEvent>;
}

export interface ProviderCallsOptions<R> {
  /** The provider's name, as in payloads. */
  provider: string;
  /** The module id that prefixes log lines (`provider-openai`). */
  module: string;
  hooks?: EventSink | undefined;
  logger?: Logger | undefined;
  config: CallSettings;
  costs: CostMeter;
  wire: ProviderWire<R>;
}

/** Runs calls for one provider instance. */
export class ProviderCalls<R> {
  readonly #options: ProviderCallsOptions<R>;
  readonly #logger: Logger;

  constructor(options: ProviderCallsOptions<R>) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
  }

  /**
   * One completion. `streaming` streams internally, with the token-streaming
   * events, and returns the aggregate; `request.metadata.stream === false`
   * takes the non-streaming path for this call only (no `llm:stream_*`
   * event). All stream events of the call share one `request_id`. A failure is
   * retried only while the attempt has emitted no stream event: what a
   * renderer showed is never streamed twice, and a failure after a delta ends
   * the call with `llm:stream_aborted`.
   */
  async complete(request: ChatRequest, options: CompleteOptions, streaming: boolean): Promise<ChatResponse> {
    const { wire } = this.#options;
    const stream = streaming && request.metadata?.stream !== false;
    const call = await this.#begin(request, options, stream);
    const requestId = randomUUID();
    try {
      const response = await this.#retry(call, async () => {
        const opened = await wire.open(call);
        if (!stream) return wire.read(call, opened);
        let final: ChatResponse | undefined;
        const blocks = new BlockEvents(this.#emitter, requestId);
        try {
          for await (const event of wire.events(call, opened)) {
            await blocks.on(event);
            if (event.type === 'message.end') final = event.response;
          }
        } catch (error) {
          await blocks.aborted(error);
          throw blocks.emitted > 0 ? new Final(error) : error;
        }
        await blocks.end();
        return final!;
      });
      return await this.#end(call, response);
    } catch (error) {
      const cause = error instanceof Final ? error.error : error;
      await this.#fail(call, cause);
      throw cause;
    }
  }

  /**
   * The response as events; retried until it starts, never after the first
   * event. The token-streaming events are emitted too, unless
   * `request.metadata.stream === false`.
   */
  async *stream(request: ChatRequest, options: CompleteOptions): AsyncGenerator<StreamEvent> {
    const { wire } = this.#options;
    const call = await this.#begin(request, options, true);
    let opened: R;
    try {
      opened = await this.#retry(call, () => wire.open(call));
    } catch (error) {
      await this.#fail(call, error);
      throw error;
    }
    const silent = request.metadata?.stream === false;
    const blocks = new BlockEvents(silent ? async () => {} : this.#emitter, randomUUID());
    let settled = false;
    try {
      for await (const event of wire.events(call, opened)) {
        await blocks.on(event);
        if (event.type === 'message.end') {
          settled = true;
          await this.#end(call, event.response);
        }
        yield event;
      }
      await blocks.end();
    } catch (error) {
      settled = true;
      await blocks.aborted(error);
      await this.#fail(call, error);
      throw error;
    } finally {
      if (!settled) {
        // The consumer stopped reading before the end.
        const error = abortError(call.context, 'the consumer stopped reading');
        await blocks.aborted(error);
        await this.#fail(call, error);
      }
    }
  }

  /**
   * Emit to the hooks; a failing hook is logged (debug), never thrown. One
   * promise per event (`then`, no async frame): every streamed fragment
   * comes through here.
   */
  emit<E extends EventKey>(event: E, data: EventPayload<E>): Promise<void> {
    const hooks = this.#options.hooks;
    if (hooks === undefined) return DONE;
    const failed = (error: unknown): void => {
      this.#logger.debug(`${this.#options.module}: emitting ${event} failed: ${errorMessage(error)}`);
    };
    try {
      return Promise.resolve(hooks.emit(event, data)).then(ignore, failed);
    } catch (error) {
      failed(error);
      return DONE;
    }
  }

  readonly #emitter = <E extends EventKey>(event: E, data: EventPayload<E>): Promise<void> =>
    this.emit(event, data);

  async #begin(request: ChatRequest, options: CompleteOptions, stream: boolean): Promise<ProviderCall> {
    const { provider, module, wire, config } = this.#options;
    const { signal } = options;
    const model = request.model ?? config.model;
    const context = { provider, model };
    if (signal?.aborted) throw abortError(context, signal.reason);
    const repaired = repairToolSequence(request.messages ?? []);
    if (repaired.repairs.length > 0) {
      this.#logger.warn(
        `${module}: ${repaired.repairs.length} tool call(s) had no result; sent synthetic error results (${repaired.repairs.map((r) => r.tool_call_id).join(', ')})`,
      );
      await this.emit(events.PROVIDER_TOOL_SEQUENCE_REPAIRED, {
        provider,
        repair_count: repaired.repairs.length,
        repairs: repaired.repairs,
        ...(repaired.synthetic_assistant_count > 0 && {
          synthetic_assistant_count: repaired.synthetic_assistant_count,
        }),
      });
    }
    const { body, path, ...facts } = wire.build(request, repaired.messages, { model, stream, options });
    await this.emit(
      events.LLM_REQUEST,
      llmRequestPayload(context, {
        ...facts,
        stream,
        toolCount: request.tools?.length ?? 0,
        ...(config.raw && { raw: body }),
      }),
    );
    const timeoutMs = request.timeout !== undefined ? request.timeout * 1000 : config.timeoutMs;
    return {
      context,
      body,
      signal,
      timeoutMs,
      started: performance.now(),
      ...(path !== undefined && { path }),
    };
  }

  async #end(call: ProviderCall, response: ChatResponse): Promise<ChatResponse> {
    this.#options.costs.charge(call.context.model, response.usage);
    await this.emit(
      events.LLM_RESPONSE,
      llmResponsePayload(call.context, response, {
        durationMs: performance.now() - call.started,
        rateLimits: call.rateLimits,
        raw: this.#options.config.raw,
      }),
    );
    return response;
  }

  #fail(call: ProviderCall, error: unknown): Promise<void> {
    return this.emit(
      events.LLM_RESPONSE,
      llmErrorPayload(call.context, error, performance.now() - call.started),
    );
  }

  /**
   * Retry retryable LLMErrors with backoff, emitting `provider:retry`; an
   * abort ends it at once. After a `Retry-After` the jitter only adds, so the
   * wait never ends before the time the server asked for.
   */
  async #retry<T>(call: ProviderCall, operation: () => Promise<T>): Promise<T> {
    const { signal, context } = call;
    const { config: retry, module } = this.#options;
    let last: unknown;
    const attempt = (): Promise<T> =>
      operation().catch((error: unknown) => {
        last = error;
        throw error;
      });
    try {
      return await retryWithBackoff(attempt, {
        maxRetries: retry.maxRetries,
        minDelayMs: retry.minRetryDelayMs,
        maxDelayMs: retry.maxRetryDelayMs,
        jitter: retry.jitter,
        random: () =>
          LLMError.is(last) && last.retry_after !== undefined ? 0.5 + Math.random() / 2 : Math.random(),
        retriesFor: (error) => retriesAllowed(error, retry.baseUrl, retry.maxRetries),
        ...(signal !== undefined && { signal }),
        onRetry: async (attempt, delayMs, error, maxRetries) => {
          this.#logger.info(
            `${module}: ${error.kind} error, retry ${attempt}/${maxRetries} in ${Math.round(delayMs)} ms: ${error.message}`,
          );
          await this.emit(
            events.PROVIDER_RETRY,
            providerRetryPayload(context, attempt, maxRetries, delayMs, error),
          );
          if (error.kind === 'rate_limit' || error.status_code === 429) {
            await this.emit(events.PROVIDER_THROTTLE, {
              ...context,
              attempt,
              delay: delayMs / 1000,
              ...(error.retry_after !== undefined && { retry_after: error.retry_after }),
              source: error.retry_after_source ?? 'backoff',
            });
          }
        },
      });
    } catch (error) {
      // A failure after stream events is final as it is (llm:stream_aborted already named it).
      if (error instanceof Final) throw error;
      if (signal?.aborted && !LLMError.is(error, 'abort')) {
        throw abortError(context, signal.reason);
      }
      throw error;
    }
  }
}
