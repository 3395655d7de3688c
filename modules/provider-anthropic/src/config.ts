/**
 * Module config: its JSON Schema (checked at mount with core's ajv), the
 * defaults, where the key and base URL come from, and the resolved settings
 * the provider works with.
 */
import {
  type ConfigField,
  compileSchema,
  DataValidationError,
  formatDataErrors,
  type JSONSchema,
} from '@amplifier/core';
import type { ModelLimits, ModelPrice } from './models.js';

/** The module config as a mount plan gives it (snake_case). Every key is optional. */
export interface AnthropicConfig {
  /** Default: env `ANTHROPIC_API_KEY`. */
  api_key?: string;
  /** Default: env `ANTHROPIC_BASE_URL`, else https://api.anthropic.com. */
  base_url?: string;
  default_model?: string;
  /** Alias of `default_model`. */
  model?: string;
  /** Default: the model's max output. */
  max_tokens?: number;
  /** Default 0.7 (left out while extended thinking is on). */
  temperature?: number;
  top_p?: number;
  /** Seconds to wait for the response to start and, once it streams, between two chunks. */
  timeout?: number;
  max_retries?: number;
  /** Seconds. */
  min_retry_delay?: number;
  /** Seconds; a server asking to wait longer than this is not retried. */
  max_retry_delay?: number;
  /** `true` = ±20 %, a number = that fraction, `false` = none. */
  retry_jitter?: boolean | number;
  use_streaming?: boolean;
  priority?: number;
  /** Connections of the pool: requests beyond this wait for a free one. */
  max_concurrent_requests?: number;
  models?: Record<string, Partial<ModelLimits>>;
  prices?: Record<string, ModelPrice>;
  headers?: Record<string, string>;
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
  /** Merged into every request body. */
  extra_body?: Record<string, unknown>;
  /** Include the request body (secrets redacted) in `llm:request` as `raw`. */
  raw?: boolean;
}

/** The settings the provider runs with (all defaults applied). */
export interface ResolvedConfig {
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
  headers: Record<string, string>;
  promptCaching: boolean;
  extendedThinking: boolean;
  thinkingBudget: number;
  thinkingType: 'enabled' | 'adaptive';
  extraBody: Record<string, unknown>;
  raw: boolean;
}

export const DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const DEFAULT_MODEL = 'claude-sonnet-4-5';
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

const seconds = { type: 'number', exclusiveMinimum: 0 };
const count = { type: 'integer', minimum: 1 };
const limits = {
  type: 'object',
  additionalProperties: false,
  properties: {
    context_window: count,
    max_output_tokens: count,
    display_name: { type: 'string' },
    capabilities: { type: 'array', items: { type: 'string' } },
  },
};
const price = {
  type: 'object',
  required: ['input', 'output'],
  additionalProperties: false,
  properties: {
    input: { type: 'number', minimum: 0 },
    output: { type: 'number', minimum: 0 },
    cache_read: { type: 'number', minimum: 0 },
    cache_write: { type: 'number', minimum: 0 },
  },
};

/** JSON Schema of the module config. */
export const CONFIG_SCHEMA: JSONSchema = {
  type: 'object',
  properties: {
    api_key: { type: 'string' },
    base_url: { type: 'string', pattern: '^https?://' },
    default_model: { type: 'string', minLength: 1 },
    model: { type: 'string', minLength: 1 },
    max_tokens: count,
    temperature: { type: 'number', minimum: 0, maximum: 1 },
    top_p: { type: 'number', minimum: 0, maximum: 1 },
    timeout: seconds,
    max_retries: { type: 'integer', minimum: 0 },
    min_retry_delay: { type: 'number', minimum: 0 },
    max_retry_delay: { type: 'number', minimum: 0 },
    retry_jitter: { type: ['boolean', 'number'], minimum: 0, maximum: 1 },
    use_streaming: { type: 'boolean' },
    priority: { type: 'number' },
    max_concurrent_requests: count,
    models: { type: 'object', additionalProperties: limits },
    prices: { type: 'object', additionalProperties: price },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    anthropic_version: { type: 'string', minLength: 1 },
    beta_headers: { type: 'array', items: { type: 'string', minLength: 1 } },
    enable_prompt_caching: { type: 'boolean' },
    extended_thinking: { type: 'boolean' },
    thinking_budget_tokens: { type: 'integer', minimum: 1024 },
    thinking_type: { enum: ['enabled', 'adaptive'] },
    extra_body: { type: 'object' },
    raw: { type: 'boolean' },
  },
};

/** The config keys this module reads (others are warned about at mount). */
export const CONFIG_KEYS: ReadonlySet<string> = new Set(Object.keys(CONFIG_SCHEMA.properties as object));

/** Throws a DataValidationError that names every bad key and what it must be. */
export function assertConfig(
  config: Record<string, unknown>,
): asserts config is Record<string, unknown> & AnthropicConfig {
  const errors = compileSchema(CONFIG_SCHEMA)(config);
  if (errors.length > 0) {
    throw new DataValidationError(
      `provider-anthropic: invalid config:\n${formatDataErrors(errors)}\nFix these keys in the provider's config (see the package README).`,
      errors,
    );
  }
}

/** Apply defaults and the environment to a validated config. */
export function resolveConfig(config: AnthropicConfig, env: NodeJS.ProcessEnv = process.env): ResolvedConfig {
  const rawUrl = config.base_url ?? (env.ANTHROPIC_BASE_URL || DEFAULT_BASE_URL);
  let baseUrl: URL;
  try {
    baseUrl = new URL(rawUrl.replace(/\/+$/, ''));
  } catch {
    throw new DataValidationError(
      `provider-anthropic: base_url '${rawUrl}' is not a URL (default ${DEFAULT_BASE_URL})`,
      [{ path: 'base_url', message: 'must be an http(s) URL' }],
    );
  }
  const headers: Record<string, string> = {
    'anthropic-version': config.anthropic_version ?? DEFAULT_ANTHROPIC_VERSION,
  };
  if (config.beta_headers?.length) headers['anthropic-beta'] = config.beta_headers.join(',');
  for (const [name, value] of Object.entries(config.headers ?? {})) headers[name.toLowerCase()] = value;
  const jitter = config.retry_jitter;
  return {
    apiKey: config.api_key || env.ANTHROPIC_API_KEY || undefined,
    baseUrl,
    model: config.default_model ?? config.model ?? DEFAULT_MODEL,
    maxTokens: config.max_tokens,
    temperature: config.temperature ?? 0.7,
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
    promptCaching: config.enable_prompt_caching ?? true,
    extendedThinking: config.extended_thinking ?? false,
    thinkingBudget: config.thinking_budget_tokens ?? 32_000,
    thinkingType: config.thinking_type ?? 'enabled',
    extraBody: config.extra_body ?? {},
    raw: config.raw ?? false,
  };
}

/** What an app asks for when a user sets this provider up interactively. */
export function configFields(model: string): ConfigField[] {
  return [
    {
      id: 'api_key',
      display_name: 'API key',
      field_type: 'secret',
      prompt: 'Anthropic API key',
      env_var: 'ANTHROPIC_API_KEY',
      required: true,
    },
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
