/**
 * What the provider knows about Bedrock models without asking AWS (listing
 * models is a control-plane call, `bedrock`, not `bedrock-runtime`): context
 * window and max output of well-known models and their on-demand prices (one
 * dated table). Ids are the bare model ids; the same entries answer for their
 * inference profiles (`us.`, `eu.`, `apac.`, `global.` prefixes).
 */
import type { ModelLimits, ModelPrice, ModelTable } from '@amplifier/provider-http';

export type { ModelLimits, ModelPrice } from '@amplifier/provider-http';

const CLAUDE = ['tools', 'streaming', 'vision', 'thinking'];
const CLAUDE_NO_THINKING = ['tools', 'streaming', 'vision'];
const NOVA = ['tools', 'streaming', 'vision'];
const TEXT = ['tools', 'streaming'];

/** Geographies of cross-region inference profiles. */
const PROFILE_GEOS = ['us', 'eu', 'apac', 'global'];

function withProfiles<T>(table: Record<string, T>): Readonly<Record<string, T>> {
  const out: Record<string, T> = { ...table };
  for (const [id, value] of Object.entries(table))
    for (const geo of PROFILE_GEOS) out[`${geo}.${id}`] = value;
  return out;
}

/** Well-known Bedrock models (AWS model cards). Config `models` overrides. */
export const BUILTIN_MODELS: Readonly<Record<string, ModelLimits>> = withProfiles({
  'anthropic.claude-opus-4-1-20250805-v1:0': {
    context_window: 200_000,
    max_output_tokens: 32_000,
    capabilities: CLAUDE,
  },
  'anthropic.claude-sonnet-4-5-20250929-v1:0': {
    context_window: 200_000,
    max_output_tokens: 64_000,
    capabilities: CLAUDE,
  },
  'anthropic.claude-haiku-4-5-20251001-v1:0': {
    context_window: 200_000,
    max_output_tokens: 64_000,
    capabilities: CLAUDE,
  },
  'anthropic.claude-sonnet-4-20250514-v1:0': {
    context_window: 200_000,
    max_output_tokens: 64_000,
    capabilities: CLAUDE,
  },
  'anthropic.claude-3-7-sonnet-20250219-v1:0': {
    context_window: 200_000,
    max_output_tokens: 64_000,
    capabilities: CLAUDE,
  },
  'anthropic.claude-3-5-haiku-20241022-v1:0': {
    context_window: 200_000,
    max_output_tokens: 8192,
    capabilities: CLAUDE_NO_THINKING,
  },
  'amazon.nova-premier-v1:0': { context_window: 1_000_000, max_output_tokens: 10_000, capabilities: NOVA },
  'amazon.nova-pro-v1:0': { context_window: 300_000, max_output_tokens: 10_000, capabilities: NOVA },
  'amazon.nova-lite-v1:0': { context_window: 300_000, max_output_tokens: 10_000, capabilities: NOVA },
  'amazon.nova-micro-v1:0': { context_window: 128_000, max_output_tokens: 10_000, capabilities: TEXT },
  'meta.llama3-3-70b-instruct-v1:0': { context_window: 128_000, max_output_tokens: 8192, capabilities: TEXT },
});

/** When the prices below were read from the Amazon Bedrock pricing page. */
export const PRICES_DATE = '2025-12-01';

/**
 * On-demand prices in USD per million tokens (Amazon Bedrock pricing page as
 * of `PRICES_DATE`, US regions; cross-region profiles cost the same, batch
 * and provisioned throughput are not modelled). `cache_read` / `cache_write`
 * are prompt-caching prices. Config `prices` overrides.
 */
export const BUILTIN_PRICES: Readonly<Record<string, ModelPrice>> = withProfiles({
  'anthropic.claude-opus-4-1-20250805-v1:0': { input: 15, output: 75, cache_read: 1.5, cache_write: 18.75 },
  'anthropic.claude-sonnet-4-5-20250929-v1:0': { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
  'anthropic.claude-haiku-4-5-20251001-v1:0': { input: 1, output: 5, cache_read: 0.1, cache_write: 1.25 },
  'anthropic.claude-sonnet-4-20250514-v1:0': { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
  'anthropic.claude-3-7-sonnet-20250219-v1:0': { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
  'anthropic.claude-3-5-haiku-20241022-v1:0': { input: 0.8, output: 4, cache_read: 0.08, cache_write: 1 },
  'amazon.nova-premier-v1:0': { input: 2.5, output: 12.5 },
  'amazon.nova-pro-v1:0': { input: 0.8, output: 3.2, cache_read: 0.2 },
  'amazon.nova-lite-v1:0': { input: 0.06, output: 0.24, cache_read: 0.015 },
  'amazon.nova-micro-v1:0': { input: 0.035, output: 0.14, cache_read: 0.00875 },
  'meta.llama3-3-70b-instruct-v1:0': { input: 0.72, output: 0.72 },
});

/** Limits assumed for a model nobody described. */
export const UNKNOWN_MODEL_LIMITS: Readonly<ModelLimits> = {
  context_window: 128_000,
  max_output_tokens: 4096,
};

/** The model family a request body is shaped for (thinking fields differ). */
export function modelFamily(model: string): 'claude' | 'nova' | 'other' {
  const bare = model.replace(/^arn:.*\//, '').replace(/^(us|eu|apac|jp|au|ca|us-gov|global)\./, '');
  if (bare.startsWith('anthropic.')) return 'claude';
  if (bare.startsWith('amazon.nova')) return 'nova';
  return 'other';
}

/** The built-in knowledge a `ModelCatalog` starts from (config `models` adds to it). */
export const MODEL_TABLE: ModelTable = {
  builtin: BUILTIN_MODELS,
  unknown: UNKNOWN_MODEL_LIMITS,
  capabilities: TEXT,
  serverLimits: () => ({}),
};
