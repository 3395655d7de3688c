/**
 * AzureOpenAIProvider: the Chat Completions API of an Azure OpenAI resource
 * as the provider `azure-openai`. The wire formats are OpenAI's (`convert.ts`,
 * `stream.ts`); what differs is here: the URLs of deployments and
 * `api-version`s, `api-key` or Entra ID auth, no model listing (deployments are
 * per customer), Azure's error bodies (a filtered prompt names the
 * categories that fired) and its `parallel` dispatch wrapper (`azure-parallel.ts`).
 */
import type {
  ChatRequest,
  ChatResponse,
  CompleteOptions,
  EventSink,
  Logger,
  StreamEvent,
} from '@amplifier/core';
import {
  type ApiErrorStyle,
  type ErrorDetails,
  errorDetails,
  HttpLlmProvider,
  providerParts,
  streamPayloadError,
  type Transport,
} from '@amplifier/provider-http';
import { Pool } from 'undici';
import type { AzureResolvedConfig } from './azure.js';
import { AZURE_CONFIG, azureApiPath, azureAuthHeaders } from './azure.js';
import {
  type AzureTokenCredential,
  type AzureTokenSource,
  credentialTokenSource,
  entraTransport,
  identityCredential,
  staticTokenSource,
} from './azure-auth.js';
import { expandParallelEvents, expandParallelResponse, wrapperUndeclared } from './azure-parallel.js';
import { firedCategories } from './content-filters.js';
import { fromWireCompletion, toWireBody } from './convert.js';
import { ERROR_STYLE } from './errors.js';
import { BUILTIN_PRICES, MODEL_TABLE } from './models.js';
import { chunkEvents, responseEvents } from './stream.js';
import { restoreStrictCalls, restoreStrictStream } from './strict-tools.js';

type Json = Record<string, unknown>;

/** What an app or a test may hand the provider beyond its config. */
export interface AzureProviderOptions {
  hooks?: EventSink;
  logger?: Logger;
  /** Entra ID tokens from this credential (any `@azure/identity` credential), whatever the config says about auth. */
  credential?: AzureTokenCredential;
}

/**
 * Azure's error bodies: OpenAI's codes, plus a filtered prompt
 * (`code: "content_filter"`, `innererror` or `inner_error` with
 * `content_filter_result(s)`) named by the categories that fired.
 */
export const AZURE_ERROR_STYLE: ApiErrorStyle = {
  ...ERROR_STYLE,
  kinds: {
    ...ERROR_STYLE.kinds,
    ResponsibleAIPolicyViolation: 'content_filter',
    DeploymentNotFound: 'not_found',
  },
  requestIdHeader: 'apim-request-id',
  readError(payload: unknown): ErrorDetails {
    const details = errorDetails(payload);
    const error = (payload as { error?: unknown } | undefined)?.error;
    if (typeof error !== 'object' || error === null) return details;
    const inner = ((error as Json).innererror ?? (error as Json).inner_error) as Json | undefined;
    const fired = firedCategories(inner?.content_filter_result ?? inner?.content_filter_results);
    if (inner?.code === 'ResponsibleAIPolicyViolation') details.code ??= 'content_filter';
    if (fired !== undefined) details.message = `${details.message ?? 'filtered'} [content filter: ${fired}]`;
    return details;
  },
};

/** Entra ID tokens for the config's auth, or undefined for `api-key` (or none: a local endpoint). */
function tokenSource(
  config: AzureResolvedConfig,
  credential: AzureTokenCredential | undefined,
): AzureTokenSource | undefined {
  if (credential !== undefined) return credentialTokenSource(credential);
  const { auth } = config.azure;
  if (auth.kind === 'token') return staticTokenSource(auth.token);
  if (auth.kind === 'managed_identity' || auth.kind === 'default_credential')
    return credentialTokenSource(identityCredential(auth));
  return undefined;
}

/**
 * The transport of an Azure config (AZ2, for every API mode): `inner` as it
 * is for `api-key` (its header is `azureAuthHeaders`), or behind
 * `entraTransport` with the tokens the config (or `credential`) asks for.
 */
export function azureTransport(
  config: AzureResolvedConfig,
  inner: Transport,
  credential?: AzureTokenCredential,
): Transport {
  const tokens = tokenSource(config, credential);
  return tokens === undefined ? inner : entraTransport(inner, tokens);
}

/** The Azure OpenAI provider (Chat Completions). `mount` builds one for `provider-azure-openai`. */
export class AzureOpenAIProvider extends HttpLlmProvider<AzureResolvedConfig> {
  constructor(config: AzureResolvedConfig, options: AzureProviderOptions = {}) {
    const parts = providerParts(config, {
      Pool,
      models: MODEL_TABLE,
      // Provisioned throughput is paid per hour, not per token.
      prices: config.azure.ptu ? {} : BUILTIN_PRICES,
      listBuiltin: false,
    });
    const { apiVersion } = config.azure;
    super(
      config,
      {
        name: 'azure-openai',
        module: 'provider-azure-openai',
        info: {
          display_name: 'Azure OpenAI (Chat Completions)',
          credential_env_vars: ['AZURE_OPENAI_API_KEY', 'AZURE_OPENAI_ENDPOINT'],
          capabilities: ['tools', 'streaming', 'vision', 'json_mode'],
          config_fields: AZURE_CONFIG.configFields(config.model),
        },
        auth: azureAuthHeaders(config),
        ...parts,
        transport: azureTransport(config, parts.transport, options.credential),
        // Deployments are the customer's: nothing to list (Amplifier returns [] too).
        listing: 'no listing',
        listModels: () => Promise.resolve([]),
        api: {
          path: azureApiPath('chat/completions', apiVersion, config.model),
          errors: AZURE_ERROR_STYLE,
          baseUrlExample: 'https://my-resource.openai.azure.com',
          maxRetryDelayMs: config.maxRetryDelayMs,
          build(request, messages, { model, stream }) {
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
              path: azureApiPath('chat/completions', apiVersion, model),
              messageCount: (body.messages as unknown[]).length,
              hasInstructions: messages.some((m) => m.role === 'system' || m.role === 'developer'),
              thinking: {
                enabled: request.reasoning_effort !== undefined && request.reasoning_effort !== 'none',
                budget: null,
              },
            };
          },
          parse(payload, context) {
            if (payload.error !== undefined && payload.choices === undefined)
              throw streamPayloadError(AZURE_ERROR_STYLE, payload, context);
            return fromWireCompletion(payload);
          },
          streamEvents: (messages, context) => chunkEvents(messages, context, AZURE_ERROR_STYLE),
          responseEvents: (response) =>
            responseEvents(response, response.metadata?.['openai:model'] as string | undefined),
        },
      },
      options,
    );
  }

  /** One completion; a `parallel` wrapper call the request did not declare is expanded into its calls. */
  override async complete(request: ChatRequest, options: CompleteOptions = {}): Promise<ChatResponse> {
    const response = restoreStrictCalls(request, await super.complete(request, options));
    return wrapperUndeclared(request.tools) ? expandParallelResponse(response) : response;
  }

  /** The response as events, a `parallel` wrapper call the request did not declare expanded into its calls. */
  override stream(request: ChatRequest, options: CompleteOptions = {}): AsyncIterable<StreamEvent> {
    const events = restoreStrictStream(request, super.stream(request, options));
    return wrapperUndeclared(request.tools) ? expandParallelEvents(events) : events;
  }
}
