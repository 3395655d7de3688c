/**
 * Module config: which AI SDK package and model, what its factory gets, and
 * the provider kit's shared keys for what the bridge does around the model
 * (timeouts, retries, streaming, prices). The JSON Schema is checked at mount
 * through the kit's `readProviderConfig`.
 */
import { DataValidationError, type JSONSchema, ownConfig } from '@amplifier/core';
import {
  PROVIDER_CONFIG_PROPERTIES,
  type ProviderConfig,
  type ResolvedProviderConfig,
  resolveProviderConfig,
} from '@amplifier/provider-http';
import type { FromSchema } from '@amplifier/schema';
import type { ProviderMetadata } from './spec.js';

/** The kit's shared keys the bridge reads (not `extra_body`: the package builds the body; not `max_concurrent_requests`: it has no pool). */
const {
  extra_body: _extraBody,
  max_concurrent_requests: _connections,
  ...SHARED_PROPERTIES
} = PROVIDER_CONFIG_PROPERTIES;

/** The bridge's own keys (the shared ones it reads are the kit's `PROVIDER_CONFIG_PROPERTIES`). */
export const AI_SDK_CONFIG_PROPERTIES = {
  /**
   * The npm package that implements the model (resolved from the session's project, like a module):
   * an npm name (`@ai-sdk/mistral`, `ollama-ai-provider-v2`, `@openrouter/ai-sdk-provider`), never a path.
   */
  package: { type: 'string', pattern: '^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$' },
  /** Its factory export (`createMistral`). Default: the package's only `create*` function. */
  factory: { type: 'string', pattern: '^[A-Za-z_$][A-Za-z0-9_$]*$' },
  /** Passed to the factory as they are (`{ apiKey, baseURL, headers, ... }` in the package's own names). */
  options: { type: 'object' },
  /** The provider name this mounts as (`mistral`); default `ai-sdk`. Two bridges need two names. */
  name: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]*$' },
  /** An environment variable that must be set for the provider to mount (`MISTRAL_API_KEY`): no key, no mount. */
  api_key_env: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
  /** `providerOptions` of every call (`{ mistral: { safePrompt: true } }`). */
  provider_options: { type: 'object', additionalProperties: { type: 'object' } },
  /** Sampling temperature when the request sets none (the range is the vendor's). */
  temperature: { type: 'number', minimum: 0 },
} as const;

/** JSON Schema of the module config. */
export const CONFIG_SCHEMA: JSONSchema = {
  type: 'object',
  properties: { ...SHARED_PROPERTIES, ...AI_SDK_CONFIG_PROPERTIES },
};

/** The module config as a mount plan gives it (snake_case). Every key is optional in the schema; `package` or a model object is needed. */
export type AiSdkConfig = Omit<ProviderConfig, 'temperature' | 'extra_body' | 'max_concurrent_requests'> &
  FromSchema<{ type: 'object'; properties: typeof AI_SDK_CONFIG_PROPERTIES }>;

/** The settings the bridge runs with (defaults applied). */
export interface ResolvedConfig
  extends Omit<ResolvedProviderConfig, 'baseUrl' | 'connections' | 'extraBody'> {
  /** The mount name. */
  name: string;
  package: string | undefined;
  factory: string | undefined;
  /** The factory's options, `api_key` and `base_url` folded in as `apiKey` / `baseURL` (the package's own names win). */
  options: Record<string, unknown>;
  /** The base URL the config names, if any (for the kit's refused-loopback retry rule). */
  baseUrl: URL | undefined;
  apiKeyEnv: string | undefined;
  providerOptions: ProviderMetadata | undefined;
}

const MODULE = 'provider-ai-sdk';

/**
 * Apply defaults to a validated config (own properties only). `api_key`
 * (else the variable `api_key_env` names) becomes the factory's `apiKey`,
 * `base_url` its `baseURL`, unless `options` sets them; without either the
 * package reads its own variables (`MISTRAL_API_KEY`...) when it is called.
 */
export function resolveConfig(raw: AiSdkConfig, env: NodeJS.ProcessEnv = process.env): ResolvedConfig {
  const config = ownConfig(raw, MODULE) as AiSdkConfig;
  const common = resolveProviderConfig(
    config as ProviderConfig,
    {
      module: MODULE,
      apiKeyEnv: config.api_key_env ?? '',
      baseUrlEnv: '',
      baseUrl: 'http://package-default.invalid',
      model: '',
      baseUrlHint: ' (the API root the package calls, e.g. https://api.mistral.ai/v1)',
    },
    env,
  );
  const { baseUrl, connections: _connections, extraBody: _extra, ...shared } = common;
  const options: Record<string, unknown> = { ...ownConfig(config.options ?? {}, MODULE) };
  if (common.apiKey !== undefined && !Object.hasOwn(options, 'apiKey')) options.apiKey = common.apiKey;
  if (config.base_url !== undefined && !Object.hasOwn(options, 'baseURL'))
    options.baseURL = baseUrl.href.replace(/\/+$/, '');
  const configured = typeof options.baseURL === 'string' && URL.canParse(options.baseURL);
  if (config.package === undefined && config.factory !== undefined) {
    throw new DataValidationError(
      `${MODULE}: factory '${config.factory}' names no package; set package too`,
      [{ path: 'factory', message: 'needs package' }],
    );
  }
  return {
    ...shared,
    name: config.name ?? 'ai-sdk',
    package: config.package,
    factory: config.factory,
    options,
    baseUrl: configured ? new URL(options.baseURL as string) : undefined,
    apiKeyEnv: config.api_key_env,
    providerOptions: config.provider_options as ProviderMetadata | undefined,
  };
}
