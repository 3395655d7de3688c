/**
 * What the provider knows about Claude models without asking the server:
 * context window and max output of well-known models, their list prices, and
 * the limits `GET /v1/models` reports. Lookup (dated snapshots, routed ids)
 * and cost arithmetic are the provider kit's (`@amplifier/provider-http`).
 */
import { listedLimits, type ModelLimits, type ModelPrice, type ModelTable } from '@amplifier/provider-http';

export type { ModelLimits, ModelPrice } from '@amplifier/provider-http';

const CLAUDE = ['tools', 'streaming', 'vision', 'thinking', 'json_mode'];

/**
 * Well-known Claude models (Anthropic's model pages, November 2026; the 5.x
 * and 4.6+ models take 1M tokens and write up to 128K). Config `models` overrides.
 */
export const BUILTIN_MODELS: Readonly<Record<string, ModelLimits>> = {
  'claude-opus-5-5': { context_window: 1_000_000, max_output_tokens: 128_000, capabilities: CLAUDE },
  'claude-sonnet-5-5': { context_window: 1_000_000, max_output_tokens: 128_000, capabilities: CLAUDE },
  'claude-opus-5': { context_window: 1_000_000, max_output_tokens: 128_000, capabilities: CLAUDE },
  'claude-sonnet-5': { context_window: 1_000_000, max_output_tokens: 128_000, capabilities: CLAUDE },
  'claude-opus-4-8': { context_window: 1_000_000, max_output_tokens: 128_000, capabilities: CLAUDE },
  'claude-opus-4-6': { context_window: 1_000_000, max_output_tokens: 128_000, capabilities: CLAUDE },
  'claude-sonnet-4-6': { context_window: 1_000_000, max_output_tokens: 128_000, capabilities: CLAUDE },
  'claude-opus-4-5': { context_window: 200_000, max_output_tokens: 64_000, capabilities: CLAUDE },
  'claude-opus-4-1': { context_window: 200_000, max_output_tokens: 32_000, capabilities: CLAUDE },
  'claude-opus-4': { context_window: 200_000, max_output_tokens: 32_000, capabilities: CLAUDE },
  'claude-sonnet-4-5': { context_window: 200_000, max_output_tokens: 64_000, capabilities: CLAUDE },
  'claude-sonnet-4': { context_window: 200_000, max_output_tokens: 64_000, capabilities: CLAUDE },
  'claude-haiku-4-5': { context_window: 200_000, max_output_tokens: 64_000, capabilities: CLAUDE },
  'claude-3-7-sonnet': { context_window: 200_000, max_output_tokens: 64_000, capabilities: CLAUDE },
  'claude-3-5-haiku': { context_window: 200_000, max_output_tokens: 8192, capabilities: CLAUDE },
};

/**
 * List prices in USD per million tokens (Anthropic's pricing, November 2026):
 * cache writes (5-minute TTL) at 1.25x input, cache reads at 0.1x. Config `prices` overrides.
 */
export const BUILTIN_PRICES: Readonly<Record<string, ModelPrice>> = {
  'claude-opus-5-5': { input: 4, output: 20, cache_write: 5, cache_read: 0.4 },
  'claude-sonnet-5-5': { input: 2, output: 10, cache_write: 2.5, cache_read: 0.2 },
  'claude-opus-5': { input: 5, output: 25, cache_write: 6.25, cache_read: 0.5 },
  'claude-sonnet-5': { input: 2, output: 10, cache_write: 2.5, cache_read: 0.2 },
  'claude-opus-4-8': { input: 5, output: 25, cache_write: 6.25, cache_read: 0.5 },
  'claude-opus-4-6': { input: 5, output: 25, cache_write: 6.25, cache_read: 0.5 },
  'claude-sonnet-4-6': { input: 3, output: 15, cache_write: 3.75, cache_read: 0.3 },
  'claude-opus-4-5': { input: 5, output: 25, cache_write: 6.25, cache_read: 0.5 },
  'claude-opus-4-1': { input: 15, output: 75, cache_write: 18.75, cache_read: 1.5 },
  'claude-opus-4': { input: 15, output: 75, cache_write: 18.75, cache_read: 1.5 },
  'claude-sonnet-4-5': { input: 3, output: 15, cache_write: 3.75, cache_read: 0.3 },
  'claude-sonnet-4': { input: 3, output: 15, cache_write: 3.75, cache_read: 0.3 },
  'claude-haiku-4-5': { input: 1, output: 5, cache_write: 1.25, cache_read: 0.1 },
  'claude-3-7-sonnet': { input: 3, output: 15, cache_write: 3.75, cache_read: 0.3 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cache_write: 1, cache_read: 0.08 },
};

/** Claude models, and the limits a `GET /v1/models` entry reports (`max_input_tokens`, `max_tokens`, `display_name`). */
export const MODEL_TABLE: ModelTable = {
  builtin: BUILTIN_MODELS,
  /** Assumed for a Claude model nobody described. */
  unknown: { context_window: 200_000, max_output_tokens: 8192 },
  capabilities: CLAUDE,
  serverLimits: listedLimits({
    context: ['max_input_tokens'],
    output: ['max_tokens'],
    name: ['display_name'],
  }),
};
