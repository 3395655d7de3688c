/**
 * What calls cost, counted exactly: prices per million tokens, money in
 * pico-dollars (1e-12 USD) as bigints, totals as decimal USD strings (the
 * `Usage.cost_usd` and `session.cost` format).
 */
import type { Usage } from '@amplifier/core';
import { lookupModel } from './models.js';

/** USD per million tokens, as config `prices` gives them. */
export interface ModelPrice {
  input: number;
  output: number;
  /** Cached input tokens; default: `input`. */
  cache_read?: number;
  /** Input tokens written to the cache; default: `input`. */
  cache_write?: number;
}

const PICO_DIGITS = 12;

/** A price per million tokens times 1e6 is the pico-dollar price of one token. */
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

/** Adds up what calls cost; prices from config `prices`, else the provider's built-in table. */
export class CostMeter {
  readonly #prices: Readonly<Record<string, ModelPrice>>;
  readonly #builtin: Readonly<Record<string, ModelPrice>>;
  #total = 0n;
  #priced = false;

  constructor(
    prices: Readonly<Record<string, ModelPrice>>,
    builtin: Readonly<Record<string, ModelPrice>> = {},
  ) {
    this.#prices = prices;
    this.#builtin = builtin;
  }

  /** Sets `usage.cost_usd` when the model's price is known, and counts it. */
  charge(model: string, usage: Usage | undefined): void {
    const price = lookupModel(this.#prices, model) ?? lookupModel(this.#builtin, model);
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
