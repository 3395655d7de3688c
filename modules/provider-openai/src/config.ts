/**
 * Module config: its JSON Schema (checked at mount with core's ajv), the
 * defaults, where the key and base URL come from, and the resolved settings
 * the provider works with. The keys every HTTP provider shares are the provider kit's
 * (`@amplifier/provider-http`); these are the OpenAI-specific ones.
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

export { isLocalUrl } from '@amplifier/provider-http';

/** The module config as a mount plan gives it (snake_case). Every key is optional. */
export interface OpenAIConfig extends ProviderConfig {
  /** Default: env `OPENAI_API_KEY`. */
  api_key?: string;
  /** Default: env `OPENAI_BASE_URL`, else https://api.openai.com/v1. */
  base_url?: string;
  organization?: string;
  project?: string;
  /** Which body field carries the output limit. Default: `max_completion_tokens` for api.openai.com, else `max_tokens`. */
  max_tokens_field?: 'max_completion_tokens' | 'max_tokens';
}

/** The settings the provider runs with (all defaults applied). */
export interface ResolvedConfig extends ResolvedProviderConfig {
  maxTokensField: 'max_completion_tokens' | 'max_tokens';
}

export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_MODEL = 'gpt-5-mini';

/** Where the key, base URL and model come from when config does not say. */
const DEFAULTS: ProviderDefaults = {
  module: 'provider-openai',
  apiKeyEnv: 'OPENAI_API_KEY',
  baseUrlEnv: 'OPENAI_BASE_URL',
  baseUrl: DEFAULT_BASE_URL,
  model: DEFAULT_MODEL,
  baseUrlHint: '; use the API root, e.g. http://localhost:11434/v1',
};

/** JSON Schema of the module config. */
export const CONFIG_SCHEMA: JSONSchema = {
  type: 'object',
  properties: {
    ...PROVIDER_CONFIG_PROPERTIES,
    temperature: { type: 'number', minimum: 0, maximum: 2 },
    organization: { type: 'string' },
    project: { type: 'string' },
    max_tokens_field: { enum: ['max_completion_tokens', 'max_tokens'] },
  },
};

/** Apply defaults and the environment to a validated config (its own properties only). */
export function resolveConfig(raw: OpenAIConfig, env: NodeJS.ProcessEnv = process.env): ResolvedConfig {
  const config = ownConfig(raw, 'provider-openai') as OpenAIConfig;
  const common = resolveProviderConfig(config, DEFAULTS, env);
  const headers: Record<string, string> = {};
  if (config.organization) headers['openai-organization'] = config.organization;
  if (config.project) headers['openai-project'] = config.project;
  return {
    ...common,
    headers: { ...headers, ...common.headers },
    maxTokensField:
      config.max_tokens_field ??
      (common.baseUrl.hostname === 'api.openai.com' ? 'max_completion_tokens' : 'max_tokens'),
  };
}

/** What an app asks for when a user sets this provider up interactively. */
export function configFields(model: string): ConfigField[] {
  return providerConfigFields(DEFAULTS, model, {
    apiKey: 'OpenAI API key (not needed for a local server)',
    apiKeyRequired: false,
    baseUrl: 'API root of an OpenAI-compatible server (e.g. http://localhost:11434/v1 for Ollama)',
  });
}
