/**
 * Module config: its JSON Schema (checked at mount with core's ajv), the
 * defaults, where the key and base URL come from, and the resolved settings
 * the provider works with. The keys every HTTP provider shares are the provider kit's
 * (`@amplifier/provider-http`); these are the OpenAI-specific ones.
 */
import type { JSONSchema } from '@amplifier/core';
import type { ProviderConfigDef, ProviderConfigOf, ResolvedProviderConfig } from '@amplifier/provider-http';
import { defineProviderConfig } from '@amplifier/provider-http';
import { AZURE_CONFIG_PROPERTIES } from './azure-config.js';

export { isLocalUrl } from '@amplifier/provider-http';

export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_MODEL = 'gpt-5-mini';

/**
 * The keys only this provider reads (the kit's `PROVIDER_CONFIG_PROPERTIES` are the shared ones,
 * `api_key`: env `OPENAI_API_KEY`; `base_url`: env `OPENAI_BASE_URL`, else the public API):
 * with them, the one source of `OpenAIConfig`.
 */
export const OPENAI_CONFIG_PROPERTIES = {
  temperature: { type: 'number', minimum: 0, maximum: 2 },
  /** Sent as `openai-organization`. */
  organization: { type: 'string' },
  /** Sent as `openai-project`. */
  project: { type: 'string' },
  /** Which body field carries the output limit. Default: `max_completion_tokens` for api.openai.com, else `max_tokens`. */
  max_tokens_field: { enum: ['max_completion_tokens', 'max_tokens'] },
  /** The wire API: `responses` (default for OpenAI's own endpoint) or `chat` (default for any other base_url). */
  api: { enum: ['responses', 'chat'] },
  /** Responses: the default reasoning effort of reasoning models (`none`, `minimal`, `low`, `medium`, `high`, `xhigh`, newer models' values; `none` sends no `reasoning`). */
  reasoning_effort: { type: 'string', minLength: 1 },
  /** Responses: reasoning summaries streamed as thinking (default `auto`; `none` asks for none). */
  reasoning_summary: { enum: ['auto', 'concise', 'detailed', 'none'] },
  /** Responses: keep responses on OpenAI's servers and chain turns with `previous_response_id` (default false: stateless, encrypted reasoning round-tripped). */
  store: { type: 'boolean' },
  /** Responses: the prompt-cache routing key (default: the session id). */
  prompt_cache_key: { type: 'string', minLength: 1, maxLength: 64 },
  /** Responses: `in_memory` or `24h`. */
  prompt_cache_retention: { enum: ['in_memory', '24h'] },
  /** Responses: `auto` lets the server drop the middle of an overlong input; default: not sent (overflow is an error). */
  truncation: { enum: ['auto', 'disabled'] },
} as const;

/** The module config as a mount plan gives it (snake_case), every key optional: derived from the schema. */
export type OpenAIConfig = ProviderConfigOf<typeof OPENAI_CONFIG_PROPERTIES>;

/** The settings the provider runs with (all defaults applied). */
export interface ResolvedConfig extends ResolvedProviderConfig {
  maxTokensField: NonNullable<OpenAIConfig['max_tokens_field']>;
  /** The wire API: config `api`, else `responses` for api.openai.com and `chat` for any other server. */
  api: NonNullable<OpenAIConfig['api']>;
  /** The Responses API's own keys, as configured (absent: the API's defaults). */
  responses: ResponsesSettings;
}

/** What only the Responses API reads. */
export interface ResponsesSettings {
  reasoningEffort?: NonNullable<OpenAIConfig['reasoning_effort']>;
  reasoningSummary: NonNullable<OpenAIConfig['reasoning_summary']>;
  store: boolean;
  promptCacheKey?: string;
  promptCacheRetention?: NonNullable<OpenAIConfig['prompt_cache_retention']>;
  truncation?: NonNullable<OpenAIConfig['truncation']>;
}

/** Where the key, base URL and model come from when config does not say; the OpenAI headers; the setup questions. */
export const OPENAI_CONFIG: ProviderConfigDef<typeof OPENAI_CONFIG_PROPERTIES> = defineProviderConfig({
  properties: OPENAI_CONFIG_PROPERTIES,
  headers: (config) => ({
    ...(config.organization ? { 'openai-organization': config.organization } : {}),
    ...(config.project ? { 'openai-project': config.project } : {}),
  }),
  prompts: {
    apiKey: 'OpenAI API key (not needed for a local server)',
    apiKeyRequired: false,
    baseUrl: 'API root of an OpenAI-compatible server (e.g. http://localhost:11434/v1 for Ollama)',
  },
  module: 'provider-openai',
  apiKeyEnv: 'OPENAI_API_KEY',
  baseUrlEnv: 'OPENAI_BASE_URL',
  baseUrl: DEFAULT_BASE_URL,
  model: DEFAULT_MODEL,
  baseUrlHint: '; use the API root, e.g. http://localhost:11434/v1',
});

/** JSON Schema of the module config: the kit's shared keys, `OPENAI_CONFIG_PROPERTIES` and Azure's keys (`azure-config.ts`). */
export const CONFIG_SCHEMA: JSONSchema = {
  ...OPENAI_CONFIG.schema,
  properties: {
    ...(OPENAI_CONFIG.schema.properties as Record<string, JSONSchema>),
    ...AZURE_CONFIG_PROPERTIES,
  },
};

/** Apply defaults and the environment to a validated config (its own properties only). */
export function resolveConfig(raw: OpenAIConfig, env: NodeJS.ProcessEnv = process.env): ResolvedConfig {
  const { settings, config } = OPENAI_CONFIG.resolve(raw, env);
  const openai = settings.baseUrl.hostname === 'api.openai.com';
  return {
    ...settings,
    maxTokensField: config.max_tokens_field ?? (openai ? 'max_completion_tokens' : 'max_tokens'),
    api: config.api ?? (openai ? 'responses' : 'chat'),
    responses: {
      ...(config.reasoning_effort !== undefined && { reasoningEffort: config.reasoning_effort }),
      reasoningSummary: config.reasoning_summary ?? 'auto',
      store: config.store ?? false,
      ...(config.prompt_cache_key !== undefined && { promptCacheKey: config.prompt_cache_key }),
      ...(config.prompt_cache_retention !== undefined && {
        promptCacheRetention: config.prompt_cache_retention,
      }),
      ...(config.truncation !== undefined && { truncation: config.truncation }),
    },
  };
}
