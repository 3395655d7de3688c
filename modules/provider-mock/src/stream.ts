/**
 * A finished ChatResponse replayed as a stream: `Provider.stream()` events in
 * fragments of a configurable size with a configurable pause between them.
 * The token-streaming events of Amplifier's contract are derived from them by
 * the provider kit's `BlockEvents`.
 */
import { type ChatResponse, type StreamEvent, sleep, stringifyJson } from '@amplifier/core';

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
 * `tool_calls`; then `message.end` with the whole response. With `cut`, the
 * stream throws it after the content blocks: a stream that fails after
 * partial output.
 */
export async function* responseEvents(
  response: ChatResponse,
  model: string,
  pace: StreamPace,
  cut?: Error,
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
  if (cut !== undefined) throw cut;
  for (const call of response.tool_calls ?? []) {
    pace.check();
    yield { type: 'tool_call.start', id: call.id, name: call.name };
    yield { type: 'tool_call.delta', id: call.id, arguments_fragment: stringifyJson(call.arguments) };
    yield { type: 'tool_call.end', id: call.id, name: call.name, arguments: call.arguments };
  }
  pace.check();
  yield { type: 'message.end', response };
}
