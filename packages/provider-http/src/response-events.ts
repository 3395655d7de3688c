/**
 * A finished response as the stream events a streaming call yields: for a
 * server that answered a stream request with plain JSON, so the caller sees
 * one shape either way.
 */
import { type ChatResponse, type StreamEvent, stringifyJson } from '@amplifier/core';

/**
 * `message.start` (with `model` when known), a delta per thinking and text
 * block (with its index), start/delta/end per tool call, then `message.end`
 * carrying the response.
 */
export function responseEvents(response: ChatResponse, model?: string): StreamEvent[] {
  const events: StreamEvent[] = [
    model === undefined ? { type: 'message.start' } : { type: 'message.start', model },
  ];
  for (const [index, block] of response.content.entries()) {
    if (block.type === 'thinking') events.push({ type: 'thinking.delta', index, text: block.thinking });
    else if (block.type === 'text') events.push({ type: 'text.delta', index, text: block.text });
  }
  for (const { id, name, arguments: args } of response.tool_calls ?? []) {
    events.push({ type: 'tool_call.start', id, name });
    events.push({ type: 'tool_call.delta', id, arguments_fragment: stringifyJson(args) });
    events.push({ type: 'tool_call.end', id, name, arguments: args });
  }
  events.push({ type: 'message.end', response });
  return events;
}
