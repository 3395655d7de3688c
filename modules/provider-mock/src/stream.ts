/** A finished ChatResponse replayed as `Provider.stream()` events. */
import { type ChatResponse, type StreamEvent, stringifyJson } from '@amplifier/core';

/**
 * `message.start`, then `thinking.delta` / `text.delta` per word (whitespace
 * kept, so the pieces join back to the text), then `tool_call.start`,
 * `.delta` (the arguments as JSON: core's `stringifyJson`, so arguments
 * deeper than `MAX_DATA_DEPTH` carry its marker) and `.end` per call, then `message.end`
 * with the whole response. `check` runs before each event and may throw (abort).
 */
export async function* responseEvents(
  response: ChatResponse,
  model: string,
  check: () => void,
): AsyncGenerator<StreamEvent> {
  check();
  yield { type: 'message.start', model };
  for (const [index, block] of response.content.entries()) {
    let type: 'text.delta' | 'thinking.delta';
    let text: string;
    if (block.type === 'text') [type, text] = ['text.delta', block.text];
    else if (block.type === 'thinking') [type, text] = ['thinking.delta', block.thinking];
    else continue;
    for (const piece of text.match(/\s*\S+\s*|\s+/g) ?? []) {
      check();
      yield { type, index, text: piece };
    }
  }
  for (const call of response.tool_calls ?? []) {
    check();
    yield { type: 'tool_call.start', id: call.id, name: call.name };
    yield { type: 'tool_call.delta', id: call.id, arguments_fragment: stringifyJson(call.arguments) };
    yield { type: 'tool_call.end', id: call.id, name: call.name, arguments: call.arguments };
  }
  check();
  yield { type: 'message.end', response };
}
