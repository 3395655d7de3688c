/**
 * Module config: its JSON Schema (checked at mount with core's ajv), the
 * defaults, where the key and base URL come from, and the resolved settings
 * the provider works with. The keys every HTTP provider shares are the provider kit's
 * (`@amplifier/provider-http`); these are the Anthropic-specific ones.
 */
import type { JSONSchema } from '@amplifier/core';
import type { ProviderConfigDef, ProviderConfigOf, ResolvedProviderConfig } from '@amplifier/provider-http';
import { defineProviderConfig } from '@amplifier/provider-http';

export const DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const DEFAULT_MODEL = 'claude-sonnet-4-6';
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

/**
 * The keys only this provider reads (the kit's `PROVIDER_CONFIG_PROPERTIES` are the shared ones,
 * `api_key`: env `ANTHROPIC_API_KEY`; `base_url`: env `ANTHROPIC_BASE_URL`, else the public API;
 * `max_tokens`: default the model's max output): with them, the one source of `AnthropicConfig`.
 */
export const ANTHROPIC_CONFIG_PROPERTIES = {
  /** Default 0.7 (left out while extended thinking is on). */
  temperature: { type: 'number', minimum: 0, maximum: 1 },
  /** The `anthropic-version` header. */
  anthropic_version: { type: 'string', minLength: 1 },
  /** Sent as `anthropic-beta`. */
  beta_headers: { type: 'array', items: { type: 'string', minLength: 1 } },
  /** Cache breakpoints on the system prompt, the tools and the last message. Default true. */
  enable_prompt_caching: { type: 'boolean' },
  /** Think on every request (also enabled per call by `extended_thinking` or `reasoning_effort`). */
  extended_thinking: { type: 'boolean' },
  /** Budget when thinking is on without a `reasoning_effort`. Default 32000. */
  thinking_budget_tokens: { type: 'integer', minimum: 1024 },
  /** `enabled` (a token budget) or `adaptive` (the model decides; `reasoning_effort` goes to `output_config.effort`). */
  thinking_type: { enum: ['enabled', 'adaptive'] },
} as const;

/** The module config as a mount plan gives it (snake_case), every key optional: derived from the schema. */
export type AnthropicConfig = ProviderConfigOf<typeof ANTHROPIC_CONFIG_PROPERTIES>;

/** The settings the provider runs with (all defaults applied). */
export interface ResolvedConfig extends ResolvedProviderConfig {
  promptCaching: boolean;
  extendedThinking: boolean;
  thinkingBudget: number;
  thinkingType: NonNullable<AnthropicConfig['thinking_type']>;
}

/** Where the key, base URL and model come from when config does not say; the Anthropic headers; the setup questions. */
export const ANTHROPIC_CONFIG: ProviderConfigDef<typeof ANTHROPIC_CONFIG_PROPERTIES> = defineProviderConfig({
  properties: ANTHROPIC_CONFIG_PROPERTIES,
  headers: (config) => ({
    'anthropic-version': config.anthropic_version ?? DEFAULT_ANTHROPIC_VERSION,
    ...(config.beta_headers?.length ? { 'anthropic-beta': config.beta_headers.join(',') } : {}),
  }),
  prompts: { apiKey: 'Anthropic API key', apiKeyRequired: true },
  module: 'provider-anthropic',
  apiKeyEnv: 'ANTHROPIC_API_KEY',
  baseUrlEnv: 'ANTHROPIC_BASE_URL',
  baseUrl: DEFAULT_BASE_URL,
  model: DEFAULT_MODEL,
  baseUrlHint: ` (default ${DEFAULT_BASE_URL})`,
});

/** JSON Schema of the module config: the kit's shared keys and `ANTHROPIC_CONFIG_PROPERTIES`. */
export const CONFIG_SCHEMA: JSONSchema = ANTHROPIC_CONFIG.schema;

/** Apply defaults and the environment to a validated config (its own properties only). */
export function resolveConfig(raw: AnthropicConfig, env: NodeJS.ProcessEnv = process.env): ResolvedConfig {
  const { settings, config } = ANTHROPIC_CONFIG.resolve(raw, env);
  return {
    ...settings,
    temperature: config.temperature ?? 0.7,
    promptCaching: config.enable_prompt_caching ?? true,
    extendedThinking: config.extended_thinking ?? false,
    thinkingBudget: config.thinking_budget_tokens ?? 32_000,
    thinkingType: config.thinking_type ?? 'enabled',
  };
}
