/**
 * HTTP error responses and in-stream error payloads of LLM APIs as core's
 * LLMError kinds, with `status_code`, `retryable` and `retry_after`. What
 * differs between APIs (the kinds their error codes name, their rate-limit
 * headers, how messages quote them) is an `ApiErrorStyle` the provider gives.
 */
import {
  createLLMError,
  LLM_ERROR_KINDS,
  LLM_ERROR_TABLE,
  type LLMError,
  type LLMErrorKind,
  type LLMErrorKindInfo,
} from '@amplifier/core';
import { type HttpHeaders, header, type RequestContext, retryAfterFrom } from './transport.js';

/** What an error payload says, in any of the shapes servers use. */
export interface ErrorDetails {
  message?: string;
  code?: string;
  type?: string;
  /** Seconds to wait that the body names (Gemini's `RetryInfo`), preferred over `Retry-After`. */
  retry_after?: number;
}

/** How an API names its rate-limit headers: a limit, what remains and when it resets, per resource. */
export interface RateLimitScheme {
  /** `requests`, `tokens`, `input-tokens`... */
  resources: readonly string[];
  /** The header of one field: `x-ratelimit-remaining-requests`, `anthropic-ratelimit-requests-remaining`. */
  header(resource: string, field: 'limit' | 'remaining' | 'reset'): string;
  /** Seconds from `now` until the time a reset header names (a duration or a date). */
  resetSeconds(value: string, now: number): number | undefined;
}

/** How one API reports errors. */
export interface ApiErrorStyle {
  /** Kinds by the payload's `code`, else its `type` (`insufficient_quota`, `overloaded_error`). */
  kinds: Readonly<Record<string, LLMErrorKind>>;
  /** Its rate-limit headers: reported in `llm:response`, and the wait for a 429 without Retry-After. */
  rateLimits?: RateLimitScheme;
  /** Quote the payload's `type` in messages: `anthropic (HTTP 529 overloaded_error): Overloaded`. */
  showType?: boolean;
  /** A response header whose request id ends the message: `[request-id req_1]`. */
  requestIdHeader?: string;
  /**
   * Reads an error payload of the API's own shape (default: `errorDetails`),
   * e.g. Gemini's `{error: {code: 429, status, details: [RetryInfo...]}}`;
   * `retry_after` (seconds) is a wait the body names, preferred over `Retry-After`.
   */
  readError?(payload: unknown): ErrorDetails;
}

/** An error response, its body read (bounded) as text. */
export interface HttpFailure {
  status: number;
  headers: HttpHeaders;
  body: string;
}

/**
 * Messages that mean "the prompt does not fit", across OpenAI, Anthropic,
 * vLLM, llama.cpp, Ollama and OpenRouter.
 */
export const CONTEXT_LENGTH_PATTERN: RegExp =
  /context[ _](length|window|size)|maximum context|too many tokens|prompt is too long|exceeds? (the )?(model'?s? )?(maximum )?context|reduce the length of the (messages|prompt)|input length and `?max_tokens`? exceed context limit/i;

/**
 * `{message, code, type}` of `{"error": {...}}`, `{"error": "text"}`,
 * `{"detail": "text"}`, `{"message": ...}` (non-empty strings only).
 */
export function errorDetails(payload: unknown): ErrorDetails {
  if (typeof payload !== 'object' || payload === null) return {};
  const outer = payload as Record<string, unknown>;
  const inner =
    typeof outer.error === 'object' && outer.error !== null
      ? (outer.error as Record<string, unknown>)
      : outer;
  const text = (value: unknown): string | undefined =>
    typeof value === 'string' && value !== '' ? value : undefined;
  const details: ErrorDetails = {};
  const message = text(inner.message) ?? text(outer.error) ?? text(outer.detail) ?? text(outer.message);
  if (message !== undefined) details.message = message;
  const code = text(inner.code);
  if (code !== undefined) details.code = code;
  const type = text(inner.type);
  if (type !== undefined) details.type = type;
  return details;
}

const MESSAGE_RULES: ReadonlyArray<readonly [LLMErrorKind, readonly string[]]> = [
  ['context_length', ['context length', 'too many tokens', 'maximum context']],
  ['rate_limit', ['rate limit', 'too many requests']],
  ['authentication', ['authentication', 'api key', 'unauthorized']],
  ['not_found', ['not found']],
  ['content_filter', ['content filter', 'safety', 'blocked']],
];

/** The kind an HTTP status means whatever the body says: the `status` column of core's `LLM_ERROR_TABLE`. */
function kindOfStatus(status: number): LLMErrorKind | undefined {
  return LLM_ERROR_KINDS.find((kind) => {
    const statuses: readonly (number | '5xx')[] | undefined = (LLM_ERROR_TABLE[kind] as LLMErrorKindInfo)
      .status;
    return statuses?.some((s) => s === status || (s === '5xx' && status >= 500 && status <= 599));
  });
}

/**
 * Classify a provider failure (the reference's `classify_error_message`): a status with a kind in
 * `LLM_ERROR_TABLE` wins (401, 402, 403, 404, 408, 413, 429, 5xx; overloaded 529 is `unavailable`),
 * otherwise keywords in the message; unmatched 400/422 is `invalid_request`, anything else `unknown`.
 */
export function classifyErrorMessage(message: string, options: { status_code?: number } = {}): LLMErrorKind {
  const status = options.status_code;
  const byStatus = status === undefined ? undefined : kindOfStatus(status);
  if (byStatus !== undefined) return byStatus;
  const lower = message.toLowerCase();
  for (const [kind, needles] of MESSAGE_RULES) {
    if (needles.some((needle) => lower.includes(needle))) return kind;
  }
  if (status === 400 || status === 422) return 'invalid_request';
  return 'unknown';
}

/**
 * The kind of a provider failure, extending `classifyErrorMessage`: the kind
 * the API's own code or type names wins; then
 * context-length messages are found in 400 and 413 bodies and in streams
 * (no status); then `classifyErrorMessage` (the status, else keywords).
 */
export function classifyProviderError(
  message: string,
  details: ErrorDetails,
  style: ApiErrorStyle,
  status?: number,
): LLMErrorKind {
  const own = (key: string | undefined): LLMErrorKind | undefined =>
    key !== undefined && Object.hasOwn(style.kinds, key) ? style.kinds[key] : undefined;
  const named = own(details.code) ?? own(details.type);
  if (named !== undefined) return named;
  if ((status === undefined || status === 400 || status === 413) && CONTEXT_LENGTH_PATTERN.test(message))
    return 'context_length';
  return classifyErrorMessage(message, status === undefined ? {} : { status_code: status });
}

/**
 * An error response as an LLMError. `x-should-retry` overrides `retryable`;
 * a 409 (a lock on the server) is worth another try; a wait (Retry-After,
 * else the style's rate-limit reset on a 429) longer than `maxRetryAfterMs`
 * is not retried, and the message says so.
 */
export function httpStatusError(
  style: ApiErrorStyle,
  failure: HttpFailure,
  context: RequestContext,
  maxRetryAfterMs: number,
  now: number = Date.now(),
): LLMError {
  const { status, headers } = failure;
  let payload: unknown;
  try {
    payload = JSON.parse(failure.body);
  } catch {
    payload = undefined;
  }
  const details = style.readError?.(payload) ?? errorDetails(payload);
  const snippet = failure.body.trim().slice(0, 300);
  const message = details.message ?? (snippet || `HTTP ${status}`);
  const kind = classifyProviderError(message, details, style, status);
  let wait =
    details.retry_after !== undefined
      ? { seconds: details.retry_after, source: 'body' }
      : retryAfterFrom(headers, now);
  if (wait === undefined && status === 429 && style.rateLimits !== undefined)
    wait = exhaustedLimit(headers, style.rateLimits, now);
  const retryAfter = wait?.seconds;
  const shouldRetry = header(headers, 'x-should-retry');
  let retryable: boolean | undefined =
    shouldRetry === 'true' ? true : shouldRetry === 'false' ? false : undefined;
  if (status === 409) retryable ??= true;
  const type = style.showType && details.type ? ` ${details.type}` : '';
  let text = `${context.provider} (HTTP ${status}${type}): ${message}`;
  const requestId = style.requestIdHeader === undefined ? undefined : header(headers, style.requestIdHeader);
  if (requestId !== undefined) text += ` [${style.requestIdHeader} ${requestId}]`;
  if (retryAfter !== undefined && retryAfter * 1000 > maxRetryAfterMs && kind !== 'quota_exceeded') {
    retryable = false;
    text += ` (the server asked to wait ${retryAfter}s, longer than max_retry_delay)`;
  }
  return createLLMError(kind, text, {
    ...context,
    status_code: status,
    ...(retryable !== undefined && { retryable }),
    ...(wait !== undefined && { retry_after: wait.seconds, retry_after_source: wait.source }),
  });
}

/**
 * The rate-limit headers as `{requests_limit, requests_remaining, requests_reset,
 * input_tokens_limit, ...}` (integers as numbers), or undefined when there are none.
 */
export function rateLimitFields(
  headers: HttpHeaders,
  scheme: RateLimitScheme,
): Record<string, number | string> | undefined {
  let out: Record<string, number | string> | undefined;
  for (const resource of scheme.resources) {
    for (const field of ['limit', 'remaining', 'reset'] as const) {
      const value = header(headers, scheme.header(resource, field));
      if (value === undefined) continue;
      out ??= {};
      out[`${resource.replaceAll('-', '_')}_${field}`] = /^\d+$/.test(value) ? Number(value) : value;
    }
  }
  return out;
}

/** Seconds until the latest reset of a limit with nothing remaining, or undefined when none is exhausted. */
export function exhaustedLimitWait(
  headers: HttpHeaders,
  scheme: RateLimitScheme,
  now: number = Date.now(),
): number | undefined {
  return exhaustedLimit(headers, scheme, now)?.seconds;
}

/** `exhaustedLimitWait` and the reset header it was read from. */
function exhaustedLimit(
  headers: HttpHeaders,
  scheme: RateLimitScheme,
  now: number,
): { seconds: number; source: string } | undefined {
  let wait: { seconds: number; source: string } | undefined;
  for (const resource of scheme.resources) {
    if (header(headers, scheme.header(resource, 'remaining')) !== '0') continue;
    const name = scheme.header(resource, 'reset');
    const reset = header(headers, name);
    const seconds = reset === undefined ? undefined : scheme.resetSeconds(reset, now);
    if (seconds !== undefined && seconds >= (wait?.seconds ?? 0)) wait = { seconds, source: name };
  }
  return wait;
}

/** An error payload received inside a stream; a kind nobody names is a (retryable) stream error. */
export function streamPayloadError(
  style: ApiErrorStyle,
  payload: unknown,
  context: RequestContext,
): LLMError {
  const details = style.readError?.(payload) ?? errorDetails(payload);
  const message = details.message ?? 'the server reported an error mid-stream';
  const kind = classifyProviderError(message, details, style);
  const type = style.showType && details.type ? `${details.type}: ` : '';
  return createLLMError(
    kind === 'unknown' ? 'stream' : kind,
    `${context.provider}: ${type}${message}`,
    context,
  );
}

/**
 * A response body as a JSON object, or a non-retryable error that says what
 * came back instead (an HTML page usually means base_url is not the API root;
 * `example` shows a right one).
 */
export function parseJsonObject(
  text: string,
  status: number,
  context: RequestContext,
  where: { baseUrl: string; example: string },
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
    `${context.provider}: the server answered HTTP ${status} with a body that is not a JSON object (${snippet ? `"${snippet}"` : 'empty'}); is base_url (${where.baseUrl}) the API root, e.g. ${where.example}?`,
    { ...context, status_code: status, retryable: false },
  );
}
