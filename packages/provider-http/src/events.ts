/**
 * What a provider tells hooks: the reference payloads of `llm:request`,
 * `llm:response` and `provider:retry`, and the `llm:stream_block_start|delta|end`
 * events derived from stream events (emitted while streaming, also when
 * `complete()` streams internally).
 */

import type {
  ChatResponse,
  LLMRequestEvent,
  LLMResponseEvent,
  LLMResponseUsage,
  ProviderRetryEvent,
  StreamEvent,
  Usage,
} from '@amplifier/core';
import { errorMessage, LLMError, redactSecrets } from '@amplifier/core';
import type { RequestContext } from './transport.js';

type Json = Record<string, unknown>;

/** Anything with a HookRegistry-like `emit` (the coordinator's `hooks`, an `EventRecorder`). */
export interface EventEmitterLike {
  emit(event: string, data: Record<string, unknown>): Promise<unknown>;
}

/** Events a streaming provider emits beyond the canonical set (declared on `observability.events`). */
export const PROVIDER_STREAM_EVENTS: readonly string[] = [
  'llm:stream_block_start',
  'llm:stream_block_delta',
  'llm:stream_block_end',
  'llm:stream_aborted',
];

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
  };
}

type Emit = (event: string, data: Json) => Promise<void>;

/**
 * Turns stream events into block events. Text and thinking deltas form one
 * block per run of the same kind; each tool call is its own block (start at
 * `tool_call.start`, end at `tool_call.end`). Blocks are numbered from 0 in
 * the order they start.
 */
export class BlockEvents {
  readonly #emit: Emit;
  readonly #base: Json;
  #next = 0;
  #open: { index: number; type: 'text' | 'thinking' } | undefined;
  readonly #calls = new Map<string, number>();

  constructor(emit: Emit, base: Json) {
    this.#emit = emit;
    this.#base = base;
  }

  async on(event: StreamEvent): Promise<void> {
    switch (event.type) {
      case 'text.delta':
      case 'thinking.delta': {
        const type = event.type === 'text.delta' ? 'text' : 'thinking';
        if (this.#open?.type !== type) {
          await this.#closeOpen();
          this.#open = { index: this.#next++, type };
          await this.#block('start', this.#open.index, type);
        }
        await this.#block('delta', this.#open.index, type, { delta: event.text });
        return;
      }
      case 'tool_call.start': {
        await this.#closeOpen();
        const index = this.#next++;
        this.#calls.set(event.id, index);
        await this.#block('start', index, 'tool_call', { id: event.id, name: event.name });
        return;
      }
      case 'tool_call.delta':
        await this.#block('delta', this.#calls.get(event.id) ?? -1, 'tool_call', {
          id: event.id,
          delta: event.arguments_fragment,
        });
        return;
      case 'tool_call.end':
        await this.#block('end', this.#calls.get(event.id) ?? -1, 'tool_call', { id: event.id });
        return;
      case 'message.end':
        await this.#closeOpen();
        return;
      default:
        return;
    }
  }

  #block(phase: 'start' | 'delta' | 'end', index: number, type: string, fields: Json = {}): Promise<void> {
    return this.#emit(`llm:stream_block_${phase}`, { ...this.#base, index, block_type: type, ...fields });
  }

  async #closeOpen(): Promise<void> {
    if (this.#open === undefined) return;
    const { index, type } = this.#open;
    this.#open = undefined;
    await this.#block('end', index, type);
  }
}
