import {
  AuthenticationError,
  LLMError,
  ProviderUnavailableError,
  QuotaExceededError,
  RateLimitError,
} from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { computeRetryDelay, type RetryOptions, retryWithBackoff } from './retry.js';

/** No waiting: the delays are computed, then a 0 ms sleep. The delays themselves are asserted through onRetry. */
const instant: RetryOptions = { minDelayMs: 0, jitter: 0 };

describe('retryWithBackoff (P144)', () => {
  it('P144: makes at most maxRetries + 1 calls, then re-throws the last error', async () => {
    let calls = 0;
    const last = new RateLimitError('still limited');
    await expect(
      retryWithBackoff(
        async () => {
          calls++;
          throw calls === 4 ? last : new RateLimitError('limited');
        },
        { ...instant, maxRetries: 3 },
      ),
    ).rejects.toBe(last);
    expect(calls).toBe(4);
  });

  it('P144: returns the first success and passes the 0-based attempt number', async () => {
    const attempts: number[] = [];
    const result = await retryWithBackoff(async (attempt) => {
      attempts.push(attempt);
      if (attempt < 2) throw new ProviderUnavailableError('503');
      return 'ok';
    }, instant);
    expect(result).toBe('ok');
    expect(attempts).toEqual([0, 1, 2]);
  });

  it('P144: a non-retryable LLMError propagates immediately', async () => {
    let calls = 0;
    const error = new AuthenticationError('bad key');
    await expect(
      retryWithBackoff(async () => {
        calls++;
        throw error;
      }, instant),
    ).rejects.toBe(error);
    expect(calls).toBe(1);

    calls = 0;
    await expect(
      retryWithBackoff(async () => {
        calls++;
        throw new QuotaExceededError('no credits');
      }, instant),
    ).rejects.toBeInstanceOf(QuotaExceededError);
    expect(calls).toBe(1);
  });

  it('P144: a non-LLM error propagates immediately', async () => {
    let calls = 0;
    const error = new TypeError('bug');
    await expect(
      retryWithBackoff(async () => {
        calls++;
        throw error;
      }, instant),
    ).rejects.toBe(error);
    expect(calls).toBe(1);
  });

  it('P144: maxRetries 0 means one call', async () => {
    let calls = 0;
    await expect(
      retryWithBackoff(
        async () => {
          calls++;
          throw new RateLimitError('x');
        },
        { ...instant, maxRetries: 0 },
      ),
    ).rejects.toBeInstanceOf(RateLimitError);
    expect(calls).toBe(1);
  });

  it('P145: onRetry gets the 1-based retry number, the delay and the error, before each wait', async () => {
    const seen: [number, number, string][] = [];
    let calls = 0;
    await retryWithBackoff(
      async () => {
        calls++;
        if (calls <= 3) throw new RateLimitError(`fail ${calls}`);
        return 'done';
      },
      {
        minDelayMs: 1,
        backoffMultiplier: 2,
        jitter: 0,
        onRetry: (attempt, delay, error) => {
          seen.push([attempt, delay, error.message]);
        },
      },
    );
    expect(seen).toEqual([
      [1, 1, 'fail 1'],
      [2, 2, 'fail 2'],
      [3, 4, 'fail 3'],
    ]);
  });

  it('retriesFor limits the retries of one error; onRetry gets that limit', async () => {
    const seen: [number, number][] = [];
    let calls = 0;
    await expect(
      retryWithBackoff(
        async () => {
          calls++;
          throw new RateLimitError('hopeless');
        },
        {
          maxRetries: 5,
          minDelayMs: 1,
          jitter: 0,
          retriesFor: () => 1,
          onRetry: (attempt, _delay, _error, max) => {
            seen.push([attempt, max]);
          },
        },
      ),
    ).rejects.toThrow('hopeless');
    expect(calls).toBe(2);
    expect(seen).toEqual([[1, 1]]);
  });

  it('P144: an aborted signal stops before the next attempt and during the wait', async () => {
    const controller = new AbortController();
    let calls = 0;
    const reason = new Error('user stop');
    await expect(
      retryWithBackoff(
        async () => {
          calls++;
          throw new RateLimitError('x');
        },
        {
          minDelayMs: 3_600_000, // an hour: only the abort can end this wait
          jitter: 0,
          signal: controller.signal,
          onRetry: () => controller.abort(reason),
        },
      ),
    ).rejects.toBe(reason);
    expect(calls).toBe(1);

    calls = 0;
    await expect(
      retryWithBackoff(
        async () => {
          calls++;
          return 'never';
        },
        { signal: AbortSignal.abort(reason) },
      ),
    ).rejects.toBe(reason);
    expect(calls).toBe(0);
  });
});

describe('computeRetryDelay (P145)', () => {
  const noJitter = { jitter: 0 };

  it('P145: min(min_delay * multiplier^attempt, max_delay)', () => {
    const error = new RateLimitError('x');
    const options = { ...noJitter, minDelayMs: 1000, maxDelayMs: 10_000, backoffMultiplier: 2 };
    expect([0, 1, 2, 3, 4, 5].map((a) => computeRetryDelay(a, error, options))).toEqual([
      1000, 2000, 4000, 8000, 10_000, 10_000,
    ]);
    // Defaults: 1 s, x2, capped at 60 s.
    expect(computeRetryDelay(0, error, noJitter)).toBe(1000);
    expect(computeRetryDelay(10, error, noJitter)).toBe(60_000);
  });

  it('P145: delay_multiplier applies after the cap (and may exceed it)', () => {
    const error = new ProviderUnavailableError('overloaded', { delay_multiplier: 3 });
    expect(computeRetryDelay(10, error, { ...noJitter, maxDelayMs: 5000 })).toBe(15_000);
  });

  it('P145: retry_after (seconds) is a floor when honorRetryAfter is on, ignored when off', () => {
    const error = new RateLimitError('x', { retry_after: 30 });
    expect(computeRetryDelay(0, error, { ...noJitter, maxDelayMs: 5000 })).toBe(30_000);
    expect(computeRetryDelay(0, error, { ...noJitter, honorRetryAfter: false })).toBe(1000);
    const small = new RateLimitError('x', { retry_after: 0.5 });
    expect(computeRetryDelay(2, small, noJitter)).toBe(4000);
  });

  it('P145: jitter is ± delay*jitter from the random source, never negative', () => {
    const error = new RateLimitError('x');
    const base = { minDelayMs: 1000, jitter: 0.2 };
    expect(computeRetryDelay(0, error, { ...base, random: () => 0.5 })).toBe(1000);
    expect(computeRetryDelay(0, error, { ...base, random: () => 0 })).toBe(800);
    expect(computeRetryDelay(0, error, { ...base, random: () => 0.75 })).toBe(1100);
    expect(computeRetryDelay(0, error, { minDelayMs: 1000, jitter: 2, random: () => 0 })).toBe(0);
    const random = Array.from({ length: 100 }, () => computeRetryDelay(0, error, base));
    expect(random.every((d) => d >= 800 && d <= 1200)).toBe(true);
  });

  it('P145: the order of operations is cap, multiplier, retry_after floor, jitter', () => {
    const error = new LLMError('x', { retryable: true, delay_multiplier: 2, retry_after: 5 });
    // cap 1000 -> x2 = 2000 -> floor 5000 -> +20% (random 1 -> +jitter)
    expect(computeRetryDelay(3, error, { maxDelayMs: 1000, jitter: 0.2, random: () => 1 })).toBe(6000);
  });
});
