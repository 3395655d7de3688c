/**
 * Streamed Chat Completions: `chat.completion.chunk` payloads turned into
 * Provider.stream() events and aggregated into the same ChatResponse a
 * non-streamed call gives (text, reasoning, tool calls whose arguments arrive
 * in pieces, usage from the final chunk).
 */
import {
  type ChatResponse,
  createLLMError,
  readToolCall,
  type StreamEvent,
  stringifyJson,
  type ToolCall,
  type Usage,
} from '@amplifier/core';
import {
  type ApiErrorStyle,
  errorDetails,
  type RequestContext,
  type SseMessage,
  sseJson,
  streamPayloadError,
} from '@amplifier/provider-http';
import { filterMetadata, mergeFilterResults } from './content-filters.js';
import { buildResponse, reasoningOf, toUsage } from './convert.js';
import { ERROR_STYLE } from './errors.js';

type Json = Record<string, unknown>;

interface PartialCall {
  id: string | undefined;
  name: string;
  args: string;
  started: boolean;
}

/** Feeds on chunks, gives events; `finish()` closes the tool calls and gives the response. */
export class ChunkAccumulator {
  #started = false;
  #text = '';
  #reasoning = '';
  #refusal = '';
  readonly #calls = new Map<number, PartialCall>();
  #usage: Usage | undefined;
  #finishReason: string | undefined;
  #id: string | undefined;
  #model: string | undefined;
  #promptFilters: unknown;
  #completionFilters: Json | undefined;

  /** True once a choice reported its finish_reason. */
  get finished(): boolean {
    return this.#finishReason !== undefined;
  }

  /** The events one chunk produces. */
  push(chunk: Json): StreamEvent[] {
    const events: StreamEvent[] = [];
    // Azure's first chunk has `id: ""`, `model: ""` (and no choices).
    if (typeof chunk.id === 'string' && chunk.id !== '') this.#id ??= chunk.id;
    if (typeof chunk.model === 'string' && chunk.model !== '') this.#model ??= chunk.model;
    if (!this.#started) {
      this.#started = true;
      events.push(
        this.#model === undefined ? { type: 'message.start' } : { type: 'message.start', model: this.#model },
      );
    }
    const usage = toUsage(chunk.usage);
    if (usage !== undefined) this.#usage = usage;
    if (chunk.prompt_filter_results !== undefined) this.#promptFilters = chunk.prompt_filter_results;
    const choices = Array.isArray(chunk.choices) ? (chunk.choices as Json[]) : [];
    const choice = choices.find((c) => (c?.index ?? 0) === 0);
    if (choice === undefined) return events;
    if (choice.content_filter_results !== undefined)
      this.#completionFilters = mergeFilterResults(this.#completionFilters, choice.content_filter_results);
    const delta = (choice.delta ?? choice.message ?? {}) as Json;
    const reasoning = reasoningOf(delta);
    if (reasoning !== undefined) {
      this.#reasoning += reasoning;
      events.push({ type: 'thinking.delta', text: reasoning });
    }
    if (typeof delta.content === 'string' && delta.content !== '') {
      this.#text += delta.content;
      events.push({ type: 'text.delta', text: delta.content });
    }
    if (typeof delta.refusal === 'string' && delta.refusal !== '') {
      this.#refusal += delta.refusal;
      events.push({ type: 'text.delta', text: delta.refusal });
    }
    for (const raw of Array.isArray(delta.tool_calls) ? (delta.tool_calls as Json[]) : []) {
      this.#callDelta(raw, events);
    }
    if (typeof choice.finish_reason === 'string') this.#finishReason = choice.finish_reason;
    return events;
  }

  #callDelta(raw: Json, events: StreamEvent[]): void {
    const index = typeof raw.index === 'number' ? raw.index : this.#calls.size;
    let call = this.#calls.get(index);
    if (call === undefined) {
      call = { id: undefined, name: '', args: '', started: false };
      this.#calls.set(index, call);
    }
    if (typeof raw.id === 'string' && raw.id !== '' && call.id === undefined) call.id = raw.id;
    const fn = (raw.function ?? {}) as Json;
    if (typeof fn.name === 'string' && fn.name !== '' && call.name === '') call.name = fn.name;
    const fragment =
      typeof fn.arguments === 'string'
        ? fn.arguments
        : fn.arguments !== undefined
          ? stringifyJson(fn.arguments)
          : '';
    call.args += fragment;
    if (!call.started && call.name !== '') {
      call.started = true;
      call.id ??= `call_${index}`;
      events.push({ type: 'tool_call.start', id: call.id, name: call.name });
      if (call.args !== '')
        events.push({ type: 'tool_call.delta', id: call.id, arguments_fragment: call.args });
    } else if (call.started && fragment !== '') {
      events.push({ type: 'tool_call.delta', id: call.id!, arguments_fragment: fragment });
    }
  }

  /** `tool_call.end` per call, then `message.end` with the whole response. */
  finish(): { events: StreamEvent[]; response: ChatResponse } {
    const events: StreamEvent[] = [];
    if (!this.#started) events.push({ type: 'message.start' });
    const calls: ToolCall[] = [];
    for (const [index, call] of [...this.#calls.entries()].sort((a, b) => a[0] - b[0])) {
      const id = call.id ?? `call_${index}`;
      const parsed = readToolCall(id, call.name, call.args);
      calls.push(parsed);
      if (!call.started) events.push({ type: 'tool_call.start', id, name: call.name });
      events.push({ type: 'tool_call.end', id, name: call.name, arguments: parsed.arguments });
    }
    const response = buildResponse({
      text: this.#text,
      reasoning: this.#reasoning,
      refusal: this.#refusal,
      calls,
      usage: this.#usage,
      finishReason: this.#finishReason,
      id: this.#id,
      model: this.#model,
      metadata: filterMetadata(this.#promptFilters, this.#completionFilters),
    });
    events.push({ type: 'message.end', response });
    return { events, response };
  }
}

/** A finished response as events (for a server that answered a stream request with plain JSON). */
export function responseEvents(response: ChatResponse, model: string | undefined): StreamEvent[] {
  const events: StreamEvent[] = [
    model === undefined ? { type: 'message.start' } : { type: 'message.start', model },
  ];
  for (const block of response.content) {
    if (block.type === 'thinking') events.push({ type: 'thinking.delta', text: block.thinking });
    else if (block.type === 'text') events.push({ type: 'text.delta', text: block.text });
  }
  for (const call of response.tool_calls ?? []) {
    events.push({ type: 'tool_call.start', id: call.id, name: call.name });
    events.push({ type: 'tool_call.delta', id: call.id, arguments_fragment: stringifyJson(call.arguments) });
    events.push({ type: 'tool_call.end', id: call.id, name: call.name, arguments: call.arguments });
  }
  events.push({ type: 'message.end', response });
  return events;
}

/**
 * The StreamEvents of an SSE stream of `chat.completion.chunk`s. Ends at
 * `data: [DONE]` (or, for servers that omit it, at the end of a stream whose
 * choice reported a finish_reason); a stream cut off before either, a data
 * line that is not JSON, or an `{"error": ...}` payload throws an LLMError
 * (classified by `errors`: Azure's style names the content-filter categories).
 */
export async function* chunkEvents(
  messages: AsyncIterable<SseMessage>,
  context: RequestContext,
  errors: ApiErrorStyle = ERROR_STYLE,
): AsyncGenerator<StreamEvent> {
  const accumulator = new ChunkAccumulator();
  let done = false;
  for await (const message of messages) {
    if (message.data.trim() === '[DONE]') {
      done = true;
      break;
    }
    const payload = sseJson(message, context);
    if (message.event === 'error' || (payload.error !== undefined && errorDetails(payload).message)) {
      throw streamPayloadError(errors, payload, context);
    }
    yield* accumulator.push(payload);
  }
  if (!done && !accumulator.finished) {
    throw createLLMError(
      'stream',
      `${context.provider}: the stream ended before the response was complete`,
      context,
    );
  }
  yield* accumulator.finish().events;
}
