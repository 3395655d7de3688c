/**
 * Module config: its JSON Schema (checked at mount through the provider kit's
 * `readProviderConfig`), the type derived from it (`FromSchema`), where the
 * key and base URL come from, the Vertex AI settings, and the resolved
 * settings the provider runs with. The keys every HTTP provider shares are
 * the provider kit's (`@amplifier/provider-http`); these are Gemini's.
 */
import { type ConfigField, DataValidationError, type JSONSchema, ownConfig } from '@amplifier/core';
import {
  PROVIDER_CONFIG_PROPERTIES,
  type ProviderConfig,
  type ProviderDefaults,
  providerConfigFields,
  type ResolvedProviderConfig,
  resolveProviderConfig,
} from '@amplifier/provider-http';
import type { FromSchema } from '@amplifier/schema';

/** The Gemini-specific keys (the shared ones are `PROVIDER_CONFIG_PROPERTIES`). */
export const GEMINI_CONFIG_PROPERTIES = {
  /** Default 0.7; Gemini takes 0..2. */
  temperature: { type: 'number', minimum: 0, maximum: 2 },
  /** Gemini 2.5: `-1` dynamic, `0` off, `N` tokens. Default: the model decides (dynamic) when thinking is on. */
  thinking_budget: { type: 'integer', minimum: -1 },
  /** Gemini 3: `minimal`, `low`, `medium`, `high` (sent instead of a budget). */
  thinking_level: { enum: ['minimal', 'low', 'medium', 'high'] },
  /** Ask for thought summaries (`thought: true` parts, streamed as thinking blocks). Default true. */
  include_thoughts: { type: 'boolean' },
  /** The API version path segment. Default `v1beta` (Gemini API), `v1beta1` (Vertex AI). */
  api_version: { type: 'string', pattern: '^v[0-9]+[a-z0-9]*$' },
  /** `{ project, location }`: Vertex AI instead of the Gemini API (OAuth bearer token from Application Default Credentials). */
  vertex: {
    type: 'object',
    required: ['project'],
    properties: {
      /** The Google Cloud project id. Default: env `GOOGLE_CLOUD_PROJECT`. */
      project: { type: 'string', minLength: 1 },
      /** The region, or `global`. Default: env `GOOGLE_CLOUD_LOCATION`, else `us-central1`. */
      location: { type: 'string', pattern: '^[a-z0-9-]+$' },
      /** A ready OAuth access token (short-lived; for tests and pre-fetched tokens). Default: Application Default Credentials. */
      access_token: { type: 'string', minLength: 1 },
    },
  },
  /** Gemini's `safetySettings`, sent as they are: `[{ category, threshold }]`. */
  safety_settings: {
    type: 'array',
    items: {
      type: 'object',
      required: ['category', 'threshold'],
      properties: { category: { type: 'string' }, threshold: { type: 'string' } },
    },
  },
} as const;

/** JSON Schema of the module config. */
export const CONFIG_SCHEMA: JSONSchema = {
  type: 'object',
  properties: { ...PROVIDER_CONFIG_PROPERTIES, ...GEMINI_CONFIG_PROPERTIES },
};

/** The module config as a mount plan gives it (snake_case), derived from the schema. Every key is optional. */
export type GeminiConfig = Omit<ProviderConfig, 'temperature'> &
  FromSchema<{ type: 'object'; properties: typeof GEMINI_CONFIG_PROPERTIES }>;

/** Where Vertex AI requests go and how they are authenticated. */
export interface VertexSettings {
  project: string;
  location: string;
  /** A fixed token from config; otherwise Application Default Credentials. */
  accessToken: string | undefined;
}

/** The settings the provider runs with (all defaults applied). */
export interface ResolvedConfig extends ResolvedProviderConfig {
  /** Vertex AI, or undefined for the Gemini API. */
  vertex: VertexSettings | undefined;
  thinkingBudget: number | undefined;
  thinkingLevel: 'minimal' | 'low' | 'medium' | 'high' | undefined;
  includeThoughts: boolean;
  safetySettings: readonly Record<string, unknown>[];
}

export const DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com';
export const DEFAULT_MODEL = 'gemini-2.5-flash';

/** Where the key, base URL and model come from when config does not say. */
const DEFAULTS: ProviderDefaults = {
  module: 'provider-gemini',
  apiKeyEnv: 'GOOGLE_API_KEY',
  baseUrlEnv: 'GOOGLE_GEMINI_BASE_URL',
  baseUrl: DEFAULT_BASE_URL,
  model: DEFAULT_MODEL,
  baseUrlHint: ` (default ${DEFAULT_BASE_URL})`,
};

/** A base URL path that already ends with an API version (`/v1beta`): nothing is appended. */
const VERSIONED = /\/v\d+[a-z0-9]*$/;

/** Vertex AI's host for a location (`global` has no regional prefix). */
export function vertexHost(location: string): string {
  return location === 'global'
    ? 'https://aiplatform.googleapis.com'
    : `https://${location}-aiplatform.googleapis.com`;
}

/**
 * Apply defaults and the environment to a validated config (own properties
 * only). Key: `api_key`, else `GOOGLE_API_KEY`, else `GEMINI_API_KEY` (the
 * order of Google's SDKs). Base URL: `base_url`, else `GOOGLE_GEMINI_BASE_URL`
 * (Vertex: `GOOGLE_VERTEX_BASE_URL`), else Google's; `/<api_version>` (and,
 * on Vertex, `/projects/<p>/locations/<l>/publishers/google`) is appended
 * unless the URL's path already ends with a version.
 */
export function resolveConfig(raw: GeminiConfig, env: NodeJS.ProcessEnv = process.env): ResolvedConfig {
  const config = ownConfig(raw, 'provider-gemini') as GeminiConfig;
  const vertexConfig = config.vertex;
  let vertex: VertexSettings | undefined;
  if (vertexConfig !== undefined) {
    const project = vertexConfig.project || env.GOOGLE_CLOUD_PROJECT;
    if (!project) {
      throw new DataValidationError(
        'provider-gemini: vertex.project is empty; name the Google Cloud project (or set GOOGLE_CLOUD_PROJECT)',
        [{ path: 'vertex.project', message: 'must be a project id' }],
      );
    }
    vertex = {
      project,
      location: vertexConfig.location ?? (env.GOOGLE_CLOUD_LOCATION || 'us-central1'),
      accessToken: vertexConfig.access_token,
    };
  }
  const defaults: ProviderDefaults =
    vertex === undefined
      ? DEFAULTS
      : {
          ...DEFAULTS,
          baseUrlEnv: 'GOOGLE_VERTEX_BASE_URL',
          baseUrl: vertexHost(vertex.location),
          baseUrlHint: ` (default ${vertexHost(vertex.location)})`,
        };
  const common = resolveProviderConfig(config as ProviderConfig, defaults, env);
  const version = config.api_version ?? (vertex === undefined ? 'v1beta' : 'v1beta1');
  const baseUrl = new URL(common.baseUrl.href);
  const path = baseUrl.pathname.replace(/\/+$/, '');
  if (!VERSIONED.test(path)) {
    baseUrl.pathname =
      vertex === undefined
        ? `${path}/${version}`
        : `${path}/${version}/projects/${encodeURIComponent(vertex.project)}/locations/${vertex.location}/publishers/google`;
  }
  return {
    ...common,
    // An api_key on Vertex is "express mode": same key header, publisher path without a project.
    apiKey:
      config.api_key ||
      (vertex === undefined ? env.GOOGLE_API_KEY || env.GEMINI_API_KEY : undefined) ||
      undefined,
    baseUrl,
    temperature: config.temperature ?? 0.7,
    vertex,
    thinkingBudget: config.thinking_budget,
    thinkingLevel: config.thinking_level,
    includeThoughts: config.include_thoughts ?? true,
    safetySettings: config.safety_settings ?? [],
  };
}

/** What an app asks for when a user sets this provider up interactively. */
export function configFields(model: string): ConfigField[] {
  return providerConfigFields(DEFAULTS, model, {
    apiKey: 'Gemini API key (GOOGLE_API_KEY or GEMINI_API_KEY)',
    apiKeyRequired: true,
  });
}
