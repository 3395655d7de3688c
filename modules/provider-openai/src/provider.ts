/**
 * OpenAIProvider: the Provider contract over the Responses API of OpenAI
 * (`api: "responses"`, `responses.ts`) or the Chat Completions API of OpenAI
 * and every compatible server (`api: "chat"`). This file describes the Chat
 * Completions API (request body, answers, streamed chunks) and what both
 * share (errors, model listing); the call lifecycle
 * (tool-sequence repair, `llm:request`, retries, `llm:response`, cost) and
 * the HTTP exchange are the provider kit's `HttpLlmProvider`.
 */
import {
  type ChatRequest,
  type ChatResponse,
  type CompleteOptions,
  dynamicEvent,
  type EventSink,
  LLMError,
  type Logger,
  type StreamEvent,
  silentLogger,
} from '@amplifier/core';
import { HttpLlmProvider, providerParts, streamPayloadError } from '@amplifier/provider-http';
import { Pool } from 'undici';
import { OPENAI_CONFIG, type ResolvedConfig } from './config.js';
import { fromWireCompletion, toWireBody } from './convert.js';
import { ERROR_STYLE } from './errors.js';
import { BUILTIN_PRICES, MODEL_TABLE } from './models.js';
import { responsesApi } from './responses.js';
import { chainLink, NO_CHAIN_KEY } from './responses-convert.js';

/** Emitted when a chained Responses request (`previous_response_id`) failed and is sent again whole. */
export const CHAIN_INVALIDATED_EVENT = 'provider:response_chain_invalidated';

import { chunkEvents, responseEvents } from './stream.js';
import { restoreStrictCalls, restoreStrictStream, warnUnstrict } from './strict-tools.js';

/** What an app or a test may hand the provider beyond its config. */
export interface OpenAIProviderOptions {
  hooks?: EventSink;
  logger?: Logger;
  /** The session's id: the Responses API's `prompt_cache_key` when config names none. */
  sessionId?: string;
}

/** The OpenAI provider (Responses or Chat Completions). `mount` builds one; apps and tests may build their own. */
export class OpenAIProvider extends HttpLlmProvider<ResolvedConfig> {
  readonly #hooks: EventSink | undefined;
  readonly #logger: Logger;

  constructor(config: ResolvedConfig, options: OpenAIProviderOptions = {}) {
    const parts = providerParts(config, {
      Pool,
      models: MODEL_TABLE,
      prices: BUILTIN_PRICES,
      // Other servers' models are not OpenAI's: list the built-in table only for OpenAI itself.
      listBuiltin: config.baseUrl.hostname === 'api.openai.com',
    });
    super(
      config,
      {
        name: 'openai',
        module: 'provider-openai',
        info: {
          display_name: config.api === 'responses' ? 'OpenAI (Responses)' : 'OpenAI (Chat Completions)',
          credential_env_vars: ['OPENAI_API_KEY'],
          capabilities:
            config.api === 'responses'
              ? ['tools', 'streaming', 'vision', 'json_mode', 'thinking']
              : ['tools', 'streaming', 'vision', 'json_mode'],
          config_fields: OPENAI_CONFIG.configFields(config.model),
        },
        auth: config.apiKey === undefined ? {} : { authorization: `Bearer ${config.apiKey}` },
        ...parts,
        // GET /models, with context sizes where the server reports them (OpenRouter, vLLM, llama.cpp, LM Studio).
        listing: 'GET /models',
        async listModels(getJson) {
          const data = (await getJson('/models')).data;
          if (!Array.isArray(data)) throw new Error('the answer has no data array');
          return data;
        },
        api: {
          path: '/chat/completions',
          errors: ERROR_STYLE,
          baseUrlExample: 'https://api.openai.com/v1 or http://localhost:11434/v1',
          maxRetryDelayMs: config.maxRetryDelayMs,
          build(request, messages, { model, stream }) {
            const reasoning = request.reasoning_effort !== undefined && request.reasoning_effort !== 'none';
            const body = toWireBody(request, messages, {
              model,
              stream,
              maxTokens: config.maxTokens,
              maxTokensField: config.maxTokensField,
              temperature: config.temperature,
              topP: config.topP,
              extraBody: config.extraBody,
            });
            return {
              body,
              messageCount: (body.messages as unknown[]).length,
              hasInstructions: messages.some((m) => m.role === 'system' || m.role === 'developer'),
              thinking: { enabled: reasoning, budget: null },
            };
          },
          parse(payload, context) {
            if (payload.error !== undefined && payload.choices === undefined)
              throw streamPayloadError(ERROR_STYLE, payload, context);
            return fromWireCompletion(payload);
          },
          streamEvents: chunkEvents,
          responseEvents: (response) =>
            responseEvents(response, response.metadata?.['openai:model'] as string | undefined),
          // `api: "responses"`: every part of the API is the Responses API's instead.
          ...(config.api === 'responses' && responsesApi(config, parts.catalog, options.sessionId)),
        },
      },
      options,
    );
    this.#hooks = options.hooks;
    this.#logger = options.logger ?? silentLogger;
  }

  /**
   * One completion. A Responses request chained to a stored response
   * (`store: true`) that fails because the server no longer has it (404
   * `previous_response_not_found`) or because the chain outgrew the context
   * is sent once more with the whole history and no `previous_response_id`,
   * after `provider:response_chain_invalidated`.
   */
  override async complete(request: ChatRequest, options: CompleteOptions = {}): Promise<ChatResponse> {
    warnUnstrict(request, this.#logger);
    return restoreStrictCalls(request, await this.#complete(request, options));
  }

  /** `stream()`, with the arguments of strict tools' calls restored in the response it ends with. */
  override stream(request: ChatRequest, options: CompleteOptions = {}): AsyncIterable<StreamEvent> {
    warnUnstrict(request, this.#logger);
    return restoreStrictStream(request, super.stream(request, options));
  }

  async #complete(request: ChatRequest, options: CompleteOptions): Promise<ChatResponse> {
    const chained =
      this.config.api === 'responses' &&
      this.config.responses.store &&
      request.metadata?.[NO_CHAIN_KEY] !== true &&
      chainLink(request.messages ?? []);
    if (!chained) return super.complete(request, options);
    try {
      return await super.complete(request, options);
    } catch (error) {
      const broken =
        LLMError.is(error) &&
        ((error.kind === 'not_found' && /previous.?response|response.?not.?found/i.test(error.message)) ||
          error.kind === 'context_length');
      if (!broken) throw error;
      await this.#hooks?.emit(dynamicEvent(CHAIN_INVALIDATED_EVENT), {
        provider: this.name,
        model: request.model ?? this.config.model,
        previous_response_id: chained.id,
        reason: error.kind,
        error: error.message,
      });
      return super.complete({ ...request, metadata: { ...request.metadata, [NO_CHAIN_KEY]: true } }, options);
    }
  }
}
