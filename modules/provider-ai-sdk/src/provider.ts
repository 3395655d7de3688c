/**
 * AiSdkProvider: the Provider contract over an AI SDK language model. The
 * model's own package does the HTTP; the bridge calls `doStream` /
 * `doGenerate` directly (no `ai` agent loop) inside the provider kit's call
 * lifecycle (`ProviderCalls`: tool-sequence repair, `llm:request`, retries
 * with `provider:retry`, the `llm:stream_*` block events, cost, `llm:response`),
 * with its own idle timeout through the call's `abortSignal`.
 */
import {
  type ChatRequest,
  type ChatResponse,
  type CompleteOptions,
  createLLMError,
  type EventSink,
  errorMessage,
  LLMError,
  type Logger,
  type ModelInfo,
  type ProviderInfo,
  responseToolCalls,
  type StreamEvent,
  silentLogger,
  type ToolCall,
} from '@amplifier/core';
import {
  CostMeter,
  ModelCatalog,
  type MountableProvider,
  type ProviderCall,
  ProviderCalls,
  type ProviderWire,
} from '@amplifier/provider-http';
import { AnswerBuilder, generatedResponse, streamEvents } from './answer.js';
import type { ResolvedConfig } from './config.js';
import { BridgeTimeout, type FailureContext, streamPartError, toLlmError } from './errors.js';
import { toCallOptions } from './prompt.js';
import {
  type AiSdkModel,
  type CallOptions,
  type SpecGenerateResult,
  type SpecStreamResult,
  V4_REASONING,
} from './spec.js';

type Json = Record<string, unknown>;

/** Limits assumed for a model config `models` does not describe (the bridge knows no vendor's table). */
const UNKNOWN_LIMITS = { context_window: 128_000, max_output_tokens: 8192 };

/** What an app or a test may hand the provider beyond its config. */
export interface AiSdkProviderOptions {
  hooks?: EventSink | undefined;
  logger?: Logger | undefined;
}

/** Where the bridge gets the model of a call: the configured id, or one a request names. */
export type ModelSource = (modelId: string) => AiSdkModel;

/** An opened call: the model's answer, and the bridge's abort and idle timer for it. */
interface Opened {
  stream?: SpecStreamResult;
  generated?: SpecGenerateResult;
  model: AiSdkModel;
  own: AbortController;
  /** Restart the idle timer (a part arrived). */
  seen(): void;
  /** Stop the timer. */
  done(): void;
}

/** The bridge. `mount` builds one; apps may build their own with a model object (`createAiSdkProvider`). */
export class AiSdkProvider implements MountableProvider {
  readonly name: string;
  readonly priority: number;
  readonly config: ResolvedConfig;
  readonly #models: ModelSource;
  readonly #catalog: ModelCatalog;
  readonly #costs: CostMeter;
  readonly #calls: ProviderCalls<Opened>;
  readonly #logger: Logger;
  readonly #warned = new Set<string>();
  readonly #open = new Set<AbortController>();

  constructor(config: ResolvedConfig, models: ModelSource, options: AiSdkProviderOptions = {}) {
    this.name = config.name;
    this.priority = config.priority;
    this.config = config;
    this.#models = models;
    this.#logger = options.logger ?? silentLogger;
    this.#catalog = new ModelCatalog({
      builtin: {},
      unknown: UNKNOWN_LIMITS,
      capabilities: ['tools', 'streaming'],
      serverLimits: () => ({}),
      defaultModel: config.model,
      overrides: config.models,
      listBuiltin: false,
    });
    this.#costs = new CostMeter(config.prices, {});
    this.#calls = new ProviderCalls<Opened>({
      provider: config.name,
      module: 'provider-ai-sdk',
      hooks: options.hooks,
      logger: this.#logger,
      config: { ...config, baseUrl: config.baseUrl },
      costs: this.#costs,
      wire: this.#wire(),
    });
  }

  /** Total cost of this provider's calls so far (decimal USD string), or null when no price is configured. */
  get costUsd(): string | null {
    return this.#costs.totalUsd;
  }

  getInfo(): ProviderInfo {
    const model = this.getModelInfo();
    return {
      id: this.name,
      display_name: `AI SDK${this.config.package === undefined ? '' : ` (${this.config.package})`}`,
      credential_env_vars: this.config.apiKeyEnv === undefined ? [] : [this.config.apiKeyEnv],
      capabilities: ['tools', 'streaming'],
      config_fields: [],
      defaults: {
        model: this.config.model,
        max_tokens: this.config.maxTokens ?? model.max_output_tokens,
        temperature: this.config.temperature ?? null,
        timeout: this.config.timeoutMs / 1000,
        context_window: model.context_window,
        max_output_tokens: model.max_output_tokens,
      },
    };
  }

  /** Limits of `model` (default: the configured one): config `models`, else generic defaults. */
  getModelInfo(model?: string): ModelInfo {
    return this.#catalog.info(model);
  }

  /** The configured models (config `models` and the default one): the AI SDK spec has no model listing. */
  async listModels(): Promise<ModelInfo[]> {
    const ids = new Set([this.config.model, ...Object.keys(this.config.models)]);
    return [...ids].filter((id) => id !== '').map((id) => this.#catalog.info(id));
  }

  parseToolCalls(response: ChatResponse): ToolCall[] {
    return responseToolCalls(response);
  }

  /** One completion: `doStream` (with `use_streaming`, the default) or `doGenerate`. */
  complete(request: ChatRequest, options: CompleteOptions = {}): Promise<ChatResponse> {
    return this.#calls.complete(request, options, this.config.useStreaming);
  }

  /** The response as events; retried until it starts, never after the first event. */
  stream(request: ChatRequest, options: CompleteOptions = {}): AsyncIterable<StreamEvent> {
    return this.#calls.stream(request, options);
  }

  /** Abort the calls in flight (the package's fetch stops with them). */
  async close(): Promise<void> {
    for (const controller of this.#open) controller.abort(new Error('the provider was closed'));
    this.#open.clear();
  }

  #warn(model: AiSdkModel, warnings: readonly unknown[]): void {
    for (const warning of warnings) {
      const text = JSON.stringify(warning);
      if (this.#warned.has(text)) continue;
      this.#warned.add(text);
      this.#logger.warn(`provider-ai-sdk: ${model.provider} warns: ${text}`);
    }
  }

  /** The model of `id`; a source that fails (a model function returning no model) is a configuration error. */
  #model(id: string): AiSdkModel {
    try {
      return this.#models(id);
    } catch (error) {
      if (LLMError.is(error)) throw error;
      throw createLLMError('configuration', `${this.name}: ${errorMessage(error)}`, {
        provider: this.name,
        model: id,
        cause: error,
      });
    }
  }

  #failure(call: ProviderCall, opened: Pick<Opened, 'own'>, midStream: boolean): FailureContext {
    return {
      context: call.context,
      signal: call.signal,
      own: opened.own.signal,
      maxRetryAfterMs: this.config.maxRetryDelayMs,
      midStream,
    };
  }

  #wire(): ProviderWire<Opened> {
    const config = this.config;
    return {
      build: (request, messages, { model, stream }) => {
        const spec = this.#model(model);
        const provider = spec.provider;
        const options = toCallOptions(request, messages, {
          provider,
          maxTokens: config.maxTokens,
          temperature: config.temperature,
          topP: config.topP,
          providerOptions: config.providerOptions,
          headers: config.headers,
        });
        // V4 has a reasoning option; on V3 the vendor's provider_options carry it.
        const effort = request.reasoning_effort;
        if (spec.specificationVersion === 'v4' && typeof effort === 'string' && V4_REASONING.includes(effort))
          options.reasoning = effort;
        return {
          body: { model, stream, ...options } as unknown as Json,
          messageCount: options.prompt.filter((m) => m.role !== 'system').length,
          hasInstructions: options.prompt.some((m) => m.role === 'system'),
          thinking: { enabled: false, budget: null },
          extra: { ai_sdk_provider: provider },
        };
      },
      open: async (call) => {
        const {
          model: modelId,
          stream,
          ...options
        } = call.body as unknown as CallOptions & {
          model: string;
          stream: boolean;
        };
        const model = this.#model(modelId);
        const own = new AbortController();
        this.#open.add(own);
        let timer: NodeJS.Timeout | undefined;
        const seen = (): void => {
          clearTimeout(timer);
          timer = setTimeout(() => own.abort(new BridgeTimeout(call.timeoutMs)), call.timeoutMs);
          timer.unref?.();
        };
        const done = (): void => {
          clearTimeout(timer);
          this.#open.delete(own);
        };
        const opened = { model, own, seen, done };
        const abortSignal =
          call.signal === undefined ? own.signal : AbortSignal.any([call.signal, own.signal]);
        seen();
        try {
          if (stream) return { ...opened, stream: await model.doStream({ ...options, abortSignal }) };
          const generated = await model.doGenerate({ ...options, abortSignal });
          done();
          return { ...opened, generated };
        } catch (error) {
          done();
          throw toLlmError(error, this.#failure(call, opened, false));
        }
      },
      read: async (_call, opened) => {
        const builder = new AnswerBuilder(opened.model.provider);
        const { generated } = opened;
        if (Array.isArray(generated?.warnings) && generated.warnings.length > 0)
          this.#warn(opened.model, generated.warnings);
        return generatedResponse(generated ?? { content: [] }, builder);
      },
      events: (call, opened) => this.#events(call, opened),
    };
  }

  async *#events(call: ProviderCall, opened: Opened): AsyncGenerator<StreamEvent> {
    const builder = new AnswerBuilder(opened.model.provider);
    let parts = 0;
    const reader = {
      warn: (warnings: readonly unknown[]) => this.#warn(opened.model, warnings),
      fail: (error: unknown) => streamPartError(error, this.#failure(call, opened, parts > 0)),
      seen: () => {
        parts++;
        opened.seen();
      },
    };
    let ended = false;
    try {
      yield* streamEvents(opened.stream!.stream, builder, reader, call.context);
      ended = true;
    } catch (error) {
      throw toLlmError(error, { ...this.#failure(call, opened, parts > 0), reading: true });
    } finally {
      opened.done();
      // A stream left before its end (an error part, a consumer that stopped): release the package's request.
      if (!ended) opened.own.abort();
    }
  }
}
