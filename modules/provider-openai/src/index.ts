/**
 * @amplifier/provider-openai: OpenAI's Responses API (the default for
 * api.openai.com) and the Chat Completions API of OpenAI and every server
 * that speaks it (Ollama, vLLM, llama.cpp server, LM Studio, OpenRouter), as
 * an Amplifier provider named `openai`.
 */
import type { Cleanup, Coordinator } from '@amplifier/core';
import {
  assertProviderConfig,
  isLocalUrl,
  mountHttpProvider,
  PROVIDER_STREAM_EVENTS,
} from '@amplifier/provider-http';
import { isAzureConfig, mountAzure } from './azure.js';
import { CONFIG_SCHEMA, type OpenAIConfig, resolveConfig } from './config.js';
import { CHAIN_INVALIDATED_EVENT, OpenAIProvider } from './provider.js';

export type {
  AzureAuth,
  AzureOpenAIConfig,
  AzureOperation,
  AzureResolvedConfig,
  AzureSettings,
} from './azure.js';
export {
  AZURE_DEFAULT_MODEL,
  azureApiPath,
  azureAuthHeaders,
  azureMountProblem,
  createAzureOpenAIProvider,
  isAzureConfig,
  resolveAzureConfig,
} from './azure.js';
export type { AzureAccessToken, AzureTokenCredential, AzureTokenSource } from './azure-auth.js';
export { COGNITIVE_SERVICES_SCOPE, credentialTokenSource, entraTransport } from './azure-auth.js';
export {
  AZURE_ERROR_STYLE,
  AzureOpenAIProvider,
  type AzureProviderOptions,
  azureTransport,
} from './azure-provider.js';
export type { OpenAIConfig, ResolvedConfig } from './config.js';
export { CONFIG_SCHEMA, DEFAULT_BASE_URL, DEFAULT_MODEL, isLocalUrl, resolveConfig } from './config.js';
export type { ModelLimits, ModelPrice } from './models.js';
export { BUILTIN_MODELS, BUILTIN_PRICES } from './models.js';
export type { OpenAIProviderOptions } from './provider.js';
export { CHAIN_INVALIDATED_EVENT, OpenAIProvider } from './provider.js';

/** Events this provider emits beyond the canonical set (declared on `observability.events`). */
export const EXTRA_EVENTS: readonly string[] = [...PROVIDER_STREAM_EVENTS, CHAIN_INVALIDATED_EVENT];

/** A provider built in code (not mounted): same config as the mount plan's, validated. */
export function createOpenAIProvider(config: OpenAIConfig = {}): OpenAIProvider {
  assertProviderConfig(CONFIG_SCHEMA, config as Record<string, unknown>, 'provider-openai');
  return new OpenAIProvider(resolveConfig(config));
}

/**
 * Mount the provider under `openai`. Without an API key (config `api_key` or
 * env `OPENAI_API_KEY`) it does not mount and logs why, unless `base_url` is a
 * local server (localhost, 127.x, ::1). Bad config fails the mount with every
 * problem listed. Registers the `session.cost` contribution and its extra
 * events on `observability.events`; the cleanup closes the connection pool.
 * An Azure config (`azure: true`, set by the `provider-azure-openai` alias, or
 * an `azure_endpoint`) mounts Azure OpenAI under `azure-openai` instead.
 */
export async function mount(
  coordinator: Coordinator,
  config: Record<string, unknown> = {},
): Promise<Cleanup | undefined> {
  if (isAzureConfig(config)) return mountAzure(coordinator, config);
  return mountHttpProvider(coordinator, config, {
    module: 'provider-openai',
    schema: CONFIG_SCHEMA,
    resolve: (valid) => resolveConfig(valid as OpenAIConfig),
    missingKey: ({ baseUrl }) =>
      isLocalUrl(baseUrl)
        ? undefined
        : `no API key for ${baseUrl.href}. Set OPENAI_API_KEY or the provider's api_key config (a local server such as http://localhost:11434/v1 needs none).`,
    create: (resolved, options) =>
      new OpenAIProvider(resolved, { ...options, sessionId: coordinator.sessionId }),
    events: EXTRA_EVENTS,
  });
}
