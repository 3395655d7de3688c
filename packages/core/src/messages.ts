/**
 * The request/response envelope (Amplifier's REQUEST_ENVELOPE_V1): messages,
 * content blocks, tool specs and calls, chat requests and responses. Plain JSON
 * data with Amplifier's snake_case field names; the JSON Schemas in
 * `schemas/*.json` describe the same shapes. Unknown fields are allowed and must
 * be preserved by anyone who copies these objects.
 */
import { stringifyJson } from './results.js';

/** A JSON Schema document (draft 2020-12 unless it says otherwise). */
export type JSONSchema = { [key: string]: unknown };

/** Who may see a block: internal bookkeeping, developers, or the end user. */
export type Visibility = 'internal' | 'developer' | 'user';

/** Content block `{ type: 'text', text }`: text for or from the model. Plain snake_case JSON data. */
export interface TextBlock {
  type: 'text';
  text: string;
  visibility?: Visibility;
}

/**
 * Content block `{ type: 'thinking', thinking }`: the model's reasoning;
 * `signature` and `content` go back to the provider unchanged on later turns.
 * Plain snake_case JSON data.
 */
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  /** Must be sent back unchanged on later turns (Anthropic signed thinking). */
  signature?: string;
  /** Opaque provider reasoning state (for example OpenAI encrypted reasoning). */
  content?: unknown[];
  visibility?: Visibility;
}

/**
 * Content block `{ type: 'redacted_thinking', data }`: reasoning the provider
 * returned encrypted, as opaque `data`. Plain snake_case JSON data.
 */
export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
  visibility?: Visibility;
}

/**
 * Wire shape: a tool call as a content block `{ type: 'tool_call', id, name, input }`, with the
 * arguments in `input` (plain snake_case JSON data).
 * In code, read one with `fromToolCallBlock` and make one with `toToolCallBlock`.
 */
export interface ToolCallBlock {
  type: 'tool_call';
  id: string;
  name: string;
  input: Record<string, unknown>;
  visibility?: Visibility;
}

/**
 * Content block `{ type: 'tool_result', tool_call_id, output }`: the result of the
 * tool call with that id. Plain snake_case JSON data.
 */
export interface ToolResultBlock {
  type: 'tool_result';
  tool_call_id: string;
  output: unknown;
  visibility?: Visibility;
}

/** `{type: 'base64', media_type, data}` or `{type: 'url', url}`. */
export type ImageSource =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'url'; url: string }
  | { type: string; [key: string]: unknown };

/**
 * Content block `{ type: 'image', source }`: an image, inline as base64 or by URL.
 * Plain snake_case JSON data.
 */
export interface ImageBlock {
  type: 'image';
  source: ImageSource;
  visibility?: Visibility;
}

/**
 * Content block `{ type: 'reasoning', content, summary }`: a provider's reasoning
 * item (opaque `content` and its `summary` parts). Plain snake_case JSON data.
 */
export interface ReasoningBlock {
  type: 'reasoning';
  content: unknown[];
  summary: unknown[];
  visibility?: Visibility;
}

/**
 * One block of message or response content, discriminated by `type` (seven kinds).
 * Plain snake_case JSON data; whoever copies it must keep unknown fields.
 */
export type ContentBlock =
  | TextBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | ToolCallBlock
  | ToolResultBlock
  | ImageBlock
  | ReasoningBlock;

/**
 * The `type` of a content block: `text`, `thinking`, `redacted_thinking`,
 * `tool_call`, `tool_result`, `image` or `reasoning`.
 */
export type ContentBlockType = ContentBlock['type'];

/**
 * Who a message is from: `system`, `developer`, `user`, `assistant`, `function`,
 * or `tool` (a tool result, with `tool_call_id`).
 */
export type Role = 'system' | 'developer' | 'user' | 'assistant' | 'function' | 'tool';

/**
 * Wire shape: a tool call as stored in `Message.tool_calls`, with Amplifier's
 * field names (the tool's name is in `tool`). In code, read one with
 * `fromMessageToolCall` and make one with `toMessageToolCall`.
 */
export interface MessageToolCall {
  id: string;
  tool: string;
  arguments: Record<string, unknown>;
}

/** One message of the conversation, as contexts store it and providers receive it. */
export interface Message {
  role: Role;
  content: string | ContentBlock[];
  name?: string;
  /** On `tool` messages: the id of the call this answers. */
  tool_call_id?: string;
  /** On assistant messages that called tools. */
  tool_calls?: MessageToolCall[];
  /** Provider state and bookkeeping (timestamps, hook provenance, ...). */
  metadata?: Record<string, unknown>;
}

/** A tool as offered to the model. */
export interface ToolSpec {
  name: string;
  parameters: JSONSchema;
  description?: string;
}

/**
 * The output format a request asks for: text, any JSON, or JSON matching `schema`
 * (`json_schema`, optionally `strict`). Plain snake_case JSON data.
 */
export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json' }
  | { type: 'json_schema'; schema: JSONSchema; name?: string; strict?: boolean };

/** `auto` | `none` | `required`, or one named tool. */
export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'tool'; name: string };

/**
 * What an orchestrator sends to `Provider.complete`: the `messages`, the `tools`
 * offered, and optional settings (`temperature`, `max_output_tokens`,
 * `tool_choice`, a per-request `model`, `timeout` in seconds, ...). Plain
 * snake_case JSON data (schema `chat-request`).
 */
export interface ChatRequest {
  messages: Message[];
  tools?: ToolSpec[];
  response_format?: ResponseFormat;
  temperature?: number;
  top_p?: number;
  max_output_tokens?: number;
  conversation_id?: string;
  stream?: boolean;
  metadata?: Record<string, unknown>;
  /** Per-request model override. */
  model?: string;
  tool_choice?: ToolChoice;
  stop?: string[];
  reasoning_effort?: string;
  /** Seconds. */
  timeout?: number;
}

/**
 * A tool call, the one shape code works with: what `Provider.parseToolCalls`
 * returns, what `ChatResponse.tool_calls` holds and what an orchestrator runs.
 * The converters below turn it into the wire shapes (`MessageToolCall`,
 * `ToolCallBlock`) and back.
 */
export interface ToolCall {
  id: string;
  name: string;
  /** The arguments, always an object: `{}` when the model sent none, and when they were invalid. */
  arguments: Record<string, unknown>;
  /**
   * Set when the arguments the model sent were not a JSON object (read once,
   * by `readToolCall` at the provider edge): the call must not run, and an
   * orchestrator tells the model what to fix instead.
   */
  invalid_arguments?: InvalidToolArguments;
}

/**
 * Why a call's arguments could not be used: the `raw` text the model sent (at
 * most 2,000 characters), the `problem` (`invalid_json`: not JSON;
 * `not_object`: JSON of something else than an object) and its `detail` (the
 * parser's message, or what was there: `array`, `string`, `null`, ...). Plain
 * snake_case JSON data.
 */
export interface InvalidToolArguments {
  raw: string;
  problem: 'invalid_json' | 'not_object';
  detail: string;
}

/**
 * Token counts of one response (`input_tokens`, `output_tokens`, `total_tokens`,
 * optional reasoning and cache counts) and its cost as a decimal string. Plain
 * snake_case JSON data.
 */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  reasoning_tokens?: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
  /** A decimal string ("0.0123"); absent when the price is unknown. */
  cost_usd?: string;
}

/**
 * What a provider served instead of what was asked: the `requested` and `actual`
 * values and the `reason`. Plain snake_case JSON data.
 */
export interface Degradation {
  requested: string;
  actual: string;
  reason: string;
}

/**
 * What `Provider.complete` returns: the `content` blocks, the `tool_calls`,
 * `usage`, an optional `degradation`, the `finish_reason` and provider `metadata`.
 * Plain snake_case JSON data (schema `chat-response`).
 */
export interface ChatResponse {
  content: ContentBlock[];
  tool_calls?: ToolCall[];
  usage?: Usage;
  degradation?: Degradation;
  finish_reason?: string;
  metadata?: Record<string, unknown>;
}

/**
 * Events of `Provider.stream()` (streaming_event_v1 types plus `thinking.delta`).
 * `message.end` carries the complete response, so a consumer that only wants the
 * result can ignore every other event.
 */
export type StreamEvent =
  | { type: 'message.start'; model?: string }
  | { type: 'text.delta'; index?: number; text: string }
  | { type: 'thinking.delta'; index?: number; text: string }
  | { type: 'tool_call.start'; id: string; name: string }
  | { type: 'tool_call.delta'; id: string; arguments_fragment: string }
  | { type: 'tool_call.end'; id: string; name: string; arguments: Record<string, unknown> }
  | { type: 'message.end'; response: ChatResponse }
  | { type: 'error'; error: { message: string; [key: string]: unknown } };

/** The text of a response: `text` blocks joined with blank lines, never thinking. */
export function responseText(content: string | readonly ContentBlock[] | undefined): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  const parts: string[] = [];
  for (const block of content) {
    if (block?.type === 'text' && typeof block.text === 'string') parts.push(block.text);
  }
  return parts.join('\n\n');
}

/** The `tool_call` blocks of a response's content, as ToolCalls, in order. */
export function blockToolCalls(content: readonly ContentBlock[] | undefined): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const block of content ?? []) {
    if (block.type === 'tool_call') calls.push(fromToolCallBlock(block));
  }
  return calls;
}

/** `response.tool_calls`, or the `tool_call` content blocks when there are none (a provider's `parseToolCalls`). */
export function responseToolCalls(response: ChatResponse): ToolCall[] {
  return response.tool_calls?.length ? response.tool_calls : blockToolCalls(response.content);
}

/**
 * The calls of a stored assistant message, each id once, in order: its
 * `tool_calls`, then `tool_call` content blocks with other ids. This version
 * stores a call once (in `tool_calls`); transcripts written by Python Amplifier
 * or by earlier versions hold each call in both places, and a message from
 * elsewhere may hold it only as a block. Entries without a string id are
 * skipped (stored history is checked, not trusted).
 */
export function messageToolCalls(message: Message): ToolCall[] {
  const calls: ToolCall[] = [];
  const stored = message.tool_calls;
  const blocks = Array.isArray(message.content) ? message.content : undefined;
  if (!Array.isArray(stored) && blocks === undefined) return calls;
  let seen: Set<string> | undefined;
  const add = (call: ToolCall): void => {
    if (typeof call.id !== 'string' || call.id === '') return;
    seen ??= new Set();
    if (seen.has(call.id)) return;
    seen.add(call.id);
    calls.push(call);
  };
  if (Array.isArray(stored)) for (const call of stored) if (call) add(fromMessageToolCall(call));
  if (blocks !== undefined) {
    for (const block of blocks) if (block?.type === 'tool_call') add(fromToolCallBlock(block));
  }
  return calls;
}

// ---------------------------------------------------------- tool call shapes

/**
 * A call as `Message.tool_calls` stores it: `{id, tool, arguments}`. Missing
 * arguments become `{}`; other fields of the call are not copied (the stored
 * shape has exactly these three).
 */
export function toMessageToolCall(call: ToolCall): MessageToolCall {
  return { id: call.id, tool: call.name, arguments: call.arguments ?? {} };
}

/**
 * A stored `Message.tool_calls` entry as a ToolCall: the name from `tool`
 * (Amplifier's field), else from `name` (a writer that used the ToolCall
 * shape); missing arguments become `{}`.
 */
export function fromMessageToolCall(call: MessageToolCall): ToolCall {
  const name = call.tool ?? (call as { name?: string }).name;
  return { id: call.id, name, arguments: call.arguments ?? {} };
}

/** A call as a `tool_call` content block: `{type: 'tool_call', id, name, input}` (missing arguments become `{}`). */
export function toToolCallBlock(call: ToolCall): ToolCallBlock {
  return { type: 'tool_call', id: call.id, name: call.name, input: call.arguments ?? {} };
}

/** A `tool_call` content block as a ToolCall (a missing `input` becomes `{}`; `visibility` is not carried over). */
export function fromToolCallBlock(block: ToolCallBlock): ToolCall {
  return { id: block.id, name: block.name, arguments: block.input ?? {} };
}

/** What `parseToolArguments` made of a call's arguments. */
export type ParsedToolArguments =
  | { readonly ok: true; readonly arguments: Record<string, unknown> }
  | {
      readonly ok: false;
      /** `invalid_json`: text that is not JSON; `not_object`: a value, or JSON text of one, that is not an object. */
      readonly problem: 'invalid_json' | 'not_object';
      /**
       * For `invalid_json`, the parser's message (`Unexpected end of JSON input`);
       * for `not_object`, what was there: `array`, `string`, `number`, `boolean`, `null`, ...
       */
      readonly detail: string;
    };

/** At most this many characters of invalid arguments are kept in `invalid_arguments.raw`. */
const MAX_RAW_ARGUMENTS = 2000;

/**
 * A call as a provider read it from the wire: its arguments parsed once, here
 * (`parseToolArguments`). Arguments that are not a JSON object give a call with
 * `arguments: {}` and `invalid_arguments` saying what was wrong, never a made-up
 * object a tool could run with.
 *
 * @example
 * ```ts
 * import { readToolCall } from '@amplifier/core';
 *
 * readToolCall('call_1', 'read_file', '{"path":"a.txt"}'); // { id, name, arguments: { path: 'a.txt' } }
 * readToolCall('call_2', 'read_file', '{"path":').invalid_arguments?.problem; // 'invalid_json'
 * ```
 */
export function readToolCall(id: string, name: string, raw: unknown): ToolCall {
  const parsed = parseToolArguments(raw);
  if (parsed.ok) return { id, name, arguments: parsed.arguments };
  const text = typeof raw === 'string' ? raw : stringifyJson(raw);
  return {
    id,
    name,
    arguments: {},
    invalid_arguments: {
      raw: text.length > MAX_RAW_ARGUMENTS ? `${text.slice(0, MAX_RAW_ARGUMENTS)}…` : text,
      problem: parsed.problem,
      detail: parsed.detail,
    },
  };
}

/**
 * A tool call's arguments as an object, however they came: an object is taken
 * as it is (not copied); JSON text is parsed (a `__proto__` key stays an own
 * key, as `JSON.parse` leaves it); `undefined`, `null` and blank text mean no
 * arguments (`{}`). Anything else is not a failure to throw but an answer
 * (`ok: false`) the caller turns into its own message: a provider passes it
 * on for the tool's schema to reject, an orchestrator tells the model.
 */
export function parseToolArguments(raw: unknown): ParsedToolArguments {
  if (raw === undefined || raw === null) return { ok: true, arguments: {} };
  let value: unknown = raw;
  if (typeof raw === 'string') {
    if (raw.trim() === '') return { ok: true, arguments: {} };
    try {
      value = JSON.parse(raw);
    } catch (error) {
      return {
        ok: false,
        problem: 'invalid_json',
        detail: error instanceof Error ? error.message : String(error),
      };
    }
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    return { ok: true, arguments: value as Record<string, unknown> };
  }
  const detail = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  return { ok: false, problem: 'not_object', detail };
}
