/**
 * How OpenAI-compatible servers report errors: the kinds their error codes
 * name, and the `x-ratelimit-*` headers (reported in `llm:response`; an
 * exhausted limit's reset is the wait for a 429 without Retry-After). The
 * mapping itself is the provider kit's (`@amplifier/provider-http`).
 */
import type { LLMErrorKind } from '@amplifier/core';
import type { ApiErrorStyle } from '@amplifier/provider-http';

const KIND_BY_CODE: Readonly<Record<string, LLMErrorKind>> = {
  insufficient_quota: 'quota_exceeded',
  billing_hard_limit_reached: 'quota_exceeded',
  context_length_exceeded: 'context_length',
  exceed_context_size_error: 'context_length',
  string_above_max_length: 'context_length',
  rate_limit_exceeded: 'rate_limit',
  invalid_api_key: 'authentication',
  model_not_found: 'not_found',
  content_filter: 'content_filter',
  content_policy_violation: 'content_filter',
  // Codes of a failed Responses API response (`response.failed`) and in-stream `error` events.
  invalid_prompt: 'invalid_request',
  previous_response_not_found: 'not_found',
};

/** OpenAI's reset durations: `1s`, `6m0s`, `20ms`, `1h2m3.5s`. */
export function parseDuration(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parts = [...value.trim().matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== value.trim()) return undefined;
  const unit: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600 };
  return parts.reduce((sum, p) => sum + Number(p[1]) * unit[p[2]!]!, 0);
}

/**
 * The error codes win over keywords (`insufficient_quota` on a 429 is quota,
 * not rate limit); `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`
 * with resets as durations.
 */
export const ERROR_STYLE: ApiErrorStyle = {
  kinds: KIND_BY_CODE,
  rateLimits: {
    resources: ['requests', 'tokens'],
    header: (resource, field) => `x-ratelimit-${field}-${resource}`,
    resetSeconds: (value) => parseDuration(value),
  },
};
