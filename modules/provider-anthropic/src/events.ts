/**
 * What the provider tells hooks: the `llm:response` usage payload and the
 * `llm:stream_block_start|delta|end` events derived from stream events
 * (emitted while streaming, also when `complete()` streams internally).
 */
import type { StreamEvent, Usage } from '@amplifier/core';

/** Anything with a HookRegistry-like `emit` (the coordinator's `hooks`, an `EventRecorder`). */
export interface EventEmitterLike {
  emit(event: string, data: Record<string, unknown>): Promise<unknown>;
}

/** Events this provider emits beyond the canonical set (declared on `observability.events`). */
export const EXTRA_EVENTS: readonly string[] = [
  'llm:stream_block_start',
  'llm:stream_block_delta',
  'llm:stream_block_end',
  'llm:stream_aborted',
];

type Emit = (event: string, data: Record<string, unknown>) => Promise<void>;

/**
 * The normative `llm:response` usage: `input_tokens` (gross, cache reads
 * included), `output_tokens`, and cache, reasoning and cost fields only when
 * present and non-zero. No `total_tokens`.
 */
export function usagePayload(usage: Usage | undefined): Record<string, unknown> {
  return {
    input_tokens: usage?.input_tokens ?? 0,
    output_tokens: usage?.output_tokens ?? 0,
    ...(usage?.cache_read_tokens && { cache_read_tokens: usage.cache_read_tokens }),
    ...(usage?.cache_write_tokens && { cache_write_tokens: usage.cache_write_tokens }),
    ...(usage?.reasoning_tokens && { reasoning_tokens: usage.reasoning_tokens }),
    ...(usage?.cost_usd !== undefined && { cost_usd: usage.cost_usd }),
  };
}

/**
 * Turns stream events into block events. Text and thinking deltas form one
 * block per run of the same kind; each tool call is its own block (start at
 * `tool_call.start`, end at `tool_call.end`). Blocks are numbered from 0 in
 * the order they start.
 */
export class BlockEvents {
  readonly #emit: Emit;
  readonly #base: Record<string, unknown>;
  #next = 0;
  #open: { index: number; type: 'text' | 'thinking' } | undefined;
  readonly #calls = new Map<string, number>();

  constructor(emit: Emit, base: Record<string, unknown>) {
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
          await this.#emit('llm:stream_block_start', {
            ...this.#base,
            index: this.#open.index,
            block_type: type,
          });
        }
        await this.#emit('llm:stream_block_delta', {
          ...this.#base,
          index: this.#open.index,
          block_type: type,
          delta: event.text,
        });
        return;
      }
      case 'tool_call.start': {
        await this.#closeOpen();
        const index = this.#next++;
        this.#calls.set(event.id, index);
        await this.#emit('llm:stream_block_start', {
          ...this.#base,
          index,
          block_type: 'tool_call',
          id: event.id,
          name: event.name,
        });
        return;
      }
      case 'tool_call.delta':
        await this.#emit('llm:stream_block_delta', {
          ...this.#base,
          index: this.#calls.get(event.id) ?? -1,
          block_type: 'tool_call',
          id: event.id,
          delta: event.arguments_fragment,
        });
        return;
      case 'tool_call.end':
        await this.#emit('llm:stream_block_end', {
          ...this.#base,
          index: this.#calls.get(event.id) ?? -1,
          block_type: 'tool_call',
          id: event.id,
        });
        return;
      case 'message.end':
        await this.#closeOpen();
        return;
      default:
        return;
    }
  }

  async #closeOpen(): Promise<void> {
    if (this.#open === undefined) return;
    const { index, type } = this.#open;
    this.#open = undefined;
    await this.#emit('llm:stream_block_end', { ...this.#base, index, block_type: type });
  }
}
