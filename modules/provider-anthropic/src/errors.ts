/**
 * How the Anthropic Messages API reports errors
 * (`{"type":"error","error":{"type","message"}}`, in-stream `error` events):
 * the kinds its error types name, the type and request id quoted in messages,
 * and the `anthropic-ratelimit-*` headers (reported in `llm:response`; an
 * exhausted limit's reset is the wait for a 429 without Retry-After). The
 * mapping itself is the provider kit's (`@amplifier/provider-http`).
 */
import type { LLMErrorKind } from '@amplifier/core';
import type { ApiErrorStyle } from '@amplifier/provider-http';

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

/**
 * The error type wins over the status (`overloaded_error` on 529 is
 * unavailable and retryable); `anthropic-ratelimit-<resource>-<field>` with
 * resets as RFC 3339 times.
 */
export const ERROR_STYLE: ApiErrorStyle = {
  kinds: KIND_BY_TYPE,
  showType: true,
  requestIdHeader: 'request-id',
  rateLimits: {
    resources: ['requests', 'tokens', 'input-tokens', 'output-tokens'],
    header: (resource, field) => `anthropic-ratelimit-${resource}-${field}`,
    resetSeconds(value, now) {
      const reset = Date.parse(value);
      return Number.isNaN(reset) ? undefined : (reset - now) / 1000;
    },
  },
};
