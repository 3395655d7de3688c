import { describe, expect, it, vi } from 'vitest';
import { AmplifierError, CancelledError, isFatalError } from './errors.js';
import {
  AbortError,
  AccessDeniedError,
  AuthenticationError,
  ConfigurationError,
  ContentFilterError,
  ContextLengthError,
  createLLMError,
  InvalidRequestError,
  InvalidToolCallError,
  LLM_ERROR_KINDS,
  LLM_ERROR_RETRYABLE,
  LLMError,
  type LLMErrorKind,
  LLMTimeoutError,
  NetworkError,
  NotFoundError,
  ProviderUnavailableError,
  QuotaExceededError,
  RateLimitError,
  StreamError,
} from './llm-errors.js';

describe('LLMError taxonomy (O143)', () => {
  it('O143: every kind keeps its documented retryable default', () => {
    const expected: [LLMError, boolean, LLMErrorKind][] = [
      [new LLMError('m'), false, 'unknown'],
      [new RateLimitError('m'), true, 'rate_limit'],
      [new AuthenticationError('m'), false, 'authentication'],
      [new AccessDeniedError('m'), false, 'access_denied'],
      [new ContextLengthError('m'), false, 'context_length'],
      [new ContentFilterError('m'), false, 'content_filter'],
      [new InvalidRequestError('m'), false, 'invalid_request'],
      [new ProviderUnavailableError('m'), true, 'unavailable'],
      [new NetworkError('m'), true, 'network'],
      [new LLMTimeoutError('m'), true, 'timeout'],
      [new NotFoundError('m'), false, 'not_found'],
      [new StreamError('m'), true, 'stream'],
      [new AbortError(), false, 'abort'],
      [new InvalidToolCallError('m'), false, 'invalid_tool_call'],
      [new ConfigurationError('m'), false, 'configuration'],
      [new QuotaExceededError('m'), false, 'quota_exceeded'],
    ];
    for (const [error, retryable, kind] of expected) {
      expect(error.retryable, error.name).toBe(retryable);
      expect(error.kind, error.name).toBe(kind);
      expect(LLM_ERROR_RETRYABLE[kind]).toBe(retryable);
    }
    expect(expected).toHaveLength(LLM_ERROR_KINDS.length);
  });

  it('O143: QuotaExceededError is a RateLimitError but not retryable', () => {
    const error = new QuotaExceededError('out of credits', { retry_after: 60 });
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryable).toBe(false);
    expect(new RateLimitError('slow down').retryable).toBe(true);
  });

  it('O143: the hierarchy: AccessDenied < Authentication, Network < ProviderUnavailable, all < LLMError < AmplifierError', () => {
    expect(new AccessDeniedError('m')).toBeInstanceOf(AuthenticationError);
    expect(new NetworkError('m')).toBeInstanceOf(ProviderUnavailableError);
    for (const kind of LLM_ERROR_KINDS) {
      const error = createLLMError(kind, 'm');
      expect(error).toBeInstanceOf(LLMError);
      expect(error).toBeInstanceOf(AmplifierError);
      expect(error.code).toBe('LLM_ERROR');
    }
  });

  it('every field is stored; retryable can be overridden per instance; the cause is chained', () => {
    const native = new Error('socket hang up');
    const error = new ProviderUnavailableError('overloaded', {
      provider: 'anthropic',
      model: 'claude',
      status_code: 529,
      retryable: false,
      retry_after: 3,
      delay_multiplier: 2,
      cause: native,
    });
    expect(error).toMatchObject({
      message: 'overloaded',
      provider: 'anthropic',
      model: 'claude',
      status_code: 529,
      retryable: false,
      retry_after: 3,
      delay_multiplier: 2,
      name: 'ProviderUnavailableError',
    });
    expect(error.cause).toBe(native);
    expect(new StreamError('x').delay_multiplier).toBe(1);
    expect(new AuthenticationError('x', { retryable: true }).retryable).toBe(true);
  });

  it('InvalidToolCallError carries tool_name and raw_arguments', () => {
    const error = new InvalidToolCallError('bad json', { tool_name: 'bash', raw_arguments: '{"cmd":' });
    expect(error.tool_name).toBe('bash');
    expect(error.raw_arguments).toBe('{"cmd":');
  });

  it('createLLMError builds the subclass of the kind', () => {
    expect(createLLMError('rate_limit', 'm')).toBeInstanceOf(RateLimitError);
    expect(createLLMError('quota_exceeded', 'm')).toBeInstanceOf(QuotaExceededError);
    expect(createLLMError('network', 'm', { status_code: 0 }).status_code).toBe(0);
    expect(createLLMError('abort', 'stop').message).toBe('stop');
  });

  it('camelCase getters read the snake_case fields', () => {
    const error = new RateLimitError('slow down', { status_code: 429, retry_after: 3, delay_multiplier: 2 });
    expect(error.statusCode).toBe(429);
    expect(error.retryAfter).toBe(3);
    expect(error.delayMultiplier).toBe(2);
    expect([error.statusCode, error.retryAfter, error.delayMultiplier]).toEqual([
      error.status_code,
      error.retry_after,
      error.delay_multiplier,
    ]);
    const plain = new LLMError('m');
    expect([plain.statusCode, plain.retryAfter, plain.delayMultiplier]).toEqual([undefined, undefined, 1]);
    const call = new InvalidToolCallError('bad json', { tool_name: 'bash', raw_arguments: '{"cmd":' });
    expect(call.toolName).toBe(call.tool_name);
    expect(call.rawArguments).toBe(call.raw_arguments);
    expect(call.toolName).toBe('bash');
    expect(call.rawArguments).toBe('{"cmd":');
  });

  it('serialized errors and spreads show the snake_case fields only (the getters are on the prototype)', () => {
    const error = new ProviderUnavailableError('overloaded', {
      provider: 'anthropic',
      model: 'claude',
      status_code: 529,
      retry_after: 3,
      delay_multiplier: 2,
    });
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      code: 'LLM_ERROR',
      name: 'ProviderUnavailableError',
      kind: 'unavailable',
      provider: 'anthropic',
      model: 'claude',
      status_code: 529,
      retryable: true,
      retry_after: 3,
      delay_multiplier: 2,
    });
    expect(Object.keys({ ...error })).toEqual([
      'code',
      'name',
      'kind',
      'provider',
      'model',
      'status_code',
      'retryable',
      'retry_after',
      'delay_multiplier',
    ]);
    const call = new InvalidToolCallError('bad json', { tool_name: 'bash', raw_arguments: '{' });
    expect(Object.keys(call)).toContain('tool_name');
    expect(Object.keys(call)).not.toContain('toolName');
    expect(Object.keys(call)).not.toContain('rawArguments');
  });

  it('LLMError.is: true for every kind, with a kind only for that exact kind', () => {
    for (const kind of LLM_ERROR_KINDS) {
      const error = createLLMError(kind, 'm');
      expect(LLMError.is(error), kind).toBe(true);
      expect(LLMError.is(error, kind), kind).toBe(true);
      for (const other of LLM_ERROR_KINDS) {
        if (other !== kind) expect(LLMError.is(error, other), `${kind} ${other}`).toBe(false);
      }
    }
    // The kind is exact: a QuotaExceededError (a RateLimitError subclass) is not `rate_limit`.
    expect(LLMError.is(new QuotaExceededError('m'), 'rate_limit')).toBe(false);
    // Subclasses inherit the same test.
    expect(RateLimitError.is(new StreamError('m'))).toBe(true);
  });

  it('LLMError.is rejects non-errors, plain errors and kernel errors of other codes', () => {
    const others: unknown[] = [
      new Error('m'),
      new CancelledError(),
      new AmplifierError('MOUNT_FAILED', 'm'),
      { code: 'LLM_ERROR', kind: 'rate_limit', retryable: true },
      'rate_limit',
      null,
      undefined,
    ];
    for (const value of others) {
      expect(LLMError.is(value), String(value)).toBe(false);
      expect(LLMError.is(value, 'rate_limit'), String(value)).toBe(false);
    }
  });

  it('LLMError.is recognises an LLMError from another copy of core by its brand, code and kind', async () => {
    // Another copy: a brand-new module instance of the same sources.
    vi.resetModules();
    const copy = (await import('./llm-errors.js')) as typeof import('./llm-errors.js');
    expect(copy.LLMError).not.toBe(LLMError);
    const foreign = new copy.RateLimitError('m', { retry_after: 2 });
    expect(foreign).not.toBeInstanceOf(LLMError);
    expect(LLMError.is(foreign)).toBe(true);
    expect(LLMError.is(foreign, 'rate_limit')).toBe(true);
    expect(LLMError.is(foreign, 'network')).toBe(false);
    expect(AmplifierError.is(foreign, 'LLM_ERROR')).toBe(true);
    expect(copy.LLMError.is(new NetworkError('m'), 'network')).toBe(true);
    // A branded look-alike: same brand (Symbol.for) and code, no class at all.
    const branded = Object.assign(Object.create({ [Symbol.for('amplifier.error')]: true }), {
      code: 'LLM_ERROR',
      kind: 'timeout',
      retryable: true,
    });
    expect(LLMError.is(branded)).toBe(true);
    expect(LLMError.is(branded, 'timeout')).toBe(true);
    expect(LLMError.is(branded, 'abort')).toBe(false);
  });

  it('a misspelt kind does not compile', () => {
    // @ts-expect-error: not an LLMErrorKind
    expect(LLMError.is(new RateLimitError('m'), 'ratelimit')).toBe(false);
  });

  it('an LLM AbortError is not a kernel-fatal error (it is a provider outcome, not a cancelled cleanup)', () => {
    expect(isFatalError(new AbortError())).toBe(false);
  });
});
