/**
 * What the provider knows about models without asking the server: context
 * window and max output of well-known Claude models, their list prices, the
 * lookup that also matches dated snapshots (`claude-sonnet-4-5-20250929`) and
 * routed ids (`anthropic/claude-sonnet-4-5`), and exact cost arithmetic in
 * decimal strings.
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

const CLAUDE = ['tools', 'streaming', 'vision', 'thinking', 'json_mode'];

/** Well-known Claude models (public documentation, late 2025). Config `models` overrides. */
export const BUILTIN_MODELS: Readonly<Record<string, ModelLimits>> = {
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
 * List prices in USD per million tokens (public pricing, late 2025): cache
 * writes (5-minute TTL) at 1.25x input, cache reads at 0.1x. Config `prices` overrides.
 */
export const BUILTIN_PRICES: Readonly<Record<string, ModelPrice>> = {
  'claude-opus-4-5': { input: 5, output: 25, cache_write: 6.25, cache_read: 0.5 },
  'claude-opus-4-1': { input: 15, output: 75, cache_write: 18.75, cache_read: 1.5 },
  'claude-opus-4': { input: 15, output: 75, cache_write: 18.75, cache_read: 1.5 },
  'claude-sonnet-4-5': { input: 3, output: 15, cache_write: 3.75, cache_read: 0.3 },
  'claude-sonnet-4': { input: 3, output: 15, cache_write: 3.75, cache_read: 0.3 },
  'claude-haiku-4-5': { input: 1, output: 5, cache_write: 1.25, cache_read: 0.1 },
  'claude-3-7-sonnet': { input: 3, output: 15, cache_write: 3.75, cache_read: 0.3 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cache_write: 1, cache_read: 0.08 },
};

/** Limits assumed for a Claude model nobody described. */
export const UNKNOWN_MODEL_LIMITS: Readonly<ModelLimits> = {
  context_window: 200_000,
  max_output_tokens: 8192,
};

/** What a dated snapshot adds to a model id: `20250929`, `2024-08-06`, or `latest`. */
const SNAPSHOT_SUFFIX = /^(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/;

/**
 * The entry for `model` in `table`: the exact id, else the id without a
 * routing prefix (`anthropic/claude-sonnet-4-5`), else the longest key the id extends with a
 * dated suffix (`claude-sonnet-4-5-20250929` -> `claude-sonnet-4-5`; `claude-sonnet-4-5` is not `claude-sonnet-4`).
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
    capabilities: [...(limits.capabilities ?? CLAUDE)],
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

/** Limits a `GET /v1/models` entry reports (`max_input_tokens`, `max_tokens`, `display_name`). */
export function serverLimits(entry: Record<string, unknown>): Partial<ModelLimits> {
  const positive = (v: unknown): number | undefined =>
    typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
  const limits: Partial<ModelLimits> = {};
  const context = positive(entry.max_input_tokens);
  const output = positive(entry.max_tokens);
  if (context !== undefined) limits.context_window = context;
  if (output !== undefined) limits.max_output_tokens = output;
  if (typeof entry.display_name === 'string' && entry.display_name !== '')
    limits.display_name = entry.display_name;
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

  /** `builtinInListing`: list the built-in models when the server cannot. */
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
