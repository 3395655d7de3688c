/**
 * What a provider tells hooks: the reference payloads of `llm:request`,
 * `llm:response` and `provider:retry` (the token-streaming events are in
 * block-events.ts).
 */

import type {
  ChatResponse,
  LLMRequestEvent,
  LLMResponseEvent,
  LLMResponseUsage,
  ProviderRetryEvent,
  Usage,
} from '@amplifier/core';
import { errorMessage, LLMError, redactSecrets } from '@amplifier/core';
import type { RequestContext } from './transport.js';

type Json = Record<string, unknown>;

/** What `llm:request` says beyond provider and model. */
export interface LlmRequestFacts {
  /** Messages in the wire body (after system hoisting and repair). */
  messageCount: number;
  /** A system or developer prompt is sent. */
  hasInstructions: boolean;
  /** Reasoning / extended thinking is on, with its token budget when it has one. */
  thinking: { enabled: boolean; budget: number | null };
  stream: boolean;
  toolCount: number;
  /** API-specific fields (Anthropic's `has_system`), after `has_instructions`. */
  extra?: Json;
  /** The wire body, sent (secrets redacted) as `raw` when config `raw` is on. */
  raw?: unknown;
}

/** The `llm:request` payload of the reference. */
export function llmRequestPayload(context: RequestContext, facts: LlmRequestFacts): LLMRequestEvent {
  return {
    provider: context.provider,
    model: context.model,
    message_count: facts.messageCount,
    has_instructions: facts.hasInstructions,
    ...facts.extra,
    reasoning_enabled: facts.thinking.enabled,
    thinking_enabled: facts.thinking.enabled,
    thinking_budget: facts.thinking.budget,
    background_mode: false,
    stream: facts.stream,
    tool_count: facts.toolCount,
    ...(facts.raw !== undefined && { raw: redactSecrets(facts.raw) }),
  };
}

/**
 * The normative `llm:response` usage: `input_tokens` (gross, cache reads
 * included), `output_tokens`, and cache, reasoning and cost fields only when
 * present and non-zero. No `total_tokens`.
 */
export function usagePayload(usage: Usage | undefined): LLMResponseUsage {
  return {
    input_tokens: usage?.input_tokens ?? 0,
    output_tokens: usage?.output_tokens ?? 0,
    ...(usage?.cache_read_tokens && { cache_read_tokens: usage.cache_read_tokens }),
    ...(usage?.cache_write_tokens && { cache_write_tokens: usage.cache_write_tokens }),
    ...(usage?.reasoning_tokens && { reasoning_tokens: usage.reasoning_tokens }),
    ...(usage?.cost_usd !== undefined && { cost_usd: usage.cost_usd }),
  };
}

/** `llm:response` of a call that succeeded; `raw` includes the response (secrets redacted). */
export function llmResponsePayload(
  context: RequestContext,
  response: ChatResponse,
  facts: { durationMs: number; rateLimits?: Json | undefined; raw?: boolean },
): LLMResponseEvent {
  return {
    ...context,
    usage: usagePayload(response.usage),
    status: 'ok',
    duration_ms: Math.round(facts.durationMs),
    continuation_count: 0,
    ...(response.finish_reason !== undefined && { finish_reason: response.finish_reason }),
    ...(facts.rateLimits !== undefined && { rate_limits: facts.rateLimits }),
    ...(facts.raw === true && { raw: redactSecrets(response) }),
  };
}

/** `llm:response` of a call that failed: the message, and the LLMError's kind and status. */
export function llmErrorPayload(
  context: RequestContext,
  error: unknown,
  durationMs: number,
): LLMResponseEvent {
  return {
    ...context,
    status: 'error',
    duration_ms: Math.round(durationMs),
    error: errorMessage(error),
    ...(LLMError.is(error) && {
      error_kind: error.kind,
      ...(error.status_code !== undefined && { status_code: error.status_code }),
    }),
  };
}

/** The innermost `cause` (fetch wraps the socket error that says what happened). */
function rootCause(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 4; depth++) {
    const next =
      typeof current === 'object' && current !== null ? (current as { cause?: unknown }).cause : undefined;
    if (next === undefined || next === null) break;
    current = next;
  }
  return current;
}

/** `provider:retry` before retry number `attempt` (1-based), `delayMs` from now. */
export function providerRetryPayload(
  context: RequestContext,
  attempt: number,
  maxRetries: number,
  delayMs: number,
  error: LLMError,
): ProviderRetryEvent {
  return {
    ...context,
    attempt,
    max_retries: maxRetries,
    delay: delayMs / 1000,
    error_type: error.name,
    error_kind: error.kind,
    status_code: error.status_code ?? null,
    ...(error.retry_after !== undefined && { retry_after: error.retry_after }),
    error: error.message,
    ...(error.cause !== undefined && { cause: errorMessage(rootCause(error.cause)) }),
  };
}
