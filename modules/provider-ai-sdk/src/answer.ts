/**
 * The AI SDK's answers as Amplifier's: the stream parts of `doStream` as
 * `StreamEvent`s (text and reasoning deltas keyed by a dense block number per
 * part id, tool inputs as tool-call start and end, no event for tool-input
 * JSON), assembled into the ChatResponse; `doGenerate`'s content the same
 * way; usage, finish reason and `providerMetadata` (kept for the next turn).
 */
import {
  type ChatResponse,
  type ContentBlock,
  createLLMError,
  type LLMError,
  readToolCall,
  type StreamEvent,
  setOwn,
  type ToolCall,
  type Usage,
} from '@amplifier/core';
import { CALLS_KEY, METADATA_FIELD, PROVIDER_KEY } from './prompt.js';
import type { ContentPart, ProviderMetadata, SpecFinishReason, SpecUsage, StreamPart } from './spec.js';

type Json = Record<string, unknown>;

/** Response metadata: the answer's id (`response-metadata.id`). */
export const RESPONSE_ID_KEY = 'ai_sdk:response_id';
/** Response metadata: the finish part's `providerMetadata`. */
export const FINISH_METADATA_KEY = 'ai_sdk:provider_metadata';
/** Response metadata: provider-executed tool calls and results, sources (kept as data, never run). */
export const PROVIDER_PARTS_KEY = 'ai_sdk:provider_parts';

/** Amplifier's finish reasons by the spec's unified ones. */
const FINISH: Readonly<Record<string, string>> = {
  stop: 'stop',
  length: 'length',
  'content-filter': 'content_filter',
  'tool-calls': 'tool_calls',
  error: 'error',
  other: 'other',
};

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : undefined;
}

/**
 * The spec's usage as Amplifier's (`providers.md` §1.1): `input_tokens` =
 * gross input less cache writes (fresh + cache read), cache read and write
 * apart, `output_tokens` including reasoning, `reasoning_tokens` a subset.
 */
export function toUsage(usage: SpecUsage | undefined): Usage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const input = usage.inputTokens ?? { total: undefined };
  const output = usage.outputTokens ?? { total: undefined };
  const cacheWrite = count(input.cacheWrite);
  const total = count(input.total);
  const inputTokens = Math.max(0, (total ?? 0) - (cacheWrite ?? 0));
  const outputTokens = count(output.total) ?? 0;
  const out: Usage = {
    input_tokens: inputTokens,
    output_tokens: outputTokens,
    total_tokens: inputTokens + outputTokens,
  };
  const cacheRead = count(input.cacheRead);
  if (cacheRead !== undefined && cacheRead > 0) out.cache_read_tokens = cacheRead;
  if (cacheWrite !== undefined && cacheWrite > 0) out.cache_write_tokens = cacheWrite;
  const reasoning = count(output.reasoning);
  if (reasoning !== undefined && reasoning > 0) out.reasoning_tokens = reasoning;
  return out;
}

/** Amplifier's finish reason for the spec's (`{unified, raw}` since V3; a string in older ones). */
export function toFinishReason(reason: SpecFinishReason | string | undefined): string | undefined {
  const unified = typeof reason === 'string' ? reason : reason?.unified;
  return unified === undefined ? undefined : (FINISH[unified] ?? unified);
}

function metadataOf(value: unknown): ProviderMetadata | undefined {
  return typeof value === 'object' && value !== null && Object.keys(value).length > 0
    ? (value as ProviderMetadata)
    : undefined;
}

/** A part kept as data (provider-executed calls and results, sources), JSON-safe and bounded. */
function keptPart(part: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(part)) {
    if (value instanceof Uint8Array) continue;
    setOwn(out, key, value);
  }
  return out;
}

/** Builds one ChatResponse from parts, in the order they came. */
export class AnswerBuilder {
  readonly #provider: string;
  readonly #content: ContentBlock[] = [];
  readonly #calls: ToolCall[] = [];
  readonly #callMetadata: Record<string, Json> = {};
  readonly #kept: Json[] = [];
  /** Open text/reasoning parts by id: their block and its dense number. */
  readonly #blocks = new Map<string, { block: Json; index: number }>();
  #next = 0;
  #responseId: string | undefined;
  #modelId: string | undefined;
  #usage: Usage | undefined;
  #finish: string | undefined;
  #finishMetadata: ProviderMetadata | undefined;
  /** True once the `finish` part came. */
  finished = false;

  constructor(provider: string) {
    this.#provider = provider;
  }

  /** The block of a text/reasoning part id, made on first sight (a new number each time an id starts). */
  #block(id: string, type: 'text' | 'thinking', restart: boolean): { block: Json; index: number } {
    let open = this.#blocks.get(`${type}:${id}`);
    if (open === undefined || restart) {
      const block: Json = type === 'text' ? { type, text: '' } : { type, thinking: '' };
      this.#content.push(block as ContentBlock);
      open = { block, index: this.#next++ };
      this.#blocks.set(`${type}:${id}`, open);
    }
    return open;
  }

  #setMetadata(block: Json, value: unknown): void {
    const metadata = metadataOf(value);
    if (metadata !== undefined) block[METADATA_FIELD] = metadata;
  }

  /** Text or reasoning: the StreamEvent of a delta (undefined for an empty one). */
  delta(type: 'text' | 'thinking', id: string, text: string, metadata: unknown): StreamEvent | undefined {
    const { block, index } = this.#block(id, type, false);
    this.#setMetadata(block, metadata);
    if (text === '') return undefined;
    if (type === 'text') {
      block.text = `${block.text as string}${text}`;
      return { type: 'text.delta', index, text };
    }
    block.thinking = `${block.thinking as string}${text}`;
    return { type: 'thinking.delta', index, text };
  }

  /** A `text-start` / `reasoning-start`: a new block for the id. */
  start(type: 'text' | 'thinking', id: string, metadata: unknown): void {
    this.#setMetadata(this.#block(id, type, true).block, metadata);
  }

  /** A `text-end` / `reasoning-end`: its metadata is the final one (OpenAI's encrypted reasoning). */
  end(type: 'text' | 'thinking', id: string, metadata: unknown): void {
    const open = this.#blocks.get(`${type}:${id}`);
    if (open !== undefined) this.#setMetadata(open.block, metadata);
  }

  /** A complete `tool-call` part: the call (arguments read once; `""` is `{}`), or kept data when the provider ran it. */
  call(part: Json): ToolCall | undefined {
    if (part.providerExecuted === true) {
      this.#kept.push(keptPart(part));
      return undefined;
    }
    const id = String(part.toolCallId);
    const call = readToolCall(id, String(part.toolName), part.input);
    this.#calls.push(call);
    const metadata = metadataOf(part.providerMetadata);
    if (metadata !== undefined) setOwn(this.#callMetadata, id, { [METADATA_FIELD]: metadata });
    return call;
  }

  /** A part kept as data only (`tool-result`, `source`, `file`). */
  keep(part: Json): void {
    this.#kept.push(keptPart(part));
  }

  responseMetadata(id: unknown, modelId: unknown): void {
    if (typeof id === 'string' && id !== '') this.#responseId = id;
    if (typeof modelId === 'string' && modelId !== '') this.#modelId = modelId;
  }

  finish(
    usage: SpecUsage | undefined,
    reason: SpecFinishReason | string | undefined,
    metadata: unknown,
  ): void {
    this.finished = true;
    this.#usage = toUsage(usage);
    this.#finish = toFinishReason(reason);
    this.#finishMetadata = metadataOf(metadata);
  }

  /** The ChatResponse: non-empty blocks in order, the calls, usage, finish reason and what to replay. */
  response(): ChatResponse {
    const content = this.#content.filter((b) =>
      b.type === 'text'
        ? b.text !== '' || METADATA_FIELD in b
        : b.type !== 'thinking' || b.thinking !== '' || METADATA_FIELD in b,
    );
    const metadata: Json = { [PROVIDER_KEY]: this.#provider };
    if (this.#modelId !== undefined) metadata['ai_sdk:model_id'] = this.#modelId;
    if (this.#responseId !== undefined) metadata[RESPONSE_ID_KEY] = this.#responseId;
    if (Object.keys(this.#callMetadata).length > 0) metadata[CALLS_KEY] = this.#callMetadata;
    if (this.#finishMetadata !== undefined) metadata[FINISH_METADATA_KEY] = this.#finishMetadata;
    if (this.#kept.length > 0) metadata[PROVIDER_PARTS_KEY] = this.#kept;
    return {
      content,
      ...(this.#calls.length > 0 && { tool_calls: this.#calls }),
      ...(this.#usage !== undefined && { usage: this.#usage }),
      ...(this.#finish !== undefined && { finish_reason: this.#finish }),
      metadata,
    };
  }
}

/** What reading a stream needs besides the parts. */
export interface PartReader {
  /** The warnings of `stream-start` (the settings the model ignored). */
  warn(warnings: readonly unknown[]): void;
  /** The first `error` part as the call's failure. */
  fail(error: unknown): LLMError;
  /** Called on every part (the idle timeout restarts). */
  seen(): void;
}

/**
 * The StreamEvents of a `doStream` stream, ending with `message.end`. The
 * first `error` part ends it with that error (the stream is cancelled; a later
 * `finish` is never read); a stream that ends without `finish` is a `stream`
 * error. Parts the bridge does not know (`raw`, V4's `custom`) are skipped.
 */
export async function* streamEvents(
  stream: ReadableStream<StreamPart>,
  builder: AnswerBuilder,
  reader: PartReader,
  context: { provider: string; model: string },
): AsyncGenerator<StreamEvent> {
  yield { type: 'message.start', model: context.model };
  const started = new Set<string>();
  for await (const raw of stream as unknown as AsyncIterable<Json>) {
    reader.seen();
    const part = raw;
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start':
        builder.start(
          part.type === 'text-start' ? 'text' : 'thinking',
          String(part.id),
          part.providerMetadata,
        );
        break;
      case 'text-delta':
      case 'reasoning-delta': {
        const type = part.type === 'text-delta' ? 'text' : 'thinking';
        const event = builder.delta(type, String(part.id), String(part.delta ?? ''), part.providerMetadata);
        if (event !== undefined) yield event;
        break;
      }
      case 'text-end':
      case 'reasoning-end':
        builder.end(part.type === 'text-end' ? 'text' : 'thinking', String(part.id), part.providerMetadata);
        break;
      case 'tool-input-start':
        if (part.providerExecuted === true) break;
        started.add(String(part.id));
        yield { type: 'tool_call.start', id: String(part.id), name: String(part.toolName) };
        break;
      case 'tool-input-delta':
        if (started.has(String(part.id)))
          yield {
            type: 'tool_call.delta',
            id: String(part.id),
            arguments_fragment: String(part.delta ?? ''),
          };
        break;
      case 'tool-call': {
        const id = String(part.toolCallId);
        const call = builder.call(part);
        if (call === undefined) {
          // Run by the provider: only close a block that was opened for it.
          if (started.delete(id))
            yield { type: 'tool_call.end', id, name: String(part.toolName), arguments: {} };
          break;
        }
        if (!started.delete(id)) yield { type: 'tool_call.start', id, name: call.name };
        yield { type: 'tool_call.end', id, name: call.name, arguments: call.arguments };
        break;
      }
      case 'tool-result':
      case 'source':
      case 'file':
        builder.keep(part);
        break;
      case 'stream-start':
        if (Array.isArray(part.warnings) && part.warnings.length > 0) reader.warn(part.warnings);
        break;
      case 'response-metadata':
        builder.responseMetadata(part.id, part.modelId);
        break;
      case 'error':
        throw reader.fail(part.error);
      case 'finish':
        builder.finish(part.usage as SpecUsage, part.finishReason as SpecFinishReason, part.providerMetadata);
        break;
      default:
        break; // raw, tool-input-end (the call comes in `tool-call`), custom, approvals
    }
  }
  if (!builder.finished) {
    throw createLLMError('stream', `${context.provider}: the stream ended without a finish part`, context);
  }
  yield { type: 'message.end', response: builder.response() };
}

/** `doGenerate`'s content as a ChatResponse (the same mapping as a stream's parts). */
export function generatedResponse(
  result: {
    content?: ContentPart[];
    usage?: SpecUsage;
    finishReason?: SpecFinishReason | string;
    providerMetadata?: unknown;
    response?: { id?: string; modelId?: string };
  },
  builder: AnswerBuilder,
): ChatResponse {
  let n = 0;
  for (const part of result.content ?? []) {
    const id = `g${n++}`;
    if (part.type === 'text') builder.delta('text', id, String(part.text ?? ''), part.providerMetadata);
    else if (part.type === 'reasoning')
      builder.delta('thinking', id, String(part.text ?? ''), part.providerMetadata);
    else if (part.type === 'tool-call') builder.call(part);
    else if (part.type === 'tool-result' || part.type === 'source' || part.type === 'file')
      builder.keep(part);
  }
  builder.responseMetadata(result.response?.id, result.response?.modelId);
  builder.finish(result.usage, result.finishReason, result.providerMetadata);
  return builder.response();
}
