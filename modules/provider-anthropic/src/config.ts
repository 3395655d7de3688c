/**
 * Module config: its JSON Schema (checked at mount with core's ajv), the
 * defaults, where the key and base URL come from, and the resolved settings
 * the provider works with. The keys every HTTP provider shares are the provider kit's
 * (`@amplifier/provider-http`); these are the Anthropic-specific ones.
 */
import { type ConfigField, type JSONSchema, ownConfig } from '@amplifier/core';
import {
  PROVIDER_CONFIG_PROPERTIES,
  type ProviderConfig,
  type ProviderDefaults,
  providerConfigFields,
  type ResolvedProviderConfig,
  resolveProviderConfig,
} from '@amplifier/provider-http';

/** The module config as a mount plan gives it (snake_case). Every key is optional. */
export interface AnthropicConfig extends ProviderConfig {
  /** Default: env `ANTHROPIC_API_KEY`. */
  api_key?: string;
  /** Default: env `ANTHROPIC_BASE_URL`, else https://api.anthropic.com. */
  base_url?: string;
  /** Default: the model's max output. */
  max_tokens?: number;
  /** Default 0.7 (left out while extended thinking is on). */
  temperature?: number;
  /** The `anthropic-version` header. */
  anthropic_version?: string;
  /** Sent as `anthropic-beta`. */
  beta_headers?: string[];
  /** Cache breakpoints on the system prompt, the tools and the last message. */
  enable_prompt_caching?: boolean;
  /** Think on every request (also enabled per call by `extended_thinking` or `reasoning_effort`). */
  extended_thinking?: boolean;
  /** Budget when thinking is on without a `reasoning_effort`. */
  thinking_budget_tokens?: number;
  /** `enabled` (a token budget) or `adaptive` (the model decides; `reasoning_effort` goes to `output_config.effort`). */
  thinking_type?: 'enabled' | 'adaptive';
}

/** The settings the provider runs with (all defaults applied). */
export interface ResolvedConfig extends ResolvedProviderConfig {
  promptCaching: boolean;
  extendedThinking: boolean;
  thinkingBudget: number;
  thinkingType: 'enabled' | 'adaptive';
}

export const DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const DEFAULT_MODEL = 'claude-sonnet-4-6';
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

/** Where the key, base URL and model come from when config does not say. */
const DEFAULTS: ProviderDefaults = {
  module: 'provider-anthropic',
  apiKeyEnv: 'ANTHROPIC_API_KEY',
  baseUrlEnv: 'ANTHROPIC_BASE_URL',
  baseUrl: DEFAULT_BASE_URL,
  model: DEFAULT_MODEL,
  baseUrlHint: ` (default ${DEFAULT_BASE_URL})`,
};

/** JSON Schema of the module config. */
export const CONFIG_SCHEMA: JSONSchema = {
  type: 'object',
  properties: {
    ...PROVIDER_CONFIG_PROPERTIES,
    temperature: { type: 'number', minimum: 0, maximum: 1 },
    anthropic_version: { type: 'string', minLength: 1 },
    beta_headers: { type: 'array', items: { type: 'string', minLength: 1 } },
    enable_prompt_caching: { type: 'boolean' },
    extended_thinking: { type: 'boolean' },
    thinking_budget_tokens: { type: 'integer', minimum: 1024 },
    thinking_type: { enum: ['enabled', 'adaptive'] },
  },
};

/** Apply defaults and the environment to a validated config (its own properties only). */
export function resolveConfig(raw: AnthropicConfig, env: NodeJS.ProcessEnv = process.env): ResolvedConfig {
  const config = ownConfig(raw, 'provider-anthropic') as AnthropicConfig;
  const common = resolveProviderConfig(config, DEFAULTS, env);
  const headers: Record<string, string> = {
    'anthropic-version': config.anthropic_version ?? DEFAULT_ANTHROPIC_VERSION,
  };
  if (config.beta_headers?.length) headers['anthropic-beta'] = config.beta_headers.join(',');
  return {
    ...common,
    temperature: config.temperature ?? 0.7,
    headers: { ...headers, ...common.headers },
    promptCaching: config.enable_prompt_caching ?? true,
    extendedThinking: config.extended_thinking ?? false,
    thinkingBudget: config.thinking_budget_tokens ?? 32_000,
    thinkingType: config.thinking_type ?? 'enabled',
  };
}

/** What an app asks for when a user sets this provider up interactively. */
export function configFields(model: string): ConfigField[] {
  return providerConfigFields(DEFAULTS, model, { apiKey: 'Anthropic API key', apiKeyRequired: true });
}
