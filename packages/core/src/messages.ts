/**
 * The request/response envelope (Amplifier's REQUEST_ENVELOPE_V1): messages,
 * content blocks, tool specs and calls, chat requests and responses. Plain JSON
 * data with Amplifier's snake_case field names; the JSON Schemas in
 * `schemas/*.json` describe the same shapes. Unknown fields are allowed and must
 * be preserved by anyone who copies these objects.
 */

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
 * Content block `{ type: 'tool_call', id, name, input }`: a tool call in a
 * response's content (note `input`, where `ToolCall` has `arguments`). Plain
 * snake_case JSON data.
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

/** A tool call as stored on an assistant message in context (note: `tool`, not `name`). */
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

/** A tool call parsed from a response (note: `name`, not `tool`). */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
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
    if (block.type === 'tool_call') calls.push({ id: block.id, name: block.name, arguments: block.input });
  }
  return calls;
}

/** `response.tool_calls`, or the `tool_call` content blocks when there are none (a provider's `parseToolCalls`). */
export function responseToolCalls(response: ChatResponse): ToolCall[] {
  return response.tool_calls?.length ? response.tool_calls : blockToolCalls(response.content);
}
