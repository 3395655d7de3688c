/**
 * Anthropic error responses (`{"type":"error","error":{"type","message"}}`)
 * and in-stream `error` events as core's LLMError kinds, with `status_code`,
 * `retryable` and `retry_after` (Retry-After, or the anthropic-ratelimit
 * reset times); and the rate-limit headers as an `llm:response` field.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { classifyErrorMessage, createLLMError, type LLMError, type LLMErrorKind } from '@amplifier/core';
import { header, type RequestContext, retryAfterSeconds } from './http.js';

/** Messages that mean "the prompt does not fit". */
const CONTEXT_PATTERN =
  /prompt is too long|context[ _](length|window)|maximum context|too many tokens|input length and `?max_tokens`? exceed context limit/i;

const KIND_BY_TYPE: Readonly<Record<string, LLMErrorKind>> = {
  authentication_error: 'authentication',
  permission_error: 'access_denied',
  not_found_error: 'not_found',
  request_too_large: 'context_length',
  rate_limit_error: 'rate_limit',
  billing_error: 'quota_exceeded',
  timeout_error: 'timeout',
  api_error: 'unavailable',
  overloaded_error: 'unavailable',
};

/** Rate-limited resources, in `anthropic-ratelimit-<resource>-<field>` headers. */
const RESOURCES = ['requests', 'tokens', 'input-tokens', 'output-tokens'];

/** The `{message, type}` of an error payload. */
export function errorDetails(payload: unknown): { message?: string; type?: string } {
  if (typeof payload !== 'object' || payload === null) return {};
  const outer = payload as Record<string, unknown>;
  const inner =
    typeof outer.error === 'object' && outer.error !== null
      ? (outer.error as Record<string, unknown>)
      : outer;
  const text = (value: unknown): string | undefined =>
    typeof value === 'string' && value !== '' ? value : undefined;
  return { message: text(inner.message), type: text(inner.type) };
}

function kindOf(message: string, type: string | undefined, status?: number): LLMErrorKind {
  if ((status === undefined || status === 400 || status === 413) && CONTEXT_PATTERN.test(message))
    return 'context_length';
  const byType = KIND_BY_TYPE[type ?? ''];
  if (byType !== undefined) return byType;
  if (status === 408) return 'timeout';
  return classifyErrorMessage(message, status === undefined ? {} : { status_code: status });
}

/** Seconds until the latest reset of a rate limit that has nothing remaining (RFC 3339 times). */
function rateLimitResetSeconds(headers: IncomingHttpHeaders, now: number): number | undefined {
  let wait: number | undefined;
  for (const resource of RESOURCES) {
    if (header(headers, `anthropic-ratelimit-${resource}-remaining`) !== '0') continue;
    const reset = Date.parse(header(headers, `anthropic-ratelimit-${resource}-reset`) ?? '');
    if (!Number.isNaN(reset)) wait = Math.max(wait ?? 0, (reset - now) / 1000);
  }
  return wait;
}

/** The anthropic-ratelimit headers as `{requests_limit, requests_remaining, tokens_reset, input_tokens_...}`. */
export function rateLimits(headers: IncomingHttpHeaders): Record<string, number | string> | undefined {
  let out: Record<string, number | string> | undefined;
  for (const resource of RESOURCES) {
    for (const field of ['limit', 'remaining', 'reset']) {
      const value = header(headers, `anthropic-ratelimit-${resource}-${field}`);
      if (value === undefined) continue;
      out ??= {};
      out[`${resource.replace('-', '_')}_${field}`] = /^\d+$/.test(value) ? Number(value) : value;
    }
  }
  return out;
}

/**
 * An error response as an LLMError: the error type wins over the status
 * (`overloaded_error` on 529 is unavailable and retryable), context-length
 * messages are found in 400 bodies, `x-should-retry` overrides `retryable`,
 * and a wait longer than `maxRetryAfterMs` is not retried.
 */
export function httpError(
  status: number,
  headers: IncomingHttpHeaders,
  bodyText: string,
  context: RequestContext,
  maxRetryAfterMs: number,
  now: number = Date.now(),
): LLMError {
  let payload: unknown;
  try {
    payload = JSON.parse(bodyText);
  } catch {
    payload = undefined;
  }
  const details = errorDetails(payload);
  const snippet = bodyText.trim().slice(0, 300);
  const message = details.message ?? (snippet || `HTTP ${status}`);
  const kind = kindOf(message, details.type, status);
  let retryAfter = retryAfterSeconds(headers, now);
  if (retryAfter === undefined && status === 429) retryAfter = rateLimitResetSeconds(headers, now);
  const shouldRetry = header(headers, 'x-should-retry');
  let retryable: boolean | undefined =
    shouldRetry === 'true' ? true : shouldRetry === 'false' ? false : undefined;
  if (status === 409) retryable ??= true;
  let text = `${context.provider} (HTTP ${status}${details.type ? ` ${details.type}` : ''}): ${message}`;
  const requestId = header(headers, 'request-id');
  if (requestId !== undefined) text += ` [request-id ${requestId}]`;
  if (retryAfter !== undefined && retryAfter * 1000 > maxRetryAfterMs && kind !== 'quota_exceeded') {
    retryable = false;
    text += ` (the server asked to wait ${retryAfter}s, longer than max_retry_delay)`;
  }
  return createLLMError(kind, text, {
    ...context,
    status_code: status,
    ...(retryable !== undefined && { retryable }),
    ...(retryAfter !== undefined && { retry_after: retryAfter }),
  });
}

/** An `error` event received inside a stream (overloaded mid-stream is retryable). */
export function streamPayloadError(payload: unknown, context: RequestContext): LLMError {
  const { message = 'the server reported an error mid-stream', type } = errorDetails(payload);
  const kind = kindOf(message, type);
  return createLLMError(
    kind === 'unknown' ? 'stream' : kind,
    `${context.provider}: ${type ? `${type}: ` : ''}${message}`,
    context,
  );
}

/**
 * A response body as a JSON object, or a non-retryable error that says what
 * came back instead (an HTML page usually means base_url is wrong).
 */
export function parseJsonObject(
  text: string,
  status: number,
  context: RequestContext,
  baseUrl: string,
): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  const snippet = text.trim().slice(0, 120);
  throw createLLMError(
    'unknown',
    `${context.provider}: the server answered HTTP ${status} with a body that is not a JSON object (${snippet ? `"${snippet}"` : 'empty'}); is base_url (${baseUrl}) the API root, e.g. https://api.anthropic.com?`,
    { ...context, status_code: status, retryable: false },
  );
}
