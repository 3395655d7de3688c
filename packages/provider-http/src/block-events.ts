/**
 * The token-streaming events of Amplifier's provider contract
 * (`reference/streaming.md`), derived from `StreamEvent`s. Its own entry
 * (`@amplifier/provider-http/block-events`) imports nothing but core, so a
 * provider that streams without HTTP (provider-mock) uses it without loading
 * the rest of the kit.
 */
import { type EventKey, type EventPayload, errorMessage, type StreamEvent } from '@amplifier/core';

/** Events a streaming provider emits beyond the canonical set (declared on `observability.events`). */
export const PROVIDER_STREAM_EVENTS: readonly string[] = [
  'llm:stream_block_start',
  'llm:stream_block_delta',
  'llm:stream_block_end',
  'llm:stream_aborted',
];

/** Where the events go: a provider's emit (a failing hook is its concern, not this class's). */
type Emit = <E extends EventKey>(event: E, data: EventPayload<E>) => Promise<void>;

/** The `error` of `llm:stream_aborted` (and of other payloads): the error's class name and message. */
export function errorInfo(error: unknown): { type: string; msg: string } {
  return {
    type: error instanceof Error && error.name !== '' ? error.name : 'Error',
    msg: errorMessage(error),
  };
}

/** The block a `BlockEvents` has started and not ended. */
interface OpenBlock {
  index: number;
  type: 'text' | 'thinking' | 'tool_use';
  /** The wire's own index of the block, when it has one. */
  wire?: number;
  /** The tool call's id (`tool_use`). */
  id?: string;
  sequence: number;
}

const DONE: Promise<void> = Promise.resolve();

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
  #open: OpenBlock | undefined;
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

  /**
   * The contract's events for one stream event, emitted in order; resolves
   * when the hooks have run. A delta of the open block (the hot path) is one
   * emit, returned as it is.
   */
  on(event: StreamEvent): Promise<void> {
    if (event.type === 'text.delta' || event.type === 'thinking.delta') {
      if (event.text === '') return DONE;
      const type = event.type === 'text.delta' ? 'text' : 'thinking';
      const open = this.#open;
      if (
        open === undefined ||
        open.type !== type ||
        (event.index !== undefined && open.wire !== event.index)
      ) {
        return this.#startAndDelta(type, event.index, event.text);
      }
      return this.#delta(open, event.text);
    }
    switch (event.type) {
      case 'tool_call.start':
        return this.#start('tool_use', { id: event.id }, event.name);
      case 'tool_call.end':
        return this.#open?.type === 'tool_use' && this.#open.id === event.id ? this.end() : DONE;
      case 'message.end':
        return this.end();
      default:
        return DONE; // message.start, tool-input JSON, errors: no event
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

  async #startAndDelta(type: 'text' | 'thinking', index: number | undefined, text: string): Promise<void> {
    await this.#start(type, index === undefined ? {} : { wire: index });
    await this.#delta(this.#open!, text);
  }

  #delta(block: OpenBlock, text: string): Promise<void> {
    this.#deltas++;
    return this.#send('llm:stream_block_delta', {
      request_id: this.requestId,
      block_index: block.index,
      block_type: block.type as 'text' | 'thinking',
      sequence: block.sequence++,
      text,
    });
  }

  #send<E extends EventKey>(event: E, data: EventPayload<E>): Promise<void> {
    this.#emitted++;
    return this.#emit(event, data);
  }
}
