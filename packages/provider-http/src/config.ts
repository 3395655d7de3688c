/**
 * The config every HTTP provider shares: its JSON Schema pieces, the keys as
 * a mount plan gives them (snake_case), the defaults, where the key and base
 * URL come from, and the resolved settings a provider runs with.
 */

import type { ConfigField, JSONSchema, Logger } from '@amplifier/core';
import { DataValidationError, ownConfig, setOwn } from '@amplifier/core';
import { type FromSchema, readModuleConfig } from '@amplifier/schema';
import type { ModelPrice } from './cost.js';
import type { ModelLimits } from './models.js';

/** The shared settings, all defaults applied. */
export interface ResolvedProviderConfig {
  apiKey: string | undefined;
  baseUrl: URL;
  model: string;
  maxTokens: number | undefined;
  temperature: number | undefined;
  topP: number | undefined;
  timeoutMs: number;
  maxRetries: number;
  minRetryDelayMs: number;
  maxRetryDelayMs: number;
  jitter: number;
  useStreaming: boolean;
  priority: number;
  connections: number;
  models: Record<string, Partial<ModelLimits>>;
  prices: Record<string, ModelPrice>;
  /** Config `headers`, names lower-cased. */
  headers: Record<string, string>;
  extraBody: Record<string, unknown>;
  raw: boolean;
}

/** Where one provider's defaults come from. */
export interface ProviderDefaults {
  /** The module id that prefixes error messages (`provider-openai`). */
  module: string;
  /** Environment variables of the key and the base URL. */
  apiKeyEnv: string;
  baseUrlEnv: string;
  baseUrl: string;
  model: string;
  /** Appended to the message about a base URL that does not parse (what a right one looks like). */
  baseUrlHint: string;
}

/**
 * Schemas of the shared keys except `temperature` (whose range differs per
 * API), for a provider's `properties`: the one source of `ProviderConfig` (`FromSchema`).
 */
export const PROVIDER_CONFIG_PROPERTIES = {
  /** Default: the provider's API key variable. */
  api_key: { type: 'string' },
  /** Default: the provider's base URL variable, else its public API. */
  base_url: { type: 'string', pattern: '^https?://' },
  default_model: { type: 'string', minLength: 1 },
  /** Alias of `default_model`. */
  model: { type: 'string', minLength: 1 },
  max_tokens: { type: 'integer', minimum: 1 },
  top_p: { type: 'number', minimum: 0, maximum: 1 },
  /** Seconds to wait for the response to start and, once it streams, between two chunks. */
  timeout: { type: 'number', exclusiveMinimum: 0 },
  max_retries: { type: 'integer', minimum: 0 },
  /** Seconds. */
  min_retry_delay: { type: 'number', minimum: 0 },
  /** Seconds; a server asking to wait longer than this is not retried. */
  max_retry_delay: { type: 'number', minimum: 0 },
  /** `true` = ±20 %, a number = that fraction, `false` = none. */
  retry_jitter: { type: ['boolean', 'number'], minimum: 0, maximum: 1 },
  use_streaming: { type: 'boolean' },
  priority: { type: 'number' },
  /** Connections of the pool: requests beyond this wait for a free one. */
  max_concurrent_requests: { type: 'integer', minimum: 1 },
  models: {
    type: 'object',
    additionalProperties: {
      type: 'object',
      properties: {
        context_window: { type: 'integer', minimum: 1 },
        max_output_tokens: { type: 'integer', minimum: 1 },
        display_name: { type: 'string' },
        capabilities: { type: 'array', items: { type: 'string' } },
      },
    },
  },
  prices: {
    type: 'object',
    additionalProperties: {
      type: 'object',
      required: ['input', 'output'],
      properties: {
        input: { type: 'number', minimum: 0 },
        output: { type: 'number', minimum: 0 },
        cache_read: { type: 'number', minimum: 0 },
        cache_write: { type: 'number', minimum: 0 },
      },
    },
  },
  headers: { type: 'object', additionalProperties: { type: 'string' } },
  /** Merged into every request body. */
  extra_body: { type: 'object' },
  /** Include the request body (secrets redacted) in `llm:request` as `raw`. */
  raw: { type: 'boolean' },
} as const;

/** The shared config keys, every one optional: derived from `PROVIDER_CONFIG_PROPERTIES`, plus `temperature`. */
export type ProviderConfig = FromSchema<{ type: 'object'; properties: typeof PROVIDER_CONFIG_PROPERTIES }> & {
  temperature?: number;
};

/** A provider's config type: the shared keys and its own (`properties`, written `as const`), derived by `FromSchema`. */
export type ProviderConfigOf<P> = FromSchema<{
  type: 'object';
  properties: typeof PROVIDER_CONFIG_PROPERTIES & P;
}>;

/** One HTTP provider's config, declared once (`defineProviderConfig`). */
export interface ProviderConfigSpec<P> extends ProviderDefaults {
  /** The keys only this provider reads (schemas written `as const`), besides `PROVIDER_CONFIG_PROPERTIES`. */
  properties: P;
  /** What the setup fields ask (`providerConfigFields`). */
  prompts: SetupPrompts;
  /** The provider's own request headers from its config; config `headers` win over them. */
  headers?: (config: ProviderConfigOf<P>) => Record<string, string>;
}

/** A provider's config reader and resolver (`defineProviderConfig`). */
export interface ProviderConfigDef<P> {
  /** The config schema: the shared keys and the provider's own. */
  readonly schema: JSONSchema;
  /**
   * Defaults and the environment applied to a validated config (own properties
   * only): the shared settings, the provider's headers merged under config
   * `headers`, and the config itself for the provider's own keys.
   */
  resolve(
    raw: ProviderConfigOf<P>,
    env?: NodeJS.ProcessEnv,
  ): { settings: ResolvedProviderConfig; config: ProviderConfigOf<P> };
  /** What an app asks for when a user sets the provider up interactively (`ProviderInfo.config_fields`). */
  configFields(model: string): ConfigField[];
}

/**
 * Declare an HTTP provider's config once: where its key, base URL and model
 * come from, its own keys (the source of its config type, `ProviderConfigOf`),
 * its headers and its setup questions. What every provider does with them
 * (the schema, `resolveProviderConfig`, `providerConfigFields`) is here.
 */
export function defineProviderConfig<const P extends Readonly<Record<string, JSONSchema>>>(
  spec: ProviderConfigSpec<P>,
): ProviderConfigDef<P> {
  const { properties, prompts, headers: own, ...defaults } = spec;
  return {
    schema: { type: 'object', properties: { ...PROVIDER_CONFIG_PROPERTIES, ...properties } },
    resolve(raw, env = process.env) {
      const config = ownConfig(raw, defaults.module) as ProviderConfigOf<P>;
      const settings = resolveProviderConfig(config, defaults, env);
      if (own !== undefined) settings.headers = { ...own(config), ...settings.headers };
      return { settings, config };
    },
    configFields: (model) => providerConfigFields(defaults, model, prompts),
  };
}

/** Schema of a config `models` entry. */
export const MODEL_LIMITS_SCHEMA: JSONSchema = PROVIDER_CONFIG_PROPERTIES.models.additionalProperties;

/** Schema of a config `prices` entry. */
export const MODEL_PRICE_SCHEMA: JSONSchema = PROVIDER_CONFIG_PROPERTIES.prices.additionalProperties;

/**
 * The safety-relevant keys of every HTTP provider: a misspelling of one of
 * them is refused with the reason (`readModuleConfig` (@amplifier/schema)), never ignored.
 */
export const PROVIDER_SAFETY_KEYS: Readonly<Record<string, string>> = {
  base_url:
    'ignoring it would send the requests (and the API key) to the default public API instead of the server the config names',
};

/**
 * Read a provider's config by core's config policy (`readModuleConfig`): own
 * properties only; unknown keys, at any level the schema describes, warned
 * about once through `logger` and left out; a misspelt `base_url` refused.
 * Throws a DataValidationError that names the module, every bad key and what
 * it must be.
 */
export function readProviderConfig(
  schema: JSONSchema,
  config: unknown,
  module: string,
  logger?: Pick<Logger, 'warn'>,
): Record<string, unknown> {
  return readModuleConfig(config, { module, schema, safety: PROVIDER_SAFETY_KEYS, logger });
}

/**
 * Throws like `readProviderConfig` (for providers built in code: nothing is
 * warned about). Checks the config's own properties (inherited ones are never read).
 */
export function assertProviderConfig(
  schema: JSONSchema,
  config: Record<string, unknown>,
  module: string,
): void {
  readProviderConfig(schema, config, module);
}

/** localhost, 127.x.x.x, ::1 and 0.0.0.0: servers that usually need no key. */
export function isLocalUrl(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '::1' ||
    host === '0.0.0.0' ||
    /^127\.\d+\.\d+\.\d+$/.test(host)
  );
}

/**
 * Apply defaults and the environment to a validated config: key and base URL
 * from config, else the environment, else the public API; timeout 600 s,
 * 5 retries between 1 and 60 s with ±20 % jitter, streaming on, priority 100,
 * 5 connections. `temperature` is passed through (no default). Only the
 * config's own properties are read: an inherited `base_url` or `api_key` (or
 * one under a `__proto__` key) is not a setting.
 */
export function resolveProviderConfig(
  raw: ProviderConfig,
  defaults: ProviderDefaults,
  env: NodeJS.ProcessEnv = process.env,
): ResolvedProviderConfig {
  const config = ownConfig(raw, defaults.module) as ProviderConfig;
  const rawUrl = config.base_url ?? (env[defaults.baseUrlEnv] || defaults.baseUrl);
  let baseUrl: URL;
  try {
    baseUrl = new URL(rawUrl.replace(/\/+$/, ''));
  } catch {
    throw new DataValidationError(
      `${defaults.module}: base_url '${rawUrl}' is not a URL${defaults.baseUrlHint}`,
      [{ path: 'base_url', message: 'must be an http(s) URL' }],
    );
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(config.headers ?? {}))
    setOwn(headers, name.toLowerCase(), value);
  const jitter = config.retry_jitter;
  return {
    apiKey: config.api_key || env[defaults.apiKeyEnv] || undefined,
    baseUrl,
    model: config.default_model ?? config.model ?? defaults.model,
    maxTokens: config.max_tokens,
    temperature: config.temperature,
    topP: config.top_p,
    timeoutMs: (config.timeout ?? 600) * 1000,
    maxRetries: config.max_retries ?? 5,
    minRetryDelayMs: (config.min_retry_delay ?? 1) * 1000,
    maxRetryDelayMs: (config.max_retry_delay ?? 60) * 1000,
    jitter: jitter === false ? 0 : typeof jitter === 'number' ? jitter : 0.2,
    useStreaming: config.use_streaming ?? true,
    priority: config.priority ?? 100,
    connections: config.max_concurrent_requests ?? 5,
    models: config.models ?? {},
    prices: config.prices ?? {},
    headers,
    extraBody: config.extra_body ?? {},
    raw: config.raw ?? false,
  };
}

/** What the setup fields ask, in the provider's words. */
export interface SetupPrompts {
  apiKey: string;
  /** False when some servers need no key (local ones). */
  apiKeyRequired: boolean;
  /** Ask for the base URL too (servers that speak the same API elsewhere). */
  baseUrl?: string;
}

/**
 * What an app asks for when a user sets the provider up interactively
 * (`ProviderInfo.config_fields`): the API key (a secret, from its variable),
 * the base URL when `prompts.baseUrl` is given, and the model.
 */
export function providerConfigFields(
  defaults: ProviderDefaults,
  model: string,
  prompts: SetupPrompts,
): ConfigField[] {
  return [
    {
      id: 'api_key',
      display_name: 'API key',
      field_type: 'secret',
      prompt: prompts.apiKey,
      env_var: defaults.apiKeyEnv,
      required: prompts.apiKeyRequired,
    },
    ...(prompts.baseUrl === undefined
      ? []
      : [
          {
            id: 'base_url',
            display_name: 'Base URL',
            field_type: 'text' as const,
            prompt: prompts.baseUrl,
            env_var: defaults.baseUrlEnv,
            required: false,
            default: defaults.baseUrl,
          },
        ]),
    {
      id: 'default_model',
      display_name: 'Model',
      field_type: 'text',
      prompt: 'Model id',
      required: false,
      default: model,
    },
  ];
}
