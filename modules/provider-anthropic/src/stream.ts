/**
 * Streamed Messages API responses: the SSE events (`message_start`,
 * `content_block_start|delta|stop`, `message_delta`, `message_stop`, `ping`,
 * `error`) turned into Provider.stream() events and aggregated into the same
 * ChatResponse a non-streamed call gives: text, thinking with its signature,
 * redacted thinking, tool calls whose input arrives as `input_json_delta`.
 */
import {
  type ChatResponse,
  createLLMError,
  readToolCall,
  type StreamEvent,
  type Usage,
} from '@amplifier/core';
import { type RequestContext, type SseMessage, sseJson, streamPayloadError } from '@amplifier/provider-http';
import { buildResponse, fromWireBlock, isCall, toUsage, type WireItem } from './convert.js';
import { ERROR_STYLE } from './errors.js';

type Json = Record<string, unknown>;

/** A block being received: its content (or call) so far, and for tool_use the raw input JSON. */
interface OpenBlock {
  item: WireItem;
  json: string;
}

/** Feeds on stream events, gives StreamEvents; `response()` once `message_stop` came. */
export class MessageAccumulator {
  readonly #blocks = new Map<number, OpenBlock>();
  readonly #context: RequestContext;
  #usage: Usage | undefined;
  #stopReason: string | undefined;
  #id: string | undefined;
  #model: string | undefined;
  #stopped = false;

  constructor(context: RequestContext) {
    this.#context = context;
  }

  /** True once `message_stop` arrived. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** The StreamEvents of one SSE event. */
  push(type: string, payload: Json): StreamEvent[] {
    switch (type) {
      case 'message_start': {
        const message = (payload.message ?? {}) as Json;
        if (typeof message.id === 'string') this.#id = message.id;
        if (typeof message.model === 'string') this.#model = message.model;
        this.#usage = toUsage(message.usage);
        return [
          this.#model === undefined
            ? { type: 'message.start' }
            : { type: 'message.start', model: this.#model },
        ];
      }
      case 'content_block_start':
        return this.#start(Number(payload.index), (payload.content_block ?? {}) as Json);
      case 'content_block_delta':
        return this.#delta(Number(payload.index), (payload.delta ?? {}) as Json);
      case 'content_block_stop':
        return this.#stop(Number(payload.index));
      case 'message_delta': {
        const delta = (payload.delta ?? {}) as Json;
        if (typeof delta.stop_reason === 'string') this.#stopReason = delta.stop_reason;
        this.#usage = toUsage(payload.usage, this.#usage);
        return [];
      }
      case 'message_stop':
        this.#stopped = true;
        return [];
      case 'error':
        throw streamPayloadError(ERROR_STYLE, payload, this.#context);
      default:
        return []; // ping, and event types added later
    }
  }

  #start(index: number, wire: Json): StreamEvent[] {
    const block = fromWireBlock(wire);
    if (block === undefined) return []; // server tool blocks are not Amplifier content
    this.#blocks.set(index, { item: block, json: '' });
    if (isCall(block)) return [{ type: 'tool_call.start', id: block.id, name: block.name }];
    if (block.type === 'text' && block.text !== '') return [{ type: 'text.delta', index, text: block.text }];
    if (block.type === 'thinking' && block.thinking !== '')
      return [{ type: 'thinking.delta', index, text: block.thinking }];
    return [];
  }

  #delta(index: number, delta: Json): StreamEvent[] {
    const open = this.#blocks.get(index);
    if (open === undefined) return [];
    const { item } = open;
    const piece = (key: string): string => (typeof delta[key] === 'string' ? (delta[key] as string) : '');
    if (isCall(item)) {
      if (delta.type !== 'input_json_delta') return [];
      open.json += piece('partial_json');
      return [{ type: 'tool_call.delta', id: item.id, arguments_fragment: piece('partial_json') }];
    }
    switch (delta.type) {
      case 'text_delta':
        if (item.type !== 'text') return [];
        item.text += piece('text');
        return [{ type: 'text.delta', index, text: piece('text') }];
      case 'thinking_delta':
        if (item.type !== 'thinking') return [];
        item.thinking += piece('thinking');
        return [{ type: 'thinking.delta', index, text: piece('thinking') }];
      case 'signature_delta':
        // The signature arrives whole in one delta (the official SDK assigns it too).
        if (item.type === 'thinking') item.signature = piece('signature');
        return [];
      default:
        return []; // citations_delta and later additions
    }
  }

  #stop(index: number): StreamEvent[] {
    const open = this.#blocks.get(index);
    if (open === undefined || !isCall(open.item)) return [];
    // No input_json_delta (or only blanks): the input of content_block_start stands.
    if (open.json.trim() !== '') open.item = readToolCall(open.item.id, open.item.name, open.json);
    const { id, name, arguments: args } = open.item;
    return [{ type: 'tool_call.end', id, name, arguments: args }];
  }

  /** The whole response: blocks in index order. */
  response(): ChatResponse {
    const items = [...this.#blocks.entries()].sort((a, b) => a[0] - b[0]).map(([, open]) => open.item);
    return buildResponse({
      items,
      usage: this.#usage,
      stopReason: this.#stopReason,
      id: this.#id,
      model: this.#model,
    });
  }
}

/**
 * The StreamEvents of a Messages API SSE stream, ending with `message.end`.
 * A stream cut off before `message_stop`, a data line that is not JSON, or an
 * `error` event (e.g. overloaded mid-stream) throws an LLMError.
 */
export async function* messageEvents(
  messages: AsyncIterable<SseMessage>,
  context: RequestContext,
): AsyncGenerator<StreamEvent> {
  const accumulator = new MessageAccumulator(context);
  for await (const message of messages) {
    const payload = sseJson(message, context);
    const type = message.event ?? (typeof payload.type === 'string' ? payload.type : '');
    yield* accumulator.push(type, payload);
    if (accumulator.stopped) break;
  }
  if (!accumulator.stopped) {
    throw createLLMError('stream', `${context.provider}: the stream ended before message_stop`, context);
  }
  yield { type: 'message.end', response: accumulator.response() };
}
