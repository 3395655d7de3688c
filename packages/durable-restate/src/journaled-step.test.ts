import { LLMError, RateLimitError } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { journaledError, rebuiltError } from './journaled-step.js';
import { polyfilledWithResolvers } from './promise-polyfill.js';

interface PromiseWithResolvers<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

describe('a failed step in the journal', () => {
  it('keeps name, message and plain fields, so an LLMError is still one after the replay', () => {
    const error = new RateLimitError('rate limited', { retryable: true, status_code: 429 });
    const record = journaledError(error);
    expect(JSON.parse(JSON.stringify(record))).toEqual(record);
    const rebuilt = rebuiltError(record);
    expect(rebuilt.message).toBe('rate limited');
    expect(rebuilt.name).toBe(error.name);
    expect(LLMError.is(rebuilt, 'rate_limit')).toBe(true);
    expect(rebuilt).toMatchObject({ retryable: true, status_code: 429 });
  });

  it('keeps a thrown non-Error as its text', () => {
    expect(journaledError('boom')).toEqual({ name: 'Error', message: 'boom', fields: {} });
  });
});

describe('Promise.withResolvers', () => {
  it(`works here (polyfilled on Node < 22: ${polyfilledWithResolvers})`, async () => {
    expect(polyfilledWithResolvers).toBe(Number(process.versions.node.split('.')[0]) < 22);
    const withResolvers = (Promise as unknown as { withResolvers<T>(): PromiseWithResolvers<T> })
      .withResolvers;
    const { promise, resolve } = withResolvers.call(Promise) as PromiseWithResolvers<number>;
    resolve(7);
    expect(await promise).toBe(7);
    const rejected = withResolvers.call(Promise) as PromiseWithResolvers<number>;
    rejected.reject(new Error('no'));
    await expect(rejected.promise).rejects.toThrow('no');
  });
});
