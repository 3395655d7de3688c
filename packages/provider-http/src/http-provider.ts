/**
 * A Provider over an HTTP LLM API, built from a description of the API: a
 * provider module subclasses `HttpLlmProvider` and hands its constructor the
 * API's request and answer formats, error style, model table, prices and
 * transport. The lifecycle (`ProviderCalls`), the HTTP exchange (`HttpWire`)
 * and the model listing, info and cost bookkeeping come from here.
 */
import type {
  CompleteOptions,
  ConfigField,
  EventSink,
  Logger,
  ModelInfo,
  Provider,
  ProviderInfo,
} from '@amplifier/core';
import {
  type ChatRequest,
  type ChatResponse,
  errorMessage,
  responseToolCalls,
  type StreamEvent,
  silentLogger,
  type ToolCall,
} from '@amplifier/core';
import { ProviderCalls } from './calls.js';
import type { ResolvedProviderConfig } from './config.js';
import { CostMeter, type ModelPrice } from './cost.js';
import { type HttpApi, HttpWire } from './http-wire.js';
import { ModelCatalog, type ModelTable } from './models.js';
import {
  type HttpResponse,
  type PooledDispatcher,
  ProviderHttpClient,
  poolTransport,
  type Transport,
} from './transport.js';

type Json = Record<string, unknown>;

/** Listing models is a lookup, not a generation: it gets at most this long. */
const LIST_TIMEOUT_MS = 30_000;

/** What makes one HTTP provider. */
export interface HttpProviderSpec {
  /** The provider's name: its mount name and `provider` in payloads (`openai`). */
  name: string;
  /** The module id that prefixes log lines (`provider-openai`). */
  module: string;
  /** `getInfo()` beyond `id` and the defaults. */
  info: {
    display_name: string;
    credential_env_vars: string[];
    capabilities: string[];
    config_fields: ConfigField[];
  };
  /** Authentication headers, sent with config `headers` on every request. */
  auth: Record<string, string>;
  /** The connection pool (the provider's HTTP client library). */
  transport: Transport;
  catalog: ModelCatalog;
  costs: CostMeter;
  api: HttpApi;
  /** The entries of the API's model listing, read with `getJson(path)` (may page). */
  listModels(getJson: (path: string) => Promise<Json>): Promise<Json[]>;
  /** How the listing is named in the debug line when it fails (`GET /models`). */
  listing: string;
}

/** A connection pool class such as undici's `Pool` (the kit itself does not depend on undici). */
export type PoolClass = new (
  origin: string,
  options: { connections: number; pipelining: number },
) => PooledDispatcher;

/** What `providerParts` builds the transport, the catalog and the cost meter from. */
export interface ProviderPartsOptions {
  /** The pool class (undici's `Pool`): one pool on the base URL's origin, `connections` connections. */
  Pool: PoolClass;
  /** The built-in model table; config `models` and the server's listing win over it. */
  models: ModelTable;
  /** The built-in prices; config `prices` win over them. */
  prices: Readonly<Record<string, ModelPrice>>;
  /** List the built-in models when the server cannot list them (default true). */
  listBuiltin?: boolean;
}

/**
 * The parts every HTTP provider builds from its settings the same way: the
 * transport, the model catalog (config `models` over the server's listing over
 * the built-in table) and the cost meter (config `prices` over the built-in ones).
 */
export function providerParts(
  config: ResolvedProviderConfig,
  options: ProviderPartsOptions,
): Pick<HttpProviderSpec, 'transport' | 'catalog' | 'costs'> {
  const pool = new options.Pool(config.baseUrl.origin, { connections: config.connections, pipelining: 1 });
  return {
    transport: poolTransport(pool),
    catalog: new ModelCatalog({
      ...options.models,
      defaultModel: config.model,
      overrides: config.models,
      listBuiltin: options.listBuiltin ?? true,
    }),
    costs: new CostMeter(config.prices, options.prices),
  };
}

/** Call `super(config, spec, options)`; everything the Provider contract asks for is here. */
export class HttpLlmProvider<C extends ResolvedProviderConfig = ResolvedProviderConfig> implements Provider {
  readonly name: string;
  readonly priority: number;
  readonly config: C;
  readonly #spec: HttpProviderSpec;
  readonly #http: ProviderHttpClient;
  readonly #wire: HttpWire;
  readonly #calls: ProviderCalls<HttpResponse>;
  readonly #logger: Logger;

  constructor(
    config: C,
    spec: HttpProviderSpec,
    options: { hooks?: EventSink | undefined; logger?: Logger | undefined } = {},
  ) {
    this.name = spec.name;
    this.config = config;
    this.priority = config.priority;
    this.#spec = spec;
    this.#logger = options.logger ?? silentLogger;
    const headers = { accept: 'application/json', ...config.headers, ...spec.auth };
    this.#http = new ProviderHttpClient(config.baseUrl, headers, spec.transport);
    this.#wire = new HttpWire(this.#http, config.baseUrl, spec.api);
    this.#calls = new ProviderCalls({
      provider: spec.name,
      module: spec.module,
      hooks: options.hooks,
      logger: this.#logger,
      config,
      costs: spec.costs,
      wire: this.#wire,
    });
  }

  /** Total cost of this provider's calls so far (decimal USD string), or null when no price is known. */
  get costUsd(): string | null {
    return this.#spec.costs.totalUsd;
  }

  getInfo(): ProviderInfo {
    const model = this.getModelInfo();
    return {
      id: this.name,
      ...this.#spec.info,
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

  /** Limits of `model` (default: the configured one): config `models`, else the server's listing, else the built-in table. */
  getModelInfo(model?: string): ModelInfo {
    return this.#spec.catalog.info(model);
  }

  /** The server's models, with the limits it reports; when it cannot list them, the model table. */
  listModels(): Promise<ModelInfo[]> {
    const context = { provider: this.name, model: this.config.model };
    const timeoutMs = Math.min(this.config.timeoutMs, LIST_TIMEOUT_MS);
    return this.#spec.catalog.list(
      () => this.#spec.listModels((path) => this.#wire.getJson(path, context, timeoutMs)),
      (error) =>
        this.#logger.debug(
          `${this.#spec.module}: ${this.#spec.listing} failed, using the model table: ${errorMessage(error)}`,
        ),
    );
  }

  /** `response.tool_calls`, or the `tool_call` blocks when there are none. */
  parseToolCalls(response: ChatResponse): ToolCall[] {
    return responseToolCalls(response);
  }

  /** One completion. With `use_streaming` it streams internally and returns the aggregate. */
  complete(request: ChatRequest, options: CompleteOptions = {}): Promise<ChatResponse> {
    return this.#calls.complete(request, options, this.config.useStreaming);
  }

  /** The response as events; retried until it starts, never after the first event. */
  stream(request: ChatRequest, options: CompleteOptions = {}): AsyncIterable<StreamEvent> {
    return this.#calls.stream(request, options);
  }

  /** Release the connection pool (in-flight requests are aborted). */
  close(): Promise<void> {
    return this.#http.close();
  }
}
