/**
 * AnthropicProvider: the Provider contract over the Anthropic Messages API.
 * This file describes the API (request body and thinking, answers, stream
 * events, errors, the paged model listing); the call lifecycle (tool-sequence
 * repair, `llm:request`, retries, `llm:response`, cost) and the HTTP exchange
 * are the provider kit's `HttpLlmProvider`.
 */
import type { EventSink, Logger } from '@amplifier/core';
import { HttpLlmProvider, providerParts, responseEvents, streamPayloadError } from '@amplifier/provider-http';
import { Pool } from 'undici';
import { ANTHROPIC_CONFIG, type ResolvedConfig } from './config.js';
import { fromWireMessage } from './convert.js';
import { ERROR_STYLE } from './errors.js';
import { BUILTIN_PRICES, MODEL_TABLE } from './models.js';
import { thinkingOf, toWireBody } from './request.js';
import { messageEvents } from './stream.js';

type Json = Record<string, unknown>;

/** The Messages API provider. `mount` builds one; apps and tests may build their own. */
export class AnthropicProvider extends HttpLlmProvider<ResolvedConfig> {
  constructor(config: ResolvedConfig, options: { hooks?: EventSink; logger?: Logger } = {}) {
    const parts = providerParts(config, { Pool, models: MODEL_TABLE, prices: BUILTIN_PRICES });
    super(
      config,
      {
        name: 'anthropic',
        module: 'provider-anthropic',
        info: {
          display_name: 'Anthropic',
          credential_env_vars: ['ANTHROPIC_API_KEY'],
          capabilities: ['tools', 'streaming', 'vision', 'thinking', 'json_mode'],
          config_fields: ANTHROPIC_CONFIG.configFields(config.model),
        },
        auth: config.apiKey === undefined ? {} : { 'x-api-key': config.apiKey },
        ...parts,
        // Every page of GET /v1/models, with `max_input_tokens` / `max_tokens` where the API reports them.
        listing: 'GET /v1/models',
        async listModels(getJson) {
          const entries: Json[] = [];
          let after: string | undefined;
          for (let page = 0; page < 50; page++) {
            const query = `?limit=1000${after === undefined ? '' : `&after_id=${encodeURIComponent(after)}`}`;
            const payload = await getJson(`/v1/models${query}`);
            if (!Array.isArray(payload.data)) throw new Error('the answer has no data array');
            entries.push(...(payload.data as Json[]));
            if (payload.has_more !== true || typeof payload.last_id !== 'string') break;
            after = payload.last_id;
          }
          return entries;
        },
        api: {
          path: '/v1/messages',
          errors: ERROR_STYLE,
          baseUrlExample: 'https://api.anthropic.com',
          maxRetryDelayMs: config.maxRetryDelayMs,
          build(request, messages, { model, stream, options }) {
            const settings = {
              model,
              stream,
              maxTokens: config.maxTokens,
              modelMaxOutput: parts.catalog.info(model).max_output_tokens,
              temperature: config.temperature,
              topP: config.topP,
              promptCaching: config.promptCaching,
              extendedThinking: config.extendedThinking || options.extended_thinking === true,
              thinkingBudget: config.thinkingBudget,
              thinkingType: config.thinkingType,
              extraBody: config.extraBody,
            };
            const body = toWireBody(request, messages, settings);
            return {
              body,
              messageCount: (body.messages as unknown[]).length,
              hasInstructions: body.system !== undefined,
              extra: { has_system: body.system !== undefined },
              thinking: thinkingOf(request, settings),
            };
          },
          parse(payload, context) {
            if (payload.type === 'error') throw streamPayloadError(ERROR_STYLE, payload, context);
            return fromWireMessage(payload);
          },
          streamEvents: messageEvents,
          responseEvents: (response) =>
            responseEvents(response, response.metadata?.['anthropic:model'] as string | undefined),
        },
      },
      options,
    );
  }
}
