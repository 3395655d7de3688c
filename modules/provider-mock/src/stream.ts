/**
 * A finished ChatResponse replayed as a stream: `Provider.stream()` events in
 * fragments of a configurable size with a configurable pause between them,
 * and the token-streaming events of Amplifier's contract
 * (`llm:stream_block_start|delta|end`, `llm:stream_aborted`) derived from them.
 */
import { type ChatResponse, errorMessage, type StreamEvent, sleep, stringifyJson } from '@amplifier/core';

/** How a response is streamed. */
export interface StreamPace {
  /** Characters (code points) per text or thinking fragment. */
  chunkChars: number;
  /** Pause before each fragment after the first, in ms (0: none). */
  delayMs: number;
  signal?: AbortSignal | undefined;
  /** Runs before each event; throws to end the stream (the abort error). */
  check(): void;
  /** Turns the reason of an abort during a pause into the error to throw. */
  abortError(reason: unknown): Error;
}

/** `text` cut into pieces of `size` code points (a surrogate pair is never split). */
export function fragments(text: string, size: number): string[] {
  const chars = Array.from(text);
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(''));
  return pieces;
}

/**
 * `message.start`, then per content block in order: `thinking.delta` /
 * `text.delta` fragments (the pieces join back to the text), or
 * `tool_call.start`/`.delta`/`.end` for a `tool_call` block; then `tool_call.start`,
 * `.delta` (the arguments as JSON: core's `stringifyJson`, so arguments deeper
 * than `MAX_DATA_DEPTH` carry its marker) and `.end` per entry of
 * `tool_calls`; then `message.end` with the whole response.
 */
export async function* responseEvents(
  response: ChatResponse,
  model: string,
  pace: StreamPace,
): AsyncGenerator<StreamEvent> {
  let sent = 0;
  const before = async (): Promise<void> => {
    pace.check();
    if (sent++ > 0 && pace.delayMs > 0) {
      try {
        await sleep(pace.delayMs, pace.signal);
      } catch (reason) {
        throw pace.abortError(reason);
      }
    }
  };
  pace.check();
  yield { type: 'message.start', model };
  for (const [index, block] of response.content.entries()) {
    if (block.type === 'tool_call') {
      pace.check();
      yield { type: 'tool_call.start', id: block.id, name: block.name };
      yield { type: 'tool_call.delta', id: block.id, arguments_fragment: stringifyJson(block.input) };
      yield { type: 'tool_call.end', id: block.id, name: block.name, arguments: block.input };
      continue;
    }
    let type: 'text.delta' | 'thinking.delta';
    let text: string;
    if (block.type === 'text') [type, text] = ['text.delta', block.text];
    else if (block.type === 'thinking') [type, text] = ['thinking.delta', block.thinking];
    else continue;
    for (const piece of fragments(text, pace.chunkChars)) {
      await before();
      yield { type, index, text: piece };
    }
  }
  for (const call of response.tool_calls ?? []) {
    pace.check();
    yield { type: 'tool_call.start', id: call.id, name: call.name };
    yield { type: 'tool_call.delta', id: call.id, arguments_fragment: stringifyJson(call.arguments) };
    yield { type: 'tool_call.end', id: call.id, name: call.name, arguments: call.arguments };
  }
  pace.check();
  yield { type: 'message.end', response };
}

type Emit = (event: string, data: Record<string, unknown>) => Promise<void>;

/**
 * The contract's events from the stream above: one block per content block
 * (a change of `index` or a tool call starts the next and ends the open one),
 * numbered from 0 in one index space; a delta per non-empty fragment with a
 * per-block `sequence`; tool calls get start (with `name`) and end only;
 * `aborted(error)` emits `llm:stream_aborted` when a delta was emitted.
 */
export class ContractEvents {
  readonly #emit: Emit;
  readonly #requestId: string;
  #next = 0;
  #deltas = 0;
  #open: { index: number; type: 'text' | 'thinking' | 'tool_use'; key: string; sequence: number } | undefined;

  constructor(emit: Emit, requestId: string) {
    this.#emit = emit;
    this.#requestId = requestId;
  }

  async on(event: StreamEvent): Promise<void> {
    if (event.type === 'text.delta' || event.type === 'thinking.delta') {
      if (event.text === '') return;
      const type = event.type === 'text.delta' ? 'text' : 'thinking';
      const key = `${type}:${event.index ?? ''}`;
      if (this.#open?.key !== key) await this.#start(type, key);
      const open = this.#open!;
      this.#deltas++;
      await this.#emit('llm:stream_block_delta', {
        request_id: this.#requestId,
        block_index: open.index,
        block_type: type,
        sequence: open.sequence++,
        text: event.text,
      });
    } else if (event.type === 'tool_call.start') {
      await this.#start('tool_use', `tool:${event.id}`, event.name);
    } else if (event.type === 'tool_call.end' || event.type === 'message.end') {
      await this.end();
    }
  }

  /** End the open block, if any. */
  async end(): Promise<void> {
    const open = this.#open;
    if (open === undefined) return;
    this.#open = undefined;
    await this.#emit('llm:stream_block_end', {
      request_id: this.#requestId,
      block_index: open.index,
      block_type: open.type,
    });
  }

  /** The stream failed: `llm:stream_aborted` when at least one delta was emitted. */
  async aborted(error: unknown): Promise<void> {
    this.#open = undefined;
    if (this.#deltas === 0) return;
    await this.#emit('llm:stream_aborted', {
      request_id: this.#requestId,
      error: {
        type: error instanceof Error && error.name !== '' ? error.name : 'Error',
        msg: errorMessage(error),
      },
    });
  }

  async #start(type: 'text' | 'thinking' | 'tool_use', key: string, name?: string): Promise<void> {
    await this.end();
    const index = this.#next++;
    this.#open = { index, type, key, sequence: 0 };
    await this.#emit('llm:stream_block_start', {
      request_id: this.#requestId,
      block_index: index,
      block_type: type,
      ...(name !== undefined && name !== '' && { name }),
    });
  }
}
