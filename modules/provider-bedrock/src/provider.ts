/**
 * BedrockProvider: the Provider contract over Amazon Bedrock's Converse and
 * ConverseStream, through the AWS SDK v3 (`@aws-sdk/client-bedrock-runtime`:
 * credential chain, SigV4 or Bearer, endpoint rules, the binary event
 * stream). The SDK's retries are off (`maxAttempts: 1`) and its HTTP runs over
 * the provider kit's transport (`TransportRequestHandler`); the call
 * lifecycle (tool-sequence repair, `llm:request`, retries with backoff and
 * `provider:retry`, stream block events, cost, `llm:response`) is the kit's
 * `ProviderCalls`. The SDK is imported on the first request, so mounting
 * (and an app that never calls Bedrock) does not load it.
 */

import {
  type ChatRequest,
  type ChatResponse,
  type CompleteOptions,
  createLLMError,
  type EventSink,
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
  type RequestContext,
  responseEvents,
} from '@amplifier/provider-http';
import type {
  BedrockRuntimeClient,
  BedrockRuntimeClientConfig,
  ConverseCommandInput,
  ConverseCommandOutput,
  ConverseStreamCommandInput,
  ConverseStreamCommandOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { configFields, inferenceModelId, type ResolvedConfig } from './config.js';
import { fromConverseOutput, StreamReader } from './convert.js';
import { bedrockError } from './errors.js';
import { poolTransports, type TransportFactory, TransportRequestHandler } from './handler.js';
import { BUILTIN_MODELS, BUILTIN_PRICES, MODEL_TABLE, modelFamily } from './models.js';
import { thinkingOf, toConverseInput } from './request.js';

type Json = Record<string, unknown>;

/** AWS credentials (SigV4) or a function that resolves them, as the SDK takes them. */
export type AwsCredentials = NonNullable<BedrockRuntimeClientConfig['credentials']>;

/** What an app or a test may hand the provider beyond its config. */
export interface BedrockProviderOptions {
  hooks?: EventSink;
  logger?: Logger;
  /** SigV4 credentials instead of the SDK's default chain (env, profile, SSO, container, instance). */
  credentials?: AwsCredentials;
  /** The transport per origin (default: one undici pool per origin, `max_concurrent_requests` connections). */
  transports?: TransportFactory;
}

/** An answer as the SDK returned it: a whole Converse output, or an event stream. */
type Opened =
  | { kind: 'converse'; output: ConverseCommandOutput }
  | { kind: 'stream'; output: ConverseStreamCommandOutput };

const CONVERSE = '/converse';
const CONVERSE_STREAM = '/converse-stream';

/** The bare model ids of the built-in table (no inference-profile prefixes). */
const BUILTIN_IDS = Object.keys(BUILTIN_MODELS).filter((id) => !/^(us|eu|apac|global)\./.test(id));

let sdkModule: Promise<typeof import('@aws-sdk/client-bedrock-runtime')> | undefined;
/** The AWS SDK, imported once, on the first request. */
function loadSdk(): Promise<typeof import('@aws-sdk/client-bedrock-runtime')> {
  sdkModule ??= import('@aws-sdk/client-bedrock-runtime');
  return sdkModule;
}

/** The Amazon Bedrock provider. `mount` builds one; apps and tests may build their own. */
export class BedrockProvider implements MountableProvider {
  readonly name = 'bedrock';
  readonly priority: number;
  readonly config: ResolvedConfig;
  readonly #catalog: ModelCatalog;
  readonly #costs: CostMeter;
  readonly #calls: ProviderCalls<Opened>;
  readonly #handler: TransportRequestHandler;
  readonly #options: BedrockProviderOptions;
  #client: Promise<BedrockRuntimeClient> | undefined;
  #closed = false;

  constructor(config: ResolvedConfig, options: BedrockProviderOptions = {}) {
    this.config = config;
    this.priority = config.priority;
    this.#options = options;
    this.#catalog = new ModelCatalog({
      ...MODEL_TABLE,
      defaultModel: config.model,
      overrides: config.models,
      listBuiltin: true,
    });
    this.#costs = new CostMeter(config.prices, BUILTIN_PRICES);
    this.#handler = new TransportRequestHandler(
      options.transports ?? poolTransports(config.connections),
      config.timeoutMs,
      config.headers,
    );
    const wire: ProviderWire<Opened> = {
      build: (request, messages, { model, stream }) => this.#build(request, messages, model, stream),
      open: (call) => this.#open(call),
      read: async (call, opened) => {
        if (opened.kind !== 'converse')
          throw new Error('provider-bedrock: a stream where an answer was expected');
        return fromConverseOutput(opened.output as unknown as Json, call.context);
      },
      events: (call, opened) => this.#events(call, opened),
    };
    this.#calls = new ProviderCalls({
      provider: this.name,
      module: 'provider-bedrock',
      hooks: options.hooks,
      logger: options.logger ?? silentLogger,
      config,
      costs: this.#costs,
      wire,
    });
  }

  /** Total cost of this provider's calls so far (decimal USD string), or null when no price is known. */
  get costUsd(): string | null {
    return this.#costs.totalUsd;
  }

  getInfo(): ProviderInfo {
    const model = this.getModelInfo();
    return {
      id: this.name,
      display_name: 'Amazon Bedrock',
      credential_env_vars: ['AWS_BEARER_TOKEN_BEDROCK', 'AWS_PROFILE', 'AWS_ACCESS_KEY_ID', 'AWS_REGION'],
      capabilities: ['tools', 'streaming', 'vision', 'thinking'],
      config_fields: configFields(this.config.model),
      defaults: {
        model: this.config.model,
        max_tokens: this.config.maxTokens ?? model.max_output_tokens,
        temperature: this.config.temperature ?? null,
        timeout: this.config.timeoutMs / 1000,
        context_window: model.context_window,
        max_output_tokens: model.max_output_tokens,
        base_url: this.config.baseUrl.href,
      },
    };
  }

  /** Limits of `model` (default: the configured one): config `models`, else the built-in table. */
  getModelInfo(model?: string): ModelInfo {
    return this.#catalog.info(model);
  }

  /** The configured and built-in models (listing Bedrock's models is a control-plane call this runtime client does not make). */
  async listModels(): Promise<ModelInfo[]> {
    const ids = new Set([this.config.model, ...Object.keys(this.config.models), ...BUILTIN_IDS]);
    return [...ids].map((id) => this.#catalog.info(id));
  }

  parseToolCalls(response: ChatResponse): ToolCall[] {
    return responseToolCalls(response);
  }

  /** One completion. With `use_streaming` it uses ConverseStream and returns the aggregate. */
  complete(request: ChatRequest, options: CompleteOptions = {}): Promise<ChatResponse> {
    return this.#calls.complete(request, options, this.config.useStreaming);
  }

  /** The response as events (ConverseStream); retried until it starts, never after the first event. */
  stream(request: ChatRequest, options: CompleteOptions = {}): AsyncIterable<StreamEvent> {
    return this.#calls.stream(request, options);
  }

  /** Release the connections (in-flight requests are aborted); later calls fail with a configuration error. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#handler.close();
    if (this.#client !== undefined) (await this.#client.catch(() => undefined))?.destroy();
  }

  #build(
    request: ChatRequest,
    messages: Parameters<ProviderWire<Opened>['build']>[1],
    model: string,
    stream: boolean,
  ) {
    const config = this.config;
    const modelId = inferenceModelId(model, config.region, config.crossRegionInference);
    const family = modelFamily(modelId);
    const options = {
      modelId,
      family,
      maxTokens: config.maxTokens ?? this.#catalog.info(model).max_output_tokens,
      modelMaxOutput: this.#catalog.info(model).max_output_tokens,
      temperature: config.temperature,
      topP: config.topP,
      promptCaching: config.promptCaching,
      extendedThinking: config.extendedThinking,
      thinkingBudget: config.thinkingBudget,
      additionalFields: config.additionalFields,
      extraBody: config.extraBody,
    };
    const body = toConverseInput(request, messages, options);
    const thinking = thinkingOf(request, options);
    return {
      body,
      path: stream ? CONVERSE_STREAM : CONVERSE,
      messageCount: (body.messages as unknown[]).length,
      hasInstructions: body.system !== undefined,
      extra: { has_system: body.system !== undefined },
      thinking: { enabled: thinking.enabled, budget: thinking.budget },
    };
  }

  #clientFor(context: RequestContext): Promise<BedrockRuntimeClient> {
    this.#client ??= loadSdk().then((sdk) => {
      const { config } = this;
      const clientConfig: BedrockRuntimeClientConfig = {
        maxAttempts: 1, // the kit's retry policy is the only one
        requestHandler: this.#handler as unknown as BedrockRuntimeClientConfig['requestHandler'],
        ...(config.region !== undefined && { region: config.region }),
        ...(config.endpoint !== undefined && { endpoint: config.endpoint }),
        ...(config.profile !== undefined && { profile: config.profile }),
        ...(this.#options.credentials !== undefined && { credentials: this.#options.credentials }),
        ...(config.apiKey !== undefined && {
          token: { token: config.apiKey },
          authSchemePreference: ['httpBearerAuth'],
        }),
      };
      return new sdk.BedrockRuntimeClient(clientConfig);
    });
    return this.#client.catch((error: unknown) => {
      this.#client = undefined;
      throw createLLMError(
        'configuration',
        `${context.provider}: the AWS SDK could not be set up (${String(error)})`,
        {
          ...context,
          cause: error,
        },
      );
    });
  }

  async #open(call: ProviderCall): Promise<Opened> {
    if (this.#closed) {
      throw createLLMError(
        'configuration',
        `${call.context.provider}: the provider was closed (session cleaned up)`,
        call.context,
      );
    }
    const client = await this.#clientFor(call.context);
    const sdk = await loadSdk();
    const options = {
      ...(call.signal !== undefined && { abortSignal: call.signal }),
      requestTimeout: call.timeoutMs,
    };
    try {
      if (call.path === CONVERSE_STREAM) {
        const output = await client.send(
          new sdk.ConverseStreamCommand(call.body as unknown as ConverseStreamCommandInput),
          options,
        );
        return { kind: 'stream', output };
      }
      const output = await client.send(
        new sdk.ConverseCommand(call.body as unknown as ConverseCommandInput),
        options,
      );
      return { kind: 'converse', output };
    } catch (error) {
      throw bedrockError(error, call.context, call.signal, false);
    }
  }

  async *#events(call: ProviderCall, opened: Opened): AsyncGenerator<StreamEvent> {
    if (opened.kind === 'converse') {
      // An answer where a stream was asked for: its events at once.
      const response = fromConverseOutput(opened.output as unknown as Json, call.context);
      yield* responseEvents(response, call.context.model);
      return;
    }
    const reader = new StreamReader(call.context);
    const stream = opened.output.stream;
    if (stream === undefined) {
      throw createLLMError(
        'stream',
        `${call.context.provider}: ConverseStream answered without a stream`,
        call.context,
      );
    }
    try {
      for await (const event of stream) yield* reader.push(event as unknown as Json);
    } catch (error) {
      throw bedrockError(error, call.context, call.signal, true);
    }
    if (!reader.finished) {
      throw createLLMError(
        'stream',
        `${call.context.provider}: the stream ended before Bedrock sent messageStop`,
        call.context,
      );
    }
    yield { type: 'message.end', response: reader.response() };
  }
}
