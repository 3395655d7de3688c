/**
 * Azure OpenAI, a flavour of this module reached by the module id
 * `provider-azure-openai` (an alias in the manifest that sets `azure: true`):
 * the endpoint, deployments and `api-version` as URLs, the credentials
 * (`api-key`, or Microsoft Entra ID tokens), Amplifier's azure-openai keys and
 * environment variables, and the mount. The wire formats are OpenAI's.
 */
import type { Cleanup, Coordinator } from '@amplifier/core';
import { DataValidationError, ownConfig } from '@amplifier/core';
import {
  defineProviderConfig,
  isLocalUrl,
  mountHttpProvider,
  PROVIDER_STREAM_EVENTS,
  type ProviderConfigDef,
  type ProviderConfigOf,
  readProviderConfig,
} from '@amplifier/provider-http';
import { API_VERSION_PATTERN, AZURE_CONFIG_PROPERTIES } from './azure-config.js';
import { AzureOpenAIProvider, type AzureProviderOptions } from './azure-provider.js';
import { CONFIG_SCHEMA, OPENAI_CONFIG_PROPERTIES, type ResolvedConfig } from './config.js';

/** The keys the Azure flavour reads: the OpenAI ones and Azure's. */
export type AzureConfigProperties = typeof OPENAI_CONFIG_PROPERTIES & typeof AZURE_CONFIG_PROPERTIES;
/** The config of `provider-azure-openai` as a mount plan gives it (snake_case), every key optional. */
export type AzureOpenAIConfig = ProviderConfigOf<AzureConfigProperties>;

export const AZURE_MODULE = 'provider-azure-openai';
/** Amplifier's default deployment when the config names none. */
export const AZURE_DEFAULT_MODEL = 'gpt-5.4';

/** How requests authenticate. */
export type AzureAuth =
  | { kind: 'api_key' }
  | { kind: 'token'; token: string }
  | { kind: 'managed_identity'; clientId?: string | undefined }
  | { kind: 'default_credential'; clientId?: string | undefined }
  | { kind: 'none' };

/** What the Azure flavour runs with beyond the OpenAI settings. */
export interface AzureSettings {
  /** The resource's endpoint (`https://<resource>.openai.azure.com`), or undefined when none is configured. */
  endpoint: URL | undefined;
  /** `v1`, `preview`, `latest` or a dated version. */
  apiVersion: string;
  auth: AzureAuth;
  /** Provisioned throughput: no per-token cost. */
  ptu: boolean;
}

/** The resolved settings of the Azure flavour (`baseUrl` is `<endpoint>/openai`). */
export interface AzureResolvedConfig extends ResolvedConfig {
  azure: AzureSettings;
}

/** True for a config of the Azure flavour: `azure: true`, or an `azure_endpoint` without `azure: false`. */
export function isAzureConfig(config: Record<string, unknown>): boolean {
  const own = ownConfig(config, AZURE_MODULE);
  return own.azure === true || (own.azure !== false && own.azure_endpoint !== undefined);
}

/** The Azure flavour's defaults: key, endpoint and setup questions (the kit resolves the shared keys). */
export const AZURE_CONFIG: ProviderConfigDef<AzureConfigProperties> = defineProviderConfig({
  properties: { ...OPENAI_CONFIG_PROPERTIES, ...AZURE_CONFIG_PROPERTIES },
  module: AZURE_MODULE,
  apiKeyEnv: 'AZURE_OPENAI_API_KEY',
  baseUrlEnv: 'AZURE_OPENAI_ENDPOINT',
  // Only a placeholder: without an endpoint the provider does not mount.
  baseUrl: 'https://endpoint.invalid/openai',
  model: AZURE_DEFAULT_MODEL,
  baseUrlHint: '; use the resource endpoint, e.g. https://my-resource.openai.azure.com',
  prompts: {
    apiKey: 'Azure OpenAI API key (empty for Microsoft Entra ID)',
    apiKeyRequired: false,
    baseUrl: 'Azure OpenAI endpoint (https://<resource>.openai.azure.com)',
  },
});

const flag = (value: string | undefined): boolean => /^(1|true|yes|on)$/i.test(value?.trim() ?? '');

/** `https://r.openai.azure.com/openai/v1/` → `https://r.openai.azure.com` (what the endpoint variables hold varies). */
function endpointOf(raw: string, from: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('not http(s)');
  } catch {
    throw new DataValidationError(
      `${AZURE_MODULE}: ${from} '${raw}' is not a URL; use the resource endpoint, e.g. https://my-resource.openai.azure.com`,
      [{ path: 'azure_endpoint', message: 'must be an http(s) URL' }],
    );
  }
  url.pathname = url.pathname.replace(/\/+$/, '').replace(/\/openai(\/v1)?$/i, '');
  url.search = '';
  return url;
}

/**
 * Apply Amplifier's azure-openai keys and environment to a validated config:
 * endpoint `azure_endpoint` > `base_url` > `AZURE_OPENAI_ENDPOINT` >
 * `AZURE_OPENAI_BASE_URL`; key `api_key` > `AZURE_OPENAI_API_KEY` >
 * `AZURE_OPENAI_KEY`; else Entra ID: `azure_ad_token` (`AZURE_OPENAI_AD_TOKEN`),
 * `use_managed_identity`, `use_default_credential`; deployment `default_model`
 * > `model` > `default_deployment` > `gpt-5.4`; `api_version` >
 * `OPENAI_API_VERSION` > `AZURE_OPENAI_API_VERSION` > `v1`.
 */
export function resolveAzureConfig(
  raw: AzureOpenAIConfig,
  env: NodeJS.ProcessEnv = process.env,
): AzureResolvedConfig {
  const config = ownConfig(raw, AZURE_MODULE) as AzureOpenAIConfig;
  const endpointText =
    config.azure_endpoint ??
    config.base_url ??
    (env.AZURE_OPENAI_ENDPOINT || env.AZURE_OPENAI_BASE_URL || undefined);
  const endpoint =
    endpointText === undefined
      ? undefined
      : endpointOf(
          endpointText,
          config.azure_endpoint !== undefined
            ? 'azure_endpoint'
            : config.base_url !== undefined
              ? 'base_url'
              : 'AZURE_OPENAI_ENDPOINT',
        );
  const apiVersion = config.api_version ?? (env.OPENAI_API_VERSION || env.AZURE_OPENAI_API_VERSION || 'v1');
  if (!new RegExp(API_VERSION_PATTERN).test(apiVersion)) {
    throw new DataValidationError(
      `${AZURE_MODULE}: OPENAI_API_VERSION '${apiVersion}' is not an Azure OpenAI api-version: use v1, preview, or a dated version such as 2024-10-21 or 2025-04-01-preview`,
      [{ path: 'api_version', message: 'must be v1, preview, latest or YYYY-MM-DD[-preview]' }],
    );
  }
  const apiKey = config.api_key || env.AZURE_OPENAI_API_KEY || env.AZURE_OPENAI_KEY || undefined;
  const clientId = config.managed_identity_client_id ?? (env.AZURE_MANAGED_IDENTITY_CLIENT_ID || undefined);
  const token = config.azure_ad_token ?? (env.AZURE_OPENAI_AD_TOKEN || undefined);
  const auth: AzureAuth =
    apiKey !== undefined
      ? { kind: 'api_key' }
      : token !== undefined
        ? { kind: 'token', token }
        : (config.use_managed_identity ?? flag(env.AZURE_USE_MANAGED_IDENTITY))
          ? { kind: 'managed_identity', clientId }
          : (config.use_default_credential ?? flag(env.AZURE_USE_DEFAULT_CREDENTIAL))
            ? { kind: 'default_credential', clientId }
            : { kind: 'none' };
  const { settings } = AZURE_CONFIG.resolve(
    {
      ...config,
      ...(endpoint !== undefined && { base_url: `${endpoint.href.replace(/\/+$/, '')}/openai` }),
      ...(apiKey !== undefined && { api_key: apiKey }),
      ...(config.default_model === undefined &&
        config.model === undefined &&
        config.default_deployment !== undefined && { default_model: config.default_deployment }),
    },
    {},
  );
  return {
    ...settings,
    maxTokensField: config.max_tokens_field ?? 'max_completion_tokens',
    // The Azure flavour speaks Chat Completions; its Responses mode (azureApiPath('responses')) is not wired yet.
    api: 'chat',
    responses: { reasoningSummary: 'auto', store: false },
    azure: {
      endpoint,
      apiVersion,
      auth,
      ptu: config.deployment_type?.toUpperCase() === 'PTU',
    },
  };
}

/** The Azure OpenAI operations this module calls. */
export type AzureOperation = 'chat/completions' | 'responses';

/**
 * The path and query of an operation under `<endpoint>/openai` (AZ1): the v1
 * API `/v1/<operation>` (`?api-version=preview|latest` when configured; the
 * body's `model` is the deployment), or for a dated `api-version` the
 * deployment URLs `/deployments/<deployment>/chat/completions?api-version=…`
 * and `/responses?api-version=…` (Responses takes the deployment in `model`).
 */
export function azureApiPath(operation: AzureOperation, apiVersion: string, deployment: string): string {
  if (apiVersion === 'v1') return `/v1/${operation}`;
  if (apiVersion === 'preview' || apiVersion === 'latest')
    return `/v1/${operation}?api-version=${apiVersion}`;
  const query = `?api-version=${encodeURIComponent(apiVersion)}`;
  return operation === 'responses'
    ? `/responses${query}`
    : `/deployments/${encodeURIComponent(deployment)}/${operation}${query}`;
}

/** The request headers of an API-key config (`api-key`); Entra ID tokens travel through `entraTransport`. */
export function azureAuthHeaders(config: AzureResolvedConfig): Record<string, string> {
  return config.azure.auth.kind === 'api_key' && config.apiKey !== undefined
    ? { 'api-key': config.apiKey }
    : {};
}

/** Why a resolved config cannot mount (no endpoint, no credentials), or undefined when it can. */
export function azureMountProblem(config: AzureResolvedConfig): string | undefined {
  const { endpoint, auth } = config.azure;
  if (endpoint === undefined)
    return "no Azure OpenAI endpoint. Set AZURE_OPENAI_ENDPOINT (https://<resource>.openai.azure.com) or the provider's azure_endpoint config.";
  if (auth.kind === 'none' && !isLocalUrl(endpoint))
    return `no credentials for ${endpoint.href}. Set AZURE_OPENAI_API_KEY (or AZURE_OPENAI_KEY, or the provider's api_key config), or use Microsoft Entra ID: use_default_credential: true (AZURE_USE_DEFAULT_CREDENTIAL=true), use_managed_identity: true (AZURE_USE_MANAGED_IDENTITY=true) or azure_ad_token (AZURE_OPENAI_AD_TOKEN).`;
  return undefined;
}

/**
 * An Azure OpenAI provider built in code, same config as the mount plan's
 * (`azure: true` implied); `options.credential` brings any `@azure/identity`
 * credential (or a `TokenCredential` of the app's). Throws a configuration
 * error when there is no endpoint or no credentials.
 */
export function createAzureOpenAIProvider(
  config: AzureOpenAIConfig = {},
  options: AzureProviderOptions = {},
): AzureOpenAIProvider {
  const valid = readProviderConfig(
    CONFIG_SCHEMA,
    { ...config, azure: true },
    AZURE_MODULE,
  ) as AzureOpenAIConfig;
  const resolved = resolveAzureConfig(valid);
  const problem = options.credential === undefined ? azureMountProblem(resolved) : undefined;
  if (problem !== undefined || resolved.azure.endpoint === undefined)
    throw new DataValidationError(`${AZURE_MODULE}: ${problem ?? 'no Azure OpenAI endpoint'}`, [
      { path: 'azure_endpoint', message: problem ?? 'required' },
    ]);
  return new AzureOpenAIProvider(resolved, options);
}

/**
 * Mount the Azure flavour under `azure-openai`. Without an endpoint, or
 * without credentials (an API key, or an Entra ID setting), it does not mount
 * and logs why, naming the environment variables.
 */
export function mountAzure(
  coordinator: Coordinator,
  config: Record<string, unknown>,
): Promise<Cleanup | undefined> {
  return mountHttpProvider(coordinator, config, {
    module: AZURE_MODULE,
    schema: CONFIG_SCHEMA,
    resolve: (valid) => {
      const resolved = resolveAzureConfig(valid as AzureOpenAIConfig);
      const problem = azureMountProblem(resolved);
      // mountHttpProvider asks missingKey only when apiKey is unset: a problem must make it unset.
      return { apiKey: problem === undefined ? 'mountable' : undefined, problem, resolved };
    },
    missingKey: ({ problem }) => problem,
    create: ({ resolved }, options) => new AzureOpenAIProvider(resolved, options),
    events: PROVIDER_STREAM_EVENTS,
  });
}
