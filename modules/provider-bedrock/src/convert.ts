/**
 * Converse answers as Amplifier's: content blocks in order (reasoning with
 * its signature, or its redacted bytes as base64; text; toolUse as calls),
 * usage normalised (input = fresh + cache read, cache write apart), stop
 * reasons mapped; and the ConverseStream reader that turns the SDK's decoded
 * events into StreamEvents, keyed by `contentBlockIndex`.
 */
import {
  type ChatResponse,
  type ContentBlock,
  createLLMError,
  readToolCall,
  type StreamEvent,
  type ToolCall,
  type Usage,
} from '@amplifier/core';
import type { RequestContext } from '@amplifier/provider-http';

type Json = Record<string, unknown>;

/** Converse stop reasons as Amplifier finish reasons (the raw one is in metadata). */
const FINISH: Readonly<Record<string, string>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
};

const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? Math.max(0, Math.round(v)) : undefined;

/**
 * Converse usage as Amplifier usage: `input_tokens` = inputTokens + cache
 * reads (Bedrock's inputTokens excludes both cache reads and writes), cache
 * writes reported apart and never added to the input, no reasoning count
 * (Bedrock has none; it is inside outputTokens).
 */
export function toUsage(wire: unknown): Usage | undefined {
  if (typeof wire !== 'object' || wire === null) return undefined;
  const u = wire as Json;
  const read = num(u.cacheReadInputTokens) ?? 0;
  const write = num(u.cacheWriteInputTokens) ?? 0;
  const input = (num(u.inputTokens) ?? 0) + read;
  const output = num(u.outputTokens) ?? 0;
  const usage: Usage = {
    input_tokens: input,
    output_tokens: output,
    total_tokens: num(u.totalTokens) ?? input + write + output,
  };
  if (read > 0) usage.cache_read_tokens = read;
  if (write > 0) usage.cache_write_tokens = write;
  return usage;
}

/** Bytes as base64 (the SDK decodes blobs to Uint8Array; a JSON recording may hold base64 already). */
function base64(value: unknown): string {
  if (value instanceof Uint8Array)
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  return typeof value === 'string' ? value : '';
}

/** What a Converse block is read as: a content block, or a call. */
type Item = ContentBlock | ToolCall;

function reasoningBlock(reasoning: Json): ContentBlock | undefined {
  const text = reasoning.reasoningText as Json | undefined;
  if (text !== undefined) {
    return {
      type: 'thinking',
      thinking: typeof text.text === 'string' ? text.text : '',
      ...(typeof text.signature === 'string' && text.signature !== '' && { signature: text.signature }),
    };
  }
  if (reasoning.redactedContent !== undefined)
    return { type: 'redacted_thinking', data: base64(reasoning.redactedContent) };
  return undefined;
}

function fromBlock(block: Json): Item | undefined {
  if (typeof block.text === 'string') return { type: 'text', text: block.text };
  if (typeof block.reasoningContent === 'object' && block.reasoningContent !== null)
    return reasoningBlock(block.reasoningContent as Json);
  if (typeof block.toolUse === 'object' && block.toolUse !== null) {
    const use = block.toolUse as Json;
    return readToolCall(String(use.toolUseId ?? ''), String(use.name ?? ''), use.input ?? {});
  }
  return undefined; // citations, documents, images: not read back
}

/** A finished response from its items in order: blocks in `content`, each call once in `tool_calls`. */
export function buildResponse(parts: {
  items: readonly Item[];
  usage: Usage | undefined;
  stopReason: string | undefined;
  model: string;
  latencyMs: number | undefined;
}): ChatResponse {
  const content: ContentBlock[] = [];
  const calls: ToolCall[] = [];
  for (const item of parts.items) {
    if ('type' in item) content.push(item);
    else calls.push(item);
  }
  const response: ChatResponse = { content };
  if (calls.length > 0) response.tool_calls = calls;
  if (parts.usage !== undefined) response.usage = parts.usage;
  if (parts.stopReason !== undefined) response.finish_reason = FINISH[parts.stopReason] ?? parts.stopReason;
  const metadata: Json = { 'bedrock:model': parts.model };
  if (parts.stopReason !== undefined) metadata['bedrock:stop_reason'] = parts.stopReason;
  if (parts.latencyMs !== undefined) metadata['bedrock:latency_ms'] = parts.latencyMs;
  response.metadata = metadata;
  return response;
}

/** A Converse output (`{output: {message}, stopReason, usage, metrics}`) as a ChatResponse. */
export function fromConverseOutput(payload: Json, context: RequestContext): ChatResponse {
  const message = (payload.output as Json | undefined)?.message as Json | undefined;
  if (message === undefined || !Array.isArray(message.content)) {
    throw createLLMError(
      'unknown',
      `${context.provider}: the Converse answer has no output.message.content (got keys ${Object.keys(payload).join(', ') || 'none'})`,
      { ...context, retryable: false },
    );
  }
  const items: Item[] = [];
  for (const raw of message.content as unknown[]) {
    const item = typeof raw === 'object' && raw !== null ? fromBlock(raw as Json) : undefined;
    if (item !== undefined) items.push(item);
  }
  return buildResponse({
    items,
    usage: toUsage(payload.usage),
    stopReason: typeof payload.stopReason === 'string' ? payload.stopReason : undefined,
    model: context.model,
    latencyMs: num((payload.metrics as Json | undefined)?.latencyMs),
  });
}

/** One content block of a stream as it builds up. */
interface StreamBlock {
  kind: 'text' | 'thinking' | 'redacted' | 'tool';
  text: string;
  signature?: string;
  redacted?: string;
  id?: string;
  name?: string;
  input?: string;
  call?: ToolCall;
}

/**
 * ConverseStream events (as the SDK decodes them: one key per event) to
 * StreamEvents. Text and reasoning blocks open on their first delta, tool
 * use on `contentBlockStart`; a call's input is parsed on `contentBlockStop`;
 * signatures and redacted reasoning are kept, never streamed. The response is
 * finished once the stream ends after `messageStop` (usage comes in the
 * `metadata` event after it).
 */
export class StreamReader {
  readonly #context: RequestContext;
  readonly #blocks = new Map<number, StreamBlock>();
  #stopReason: string | undefined;
  #usage: Usage | undefined;
  #latencyMs: number | undefined;
  #stopped = false;

  constructor(context: RequestContext) {
    this.#context = context;
  }

  /** `messageStop` was seen. */
  get finished(): boolean {
    return this.#stopped;
  }

  *push(event: Json): Generator<StreamEvent> {
    if (event.contentBlockDelta !== undefined) {
      yield* this.#delta(event.contentBlockDelta as Json);
    } else if (event.contentBlockStart !== undefined) {
      const start = event.contentBlockStart as Json;
      const use = (start.start as Json | undefined)?.toolUse as Json | undefined;
      if (use !== undefined) {
        const id = String(use.toolUseId ?? '');
        const name = String(use.name ?? '');
        this.#blocks.set(Number(start.contentBlockIndex ?? 0), {
          kind: 'tool',
          text: '',
          id,
          name,
          input: '',
        });
        yield { type: 'tool_call.start', id, name };
      }
    } else if (event.contentBlockStop !== undefined) {
      const block = this.#blocks.get(Number((event.contentBlockStop as Json).contentBlockIndex ?? 0));
      if (block?.kind === 'tool' && block.call === undefined) {
        block.call = readToolCall(block.id!, block.name!, block.input === '' ? '{}' : block.input);
        yield { type: 'tool_call.end', id: block.id!, name: block.name!, arguments: block.call.arguments };
      }
    } else if (event.messageStart !== undefined) {
      yield { type: 'message.start', model: this.#context.model };
    } else if (event.messageStop !== undefined) {
      const reason = (event.messageStop as Json).stopReason;
      if (typeof reason === 'string') this.#stopReason = reason;
      this.#stopped = true;
    } else if (event.metadata !== undefined) {
      const metadata = event.metadata as Json;
      this.#usage = toUsage(metadata.usage) ?? this.#usage;
      this.#latencyMs = num((metadata.metrics as Json | undefined)?.latencyMs) ?? this.#latencyMs;
    }
  }

  *#delta(event: Json): Generator<StreamEvent> {
    const index = Number(event.contentBlockIndex ?? 0);
    const delta = (event.delta ?? {}) as Json;
    let block = this.#blocks.get(index);
    if (typeof delta.text === 'string') {
      if (block === undefined) {
        block = { kind: 'text', text: '' };
        this.#blocks.set(index, block);
      }
      block.text += delta.text;
      yield { type: 'text.delta', index, text: delta.text };
    } else if (typeof delta.reasoningContent === 'object' && delta.reasoningContent !== null) {
      const reasoning = delta.reasoningContent as Json;
      if (block === undefined) {
        block = { kind: 'thinking', text: '' };
        this.#blocks.set(index, block);
      }
      if (typeof reasoning.text === 'string') {
        block.text += reasoning.text;
        yield { type: 'thinking.delta', index, text: reasoning.text };
      }
      if (typeof reasoning.signature === 'string')
        block.signature = (block.signature ?? '') + reasoning.signature;
      if (reasoning.redactedContent !== undefined) {
        block.kind = 'redacted';
        block.redacted = (block.redacted ?? '') + base64(reasoning.redactedContent);
      }
    } else if (typeof delta.toolUse === 'object' && delta.toolUse !== null && block?.kind === 'tool') {
      const fragment = (delta.toolUse as Json).input;
      if (typeof fragment === 'string' && fragment !== '') {
        block.input += fragment;
        yield { type: 'tool_call.delta', id: block.id!, arguments_fragment: fragment };
      }
    }
  }

  /** The assembled response, blocks in `contentBlockIndex` order. */
  response(): ChatResponse {
    const items: Item[] = [];
    for (const [, block] of [...this.#blocks].sort(([a], [b]) => a - b)) {
      if (block.kind === 'text') items.push({ type: 'text', text: block.text });
      else if (block.kind === 'redacted')
        items.push({ type: 'redacted_thinking', data: block.redacted ?? '' });
      else if (block.kind === 'thinking') {
        items.push({
          type: 'thinking',
          thinking: block.text,
          ...(block.signature !== undefined && { signature: block.signature }),
        });
      } else {
        items.push(
          block.call ?? readToolCall(block.id!, block.name!, block.input === '' ? '{}' : block.input),
        );
      }
    }
    return buildResponse({
      items,
      usage: this.#usage,
      stopReason: this.#stopReason,
      model: this.#context.model,
      latencyMs: this.#latencyMs,
    });
  }
}
