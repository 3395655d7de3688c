/**
 * What a provider tells hooks: the reference payloads of `llm:request`,
 * `llm:response` and `provider:retry`, and the token-streaming events
 * (`llm:stream_block_start|delta|end`, `llm:stream_aborted`) derived from
 * stream events (emitted while streaming, also when `complete()` streams
 * internally).
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

/** The `error` of `llm:stream_aborted` (and of other payloads): the error's class name and message. */
export function errorInfo(error: unknown): { type: string; msg: string } {
  return {
    type: error instanceof Error && error.name !== '' ? error.name : 'Error',
    msg: errorMessage(error),
  };
}

/**
 * The token-streaming contract of Amplifier's providers, from stream events:
 * `llm:stream_block_start` (`request_id`, `block_index`, `block_type`, `name`
 * for a named `tool_use`), `llm:stream_block_delta` (`sequence` per block,
 * `text`) for every non-empty text or thinking fragment, `llm:stream_block_end`,
 * and `llm:stream_aborted` (`request_id`, `error: { type, msg }`) when the
 * stream fails after at least one delta.
 *
 * One block is open at a time: a change of kind (thinking → text → tool
 * call), of the wire's block `index`, or a new tool call ends the open block
 * and starts the next, so chunk wires (Chat Completions) get their block
 * boundaries synthesised; `message.end` (or `end()`) ends the open block.
 * Tool-input JSON (`tool_call.delta`) emits nothing, nor does an empty
 * fragment. Blocks are numbered from 0 in the order they start, one index
 * space for every block type.
 */
export class BlockEvents {
  readonly #emit: Emit;
  /** The `request_id` of every event this instance emits. */
  readonly requestId: string;
  #next = 0;
  #open:
    | { index: number; type: 'text' | 'thinking' | 'tool_use'; wire?: number; id?: string; sequence: number }
    | undefined;
  #deltas = 0;
  #emitted = 0;

  constructor(emit: Emit, requestId: string) {
    this.#emit = emit;
    this.requestId = requestId;
  }

  /** How many `llm:stream_block_delta` events were emitted. */
  get deltas(): number {
    return this.#deltas;
  }

  /** How many stream events of any kind were emitted. */
  get emitted(): number {
    return this.#emitted;
  }

  async on(event: StreamEvent): Promise<void> {
    switch (event.type) {
      case 'text.delta':
      case 'thinking.delta': {
        if (event.text === '') return;
        const type = event.type === 'text.delta' ? 'text' : 'thinking';
        const open = this.#open;
        if (
          open === undefined ||
          open.type !== type ||
          (event.index !== undefined && open.wire !== event.index)
        ) {
          await this.#start(type, event.index === undefined ? {} : { wire: event.index });
        }
        const block = this.#open!;
        this.#deltas++;
        await this.#send('llm:stream_block_delta', {
          request_id: this.requestId,
          block_index: block.index,
          block_type: type,
          sequence: block.sequence++,
          text: event.text,
        });
        return;
      }
      case 'tool_call.start':
        await this.#start('tool_use', { id: event.id }, event.name);
        return;
      case 'tool_call.end':
        if (this.#open?.type === 'tool_use' && this.#open.id === event.id) await this.end();
        return;
      case 'message.end':
        await this.end();
        return;
      default:
        return; // message.start, tool-input JSON, errors: no event
    }
  }

  /** End the open block, if any (the stream ended). */
  async end(): Promise<void> {
    const open = this.#open;
    if (open === undefined) return;
    this.#open = undefined;
    await this.#send('llm:stream_block_end', {
      request_id: this.requestId,
      block_index: open.index,
      block_type: open.type,
    });
  }

  /** The stream failed: `llm:stream_aborted` when at least one delta was emitted, else nothing. */
  async aborted(error: unknown): Promise<void> {
    this.#open = undefined;
    if (this.#deltas === 0) return;
    await this.#send('llm:stream_aborted', { request_id: this.requestId, error: errorInfo(error) });
  }

  async #start(
    type: 'text' | 'thinking' | 'tool_use',
    where: { wire?: number; id?: string },
    name?: string,
  ): Promise<void> {
    await this.end();
    const index = this.#next++;
    this.#open = { index, type, sequence: 0, ...where };
    await this.#send('llm:stream_block_start', {
      request_id: this.requestId,
      block_index: index,
      block_type: type,
      ...(type === 'tool_use' && name !== undefined && name !== '' && { name }),
    });
  }

  #send(event: string, data: Json): Promise<void> {
    this.#emitted++;
    return this.#emit(event, data);
  }
}
