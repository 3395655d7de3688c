/**
 * Streamed Responses API answers: the typed SSE events (`response.created`,
 * `response.output_item.added` / `.done`, `response.output_text.delta`,
 * `response.reasoning_summary_text.delta`, `response.function_call_arguments.*`,
 * `response.completed` / `.incomplete` / `.failed`, `error`) turned into
 * StreamEvents, and the same ChatResponse a non-streamed call gives. State is
 * keyed by `output_index` (servers may rotate item ids); each output item is
 * one block: a message a text block, a reasoning item a thinking block, a
 * function call a tool_use block; hosted-tool items open none.
 */
import {
  type ChatResponse,
  createLLMError,
  type LLMError,
  readToolCall,
  type StreamEvent,
} from '@amplifier/core';
import {
  errorDetails,
  type RequestContext,
  type SseMessage,
  sseJson,
  streamPayloadError,
} from '@amplifier/provider-http';
import { ERROR_STYLE } from './errors.js';
import {
  fromOutputItems,
  messageText,
  type ResponseEnd,
  reasoningText,
  responseEnd,
} from './responses-convert.js';

type Json = Record<string, unknown>;

/** One output item as it streams. */
interface StreamedItem {
  type: string;
  /** The item as `output_item.added` gave it, replaced by `output_item.done`'s. */
  item: Json;
  done: boolean;
  text: string;
  /** The summary part the last reasoning delta belonged to. */
  part: number;
  args: string;
}

/**
 * An error event (`{type: "error", code, message}`, or the older
 * `{error: {type, code, message}}`) or a failed response's `error`, by the
 * same table as HTTP errors. What no code names is a retryable stream error,
 * except an `invalid_request_error`, which is never worth another try.
 */
export function responsesError(payload: unknown, context: RequestContext): LLMError {
  const error = streamPayloadError(ERROR_STYLE, payload, context);
  const { type, code } = errorDetails(payload);
  if (error.kind === 'stream' && (type === 'invalid_request_error' || code === 'invalid_request_error'))
    return createLLMError('invalid_request', error.message, { ...context, retryable: false });
  return error;
}

/** Feeds on Responses stream events, gives StreamEvents; `response()` assembles the answer. */
export class ResponsesStreamReader {
  readonly #context: RequestContext;
  readonly #items = new Map<number, StreamedItem>();
  #started = false;
  #id: string | undefined;
  #model: string | undefined;
  #end: ResponseEnd | undefined;
  #finalOutput: Json[] = [];

  constructor(context: RequestContext) {
    this.#context = context;
  }

  /** True once `response.completed` or `response.incomplete` arrived. */
  get finished(): boolean {
    return this.#end !== undefined;
  }

  /** The events one stream event produces; throws the classified LLMError of an error or failure. */
  push(payload: Json, name?: string): StreamEvent[] {
    const events: StreamEvent[] = [];
    const type = typeof payload.type === 'string' ? payload.type : (name ?? '');
    if (!this.#started) {
      if (payload.choices !== undefined || payload.object === 'chat.completion.chunk') {
        throw createLLMError(
          'configuration',
          `${this.#context.provider}: the server answered a Responses API request with Chat Completions chunks; set the provider's api config to "chat" for this server`,
          { ...this.#context, retryable: false },
        );
      }
      this.#started = true;
      const response = (payload.response ?? {}) as Json;
      if (typeof response.model === 'string') this.#model = response.model;
      events.push(
        this.#model === undefined ? { type: 'message.start' } : { type: 'message.start', model: this.#model },
      );
    }
    const index = typeof payload.output_index === 'number' ? payload.output_index : this.#items.size;
    const delta = typeof payload.delta === 'string' ? payload.delta : '';
    switch (type) {
      case 'response.created':
      case 'response.in_progress':
      case 'response.queued': {
        const response = (payload.response ?? {}) as Json;
        if (typeof response.id === 'string') this.#id ??= response.id;
        if (typeof response.model === 'string') this.#model ??= response.model;
        break;
      }
      case 'response.output_item.added': {
        const item = (payload.item ?? {}) as Json;
        const entry = this.#entry(index, item);
        entry.item = item;
        if (entry.type === 'function_call')
          events.push({ type: 'tool_call.start', id: callId(item, index), name: String(item.name ?? '') });
        break;
      }
      case 'response.output_text.delta':
      case 'response.refusal.delta': {
        const entry = this.#entry(index, { type: 'message' });
        entry.text += delta;
        if (delta !== '') events.push({ type: 'text.delta', index, text: delta });
        break;
      }
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta': {
        const entry = this.#entry(index, { type: 'reasoning' });
        const part = typeof payload.summary_index === 'number' ? payload.summary_index : entry.part;
        // Summary parts are joined by a blank line, as in the assembled thinking block.
        const text = part !== entry.part && entry.text !== '' && delta !== '' ? `\n\n${delta}` : delta;
        if (delta !== '') entry.part = part;
        entry.text += text;
        if (text !== '') events.push({ type: 'thinking.delta', index, text });
        break;
      }
      case 'response.function_call_arguments.delta': {
        const entry = this.#entry(index, { type: 'function_call' });
        entry.args += delta;
        if (delta !== '' && entry.item.call_id !== undefined)
          events.push({ type: 'tool_call.delta', id: callId(entry.item, index), arguments_fragment: delta });
        break;
      }
      case 'response.function_call_arguments.done':
        if (typeof payload.arguments === 'string')
          this.#entry(index, { type: 'function_call' }).args = payload.arguments;
        break;
      case 'response.output_item.done': {
        const item = (payload.item ?? {}) as Json;
        const known = this.#items.has(index);
        const entry = this.#entry(index, item);
        entry.item = item;
        entry.done = true;
        // The finished item is the whole text: what the deltas missed (a trimmed or lossy relay) streams now.
        const whole =
          entry.type === 'message'
            ? messageText(item).text
            : entry.type === 'reasoning'
              ? reasoningText(item)
              : '';
        if (whole.length > entry.text.length && whole.startsWith(entry.text)) {
          const rest = whole.slice(entry.text.length);
          entry.text = whole;
          events.push({
            type: entry.type === 'message' ? 'text.delta' : 'thinking.delta',
            index,
            text: rest,
          });
        }
        if (entry.type === 'function_call') {
          const id = callId(item, index);
          // The response names the call as its events did, also when the wire gave it no id.
          entry.item = { ...item, call_id: id };
          const name = String(item.name ?? '');
          if (!known) events.push({ type: 'tool_call.start', id, name });
          events.push({
            type: 'tool_call.end',
            id,
            name,
            arguments: readToolCall(id, name, item.arguments).arguments,
          });
        }
        break;
      }
      case 'response.completed':
      case 'response.incomplete': {
        const response = (payload.response ?? {}) as Json;
        this.#end = responseEnd(response);
        if (Array.isArray(response.output)) this.#finalOutput = response.output as Json[];
        break;
      }
      case 'response.failed': {
        const response = (payload.response ?? {}) as Json;
        throw responsesError({ error: response.error ?? { message: 'the response failed' } }, this.#context);
      }
      case 'error':
        throw responsesError(payload, this.#context);
      default:
        break; // content_part.*, *.done of text, annotations, hosted-tool progress: nothing new
    }
    return events;
  }

  #entry(index: number, item: Json): StreamedItem {
    let entry = this.#items.get(index);
    if (entry === undefined) {
      entry = { type: String(item.type ?? ''), item, done: false, text: '', part: 0, args: '' };
      this.#items.set(index, entry);
    }
    return entry;
  }

  /**
   * The answer: the finished items (`output_item.done` is authoritative, e.g.
   * for `encrypted_content`), items cut off as far as they came (a call cut
   * off is refused by `fromOutputItems`), or the final response's output when
   * no item streamed.
   */
  response(): ChatResponse {
    const end: ResponseEnd = {
      ...this.#end,
      id: this.#end?.id ?? this.#id,
      model: this.#end?.model ?? this.#model,
    };
    if (this.#items.size === 0) return fromOutputItems(this.#finalOutput, end, this.#context);
    const items: Json[] = [];
    for (const [, entry] of [...this.#items.entries()].sort((a, b) => a[0] - b[0])) {
      if (entry.done) items.push(entry.item);
      else if (entry.type === 'message')
        items.push({ type: 'message', content: [{ type: 'output_text', text: entry.text }] });
      else if (entry.type === 'reasoning')
        // Its encrypted state is only final at output_item.done: a cut-off item keeps its text alone.
        items.push({ type: 'reasoning', summary: [{ type: 'summary_text', text: entry.text }] });
      else if (
        entry.type === 'function_call' &&
        typeof entry.item.name === 'string' &&
        entry.item.name !== ''
      )
        // A call whose item never finished (a nameless one, from stray deltas, is nothing to run).
        items.push({ ...entry.item, arguments: entry.args, status: 'incomplete' });
    }
    return fromOutputItems(items, end, this.#context);
  }
}

function callId(item: Json, index: number): string {
  return typeof item.call_id === 'string' && item.call_id !== ''
    ? item.call_id
    : typeof item.id === 'string' && item.id !== ''
      ? item.id
      : `call_${index}`;
}

/**
 * The StreamEvents of a Responses SSE stream, ending with `message.end`. An
 * `error` event or `response.failed` throws its classified LLMError; a stream
 * that ends before `response.completed` / `response.incomplete` throws a
 * (retryable) stream error.
 */
export async function* responsesStreamEvents(
  messages: AsyncIterable<SseMessage>,
  context: RequestContext,
): AsyncGenerator<StreamEvent> {
  const reader = new ResponsesStreamReader(context);
  for await (const message of messages) {
    if (message.data.trim() === '[DONE]') break;
    yield* reader.push(sseJson(message, context), message.event);
  }
  if (!reader.finished) {
    throw createLLMError(
      'stream',
      `${context.provider}: the stream ended before the response was complete`,
      context,
    );
  }
  yield { type: 'message.end', response: reader.response() };
}
