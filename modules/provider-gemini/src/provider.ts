/**
 * GeminiProvider: the Provider contract over the Gemini API (or Vertex AI).
 * This file describes the API (endpoints, auth, request body and thinking,
 * answers, streams, errors, the paged model listing); the call lifecycle
 * (tool-sequence repair, `llm:request`, retries, `llm:response`, cost) and the
 * HTTP exchange are the provider kit's `HttpLlmProvider`.
 */
import type { EventSink, Logger } from '@amplifier/core';
import {
  CostMeter,
  HttpLlmProvider,
  ModelCatalog,
  poolTransport,
  type Transport,
} from '@amplifier/provider-http';
import { Pool } from 'undici';
import { adcTokenSource, bearerTransport, staticTokenSource, type TokenSource } from './auth.js';
import { configFields, type ResolvedConfig } from './config.js';
import { fromWireAnswer } from './convert.js';
import { ERROR_STYLE } from './errors.js';
import { BUILTIN_PRICES, MODEL_TABLE, thinks } from './models.js';
import { endpoint, thinkingConfig, toWireBody } from './request.js';
import { answerEvents, responseEvents } from './stream.js';

type Json = Record<string, unknown>;

/** What an app or a test may hand the provider beyond its config. */
export interface GeminiProviderOptions {
  hooks?: EventSink;
  logger?: Logger;
  /** Vertex AI tokens (default: `vertex.access_token`, else Application Default Credentials). */
  tokenSource?: TokenSource;
}

/** The Gemini API provider. `mount` builds one; apps and tests may build their own. */
export class GeminiProvider extends HttpLlmProvider<ResolvedConfig> {
  constructor(config: ResolvedConfig, options: GeminiProviderOptions = {}) {
    const catalog = new ModelCatalog({
      ...MODEL_TABLE,
      defaultModel: config.model,
      overrides: config.models,
      listBuiltin: true,
    });
    const { vertex } = config;
    let transport: Transport = poolTransport(
      new Pool(config.baseUrl.origin, { connections: config.connections, pipelining: 1 }),
    );
    // Vertex with an API key (express mode) sends the key like the Gemini API; otherwise a bearer token.
    if (vertex !== undefined && config.apiKey === undefined) {
      const tokens =
        options.tokenSource ??
        (vertex.accessToken !== undefined ? staticTokenSource(vertex.accessToken) : adcTokenSource());
      transport = bearerTransport(transport, tokens);
    }
    super(
      config,
      {
        name: 'gemini',
        module: 'provider-gemini',
        info: {
          display_name: vertex === undefined ? 'Google Gemini' : 'Google Gemini (Vertex AI)',
          credential_env_vars: ['GOOGLE_API_KEY', 'GEMINI_API_KEY'],
          capabilities: ['tools', 'streaming', 'vision', 'thinking', 'json_mode'],
          config_fields: configFields(config.model),
        },
        auth: config.apiKey === undefined ? {} : { 'x-goog-api-key': config.apiKey },
        transport,
        catalog,
        costs: new CostMeter(config.prices, BUILTIN_PRICES),
        // Every page of GET /models (ids without the `models/` prefix); Vertex has no such listing.
        listing: 'GET /models',
        async listModels(getJson) {
          if (vertex !== undefined) throw new Error('Vertex AI has no model listing for publisher models');
          const entries: Json[] = [];
          let token: string | undefined;
          for (let page = 0; page < 50; page++) {
            const query = `?pageSize=1000${token === undefined ? '' : `&pageToken=${encodeURIComponent(token)}`}`;
            const payload = await getJson(`/models${query}`);
            if (!Array.isArray(payload.models)) throw new Error('the answer has no models array');
            for (const model of payload.models as Json[]) {
              if (typeof model?.name !== 'string') continue;
              const methods = model.supportedGenerationMethods;
              if (Array.isArray(methods) && !methods.includes('generateContent')) continue;
              entries.push({ ...model, id: model.name.replace(/^models\//, '') });
            }
            if (typeof payload.nextPageToken !== 'string' || payload.nextPageToken === '') break;
            token = payload.nextPageToken;
          }
          return entries;
        },
        api: {
          path: endpoint(config.model, false),
          errors: ERROR_STYLE,
          baseUrlExample: 'https://generativelanguage.googleapis.com',
          maxRetryDelayMs: config.maxRetryDelayMs,
          build(request, messages, { model, stream }) {
            const settings = {
              model,
              thinks: thinks(catalog.info(model).capabilities ?? []),
              vertex: vertex !== undefined,
              maxTokens: config.maxTokens,
              temperature: config.temperature,
              topP: config.topP,
              thinkingBudget: config.thinkingBudget,
              thinkingLevel: config.thinkingLevel,
              includeThoughts: config.includeThoughts,
              safetySettings: config.safetySettings,
              extraBody: config.extraBody,
            };
            const body = toWireBody(request, messages, settings);
            const thinking = thinkingConfig(request, settings);
            const budget = typeof thinking?.thinkingBudget === 'number' ? thinking.thinkingBudget : null;
            return {
              body,
              path: endpoint(model, stream),
              messageCount: (body.contents as unknown[]).length,
              hasInstructions: body.systemInstruction !== undefined,
              extra: { has_system: body.systemInstruction !== undefined },
              thinking: {
                enabled: thinking !== undefined && budget !== 0,
                budget: budget === -1 ? null : budget,
              },
            };
          },
          parse: (payload, context) => fromWireAnswer(payload, context),
          streamEvents: answerEvents,
          responseEvents,
        },
      },
      options,
    );
  }
}
