/**
 * The token budget of one request: an explicit `tokenBudget`, else what the
 * provider reports for its model, else its defaults, else `max_tokens`. It is
 * read on every request, so a provider answering synchronously (as they do)
 * costs no promise and no closure.
 */
import type { GetMessagesOptions, Logger, Provider } from '@amplifier/core';
import type { ResolvedConfig } from './config.js';

/** Tokens kept free for safety on top of the reserved output (the reference's margin). */
export const SAFETY_MARGIN_TOKENS = 4096;

/** The provider-reported limits the budget is derived from. */
interface Limits {
  context_window?: unknown;
  max_output_tokens?: unknown;
}

type BudgetConfig = Pick<ResolvedConfig, 'max_tokens' | 'max_tokens_explicit' | 'output_reserve_fraction'>;

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

function positive(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

/**
 * The request budget, before the notice reserve: an explicit `tokenBudget`;
 * else the provider's model info, else its `getInfo().defaults`
 * (`context_window - floor(max_output_tokens * output_reserve_fraction) - 4096`,
 * capped by `max_tokens` only when that was configured); else `max_tokens`.
 * A provider method that throws or rejects counts as "no limits" (logged at
 * debug level). A promise only when the provider returned one.
 */
export function requestBudget(
  options: GetMessagesOptions,
  config: BudgetConfig,
  logger: Logger | undefined,
): number | Promise<number> {
  if (typeof options.tokenBudget === 'number' && Number.isFinite(options.tokenBudget)) {
    return options.tokenBudget;
  }
  const provider = options.provider;
  if (provider === undefined || provider === null) return config.max_tokens;
  let limits: unknown;
  try {
    limits = provider.getModelInfo?.();
  } catch (error) {
    unreadable(logger, error);
    limits = undefined;
  }
  if (isPromiseLike(limits)) return budgetLater(provider, limits, config, logger);
  return fromLimits(limits as Limits | undefined, config) ?? fromDefaults(provider, config, logger);
}

/** `requestBudget` when `getModelInfo()` returned a promise. */
async function budgetLater(
  provider: Provider,
  pending: PromiseLike<unknown>,
  config: BudgetConfig,
  logger: Logger | undefined,
): Promise<number> {
  try {
    const fromModel = fromLimits((await pending) as Limits | undefined, config);
    if (fromModel !== undefined) return fromModel;
  } catch (error) {
    unreadable(logger, error);
  }
  return fromDefaults(provider, config, logger);
}

/** The budget from `getInfo().defaults`, else `max_tokens`. */
function fromDefaults(
  provider: Provider,
  config: BudgetConfig,
  logger: Logger | undefined,
): number | Promise<number> {
  let defaults: unknown;
  try {
    defaults = provider.getInfo().defaults;
  } catch (error) {
    unreadable(logger, error);
    return config.max_tokens;
  }
  if (isPromiseLike(defaults)) {
    return Promise.resolve(defaults).then(
      (resolved) => fromLimits(resolved as Limits | undefined, config) ?? config.max_tokens,
      (error: unknown) => {
        unreadable(logger, error);
        return config.max_tokens;
      },
    );
  }
  return fromLimits(defaults as Limits | undefined, config) ?? config.max_tokens;
}

function fromLimits(limits: Limits | undefined | null, config: BudgetConfig): number | undefined {
  const window = limits?.context_window;
  const maxOutput = limits?.max_output_tokens;
  if (!positive(window) || !positive(maxOutput)) return undefined;
  const budget = window - Math.floor(maxOutput * config.output_reserve_fraction) - SAFETY_MARGIN_TOKENS;
  return config.max_tokens_explicit ? Math.min(budget, config.max_tokens) : budget;
}

function unreadable(logger: Logger | undefined, error: unknown): void {
  logger?.debug(`context-simple: could not read provider limits: ${String(error)}`);
}
