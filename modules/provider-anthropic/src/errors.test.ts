import {
  type HttpHeaders,
  httpStatusError,
  rateLimitFields,
  streamPayloadError,
} from '@amplifier/provider-http';
import { describe, expect, it } from 'vitest';
import { errorBody } from './__fixtures__/wire.js';
import { ERROR_STYLE } from './errors.js';

const context = { provider: 'anthropic', model: 'claude-sonnet-4-5' };
/** What the Anthropic error style makes of a response (max_retry_delay 60 s by default). */
const mapped = (status: number, text = '', headers: HttpHeaders = {}, maxRetryDelayMs = 60_000) =>
  httpStatusError(ERROR_STYLE, { status, headers, body: text }, context, maxRetryDelayMs);
const body = (type: string, message: string) => JSON.stringify(errorBody(type, message));

describe('HTTP errors as LLMError kinds', () => {
  it.each([
    [400, 'invalid_request_error', 'messages: field required', 'invalid_request', false],
    [401, 'authentication_error', 'invalid x-api-key', 'authentication', false],
    [403, 'permission_error', 'no access to this model', 'access_denied', false],
    [404, 'not_found_error', 'model: claude-x', 'not_found', false],
    [413, 'request_too_large', 'Request exceeds the maximum size', 'context_length', false],
    [429, 'rate_limit_error', 'Number of requests has exceeded your rate limit', 'rate_limit', true],
    [402, 'billing_error', 'credit balance is too low', 'quota_exceeded', false],
    [500, 'api_error', 'Internal server error', 'unavailable', true],
    [529, 'overloaded_error', 'Overloaded', 'unavailable', true],
    [504, 'timeout_error', 'Request timed out', 'timeout', true],
  ])('HTTP %i %s -> %s', (status, type, message, kind, retryable) => {
    const error = mapped(status, body(type, message), { 'request-id': 'req_1' });
    expect(error).toMatchObject({
      kind,
      retryable,
      status_code: status,
      provider: 'anthropic',
      model: context.model,
    });
    expect(error.message).toBe(`anthropic (HTTP ${status} ${type}): ${message} [request-id req_1]`);
  });

  it('context length is detected in 400 invalid_request bodies', () => {
    expect(
      mapped(400, body('invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum'), {}, 1)
        .kind,
    ).toBe('context_length');
    expect(
      mapped(
        400,
        body(
          'invalid_request_error',
          'input length and `max_tokens` exceed context limit: 190000 + 64000 > 200000',
        ),
        {},
        1,
      ).kind,
    ).toBe('context_length');
  });

  it('Retry-After wins; a 429 without it waits for the anthropic-ratelimit reset of the exhausted limit', () => {
    expect(mapped(429, '', { 'retry-after': '12' }).retry_after).toBe(12);
    const now = Date.parse('2026-11-22T10:00:00Z');
    const error = httpStatusError(
      ERROR_STYLE,
      {
        status: 429,
        headers: {
          'anthropic-ratelimit-requests-remaining': '10',
          'anthropic-ratelimit-requests-reset': '2026-11-22T10:00:05Z',
          'anthropic-ratelimit-input-tokens-remaining': '0',
          'anthropic-ratelimit-input-tokens-reset': '2026-11-22T10:00:20Z',
        },
        body: '',
      },
      context,
      60_000,
      now,
    );
    expect(error.retry_after).toBe(20);
  });

  it('a wait longer than max_retry_delay is not retried; x-should-retry overrides', () => {
    expect(mapped(429, '', { 'retry-after': '600' }).retryable).toBe(false);
    expect(mapped(529, '', { 'x-should-retry': 'false' }).retryable).toBe(false);
  });

  it('rateLimits collects the anthropic-ratelimit headers', () => {
    expect(
      rateLimitFields(
        {
          'anthropic-ratelimit-requests-limit': '50',
          'anthropic-ratelimit-output-tokens-remaining': '7000',
          'anthropic-ratelimit-tokens-reset': '2026-11-22T10:00:20Z',
        },
        ERROR_STYLE.rateLimits!,
      ),
    ).toEqual({ requests_limit: 50, output_tokens_remaining: 7000, tokens_reset: '2026-11-22T10:00:20Z' });
  });

  it('in-stream error events: overloaded is retryable, unknown types are stream errors', () => {
    expect(
      streamPayloadError(ERROR_STYLE, errorBody('overloaded_error', 'Overloaded'), context),
    ).toMatchObject({
      kind: 'unavailable',
      retryable: true,
    });
    expect(streamPayloadError(ERROR_STYLE, errorBody('weird_error', 'x'), context)).toMatchObject({
      kind: 'stream',
      retryable: true,
    });
  });
});
