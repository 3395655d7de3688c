/**
 * The OpenAI Responses API (`POST /responses`) as the provider kit's
 * `HttpApi`: which models reason, the request body, a whole answer, a stream.
 * The Chat Completions description stays in `provider.ts`; `api` config
 * chooses between them.
 */
import { createLLMError } from '@amplifier/core';
import { type HttpApi, type ModelCatalog, responseEvents } from '@amplifier/provider-http';
import type { ResolvedConfig } from './config.js';
import { ERROR_STYLE } from './errors.js';
import { fromResponseObject, toResponsesBody } from './responses-convert.js';
import { responsesError, responsesStreamEvents } from './responses-stream.js';

/** Model ids of OpenAI's reasoning families (o-series, gpt-5 except its chat variants, codex). */
const REASONING_ID = /^(?:openai\/)?(?:o\d|gpt-5(?!(?:\.\d+)?-chat)|codex)/;

/** The model reasons: its catalog entry says `thinking`, or its id is of a reasoning family. */
export function reasons(catalog: ModelCatalog, model: string): boolean {
  return (catalog.info(model).capabilities ?? []).includes('thinking') || REASONING_ID.test(model);
}

/**
 * The Responses API for `config`. `sessionKey` is the prompt-cache key when
 * config names none (the mounting session's id).
 */
export function responsesApi(config: ResolvedConfig, catalog: ModelCatalog, sessionKey?: string): HttpApi {
  const openai = config.baseUrl.hostname === 'api.openai.com';
  return {
    path: '/responses',
    errors: ERROR_STYLE,
    baseUrlExample: 'https://api.openai.com/v1',
    maxRetryDelayMs: config.maxRetryDelayMs,
    build(request, messages, { model, stream }) {
      const reasoning = reasons(catalog, model);
      const body = toResponsesBody(request, messages, {
        ...config.responses,
        model,
        stream,
        reasons: reasoning,
        maxTokens: config.maxTokens,
        temperature: config.temperature,
        topP: config.topP,
        extraBody: config.extraBody,
        messageIds: !openai,
        sessionKey,
      });
      return {
        body,
        messageCount: (body.input as unknown[]).length,
        hasInstructions: body.instructions !== undefined,
        thinking: { enabled: body.reasoning !== undefined, budget: null },
      };
    },
    parse(payload, context) {
      if (payload.choices !== undefined)
        throw createLLMError(
          'configuration',
          `${context.provider}: the server answered a Responses API request in Chat Completions form; set the provider's api config to "chat" for this server`,
          { ...context, retryable: false },
        );
      if (payload.status === 'failed' || (payload.output === undefined && payload.error != null))
        throw responsesError({ error: payload.error ?? { message: 'the response failed' } }, context);
      return fromResponseObject(payload, context);
    },
    streamEvents: responsesStreamEvents,
    responseEvents: (response) => {
      const model = response.metadata?.['openai:model'];
      return responseEvents(response, typeof model === 'string' ? model : undefined);
    },
  };
}
