import { describe, expect, it } from 'vitest';
import { AmplifierError, isFatalError } from './errors.js';
import {
  AbortError,
  AccessDeniedError,
  AuthenticationError,
  ConfigurationError,
  ContentFilterError,
  ContextLengthError,
  classifyErrorMessage,
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

  it('isLLMError recognises an LLMError from another copy of core by its brand and code', () => {
    expect(LLMError.isLLMError(new RateLimitError('m'))).toBe(true);
    expect(LLMError.isLLMError(new Error('m'))).toBe(false);
    expect(LLMError.isLLMError(null)).toBe(false);
    // Simulate another copy: same brand (Symbol.for) and code, different class identity.
    const foreign = Object.assign(Object.create({ [Symbol.for('amplifier.error')]: true }), {
      code: 'LLM_ERROR',
      retryable: true,
    });
    expect(LLMError.isLLMError(foreign)).toBe(true);
  });

  it('an LLM AbortError is not a kernel-fatal error (it is a provider outcome, not a cancelled cleanup)', () => {
    expect(isFatalError(new AbortError())).toBe(false);
  });
});

describe('classifyErrorMessage (P146)', () => {
  it('P146: the status code wins: 401, 403, 404, 413, 429 and >= 500', () => {
    const rate = 'rate limit exceeded';
    expect(classifyErrorMessage(rate, { status_code: 401 })).toBe('authentication');
    expect(classifyErrorMessage(rate, { status_code: 403 })).toBe('access_denied');
    expect(classifyErrorMessage(rate, { status_code: 404 })).toBe('not_found');
    expect(classifyErrorMessage(rate, { status_code: 413 })).toBe('context_length');
    expect(classifyErrorMessage('context length', { status_code: 429 })).toBe('rate_limit');
    expect(classifyErrorMessage(rate, { status_code: 500 })).toBe('unavailable');
    expect(classifyErrorMessage(rate, { status_code: 503 })).toBe('unavailable');
    expect(classifyErrorMessage(rate, { status_code: 529 })).toBe('unavailable');
  });

  it('P146: otherwise the lowercased message is matched against the keyword table, in order', () => {
    const cases: [string, LLMErrorKind][] = [
      ['This model’s maximum context length is 8192', 'context_length'],
      ['Too many tokens in request', 'context_length'],
      ['Exceeds MAXIMUM CONTEXT', 'context_length'],
      ['Rate Limit reached', 'rate_limit'],
      ['429 Too Many Requests', 'rate_limit'],
      ['Authentication failed', 'authentication'],
      ['Invalid API key provided', 'authentication'],
      ['Unauthorized', 'authentication'],
      ['model not found', 'not_found'],
      ['blocked by content filter', 'content_filter'],
      ['safety system', 'content_filter'],
      ['request was blocked', 'content_filter'],
      // First rule wins when several match.
      ['rate limit: too many tokens', 'context_length'],
    ];
    for (const [message, kind] of cases) {
      expect(classifyErrorMessage(message, { status_code: 400 }), message).toBe(kind);
      expect(classifyErrorMessage(message), message).toBe(kind);
    }
  });

  it('P146: an unmatched 400 or 422 is invalid_request; anything else is the base kind', () => {
    expect(classifyErrorMessage('bad field', { status_code: 400 })).toBe('invalid_request');
    expect(classifyErrorMessage('bad field', { status_code: 422 })).toBe('invalid_request');
    expect(classifyErrorMessage('bad field', { status_code: 418 })).toBe('unknown');
    expect(classifyErrorMessage('bad field')).toBe('unknown');
  });
});
