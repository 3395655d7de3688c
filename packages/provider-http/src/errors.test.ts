import { LLM_ERROR_KINDS, LLM_ERROR_TABLE, type LLMErrorKind, type LLMErrorKindInfo } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import {
  type ApiErrorStyle,
  classifyErrorMessage,
  classifyProviderError,
  errorDetails,
  exhaustedLimitWait,
  httpStatusError,
  parseJsonObject,
  rateLimitFields,
  streamPayloadError,
} from './errors.js';

const context = { provider: 'test', model: 'm-1' };
const plain: ApiErrorStyle = { kinds: { out_of_money: 'quota_exceeded', busy_error: 'unavailable' } };
const quoting: ApiErrorStyle = {
  kinds: { busy_error: 'unavailable' },
  showType: true,
  requestIdHeader: 'request-id',
  rateLimits: {
    resources: ['requests', 'input-tokens'],
    header: (resource, field) => `x-limit-${resource}-${field}`,
    resetSeconds: (value, now) => {
      const date = Date.parse(value);
      return Number.isNaN(date) ? undefined : (date - now) / 1000;
    },
  },
};
const body = (message: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ error: { message, ...extra } });
const failure = (status: number, text = '', headers: Record<string, string> = {}) => ({
  status,
  headers,
  body: text,
});

describe('errorDetails', () => {
  it('reads the shapes servers use, non-empty strings only', () => {
    expect(errorDetails({ error: { message: 'm', code: 'c', type: 't' } })).toEqual({
      message: 'm',
      code: 'c',
      type: 't',
    });
    expect(errorDetails({ type: 'error', error: { type: 'busy_error', message: 'Busy' } })).toEqual({
      message: 'Busy',
      type: 'busy_error',
    });
    expect(errorDetails({ error: 'plain text' })).toEqual({ message: 'plain text' });
    expect(errorDetails({ detail: 'field required' })).toEqual({ message: 'field required' });
    expect(errorDetails({ error: { code: 402, message: '' } })).toEqual({});
    expect(errorDetails('nope')).toEqual({});
    expect(errorDetails(null)).toEqual({});
  });
});

describe('classifyProviderError (extends classifyErrorMessage)', () => {
  it.each([
    ['the kind the code names wins over the status', 'x', { code: 'out_of_money' }, 429, 'quota_exceeded'],
    ['then the type', 'x', { type: 'busy_error' }, 504, 'unavailable'],
    ['a name that is only inherited is ignored', 'x', { code: 'constructor' }, 400, 'invalid_request'],
    ['402 is quota', 'Insufficient credits', {}, 402, 'quota_exceeded'],
    ['408 is a timeout', '', {}, 408, 'timeout'],
    ['context length in a 400 body', 'prompt is too long: 210000 tokens', {}, 400, 'context_length'],
    ['context size (llama.cpp)', 'the request exceeds the available context size', {}, 400, 'context_length'],
    ['in a stream (no status)', 'reduce the length of the messages', {}, undefined, 'context_length'],
    [
      'Anthropic max_tokens',
      'input length and `max_tokens` exceed context limit: 1 + 2 > 3',
      {},
      400,
      'context_length',
    ],
    ['otherwise the status', 'context window', {}, 429, 'rate_limit'],
    ['otherwise keywords', 'Invalid API key provided', {}, undefined, 'authentication'],
    ['unmatched 400', 'bad field', {}, 400, 'invalid_request'],
  ] as const)('%s', (_what, message, details, status, kind) => {
    expect(classifyProviderError(message, details, plain, status)).toBe(kind);
  });
});

describe('httpStatusError', () => {
  it('kind, status_code, retryable default, provider and model; the message quotes the server', () => {
    const error = httpStatusError(plain, failure(500, body('The server had an error')), context, 60_000);
    expect(error).toMatchObject({
      kind: 'unavailable',
      retryable: true,
      status_code: 500,
      provider: 'test',
      model: 'm-1',
    });
    expect(error.message).toBe('test (HTTP 500): The server had an error');
    expect(httpStatusError(plain, failure(502, '<html>Bad gateway</html>'), context, 1).message).toBe(
      'test (HTTP 502): <html>Bad gateway</html>',
    );
    expect(httpStatusError(plain, failure(503), context, 1).message).toBe('test (HTTP 503): HTTP 503');
  });

  it('a style may quote the type and a request id', () => {
    const text = JSON.stringify({ type: 'error', error: { type: 'busy_error', message: 'Overloaded' } });
    const error = httpStatusError(quoting, failure(529, text, { 'request-id': 'req_1' }), context, 60_000);
    expect(error.message).toBe('test (HTTP 529 busy_error): Overloaded [request-id req_1]');
    expect(error).toMatchObject({ kind: 'unavailable', retryable: true });
  });

  it('Retry-After, else the style rate-limit reset on a 429', () => {
    expect(
      httpStatusError(plain, failure(429, '', { 'retry-after': '3' }), context, 60_000).retry_after,
    ).toBe(3);
    const now = Date.parse('2026-11-22T10:00:00Z');
    const reset = {
      'x-limit-requests-remaining': '3',
      'x-limit-requests-reset': '2026-11-22T10:00:05Z',
      'x-limit-input-tokens-remaining': '0',
      'x-limit-input-tokens-reset': '2026-11-22T10:00:20Z',
    };
    expect(httpStatusError(quoting, failure(429, '', reset), context, 60_000, now).retry_after).toBe(20);
    expect(
      httpStatusError(quoting, failure(503, '', reset), context, 60_000, now).retry_after,
    ).toBeUndefined();
    expect(httpStatusError(plain, failure(429), context, 60_000).retry_after).toBeUndefined();
  });

  it('a wait longer than max_retry_delay is not retried (and says so), except for quota', () => {
    const error = httpStatusError(
      plain,
      failure(429, body('slow down'), { 'retry-after': '3600' }),
      context,
      60_000,
    );
    expect(error).toMatchObject({ retryable: false, retry_after: 3600 });
    expect(error.message).toMatch(/3600s, longer than max_retry_delay/);
    const quota = httpStatusError(
      plain,
      failure(429, body('no money', { code: 'out_of_money' }), { 'retry-after': '3600' }),
      context,
      60_000,
    );
    expect(quota.message).not.toMatch(/max_retry_delay/);
  });

  it('x-should-retry overrides the default; a 409 is retried', () => {
    expect(
      httpStatusError(plain, failure(500, '', { 'x-should-retry': 'false' }), context, 1).retryable,
    ).toBe(false);
    expect(httpStatusError(plain, failure(400, '', { 'x-should-retry': 'true' }), context, 1).retryable).toBe(
      true,
    );
    expect(httpStatusError(plain, failure(409, body('lock timeout')), context, 1).retryable).toBe(true);
    expect(
      httpStatusError(plain, failure(409, '', { 'x-should-retry': 'false' }), context, 1).retryable,
    ).toBe(false);
  });
});

describe('rate-limit headers', () => {
  const scheme = quoting.rateLimits!;

  it('rateLimitFields: every field present, integers as numbers, dashes as underscores', () => {
    expect(
      rateLimitFields(
        {
          'x-limit-requests-limit': '50',
          'x-limit-input-tokens-remaining': '7000',
          'x-limit-input-tokens-reset': '2026-11-22T10:00:20Z',
        },
        scheme,
      ),
    ).toEqual({
      requests_limit: 50,
      input_tokens_remaining: 7000,
      input_tokens_reset: '2026-11-22T10:00:20Z',
    });
    expect(rateLimitFields({ other: '1' }, scheme)).toBeUndefined();
  });

  it('exhaustedLimitWait: the latest reset among limits with nothing remaining', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    const headers = {
      'x-limit-requests-remaining': '0',
      'x-limit-requests-reset': '2026-11-22T10:00:05Z',
      'x-limit-input-tokens-remaining': '0',
      'x-limit-input-tokens-reset': '2026-11-22T10:00:20Z',
    };
    expect(exhaustedLimitWait(headers, scheme, now)).toBe(20);
    expect(exhaustedLimitWait({ ...headers, 'x-limit-input-tokens-reset': 'soon' }, scheme, now)).toBe(5);
    expect(exhaustedLimitWait({ 'x-limit-requests-remaining': '1' }, scheme, now)).toBeUndefined();
  });

  it('the error says where its wait came from: the body, retry-after-ms, retry-after, a rate-limit reset header', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    const withBody: ApiErrorStyle = { kinds: {}, readError: () => ({ message: 'slow', retry_after: 7 }) };
    const source = (style: ApiErrorStyle, headers: Record<string, string>) => {
      const error = httpStatusError(style, failure(429, body('slow'), headers), context, 60_000, now);
      return [error.retry_after, error.retry_after_source];
    };
    expect(source(withBody, { 'retry-after': '3' })).toEqual([7, 'body']);
    expect(source(plain, { 'retry-after-ms': '1500', 'retry-after': '3' })).toEqual([1.5, 'retry-after-ms']);
    expect(source(plain, { 'retry-after': '3' })).toEqual([3, 'retry-after']);
    expect(source(plain, { 'retry-after': 'Sun, 22 Nov 2026 10:00:04 GMT' })).toEqual([4, 'retry-after']);
    const limits = {
      'x-limit-requests-remaining': '0',
      'x-limit-requests-reset': '2026-11-22T10:00:05Z',
      'x-limit-input-tokens-remaining': '0',
      'x-limit-input-tokens-reset': '2026-11-22T10:00:20Z',
    };
    expect(source(quoting, limits)).toEqual([20, 'x-limit-input-tokens-reset']);
    expect(source(plain, {})).toEqual([undefined, undefined]);
    expect(httpStatusError(plain, failure(429, body('slow')), context, 60_000)).not.toHaveProperty(
      'retry_after_source',
    );
  });
});

describe('streamPayloadError', () => {
  it('maps like a response without status; an unnamed kind is a retryable stream error', () => {
    expect(
      streamPayloadError(plain, { error: { message: 'boom', type: 'server_error' } }, context),
    ).toMatchObject({ kind: 'stream', retryable: true, message: 'test: boom' });
    expect(streamPayloadError(plain, { error: { message: 'too many tokens' } }, context).kind).toBe(
      'context_length',
    );
    const busy = streamPayloadError(
      quoting,
      { type: 'error', error: { type: 'busy_error', message: 'x' } },
      context,
    );
    expect(busy).toMatchObject({ kind: 'unavailable', message: 'test: busy_error: x' });
    expect(streamPayloadError(plain, {}, context).message).toBe(
      'test: the server reported an error mid-stream',
    );
  });
});

describe('parseJsonObject', () => {
  const where = { baseUrl: 'http://localhost:1234/', example: 'http://localhost:11434/v1' };

  it('returns an object; anything else is a non-retryable error pointing at base_url', () => {
    expect(parseJsonObject('{"a":1}', 200, context, where)).toEqual({ a: 1 });
    for (const text of ['<!DOCTYPE html>', '[1]', '', '{"truncated']) {
      let thrown: unknown;
      try {
        parseJsonObject(text, 200, context, where);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toMatchObject({ kind: 'unknown', retryable: false, status_code: 200 });
      expect((thrown as Error).message).toMatch(
        /not a JSON object .*is base_url \(http:\/\/localhost:1234\/\) the API root, e\.g\. http:\/\/localhost:11434\/v1\?$/,
      );
    }
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

  it("the statuses come from core's LLM_ERROR_TABLE: each listed status is its kind whatever the message", () => {
    const seen: number[] = [];
    for (const kind of LLM_ERROR_KINDS) {
      for (const status of (LLM_ERROR_TABLE[kind] as LLMErrorKindInfo).status ?? []) {
        const code = status === '5xx' ? 599 : status;
        seen.push(code);
        expect(classifyErrorMessage('rate limit exceeded', { status_code: code }), `${status}`).toBe(kind);
      }
    }
    expect(seen.sort()).toEqual([401, 402, 403, 404, 408, 413, 429, 599]);
    // 402 and 408 are the table's too (before, only classifyProviderError knew them).
    expect(classifyErrorMessage('too many requests', { status_code: 402 })).toBe('quota_exceeded');
    expect(classifyErrorMessage('not found', { status_code: 408 })).toBe('timeout');
    expect(classifyErrorMessage('rate limit', { status_code: 600 })).toBe('rate_limit');
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

describe('ApiErrorStyle.readError (an API reads its own error payloads)', () => {
  // A style whose payloads are `[{ failure: { why, state, wait_ms } }]` (nothing errorDetails reads).
  const own: ApiErrorStyle = {
    kinds: { JAMMED: 'rate_limit', GONE_FOR_TODAY: 'quota_exceeded' },
    showType: true,
    readError(payload) {
      const first = (Array.isArray(payload) ? payload[0] : payload) as
        | { failure?: Record<string, unknown> }
        | undefined;
      const f = first?.failure;
      if (f === undefined) return {};
      return {
        message: String(f.why),
        type: String(f.state),
        ...(typeof f.wait_ms === 'number' && { retry_after: f.wait_ms / 1000 }),
      };
    },
  };
  const jammed = (wait_ms?: number) =>
    JSON.stringify([{ failure: { why: 'slow down', state: 'JAMMED', wait_ms } }]);

  it('its message, type and kind are used; the wait it names wins over Retry-After', () => {
    const error = httpStatusError(own, failure(429, jammed(250), { 'retry-after': '30' }), context, 60_000);
    expect(error).toMatchObject({ kind: 'rate_limit', retry_after: 0.25, retryable: true, status_code: 429 });
    expect(error.message).toBe('test (HTTP 429 JAMMED): slow down');
  });

  it('without a wait in the body, Retry-After still counts; a named wait over the limit is not retried', () => {
    expect(
      httpStatusError(own, failure(429, jammed(), { 'retry-after': '3' }), context, 60_000).retry_after,
    ).toBe(3);
    const long = httpStatusError(own, failure(429, jammed(120_000)), context, 60_000);
    expect(long.retryable).toBe(false);
    expect(long.message).toContain('longer than max_retry_delay');
  });

  it('in-stream payloads are read the same way; a payload it cannot read falls back to the raw text', () => {
    expect(streamPayloadError(own, JSON.parse(jammed()), context)).toMatchObject({ kind: 'rate_limit' });
    expect(httpStatusError(own, failure(500, 'not json'), context, 60_000).message).toBe(
      'test (HTTP 500): not json',
    );
  });
});
