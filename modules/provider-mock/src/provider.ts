/**
 * ScriptedProvider: a Provider that answers from a script, from a function,
 * or with a fixed text, and behaves like a real one around that: it records
 * requests, emits llm:request / llm:response, honours `signal`, and streams.
 */
import { randomUUID } from 'node:crypto';
import {
  type ChatRequest,
  type ChatResponse,
  type CompleteOptions,
  checkData,
  createLLMError,
  type EventKey,
  type EventPayload,
  type EventSink,
  errorMessage,
  events,
  formatDataErrors,
  LLMError,
  type ModelInfo,
  ownConfig,
  type Provider,
  type ProviderInfo,
  responseToolCalls,
  type StreamEvent,
  sleep,
  type ToolCall,
} from '@amplifier/core';
import { BlockEvents } from '@amplifier/provider-http/block-events';
import { configDurationMs, type FromSchema } from '@amplifier/schema';
import { cloneData } from './clone.js';
import {
  assertConfig,
  type CONFIG_SCHEMA,
  type ScriptError,
  type ScriptStep,
  stepResponse,
  usageFor,
} from './script.js';
import { responseEvents, type StreamPace } from './stream.js';

/** The answer when no script and no `respond` function is configured. */
export const DEFAULT_TEXT = 'This is a mock response from provider-mock.';

/** Rule mode: build the response from the request (`call` counts from 1). */
export type RespondFunction = (
  request: ChatRequest,
  context: { call: number; signal?: AbortSignal },
) => ChatResponse | Promise<ChatResponse>;

/**
 * Module config (snake_case, as in a mount plan), plus `respond` and `random`
 * when given in code: the keys of `CONFIG_SCHEMA` (`FromSchema`), the script
 * and the functions typed here.
 */
export type ProviderMockConfig = Omit<FromSchema<typeof CONFIG_SCHEMA>, 'script' | 'respond' | 'random'> & {
  /** The responses, in order. */
  script?: ScriptStep[];
  respond?: RespondFunction;
  /** The random source of `fail_probability`, a number in [0, 1) (in code; default `Math.random`). */
  random?: () => number;
};

export interface MockProviderOptions extends Omit<ProviderMockConfig, 'script_file'> {
  /** Mount name. Default `mock`. */
  name?: string;
  /** Where llm:request / llm:response go (the mount passes `coordinator.hooks`). */
  hooks?: EventSink;
}

const CAPABILITIES = ['tools', 'streaming', 'thinking'];

/** A call in flight: its number (from 1), model and start time. */
interface Call {
  number: number;
  model: string;
  started: number;
}

/** What a step produces: the response, and the error its stream ends with (`stream_error`). */
interface Produced {
  response: ChatResponse;
  cut?: LLMError;
}

/** A scripted, rule-driven or fixed-text provider for tests and offline runs. */
export class ScriptedProvider implements Provider {
  readonly name: string;
  readonly priority: number;
  /** Every request received, in order (shallow copies with their own message arrays). */
  readonly requests: ChatRequest[] = [];
  readonly model: string;
  readonly #options: MockProviderOptions;
  readonly #script: readonly ScriptStep[] | undefined;
  readonly #streamDelayMs: number;
  readonly #responseDelayMs: number;
  #calls = 0;

  /** Reads the options' own properties only; the script is copied (any depth) and replayed as written. */
  constructor(raw: MockProviderOptions = {}) {
    const options = ownConfig(raw, 'provider-mock') as MockProviderOptions;
    const { name, hooks, ...config } = options;
    assertConfig(config as Record<string, unknown>);
    this.#options = options;
    this.#script = options.script === undefined ? undefined : cloneData(options.script);
    this.name = name ?? 'mock';
    this.priority = options.priority ?? 100;
    this.model = options.model ?? 'mock-model';
    this.#streamDelayMs =
      configDurationMs(config as Record<string, unknown>, 'stream_delay', 'provider-mock') ?? 0;
    this.#responseDelayMs =
      configDurationMs(config as Record<string, unknown>, 'response_delay', 'provider-mock') ?? 0;
  }

  /** How many requests were answered or failed (each consumes one script step). */
  get callCount(): number {
    return this.#calls;
  }

  getInfo(): ProviderInfo {
    const model = this.getModelInfo();
    return {
      id: this.name,
      display_name: 'Mock Provider',
      credential_env_vars: [],
      capabilities: [...CAPABILITIES],
      defaults: {
        model: this.model,
        max_tokens: model.max_output_tokens,
        context_window: model.context_window,
        max_output_tokens: model.max_output_tokens,
      },
      config_fields: [],
    };
  }

  getModelInfo(): ModelInfo {
    return {
      id: this.model,
      display_name: `Mock model (${this.model})`,
      context_window: this.#options.context_window ?? 200_000,
      max_output_tokens: this.#options.max_output_tokens ?? 8192,
      capabilities: [...CAPABILITIES],
      defaults: {},
    };
  }

  async listModels(): Promise<ModelInfo[]> {
    return [this.getModelInfo()];
  }

  /** `response.tool_calls`, or the `tool_call` content blocks when there are none. */
  parseToolCalls(response: ChatResponse): ToolCall[] {
    return responseToolCalls(response);
  }

  /**
   * The answer. With `use_streaming` (default) and unless
   * `request.metadata.stream === false`, it is streamed internally first:
   * `llm:stream_block_start|delta|end` in fragments of `stream_chunk_chars`,
   * `stream_delay` apart, between `llm:request` and `llm:response`.
   */
  async complete(request: ChatRequest, options: CompleteOptions = {}): Promise<ChatResponse> {
    const { signal } = options;
    const streaming = this.#options.use_streaming !== false && request.metadata?.stream !== false;
    const call = await this.#begin(request, signal);
    try {
      const { response, cut } = await this.#produce(request, call.number, signal);
      if (streaming) {
        const blocks = new BlockEvents((event, data) => this.#emit(event, data), randomUUID());
        try {
          for await (const event of responseEvents(response, call.model, this.#pace(signal), cut)) {
            await blocks.on(event);
          }
        } catch (error) {
          await blocks.aborted(error);
          throw error;
        }
      } else if (cut !== undefined) {
        throw cut;
      }
      await this.#succeeded(call, response);
      return response;
    } catch (error) {
      await this.#failed(call, error);
      throw error;
    }
  }

  /**
   * The same answer as `complete`, as events: text and thinking fragments,
   * tool calls, then `message.end`; with the token-streaming events on the
   * hooks unless `request.metadata.stream === false`. `llm:response` comes
   * after the last stream event (as with a real provider), or with
   * `status: 'error'` when the stream fails or the consumer stops reading.
   */
  async *stream(request: ChatRequest, options: { signal?: AbortSignal } = {}): AsyncIterable<StreamEvent> {
    const { signal } = options;
    const call = await this.#begin(request, signal);
    const blocks = new BlockEvents(
      request.metadata?.stream === false ? async () => {} : (event, data) => this.#emit(event, data),
      randomUUID(),
    );
    let settled = false;
    try {
      const { response, cut } = await this.#produce(request, call.number, signal);
      for await (const event of responseEvents(response, call.model, this.#pace(signal), cut)) {
        await blocks.on(event);
        if (event.type === 'message.end') {
          settled = true;
          await this.#succeeded(call, response);
        }
        yield event;
      }
    } catch (error) {
      settled = true;
      await blocks.aborted(error);
      await this.#failed(call, error);
      throw error;
    } finally {
      if (!settled) {
        // The consumer stopped reading before the end.
        const error = this.#abortError('because the consumer stopped reading', undefined);
        await blocks.aborted(error);
        await this.#failed(call, error);
      }
    }
  }

  #pace(signal: AbortSignal | undefined): StreamPace {
    return {
      chunkChars: this.#options.stream_chunk_chars ?? 16,
      delayMs: this.#streamDelayMs,
      signal,
      check: () => {
        if (signal?.aborted) throw this.#abortError('while streaming', signal.reason);
      },
      abortError: (reason) => this.#abortError('while streaming', reason),
    };
  }

  /** A call starts: checked, counted, recorded, `llm:request` emitted. */
  async #begin(request: ChatRequest, signal: AbortSignal | undefined): Promise<Call> {
    if (signal?.aborted) throw this.#abortError('before it started', signal.reason);
    const number = ++this.#calls;
    this.requests.push({ ...request, messages: [...(request.messages ?? [])] });
    const model = request.model ?? this.model;
    const started = performance.now();
    await this.#emit(events.LLM_REQUEST, {
      provider: this.name,
      model,
      message_count: request.messages?.length ?? 0,
    });
    return { number, model, started };
  }

  /** `llm:response` with `status: 'ok'` and the usage. */
  async #succeeded(call: Call, response: ChatResponse): Promise<void> {
    const {
      input_tokens = 0,
      output_tokens = 0,
      cache_read_tokens,
      cache_write_tokens,
      cost_usd,
    } = response.usage ?? {};
    await this.#emit(events.LLM_RESPONSE, {
      provider: this.name,
      model: call.model,
      status: 'ok',
      duration_ms: Math.round(performance.now() - call.started),
      usage: {
        input_tokens,
        output_tokens,
        ...(cache_read_tokens ? { cache_read_tokens } : {}),
        ...(cache_write_tokens ? { cache_write_tokens } : {}),
        ...(typeof cost_usd === 'string' ? { cost_usd } : {}),
      },
    });
  }

  /** `llm:response` with `status: 'error'`. */
  async #failed(call: Call, error: unknown): Promise<void> {
    await this.#emit(events.LLM_RESPONSE, {
      provider: this.name,
      model: call.model,
      status: 'error',
      duration_ms: Math.round(performance.now() - call.started),
      error: errorMessage(error),
      error_kind: LLMError.is(error) ? error.kind : 'unknown',
    });
  }

  /** The call's response, and the error its stream ends with (`stream_error`), if any. */
  async #produce(request: ChatRequest, call: number, signal: AbortSignal | undefined): Promise<Produced> {
    const { respond, fail_probability: failProbability = 0 } = this.#options;
    if (this.#responseDelayMs > 0) {
      try {
        await sleep(this.#responseDelayMs, signal);
      } catch (reason) {
        throw this.#abortError('during response_delay', reason);
      }
    }
    if (failProbability > 0 && (this.#options.random ?? Math.random)() < failProbability) {
      throw createLLMError(
        'unavailable',
        `provider-mock: simulated failure (fail_probability ${failProbability}, call ${call})`,
        this.#errorContext(request),
      );
    }
    if (respond !== undefined) {
      const response = await this.#raceAbort(
        Promise.resolve().then(() => respond(request, { call, signal })),
        signal,
      );
      const errors = checkData('chat-response', response);
      if (errors.length > 0) {
        throw createLLMError(
          'configuration',
          `provider-mock: respond() returned an invalid ChatResponse:\n${formatDataErrors(errors)}`,
          this.#errorContext(request),
        );
      }
      return { response };
    }
    const script = this.#script;
    if (script === undefined) {
      const text = this.#options.default_text ?? this.#options.default_response ?? DEFAULT_TEXT;
      const content = [{ type: 'text' as const, text }];
      return { response: { content, usage: usageFor(undefined, request, content), finish_reason: 'stop' } };
    }
    const step = this.#step(script, call, request);
    if (typeof step === 'object' && step.delay_ms !== undefined && step.delay_ms > 0) {
      try {
        await sleep(step.delay_ms, signal);
      } catch (reason) {
        throw this.#abortError('during the scripted delay', reason);
      }
    }
    if (typeof step === 'object' && step.error !== undefined)
      throw this.#scriptedError(step.error, call, request);
    const response = stepResponse(step, request, `call_mock_${call}`);
    if (typeof step === 'object' && step.stream_error !== undefined) {
      return { response, cut: this.#scriptedError(step.stream_error, call, request) };
    }
    return { response };
  }

  #scriptedError(error: ScriptError, call: number, request: ChatRequest): LLMError {
    const { kind, message, status_code, retry_after, retryable } = error;
    return createLLMError(kind, message ?? `provider-mock: scripted ${kind} error (step ${call})`, {
      ...this.#errorContext(request),
      ...(status_code !== undefined && { status_code }),
      ...(retry_after !== undefined && { retry_after }),
      ...(retryable !== undefined && { retryable }),
    });
  }

  /** The step for call number `call` (1-based), honouring `loop` and `repeat_last`. */
  #step(script: readonly ScriptStep[], call: number, request: ChatRequest): ScriptStep {
    let index = call - 1;
    if (index >= script.length) {
      if (this.#options.loop) index %= script.length;
      else if (this.#options.repeat_last) index = script.length - 1;
      else {
        const steps = `${script.length} step${script.length === 1 ? '' : 's'}`;
        throw createLLMError(
          'configuration',
          `provider-mock: the script has ${steps} and was asked for step ${call}; add steps, or set repeat_last: true or loop: true`,
          this.#errorContext(request),
        );
      }
    }
    return script[index]!;
  }

  #errorContext(request: ChatRequest): { provider: string; model: string } {
    return { provider: this.name, model: request.model ?? this.model };
  }

  #abortError(when: string, reason: unknown): LLMError {
    return createLLMError('abort', `provider-mock: request aborted ${when}`, {
      provider: this.name,
      model: this.model,
      cause: reason,
    });
  }

  /** Settle with `promise`, or reject with an abort error as soon as `signal` aborts. */
  #raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    if (signal === undefined) return promise;
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => reject(this.#abortError('while respond() was running', signal.reason));
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      promise.then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }

  async #emit<E extends EventKey>(event: E, data: EventPayload<E>): Promise<void> {
    try {
      await this.#options.hooks?.emit(event, data);
    } catch {
      // Observability must never break a request.
    }
  }
}
