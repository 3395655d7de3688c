/**
 * Azure's `parallel` dispatch wrapper (AZ8): some gpt-5.4 deployments emit
 * their internal multi-tool call as one function call named `parallel`, with
 * `{"tool_uses": [{"recipient_name": "functions.read_file", "parameters": {...}}]}`.
 * When the request declared no tool of that name, the call is expanded into
 * the ordinary calls it holds (ids `<wrapper id>_<n>`), in the response and in
 * the stream events.
 */
import {
  type ChatResponse,
  readToolCall,
  type StreamEvent,
  stringifyJson,
  type ToolCall,
} from '@amplifier/core';

type Json = Record<string, unknown>;

/** The wrapper's name. */
export const PARALLEL_WRAPPER = 'parallel';

/** The calls a wrapper call holds, or undefined when it holds none in the wrapper's shape. */
export function unwrapParallel(call: ToolCall): ToolCall[] | undefined {
  const uses = (call.arguments as Json).tool_uses;
  if (!Array.isArray(uses) || uses.length === 0) return undefined;
  const calls: ToolCall[] = [];
  for (const [n, use] of uses.entries()) {
    const entry = (typeof use === 'object' && use !== null ? use : {}) as Json;
    const recipient = typeof entry.recipient_name === 'string' ? entry.recipient_name : '';
    if (recipient === '') return undefined;
    const name = recipient.startsWith('functions.') ? recipient.slice('functions.'.length) : recipient;
    calls.push(readToolCall(`${call.id}_${n}`, name, entry.parameters ?? {}));
  }
  return calls;
}

/** True when the request leaves `parallel` to the wrapper (no tool of its own has that name). */
export function wrapperUndeclared(tools: readonly { name: string }[] | undefined): boolean {
  return !(tools ?? []).some((tool) => tool.name === PARALLEL_WRAPPER);
}

function expandCalls(calls: readonly ToolCall[]): ToolCall[] | undefined {
  if (!calls.some((call) => call.name === PARALLEL_WRAPPER)) return undefined;
  return calls.flatMap((call) =>
    call.name === PARALLEL_WRAPPER ? (unwrapParallel(call) ?? [call]) : [call],
  );
}

/** The response with each wrapper call replaced by the calls it holds. */
export function expandParallelResponse(response: ChatResponse): ChatResponse {
  const calls = expandCalls(response.tool_calls ?? []);
  return calls === undefined ? response : { ...response, tool_calls: calls };
}

/**
 * Stream events with the wrapper's `tool_call.start/delta/end` replaced, at
 * its end, by start, delta (the arguments) and end of each call it holds;
 * `message.end` carries the expanded response.
 */
export async function* expandParallelEvents(events: AsyncIterable<StreamEvent>): AsyncGenerator<StreamEvent> {
  const wrappers = new Set<string>();
  for await (const event of events) {
    if (event.type === 'tool_call.start' && event.name === PARALLEL_WRAPPER) {
      wrappers.add(event.id);
      continue;
    }
    if (event.type === 'tool_call.delta' && wrappers.has(event.id)) continue;
    if (event.type === 'tool_call.end' && wrappers.has(event.id)) {
      const wrapper: ToolCall = { id: event.id, name: event.name, arguments: event.arguments };
      for (const call of unwrapParallel(wrapper) ?? [wrapper]) {
        yield { type: 'tool_call.start', id: call.id, name: call.name };
        yield { type: 'tool_call.delta', id: call.id, arguments_fragment: stringifyJson(call.arguments) };
        yield { type: 'tool_call.end', id: call.id, name: call.name, arguments: call.arguments };
      }
      continue;
    }
    yield event.type === 'message.end'
      ? { ...event, response: expandParallelResponse(event.response) }
      : event;
  }
}
