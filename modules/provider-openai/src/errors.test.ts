import {
  type HttpHeaders,
  httpStatusError,
  rateLimitFields,
  streamPayloadError,
} from '@amplifier/provider-http';
import { describe, expect, it } from 'vitest';
import { ERROR_STYLE, parseDuration } from './errors.js';

const context = { provider: 'openai', model: 'gpt-4o' };
/** What the OpenAI error style makes of a response (max_retry_delay 60 s by default). */
const mapped = (status: number, text = '', headers: HttpHeaders = {}, maxRetryDelayMs = 60_000) =>
  httpStatusError(ERROR_STYLE, { status, headers, body: text }, context, maxRetryDelayMs);
const body = (message: string, code?: string, type?: string) =>
  JSON.stringify({ error: { message, code, type } });

describe('HTTP errors as LLMError kinds', () => {
  it.each([
    [401, body('Incorrect API key provided', 'invalid_api_key'), 'authentication', false],
    [403, body('Project does not have access'), 'access_denied', false],
    [404, body('The model `x` does not exist', 'model_not_found'), 'not_found', false],
    [429, body('Rate limit reached', 'rate_limit_exceeded'), 'rate_limit', true],
    [429, body('You exceeded your current quota', 'insufficient_quota'), 'quota_exceeded', false],
    [402, JSON.stringify({ error: { code: 402, message: 'Insufficient credits' } }), 'quota_exceeded', false],
    [500, body('The server had an error'), 'unavailable', true],
    [503, 'upstream connect error', 'unavailable', true],
    [529, body('Overloaded'), 'unavailable', true],
    [400, body('Invalid value for temperature'), 'invalid_request', false],
    [422, JSON.stringify({ detail: 'field required' }), 'invalid_request', false],
    [408, '', 'timeout', true],
  ])('HTTP %i %s -> %s', (status, text, kind, retryable) => {
    const error = mapped(status, text);
    expect(error.kind).toBe(kind);
    expect(error.retryable).toBe(retryable);
    expect(error.status_code).toBe(status);
    expect(error.provider).toBe('openai');
    expect(error.model).toBe('gpt-4o');
  });

  it.each([
    body(
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
      'context_length_exceeded',
    ),
    JSON.stringify({
      object: 'error',
      message: "This model's maximum context length is 4096 tokens.",
      type: 'BadRequestError',
      code: 400,
    }),
    JSON.stringify({
      error: {
        code: 400,
        message: 'the request exceeds the available context size, try increasing it',
        type: 'exceed_context_size_error',
      },
    }),
    body('prompt is too long: 210000 tokens > 200000 maximum'),
  ])('context length is detected in 400 bodies: %s', (text) => {
    expect(mapped(400, text).kind).toBe('context_length');
  });

  it('reads Retry-After, and x-ratelimit reset headers for a 429 without it', () => {
    expect(mapped(429, '', { 'retry-after': '3' }).retry_after).toBe(3);
    const fromReset = mapped(
      429,
      '',
      {
        'x-ratelimit-remaining-requests': '0',
        'x-ratelimit-reset-requests': '1m30s',
        'x-ratelimit-remaining-tokens': '100',
      },
      120_000,
    );
    expect(fromReset.retry_after).toBe(90);
    expect(fromReset.retryable).toBe(true);
  });

  it('a server asking to wait longer than max_retry_delay is not retried', () => {
    const error = mapped(429, body('slow down'), { 'retry-after': '3600' });
    expect(error.retryable).toBe(false);
    expect(error.retry_after).toBe(3600);
    expect(error.message).toMatch(/3600s, longer than max_retry_delay/);
  });

  it('x-should-retry overrides the default', () => {
    expect(mapped(500, '', { 'x-should-retry': 'false' }).retryable).toBe(false);
    expect(mapped(400, '', { 'x-should-retry': 'true' }).retryable).toBe(true);
  });

  it('the message says provider, status and the server message', () => {
    expect(mapped(400, body('bad thing'), {}, 1).message).toBe('openai (HTTP 400): bad thing');
    expect(mapped(502, '<html>Bad gateway</html>', {}, 1).message).toContain('<html>Bad gateway');
  });
});

describe('helpers', () => {
  it('parseDuration reads OpenAI reset durations', () => {
    expect(parseDuration('1s')).toBe(1);
    expect(parseDuration('6m0s')).toBe(360);
    expect(parseDuration('20ms')).toBeCloseTo(0.02);
    expect(parseDuration('1h2m3.5s')).toBeCloseTo(3723.5);
    expect(parseDuration('soon')).toBeUndefined();
  });

  it('rateLimits collects the x-ratelimit headers', () => {
    expect(
      rateLimitFields(
        {
          'x-ratelimit-limit-requests': '500',
          'x-ratelimit-remaining-requests': '499',
          'x-ratelimit-reset-requests': '120ms',
        },
        ERROR_STYLE.rateLimits!,
      ),
    ).toEqual({ requests_limit: 500, requests_remaining: 499, requests_reset: '120ms' });
    expect(rateLimitFields({}, ERROR_STYLE.rateLimits!)).toBeUndefined();
  });

  it('in-stream error payloads map by code, else to a retryable stream error', () => {
    expect(
      streamPayloadError(ERROR_STYLE, { error: { message: 'boom', type: 'server_error' } }, context).kind,
    ).toBe('stream');
    expect(
      streamPayloadError(ERROR_STYLE, { error: { message: 'x', code: 'context_length_exceeded' } }, context)
        .kind,
    ).toBe('context_length');
  });
});
