/**
 * HTTP error responses and in-stream error payloads of OpenAI-compatible
 * servers as core's LLMError kinds, with `status_code`, `retryable` and
 * `retry_after` (Retry-After, retry-after-ms, or the x-ratelimit reset
 * headers); and the rate-limit headers as an `llm:response` field.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { classifyErrorMessage, createLLMError, type LLMError, type LLMErrorKind } from '@amplifier/core';
import { header, type RequestContext, retryAfterSeconds } from './http.js';

/** Messages that mean "the prompt does not fit", across OpenAI, vLLM, llama.cpp, Ollama, OpenRouter. */
const CONTEXT_PATTERN =
  /context[ _](length|window|size)|maximum context|too many tokens|prompt is too long|exceeds? (the )?(model'?s? )?(maximum )?context|reduce the length of the (messages|prompt)/i;

const KIND_BY_CODE: Readonly<Record<string, LLMErrorKind>> = {
  insufficient_quota: 'quota_exceeded',
  context_length_exceeded: 'context_length',
  exceed_context_size_error: 'context_length',
  string_above_max_length: 'context_length',
  rate_limit_exceeded: 'rate_limit',
  invalid_api_key: 'authentication',
  model_not_found: 'not_found',
  content_filter: 'content_filter',
  content_policy_violation: 'content_filter',
};

/** The `{message, code, type}` of an error payload in any of the shapes servers use. */
export function errorDetails(payload: unknown): { message?: string; code?: string; type?: string } {
  if (typeof payload !== 'object' || payload === null) return {};
  const outer = payload as Record<string, unknown>;
  const inner =
    typeof outer.error === 'object' && outer.error !== null
      ? (outer.error as Record<string, unknown>)
      : outer;
  const text = (value: unknown): string | undefined =>
    typeof value === 'string' && value !== '' ? value : undefined;
  return {
    message: text(inner.message) ?? text(outer.error) ?? text(outer.detail) ?? text(outer.message),
    code: text(inner.code),
    type: text(inner.type),
  };
}

function kindOf(
  message: string,
  code: string | undefined,
  type: string | undefined,
  status?: number,
): LLMErrorKind {
  const byCode = KIND_BY_CODE[code ?? ''] ?? KIND_BY_CODE[type ?? ''];
  if (byCode !== undefined) return byCode;
  if (status === 402) return 'quota_exceeded'; // OpenRouter: out of credits
  if (status === 408) return 'timeout';
  if ((status === undefined || status === 400 || status === 413) && CONTEXT_PATTERN.test(message))
    return 'context_length';
  return classifyErrorMessage(message, status === undefined ? {} : { status_code: status });
}

/** Seconds until the soonest `x-ratelimit-reset-*` of a limit with nothing remaining. */
function rateLimitResetSeconds(headers: IncomingHttpHeaders): number | undefined {
  let wait: number | undefined;
  for (const resource of ['requests', 'tokens']) {
    if (header(headers, `x-ratelimit-remaining-${resource}`) !== '0') continue;
    const reset = parseDuration(header(headers, `x-ratelimit-reset-${resource}`));
    if (reset !== undefined) wait = Math.max(wait ?? 0, reset);
  }
  return wait;
}

/** OpenAI's reset durations: `1s`, `6m0s`, `20ms`, `1h2m3.5s`. */
export function parseDuration(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parts = [...value.trim().matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== value.trim()) return undefined;
  const unit: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600 };
  return parts.reduce((sum, p) => sum + Number(p[1]) * unit[p[2]!]!, 0);
}

/** The x-ratelimit headers as `{requests_limit, requests_remaining, requests_reset, tokens_...}`. */
export function rateLimits(headers: IncomingHttpHeaders): Record<string, number | string> | undefined {
  let out: Record<string, number | string> | undefined;
  for (const resource of ['requests', 'tokens']) {
    for (const field of ['limit', 'remaining', 'reset']) {
      const value = header(headers, `x-ratelimit-${field}-${resource}`);
      if (value === undefined) continue;
      out ??= {};
      out[`${resource}_${field}`] = /^\d+$/.test(value) ? Number(value) : value;
    }
  }
  return out;
}

/**
 * An error response as an LLMError. The body's code wins over keywords
 * (`insufficient_quota` on a 429 is quota, not rate limit); context-length
 * messages are found in 400 bodies; `x-should-retry` overrides `retryable`;
 * a wait longer than `maxRetryAfterMs` is not retried.
 */
export function httpError(
  status: number,
  headers: IncomingHttpHeaders,
  bodyText: string,
  context: RequestContext,
  maxRetryAfterMs: number,
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
  const kind = kindOf(message, details.code, details.type, status);
  let retryAfter = retryAfterSeconds(headers);
  if (retryAfter === undefined && status === 429) retryAfter = rateLimitResetSeconds(headers);
  const shouldRetry = header(headers, 'x-should-retry');
  let retryable: boolean | undefined =
    shouldRetry === 'true' ? true : shouldRetry === 'false' ? false : undefined;
  if (status === 409) retryable ??= true; // a lock timeout on the server: worth another try
  let text = `${context.provider} (HTTP ${status}): ${message}`;
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

/** An `{"error": ...}` payload received inside a stream. */
export function streamPayloadError(payload: unknown, context: RequestContext): LLMError {
  const { message = 'the server reported an error mid-stream', code, type } = errorDetails(payload);
  const kind = kindOf(message, code, type);
  return createLLMError(kind === 'unknown' ? 'stream' : kind, `${context.provider}: ${message}`, context);
}

/**
 * A response body as a JSON object, or a non-retryable error that says what
 * came back instead (an HTML page usually means base_url is not the API root).
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
  return throwError(
    createLLMError(
      'unknown',
      `${context.provider}: the server answered HTTP ${status} with a body that is not a JSON object (${snippet ? `"${snippet}"` : 'empty'}); is base_url (${baseUrl}) the API root, e.g. https://api.openai.com/v1 or http://localhost:11434/v1?`,
      { ...context, status_code: status, retryable: false },
    ),
  );
}

function throwError(error: LLMError): never {
  throw error;
}
