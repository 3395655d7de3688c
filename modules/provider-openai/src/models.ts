/**
 * What the provider knows about models without asking the server: context
 * window and max output of well-known OpenAI models, their list prices, the
 * lookup that also matches dated snapshots (`gpt-4o-2024-08-06`) and routed
 * ids (`openai/gpt-4o`), and exact cost arithmetic in decimal strings.
 */
import type { ModelInfo, Usage } from '@amplifier/core';

/** Limits of a model, as config `models` gives them. */
export interface ModelLimits {
  context_window: number;
  max_output_tokens: number;
  display_name?: string;
  capabilities?: string[];
}

/** USD per million tokens, as config `prices` gives them. */
export interface ModelPrice {
  input: number;
  output: number;
  /** Cached input tokens; default: `input`. */
  cache_read?: number;
  /** Input tokens written to the cache; default: `input`. */
  cache_write?: number;
}

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

/** Limits assumed for a model nobody described (OpenAI-compatible servers vary widely). */
export const UNKNOWN_MODEL_LIMITS: Readonly<ModelLimits> = {
  context_window: 128_000,
  max_output_tokens: 4096,
};

/** What a dated snapshot adds to a model id: `20250929`, `2024-08-06`, or `latest`. */
const SNAPSHOT_SUFFIX = /^(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/;

/**
 * The entry for `model` in `table`: the exact id, else the id without a
 * routing prefix (`openai/gpt-4o`), else the longest key the id extends with a
 * dated suffix (`gpt-4o-2024-08-06` -> `gpt-4o`, but `gpt-4o-mini` is not `gpt-4o`).
 */
export function lookup<T>(table: Readonly<Record<string, T>>, model: string): T | undefined {
  if (Object.hasOwn(table, model)) return table[model];
  const bare = model.includes('/') ? model.slice(model.lastIndexOf('/') + 1) : model;
  if (Object.hasOwn(table, bare)) return table[bare];
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (bare.startsWith(`${key}-`) && SNAPSHOT_SUFFIX.test(bare.slice(key.length + 1))) {
      if (best === undefined || key.length > best.length) best = key;
    }
  }
  return best === undefined ? undefined : table[best];
}

/** A ModelInfo from limits. */
export function modelInfo(id: string, limits: ModelLimits): ModelInfo {
  return {
    id,
    display_name: limits.display_name ?? id,
    context_window: limits.context_window,
    max_output_tokens: limits.max_output_tokens,
    capabilities: [...(limits.capabilities ?? TOOLS_VISION)],
    defaults: {},
  };
}

// Money is counted in pico-dollars (1e-12 USD) as bigints: a price per million
// tokens times 1e6 is the pico-dollar price of one token, so sums are exact.
const PICO_DIGITS = 12;

function picoPerToken(pricePerMillion: number): bigint {
  return BigInt(Math.round(pricePerMillion * 1e6));
}

/**
 * What `usage` cost at `price`, in pico-dollars. `input_tokens` is the gross
 * input (fresh + cache reads + cache writes); cache reads and writes are priced
 * at their own rates.
 */
export function costPico(usage: Usage, price: ModelPrice): bigint {
  const read = usage.cache_read_tokens ?? 0;
  const write = usage.cache_write_tokens ?? 0;
  const fresh = Math.max(0, usage.input_tokens - read - write);
  return (
    BigInt(fresh) * picoPerToken(price.input) +
    BigInt(read) * picoPerToken(price.cache_read ?? price.input) +
    BigInt(write) * picoPerToken(price.cache_write ?? price.input) +
    BigInt(usage.output_tokens) * picoPerToken(price.output)
  );
}

/** Pico-dollars as a decimal string of dollars without trailing zeros ("0.00125", "0"). */
export function formatUsd(pico: bigint): string {
  const negative = pico < 0n;
  const digits = (negative ? -pico : pico).toString().padStart(PICO_DIGITS + 1, '0');
  const whole = digits.slice(0, -PICO_DIGITS);
  const fraction = digits.slice(-PICO_DIGITS).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/**
 * Limits a `GET /models` entry reports, under the names servers use:
 * `context_length` (OpenRouter), `max_model_len` (vLLM), `meta.n_ctx_train`
 * (llama.cpp), `max_context_length` (LM Studio), `context_window`;
 * `top_provider.max_completion_tokens` (OpenRouter), `max_output_tokens`.
 */
export function serverLimits(entry: Record<string, unknown>): Partial<ModelLimits> {
  const positive = (...values: unknown[]): number | undefined =>
    values.find((v): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0);
  const meta = (entry.meta ?? {}) as Record<string, unknown>;
  const top = (entry.top_provider ?? {}) as Record<string, unknown>;
  const context = positive(
    entry.context_window,
    entry.context_length,
    entry.max_model_len,
    entry.max_context_length,
    meta.n_ctx,
    meta.n_ctx_train,
    top.context_length,
  );
  const output = positive(entry.max_output_tokens, top.max_completion_tokens);
  const limits: Partial<ModelLimits> = {};
  if (context !== undefined) limits.context_window = context;
  if (output !== undefined) limits.max_output_tokens = output;
  if (typeof entry.name === 'string' && entry.name !== '') limits.display_name = entry.name;
  return limits;
}

/**
 * The models one provider instance knows: config `models` over what the
 * server listed over the built-in table over `UNKNOWN_MODEL_LIMITS`.
 */
export class ModelCatalog {
  readonly #defaultModel: string;
  readonly #overrides: Readonly<Record<string, Partial<ModelLimits>>>;
  readonly #builtinInListing: boolean;
  readonly #server = new Map<string, Partial<ModelLimits>>();
  #listing: Promise<ModelInfo[]> | undefined;

  /** `builtinInListing`: list the built-in models when the server cannot (only for OpenAI itself). */
  constructor(
    defaultModel: string,
    overrides: Record<string, Partial<ModelLimits>>,
    builtinInListing: boolean,
  ) {
    this.#defaultModel = defaultModel;
    this.#overrides = overrides;
    this.#builtinInListing = builtinInListing;
  }

  info(model: string = this.#defaultModel): ModelInfo {
    return modelInfo(model, {
      ...UNKNOWN_MODEL_LIMITS,
      ...lookup(BUILTIN_MODELS, model),
      ...this.#server.get(model),
      ...lookup(this.#overrides, model),
    });
  }

  /**
   * The models `fetchEntries` returns (the server's `/models` data, cached
   * once it worked), or, when it fails, the configured ones (`onError` hears why).
   */
  list(
    fetchEntries: () => Promise<Record<string, unknown>[]>,
    onError: (error: unknown) => void,
  ): Promise<ModelInfo[]> {
    this.#listing ??= fetchEntries().then(
      (entries) => {
        const models: ModelInfo[] = [];
        for (const entry of entries) {
          if (typeof entry?.id !== 'string') continue;
          const limits = serverLimits(entry);
          if (Object.keys(limits).length > 0) this.#server.set(entry.id, limits);
          models.push(this.info(entry.id));
        }
        return models;
      },
      (error: unknown) => {
        this.#listing = undefined;
        onError(error);
        const ids = new Set([this.#defaultModel, ...Object.keys(this.#overrides)]);
        if (this.#builtinInListing) for (const id of Object.keys(BUILTIN_MODELS)) ids.add(id);
        return [...ids].map((id) => this.info(id));
      },
    );
    return this.#listing;
  }
}

/** Adds up what calls cost; prices from config `prices`, else the built-in table. */
export class CostMeter {
  readonly #prices: Readonly<Record<string, ModelPrice>>;
  #total = 0n;
  #priced = false;

  constructor(prices: Record<string, ModelPrice>) {
    this.#prices = prices;
  }

  /** Sets `usage.cost_usd` when the model's price is known, and counts it. */
  charge(model: string, usage: Usage | undefined): void {
    const price = lookup(this.#prices, model) ?? lookup(BUILTIN_PRICES, model);
    if (price === undefined || usage === undefined) return;
    const pico = costPico(usage, price);
    usage.cost_usd = formatUsd(pico);
    this.#total += pico;
    this.#priced = true;
  }

  /** The total so far as a decimal USD string, or null when no call had a known price. */
  get totalUsd(): string | null {
    return this.#priced ? formatUsd(this.#total) : null;
  }
}
