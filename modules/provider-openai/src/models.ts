/**
 * What the provider knows about OpenAI models without asking the server:
 * context window and max output of well-known models, their list prices, and
 * the limits OpenAI-compatible servers report in `GET /models`. Lookup (dated
 * snapshots, routed ids) and cost arithmetic are the provider kit's (`@amplifier/provider-http`).
 */
import { listedLimits, type ModelLimits, type ModelPrice, type ModelTable } from '@amplifier/provider-http';

export type { ModelLimits, ModelPrice } from '@amplifier/provider-http';

const TOOLS_VISION = ['tools', 'streaming', 'vision', 'json_mode'];
const REASONING = [...TOOLS_VISION, 'thinking'];

/** Well-known OpenAI models (public documentation, late 2025). Config `models` overrides. */
export const BUILTIN_MODELS: Readonly<Record<string, ModelLimits>> = {
  'gpt-5': { context_window: 400_000, max_output_tokens: 128_000, capabilities: REASONING },
  'gpt-5-mini': { context_window: 400_000, max_output_tokens: 128_000, capabilities: REASONING },
  'gpt-5-nano': { context_window: 400_000, max_output_tokens: 128_000, capabilities: REASONING },
  'gpt-4.1': { context_window: 1_047_576, max_output_tokens: 32_768, capabilities: TOOLS_VISION },
  'gpt-4.1-mini': { context_window: 1_047_576, max_output_tokens: 32_768, capabilities: TOOLS_VISION },
  'gpt-4.1-nano': { context_window: 1_047_576, max_output_tokens: 32_768, capabilities: TOOLS_VISION },
  'gpt-4o': { context_window: 128_000, max_output_tokens: 16_384, capabilities: TOOLS_VISION },
  'gpt-4o-mini': { context_window: 128_000, max_output_tokens: 16_384, capabilities: TOOLS_VISION },
  o3: { context_window: 200_000, max_output_tokens: 100_000, capabilities: REASONING },
  'o3-mini': { context_window: 200_000, max_output_tokens: 100_000, capabilities: REASONING },
  'o4-mini': { context_window: 200_000, max_output_tokens: 100_000, capabilities: REASONING },
};

/** List prices in USD per million tokens (public pricing, late 2025). Config `prices` overrides. */
export const BUILTIN_PRICES: Readonly<Record<string, ModelPrice>> = {
  'gpt-5': { input: 1.25, cache_read: 0.125, output: 10 },
  'gpt-5-mini': { input: 0.25, cache_read: 0.025, output: 2 },
  'gpt-5-nano': { input: 0.05, cache_read: 0.005, output: 0.4 },
  'gpt-4.1': { input: 2, cache_read: 0.5, output: 8 },
  'gpt-4.1-mini': { input: 0.4, cache_read: 0.1, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, cache_read: 0.025, output: 0.4 },
  'gpt-4o': { input: 2.5, cache_read: 1.25, output: 10 },
  'gpt-4o-mini': { input: 0.15, cache_read: 0.075, output: 0.6 },
  o3: { input: 2, cache_read: 0.5, output: 8 },
  'o3-mini': { input: 1.1, cache_read: 0.55, output: 4.4 },
  'o4-mini': { input: 1.1, cache_read: 0.275, output: 4.4 },
};

/**
 * OpenAI's models, and the limits a compatible server's `GET /models` entry reports, under the
 * names servers use: `context_length` (OpenRouter), `max_model_len` (vLLM), `meta.n_ctx_train`
 * (llama.cpp), `max_context_length` (LM Studio), `context_window`;
 * `top_provider.max_completion_tokens` (OpenRouter), `max_output_tokens`.
 */
export const MODEL_TABLE: ModelTable = {
  builtin: BUILTIN_MODELS,
  /** Assumed for a model nobody described (OpenAI-compatible servers vary widely). */
  unknown: { context_window: 128_000, max_output_tokens: 4096 },
  capabilities: TOOLS_VISION,
  serverLimits: listedLimits({
    context: [
      'context_window',
      'context_length',
      'max_model_len',
      'max_context_length',
      'meta.n_ctx',
      'meta.n_ctx_train',
      'top_provider.context_length',
    ],
    output: ['max_output_tokens', 'top_provider.max_completion_tokens'],
    name: ['name'],
  }),
};
