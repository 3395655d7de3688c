/**
 * Exponential backoff with jitter for retryable LLM errors, honouring
 * `Retry-After`. Shared by every provider module.
 */
import { LLMError, sleep } from '@amplifier/core';

export interface RetryOptions {
  /** Retries after the first call (total calls = maxRetries + 1). Default 3. */
  maxRetries?: number;
  /** Delay before the first retry, in ms. Default 1000. */
  minDelayMs?: number;
  /** Cap of the exponential delay, in ms (retry_after and delay_multiplier may exceed it). Default 60000. */
  maxDelayMs?: number;
  /** ± fraction of random jitter. Default 0.2. */
  jitter?: number;
  /** Default 2. */
  backoffMultiplier?: number;
  /** Wait at least the error's `retry_after`. Default true. */
  honorRetryAfter?: boolean;
  /**
   * The retries allowed after `error` (at most `maxRetries`): fewer for a
   * failure that waiting will not cure. Default: `maxRetries`.
   */
  retriesFor?: (error: LLMError) => number;
  /** Called before each wait with the 1-based retry number and the retries allowed for this error. */
  onRetry?: (attempt: number, delayMs: number, error: LLMError, maxRetries: number) => void | Promise<void>;
  /** Aborts the wait (and is checked before every attempt). */
  signal?: AbortSignal;
  /** Source of randomness in [0, 1); tests pass a fixed one. */
  random?: () => number;
}

/** The delay before retry number `attempt + 1` (attempt is 0-based), in ms. */
export function computeRetryDelay(attempt: number, error: LLMError, options: RetryOptions = {}): number {
  const min = options.minDelayMs ?? 1000;
  const max = options.maxDelayMs ?? 60_000;
  const multiplier = options.backoffMultiplier ?? 2;
  const jitter = options.jitter ?? 0.2;
  let delay = Math.min(min * multiplier ** attempt, max);
  if (error.delay_multiplier !== 1) delay *= error.delay_multiplier;
  if ((options.honorRetryAfter ?? true) && error.retry_after !== undefined) {
    delay = Math.max(delay, error.retry_after * 1000);
  }
  if (jitter > 0) {
    const random = options.random ?? Math.random;
    delay += (random() * 2 - 1) * delay * jitter;
  }
  return Math.max(0, delay);
}

/**
 * Call `operation` until it succeeds, a non-retryable error is thrown, or the
 * retries are used up. Errors that are not LLMErrors propagate at once.
 */
export async function retryWithBackoff<T>(
  operation: (attempt: number) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const maxRetries = options.maxRetries ?? 3;
  for (let attempt = 0; ; attempt++) {
    options.signal?.throwIfAborted();
    try {
      return await operation(attempt);
    } catch (error) {
      if (!LLMError.is(error) || !error.retryable) throw error;
      const allowed = Math.min(maxRetries, options.retriesFor?.(error) ?? maxRetries);
      if (attempt >= allowed) throw error;
      const delay = computeRetryDelay(attempt, error, options);
      await options.onRetry?.(attempt + 1, delay, error, allowed);
      await sleep(delay, options.signal);
    }
  }
}
