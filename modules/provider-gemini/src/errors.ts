/**
 * How the Gemini API (and Vertex AI) report errors: `{error: {code, message,
 * status, details}}` (also wrapped in an array), google.rpc status names as
 * kinds, `google.rpc.RetryInfo.retryDelay` (else "Please retry in 47.4s" in
 * the message) as the wait before a retry, a per-day quota as
 * `quota_exceeded` (not retried: it does not come back within minutes), and
 * Gemini's token-limit wording as `context_length`. The mapping itself is the
 * provider kit's (`@amplifier/provider-http`).
 */
import type { LLMErrorKind } from '@amplifier/core';
import type { ApiErrorStyle, ErrorDetails } from '@amplifier/provider-http';

type Json = Record<string, unknown>;

/** google.rpc status names (the `status` field), and the codes `readGeminiError` adds. */
const KIND_BY_STATUS: Readonly<Record<string, LLMErrorKind>> = {
  UNAUTHENTICATED: 'authentication',
  PERMISSION_DENIED: 'access_denied',
  NOT_FOUND: 'not_found',
  RESOURCE_EXHAUSTED: 'rate_limit',
  UNAVAILABLE: 'unavailable',
  INTERNAL: 'unavailable',
  DEADLINE_EXCEEDED: 'timeout',
  quota_per_day: 'quota_exceeded',
  context_length: 'context_length',
  api_key_invalid: 'authentication',
};

/** "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)." */
const TOKEN_LIMIT = /input token count.*exceeds the maximum|exceeds the maximum number of tokens/i;

/** "Please retry in 47.43s." / "retry in 520ms" */
const RETRY_IN = /retry in (\d+(?:\.\d+)?)\s*(ms|s)\b/i;

/** A protobuf Duration as JSON: `"58s"`, `"1.5s"`, or `{seconds, nanos}`. */
export function durationSeconds(value: unknown): number | undefined {
  if (typeof value === 'string') {
    const match = /^(\d+(?:\.\d+)?)s$/.exec(value.trim());
    return match ? Number(match[1]) : undefined;
  }
  if (typeof value === 'object' && value !== null) {
    const { seconds, nanos } = value as { seconds?: unknown; nanos?: unknown };
    const s = typeof seconds === 'string' || typeof seconds === 'number' ? Number(seconds) : 0;
    const n = typeof nanos === 'number' ? nanos / 1e9 : 0;
    const total = s + n;
    return Number.isFinite(total) && total > 0 ? total : undefined;
  }
  return undefined;
}

/**
 * What a Gemini error payload says: `message`, `type` (the status name,
 * quoted in messages), `code` for the cases the status alone does not tell
 * (a per-day quota, a prompt over the token limit, an invalid key), and
 * `retry_after` from RetryInfo or the message.
 */
export function readGeminiError(payload: unknown): ErrorDetails {
  const outer = (Array.isArray(payload) ? payload[0] : payload) as Json | undefined;
  if (typeof outer !== 'object' || outer === null) return {};
  const error = (typeof outer.error === 'object' && outer.error !== null ? outer.error : outer) as Json;
  const out: ErrorDetails = {};
  if (typeof error.message === 'string' && error.message !== '') out.message = error.message;
  if (typeof error.status === 'string' && error.status !== '') out.type = error.status;
  const details = Array.isArray(error.details) ? (error.details as unknown[]) : [];
  for (const detail of details) {
    if (typeof detail !== 'object' || detail === null) continue;
    const d = detail as Json;
    const type = typeof d['@type'] === 'string' ? d['@type'] : '';
    if (type.endsWith('google.rpc.RetryInfo')) {
      const seconds = durationSeconds(d.retryDelay);
      if (seconds !== undefined) out.retry_after = seconds;
    } else if (type.endsWith('google.rpc.QuotaFailure') && Array.isArray(d.violations)) {
      const perDay = (d.violations as Json[]).some(
        (v) => typeof v?.quotaId === 'string' && /PerDay/i.test(v.quotaId),
      );
      if (perDay) out.code = 'quota_per_day';
    } else if (type.endsWith('google.rpc.ErrorInfo') && d.reason === 'API_KEY_INVALID') {
      out.code = 'api_key_invalid';
    }
  }
  if (out.retry_after === undefined && out.message !== undefined) {
    const match = RETRY_IN.exec(out.message);
    if (match) out.retry_after = Number(match[1]) / (match[2]!.toLowerCase() === 'ms' ? 1000 : 1);
  }
  if (out.code === undefined && out.message !== undefined && TOKEN_LIMIT.test(out.message))
    out.code = 'context_length';
  return out;
}

/** Gemini's error style: kinds by status name, the status quoted, `x-goog-request-id` style ids not sent. */
export const ERROR_STYLE: ApiErrorStyle = {
  kinds: KIND_BY_STATUS,
  showType: true,
  readError: readGeminiError,
};
