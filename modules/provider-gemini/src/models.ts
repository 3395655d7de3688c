/**
 * What the provider knows about Gemini models without asking the server:
 * context window and max output of well-known models, their list prices (one
 * dated table), and the limits `GET /models` reports. Lookup and cost
 * arithmetic are the provider kit's (`@amplifier/provider-http`).
 */
import type { ModelLimits, ModelPrice, ModelTable } from '@amplifier/provider-http';

export type { ModelLimits, ModelPrice } from '@amplifier/provider-http';

const GEMINI = ['tools', 'streaming', 'vision', 'thinking', 'json_mode'];
const NO_THINKING = ['tools', 'streaming', 'vision', 'json_mode'];

/** Well-known Gemini models (Google's model pages). Config `models` overrides. */
export const BUILTIN_MODELS: Readonly<Record<string, ModelLimits>> = {
  'gemini-3-pro-preview': { context_window: 1_048_576, max_output_tokens: 65_536, capabilities: GEMINI },
  'gemini-3-flash-preview': { context_window: 1_048_576, max_output_tokens: 65_536, capabilities: GEMINI },
  'gemini-2.5-pro': { context_window: 1_048_576, max_output_tokens: 65_536, capabilities: GEMINI },
  'gemini-2.5-flash': { context_window: 1_048_576, max_output_tokens: 65_536, capabilities: GEMINI },
  'gemini-2.5-flash-lite': { context_window: 1_048_576, max_output_tokens: 65_536, capabilities: GEMINI },
  'gemini-2.0-flash': { context_window: 1_048_576, max_output_tokens: 8192, capabilities: NO_THINKING },
  'gemini-2.0-flash-lite': { context_window: 1_048_576, max_output_tokens: 8192, capabilities: NO_THINKING },
};

/** When the prices below were read from Google's Gemini API pricing page. */
export const PRICES_DATE = '2025-12-01';

/**
 * List prices in USD per million tokens (Gemini API pricing page as of
 * `PRICES_DATE`; paid tier, text input, prompts up to 200k tokens: longer
 * prompts cost more on the Pro models and are not modelled). `cache_read` is
 * the context-caching price (implicit and explicit). Output includes
 * thinking tokens, billed at the output price. Config `prices` overrides.
 */
export const BUILTIN_PRICES: Readonly<Record<string, ModelPrice>> = {
  'gemini-3-pro-preview': { input: 2, output: 12, cache_read: 0.2 },
  'gemini-3-flash-preview': { input: 0.5, output: 3, cache_read: 0.05 },
  'gemini-2.5-pro': { input: 1.25, output: 10, cache_read: 0.125 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5, cache_read: 0.03 },
  'gemini-2.5-flash-lite': { input: 0.1, output: 0.4, cache_read: 0.01 },
  'gemini-2.0-flash': { input: 0.1, output: 0.4, cache_read: 0.025 },
  'gemini-2.0-flash-lite': { input: 0.075, output: 0.3 },
};

/** Limits assumed for a Gemini model nobody described. */
export const UNKNOWN_MODEL_LIMITS: Readonly<ModelLimits> = {
  context_window: 1_048_576,
  max_output_tokens: 8192,
};

/** Whether a model takes `thinkingConfig` (2.5 and later; config `models` capabilities can say). */
export function thinks(capabilities: readonly string[]): boolean {
  return capabilities.includes('thinking');
}

/** Gemini 3 and later take `thinkingLevel` (and need signed calls in the current turn). */
export function isGemini3(model: string): boolean {
  const bare = model.slice(model.lastIndexOf('/') + 1);
  const major = /^gemini-(\d+)/.exec(bare)?.[1];
  return major !== undefined && Number(major) >= 3;
}

/** Limits a `GET /models` entry reports (`inputTokenLimit`, `outputTokenLimit`, `displayName`, `thinking`). */
export function serverLimits(entry: Record<string, unknown>): Partial<ModelLimits> {
  const positive = (v: unknown): number | undefined =>
    typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
  const limits: Partial<ModelLimits> = {};
  const context = positive(entry.inputTokenLimit);
  const output = positive(entry.outputTokenLimit);
  if (context !== undefined) limits.context_window = context;
  if (output !== undefined) limits.max_output_tokens = output;
  if (typeof entry.displayName === 'string' && entry.displayName !== '')
    limits.display_name = entry.displayName;
  if (typeof entry.thinking === 'boolean') limits.capabilities = entry.thinking ? GEMINI : NO_THINKING;
  return limits;
}

/** The built-in knowledge a `ModelCatalog` starts from (config `models` and the server's listing add to it). */
export const MODEL_TABLE: ModelTable = {
  builtin: BUILTIN_MODELS,
  unknown: UNKNOWN_MODEL_LIMITS,
  capabilities: GEMINI,
  serverLimits,
};
