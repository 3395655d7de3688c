/**
 * AnthropicProvider: the Provider contract over the Anthropic Messages API.
 * One request = tool-sequence repair, `llm:request`, the HTTP call (streamed
 * or not) with retries and backoff, usage and cost, `llm:response` (also on
 * failure).
 */
import {
  type ChatRequest,
  type ChatResponse,
  type CompleteOptions,
  events as E,
  errorMessage,
  LLMError,
  type Logger,
  type ModelInfo,
  type Provider,
  type ProviderInfo,
  redactSecrets,
  repairToolSequence,
  retryWithBackoff,
  type StreamEvent,
  silentLogger,
  type ToolCall,
} from '@amplifier/core';
import { configFields, type ResolvedConfig } from './config.js';
import { fromWireMessage } from './convert.js';
import { httpError, parseJsonObject, rateLimits, streamPayloadError } from './errors.js';
import { BlockEvents, type EventEmitterLike, usagePayload } from './events.js';
import {
  abortError,
  HttpClient,
  type HttpResponse,
  header,
  type RequestContext,
  readErrorBody,
  readText,
  sseEvents,
} from './http.js';
import { CostMeter, ModelCatalog } from './models.js';
import { thinkingOf, toWireBody } from './request.js';
import { messageEvents, responseEvents } from './stream.js';

type Json = Record<string, unknown>;

/** Listing models is a lookup, not a generation: it gets at most this long. */
const LIST_TIMEOUT_MS = 30_000;

interface Call {
  context: RequestContext;
  body: Json;
  signal: AbortSignal | undefined;
  timeoutMs: number;
  started: number;
  rateLimits?: Record<string, number | string>;
}

/** The Messages API provider. `mount` builds one; apps and tests may build their own. */
export class AnthropicProvider implements Provider {
  readonly name: string = 'anthropic';
  readonly priority: number;
  readonly config: ResolvedConfig;
  readonly #http: HttpClient;
  readonly #hooks: EventEmitterLike | undefined;
  readonly #logger: Logger;
  readonly #catalog: ModelCatalog;
  readonly #costs: CostMeter;

  constructor(config: ResolvedConfig, options: { hooks?: EventEmitterLike; logger?: Logger } = {}) {
    this.config = config;
    this.priority = config.priority;
    this.#hooks = options.hooks;
    this.#logger = options.logger ?? silentLogger;
    const headers: Record<string, string> = { accept: 'application/json', ...config.headers };
    if (config.apiKey !== undefined) headers['x-api-key'] = config.apiKey;
    this.#http = new HttpClient(config.baseUrl, headers, config.connections);
    this.#catalog = new ModelCatalog(config.model, config.models, true);
    this.#costs = new CostMeter(config.prices);
  }

  /** Total cost of this provider's calls so far (decimal USD string), or null when no price is known. */
  get costUsd(): string | null {
    return this.#costs.totalUsd;
  }

  getInfo(): ProviderInfo {
    const model = this.getModelInfo();
    return {
      id: this.name,
      display_name: 'Anthropic',
      credential_env_vars: ['ANTHROPIC_API_KEY'],
      capabilities: ['tools', 'streaming', 'vision', 'thinking', 'json_mode'],
      defaults: {
        model: this.config.model,
        max_tokens: this.config.maxTokens ?? model.max_output_tokens,
        temperature: this.config.temperature ?? null,
        timeout: this.config.timeoutMs / 1000,
        context_window: model.context_window,
        max_output_tokens: model.max_output_tokens,
        base_url: this.config.baseUrl.href,
      },
      config_fields: configFields(this.config.model),
    };
  }

  /** Limits of `model` (default: the configured one): config `models`, else the server's listing, else the built-in table. */
  getModelInfo(model?: string): ModelInfo {
    return this.#catalog.info(model);
  }

  /**
   * The models `GET /v1/models` lists (all pages), with `max_input_tokens` /
   * `max_tokens` where the API reports them; when it cannot list them, the
   * built-in table and config `models`.
   */
  listModels(): Promise<ModelInfo[]> {
    return this.#catalog.list(
      async () => {
        const context = { provider: this.name, model: this.config.model };
        const entries: Json[] = [];
        let after: string | undefined;
        for (let page = 0; page < 50; page++) {
          const query = `?limit=1000${after === undefined ? '' : `&after_id=${encodeURIComponent(after)}`}`;
          const response = await this.#http.send('GET', `/v1/models${query}`, {
            timeoutMs: Math.min(this.config.timeoutMs, LIST_TIMEOUT_MS),
            context,
          });
          if (response.status !== 200) {
            throw httpError(
              response.status,
              response.headers,
              await readErrorBody(response.body),
              context,
              0,
            );
          }
          const text = await readText(response.body, context, undefined);
          const payload = parseJsonObject(text, 200, context, this.config.baseUrl.href);
          if (!Array.isArray(payload.data)) throw new Error('the answer has no data array');
          entries.push(...(payload.data as Json[]));
          if (payload.has_more !== true || typeof payload.last_id !== 'string') break;
          after = payload.last_id;
        }
        return entries;
      },
      (error) =>
        this.#logger.debug(
          `provider-anthropic: GET /v1/models failed, using the model table: ${errorMessage(error)}`,
        ),
    );
  }

  /** `response.tool_calls`, or the `tool_call` blocks when there are none. */
  parseToolCalls(response: ChatResponse): ToolCall[] {
    if (response.tool_calls?.length) return response.tool_calls;
    const calls: ToolCall[] = [];
    for (const block of response.content ?? []) {
      if (block.type === 'tool_call') calls.push({ id: block.id, name: block.name, arguments: block.input });
    }
    return calls;
  }

  /** One completion. With `use_streaming` it streams internally and returns the aggregate. */
  async complete(request: ChatRequest, options: CompleteOptions = {}): Promise<ChatResponse> {
    const call = await this.#begin(request, options, this.config.useStreaming);
    try {
      const response = await this.#retry(call, async () => {
        const opened = await this.#open(call);
        if (!this.config.useStreaming) return this.#readCompletion(call, opened);
        let final: ChatResponse | undefined;
        const blocks = new BlockEvents(this.#emitter(), { ...call.context });
        try {
          for await (const event of this.#events(call, opened)) {
            await blocks.on(event);
            if (event.type === 'message.end') final = event.response;
          }
        } catch (error) {
          await this.#emit('llm:stream_aborted', { ...call.context, reason: errorMessage(error) });
          throw error;
        }
        return final!;
      });
      return await this.#end(call, response);
    } catch (error) {
      await this.#fail(call, error);
      throw error;
    }
  }

  /** The response as events; retried until it starts, never after the first event. */
  async *stream(request: ChatRequest, options: CompleteOptions = {}): AsyncIterable<StreamEvent> {
    const call = await this.#begin(request, options, true);
    let opened: HttpResponse;
    try {
      opened = await this.#retry(call, () => this.#open(call));
    } catch (error) {
      await this.#fail(call, error);
      throw error;
    }
    const blocks = new BlockEvents(this.#emitter(), { ...call.context });
    let settled = false;
    try {
      for await (const event of this.#events(call, opened)) {
        await blocks.on(event);
        if (event.type === 'message.end') {
          settled = true;
          await this.#end(call, event.response);
        }
        yield event;
      }
    } catch (error) {
      settled = true;
      await this.#emit('llm:stream_aborted', { ...call.context, reason: errorMessage(error) });
      await this.#fail(call, error);
      throw error;
    } finally {
      if (!settled) {
        // The consumer stopped reading before the end.
        await this.#emit('llm:stream_aborted', { ...call.context, reason: 'the consumer stopped reading' });
        await this.#fail(call, abortError(call.context, 'the consumer stopped reading'));
      }
    }
  }

  /** Release the connection pool (in-flight requests are aborted). */
  close(): Promise<void> {
    return this.#http.close();
  }

  // ------------------------------------------------------------ internals

  async #begin(request: ChatRequest, options: CompleteOptions, stream: boolean): Promise<Call> {
    const { signal } = options;
    const model = request.model ?? this.config.model;
    const context = { provider: this.name, model };
    if (signal?.aborted) throw abortError(context, signal.reason);
    const repaired = repairToolSequence(request.messages ?? []);
    if (repaired.repairs.length > 0) {
      this.#logger.warn(
        `provider-anthropic: ${repaired.repairs.length} tool call(s) had no result; sent synthetic error results (${repaired.repairs.map((r) => r.tool_call_id).join(', ')})`,
      );
      await this.#emit(E.PROVIDER_TOOL_SEQUENCE_REPAIRED, {
        provider: this.name,
        repair_count: repaired.repairs.length,
        repairs: repaired.repairs,
        ...(repaired.synthetic_assistant_count > 0 && {
          synthetic_assistant_count: repaired.synthetic_assistant_count,
        }),
      });
    }
    const settings = {
      model,
      stream,
      maxTokens: this.config.maxTokens,
      modelMaxOutput: this.getModelInfo(model).max_output_tokens,
      temperature: this.config.temperature,
      topP: this.config.topP,
      promptCaching: this.config.promptCaching,
      extendedThinking: this.config.extendedThinking || options.extended_thinking === true,
      thinkingBudget: this.config.thinkingBudget,
      thinkingType: this.config.thinkingType,
      extraBody: this.config.extraBody,
    };
    const body = toWireBody(request, repaired.messages, settings);
    const thinking = thinkingOf(request, settings);
    await this.#emit(E.LLM_REQUEST, {
      provider: this.name,
      model,
      message_count: (body.messages as unknown[]).length,
      has_instructions: body.system !== undefined,
      has_system: body.system !== undefined,
      reasoning_enabled: thinking.enabled,
      thinking_enabled: thinking.enabled,
      thinking_budget: thinking.budget,
      background_mode: false,
      stream,
      tool_count: request.tools?.length ?? 0,
      ...(this.config.raw && { raw: redactSecrets(body) }),
    });
    const timeoutMs = request.timeout !== undefined ? request.timeout * 1000 : this.config.timeoutMs;
    return { context, body, signal, timeoutMs, started: performance.now() };
  }

  async #end(call: Call, response: ChatResponse): Promise<ChatResponse> {
    this.#costs.charge(call.context.model, response.usage);
    await this.#emit(E.LLM_RESPONSE, {
      ...call.context,
      usage: usagePayload(response.usage),
      status: 'ok',
      duration_ms: Math.round(performance.now() - call.started),
      continuation_count: 0,
      ...(response.finish_reason !== undefined && { finish_reason: response.finish_reason }),
      ...(call.rateLimits !== undefined && { rate_limits: call.rateLimits }),
      ...(this.config.raw && { raw: redactSecrets(response) }),
    });
    return response;
  }

  async #fail(call: Call, error: unknown): Promise<void> {
    await this.#emit(E.LLM_RESPONSE, {
      ...call.context,
      status: 'error',
      duration_ms: Math.round(performance.now() - call.started),
      error: errorMessage(error),
      ...(LLMError.isLLMError(error) && {
        error_kind: error.kind,
        ...(error.status_code !== undefined && { status_code: error.status_code }),
      }),
    });
  }

  /**
   * Retry retryable LLMErrors with backoff, emitting `provider:retry`; an
   * abort ends it at once. After a `Retry-After` the jitter only adds, so the
   * wait never ends before the time the server asked for.
   */
  async #retry<T>(call: Call, operation: () => Promise<T>): Promise<T> {
    const { signal, context } = call;
    let last: unknown;
    const attempt = (): Promise<T> =>
      operation().catch((error: unknown) => {
        last = error;
        throw error;
      });
    try {
      return await retryWithBackoff(attempt, {
        maxRetries: this.config.maxRetries,
        minDelayMs: this.config.minRetryDelayMs,
        maxDelayMs: this.config.maxRetryDelayMs,
        jitter: this.config.jitter,
        random: () =>
          LLMError.isLLMError(last) && last.retry_after !== undefined
            ? 0.5 + Math.random() / 2
            : Math.random(),
        ...(signal !== undefined && { signal }),
        onRetry: async (attempt, delayMs, error) => {
          this.#logger.info(
            `provider-anthropic: ${error.kind} error, retry ${attempt}/${this.config.maxRetries} in ${Math.round(delayMs)} ms: ${error.message}`,
          );
          await this.#emit(E.PROVIDER_RETRY, {
            ...context,
            attempt,
            max_retries: this.config.maxRetries,
            delay: delayMs / 1000,
            error_type: error.name,
            error_kind: error.kind,
            status_code: error.status_code ?? null,
            ...(error.retry_after !== undefined && { retry_after: error.retry_after }),
          });
        },
      });
    } catch (error) {
      if (signal?.aborted && !(LLMError.isLLMError(error) && error.kind === 'abort')) {
        throw abortError(context, signal.reason);
      }
      throw error;
    }
  }

  /** POST the body; resolves with a 2xx response, throws the mapped LLMError otherwise. */
  async #open(call: Call): Promise<HttpResponse> {
    const response = await this.#http.send('POST', '/v1/messages', {
      body: call.body,
      timeoutMs: call.timeoutMs,
      context: call.context,
      ...(call.signal !== undefined && { signal: call.signal }),
    });
    const limits = rateLimits(response.headers);
    if (limits !== undefined) call.rateLimits = limits;
    if (response.status >= 200 && response.status < 300) return response;
    const text = await readErrorBody(response.body);
    throw httpError(response.status, response.headers, text, call.context, this.config.maxRetryDelayMs);
  }

  async #readCompletion(call: Call, response: HttpResponse): Promise<ChatResponse> {
    const text = await readText(response.body, call.context, call.signal);
    const payload = parseJsonObject(text, response.status, call.context, this.config.baseUrl.href);
    if (payload.type === 'error') throw streamPayloadError(payload, call.context);
    return fromWireMessage(payload);
  }

  /** The events of a streamed response (or of a plain JSON one, for servers that do not stream). */
  async *#events(call: Call, response: HttpResponse): AsyncGenerator<StreamEvent> {
    if (header(response.headers, 'content-type')?.includes('application/json')) {
      const completion = await this.#readCompletion(call, response);
      yield* responseEvents(completion, completion.metadata?.['anthropic:model'] as string | undefined);
      return;
    }
    yield* messageEvents(sseEvents(response.body, call.context, call.signal), call.context);
  }

  #emitter(): (event: string, data: Json) => Promise<void> {
    return (event, data) => this.#emit(event, data);
  }

  async #emit(event: string, data: Json): Promise<void> {
    try {
      await this.#hooks?.emit(event, data);
    } catch (error) {
      this.#logger.debug(`provider-anthropic: emitting ${event} failed: ${errorMessage(error)}`);
    }
  }
}
