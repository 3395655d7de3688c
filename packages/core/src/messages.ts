/**
 * The request/response envelope (Amplifier's REQUEST_ENVELOPE_V1): messages,
 * content blocks, tool specs and calls, chat requests and responses. Plain JSON
 * data with Amplifier's snake_case field names. Each type is derived from its
 * JSON Schema here (`FromSchema`; `schemas/*.json` are written from them).
 * Unknown fields are allowed and must be preserved by anyone who copies these
 * objects. An optional field may be `null` (Python Amplifier writes `None`):
 * the types read it as absent.
 */
import type { Flat, FromSchema, SchemaOf } from './from-schema.js';
import { stringifyJson } from './results.js';

/** A JSON Schema document (draft 2020-12 unless it says otherwise). */
export type JSONSchema = { [key: string]: unknown };

/** `FromSchema` for the envelope: an optional field's `null` reads as absent. */
type Wire<S> = FromSchema<S, { nullIsAbsent: true }>;

const VISIBILITY = { enum: ['internal', 'developer', 'user', null] } as const;

/** Who may see a block: internal bookkeeping, developers, or the end user. */
export type Visibility = NonNullable<Wire<typeof VISIBILITY>>;

/** What each type of content block holds beside `type` and an optional `visibility`. */
const BLOCKS = {
  text: { required: ['text'], properties: { text: { type: 'string' } } },
  thinking: {
    required: ['thinking'],
    properties: {
      thinking: { type: 'string' },
      /** Must be sent back unchanged on later turns (Anthropic signed thinking). */
      signature: { type: ['string', 'null'] },
      /** Opaque provider reasoning state (for example OpenAI encrypted reasoning). */
      content: { type: ['array', 'null'] },
    },
  },
  redacted_thinking: { required: ['data'], properties: { data: { type: 'string' } } },
  tool_call: {
    required: ['id', 'name', 'input'],
    properties: { id: { type: 'string' }, name: { type: 'string' }, input: { type: 'object' } },
  },
  tool_result: {
    required: ['tool_call_id', 'output'],
    properties: { tool_call_id: { type: 'string' }, output: true },
  },
  image: { required: ['source'], properties: { source: { type: 'object' } as SchemaOf<ImageSource> } },
  reasoning: {
    required: ['content', 'summary'],
    properties: { content: { type: 'array' }, summary: { type: 'array' } },
  },
} as const;

type Block<T extends keyof typeof BLOCKS> = Flat<
  { type: T } & Wire<(typeof BLOCKS)[T]> & { visibility?: Visibility }
>;

/** The schema of a content block (`message.json#/$defs/contentBlock`): its `type` says what it requires. */
const CONTENT_BLOCK_SCHEMA: JSONSchema = {
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string' }, visibility: { $ref: '#/$defs/visibility' } },
  allOf: [
    ...Object.entries(BLOCKS).map(([type, then]) => ({
      if: { required: ['type'], properties: { type: { const: type } } },
      then,
    })),
    { properties: { type: { enum: Object.keys(BLOCKS) } } },
  ],
};

/** Content block `{ type: 'text', text }`: text for or from the model. Plain snake_case JSON data. */
export type TextBlock = Block<'text'>;

/**
 * Content block `{ type: 'thinking', thinking }`: the model's reasoning;
 * `signature` and `content` go back to the provider unchanged on later turns.
 * Plain snake_case JSON data.
 */
export type ThinkingBlock = Block<'thinking'>;

/**
 * Content block `{ type: 'redacted_thinking', data }`: reasoning the provider
 * returned encrypted, as opaque `data`. Plain snake_case JSON data.
 */
export type RedactedThinkingBlock = Block<'redacted_thinking'>;

/**
 * Wire shape: a tool call as a content block `{ type: 'tool_call', id, name, input }`, with the
 * arguments in `input` (plain snake_case JSON data).
 * In code, read one with `fromToolCallBlock` and make one with `toToolCallBlock`.
 */
export type ToolCallBlock = Block<'tool_call'>;

/**
 * Content block `{ type: 'tool_result', tool_call_id, output }`: the result of the
 * tool call with that id. Plain snake_case JSON data.
 */
export type ToolResultBlock = Block<'tool_result'>;

/** `{type: 'base64', media_type, data}` or `{type: 'url', url}`. */
export type ImageSource =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'url'; url: string }
  | { type: string; [key: string]: unknown };

/**
 * Content block `{ type: 'image', source }`: an image, inline as base64 or by URL.
 * Plain snake_case JSON data.
 */
export type ImageBlock = Block<'image'>;

/**
 * Content block `{ type: 'reasoning', content, summary }`: a provider's reasoning
 * item (opaque `content` and its `summary` parts). Plain snake_case JSON data.
 */
export type ReasoningBlock = Block<'reasoning'>;

/**
 * One block of message or response content, discriminated by `type` (seven kinds).
 * Plain snake_case JSON data; whoever copies it must keep unknown fields.
 */
export type ContentBlock = { [T in keyof typeof BLOCKS]: Block<T> }[keyof typeof BLOCKS];

/**
 * The `type` of a content block: `text`, `thinking`, `redacted_thinking`,
 * `tool_call`, `tool_result`, `image` or `reasoning`.
 */
export type ContentBlockType = ContentBlock['type'];

/** The JSON Schema of `Message` (`schemas/message.json`). */
export const MESSAGE_SCHEMA = {
  title: 'Message',
  type: 'object',
  required: ['role', 'content'],
  properties: {
    role: { enum: ['system', 'developer', 'user', 'assistant', 'function', 'tool'] },
    content: { type: ['string', 'array'], items: { $ref: '#/$defs/contentBlock' } as SchemaOf<ContentBlock> },
    name: { type: ['string', 'null'] },
    /** On `tool` messages: the id of the call this answers. */
    tool_call_id: { type: ['string', 'null'] },
    /** On assistant messages that called tools. */
    tool_calls: {
      type: ['array', 'null'],
      items: {
        type: 'object',
        required: ['id', 'tool', 'arguments'],
        properties: { id: { type: 'string' }, tool: { type: 'string' }, arguments: { type: 'object' } },
      },
    },
    /** Provider state and bookkeeping (timestamps, hook provenance, ...). */
    metadata: { type: ['object', 'null'] },
  },
  $defs: { visibility: VISIBILITY as JSONSchema, contentBlock: CONTENT_BLOCK_SCHEMA as JSONSchema },
} as const;

/** One message of the conversation, as contexts store it and providers receive it. */
export type Message = Wire<typeof MESSAGE_SCHEMA>;

/**
 * Who a message is from: `system`, `developer`, `user`, `assistant`, `function`,
 * or `tool` (a tool result, with `tool_call_id`).
 */
export type Role = Message['role'];

/**
 * Wire shape: a tool call as stored in `Message.tool_calls`, with Amplifier's
 * field names (the tool's name is in `tool`). In code, read one with
 * `fromMessageToolCall` and make one with `toMessageToolCall`.
 */
export type MessageToolCall = NonNullable<Message['tool_calls']>[number];

/** The JSON Schema of `ChatRequest` (`schemas/chat-request.json`). */
export const CHAT_REQUEST_SCHEMA = {
  title: 'ChatRequest',
  type: 'object',
  required: ['messages'],
  properties: {
    messages: { type: 'array', items: { $ref: 'message.json' } as SchemaOf<Message> },
    tools: {
      type: ['array', 'null'],
      items: {
        type: 'object',
        required: ['name', 'parameters'],
        properties: {
          name: { type: 'string', minLength: 1 },
          parameters: { type: 'object' },
          description: { type: ['string', 'null'] },
          strict: { type: ['boolean', 'null'] },
        },
      },
    },
    response_format: {
      type: ['object', 'null'],
      required: ['type'],
      properties: {
        type: { enum: ['text', 'json', 'json_schema'] },
        schema: { type: 'object' },
        name: { type: 'string' },
        strict: { type: ['boolean', 'null'] },
      },
      if: { required: ['type'], properties: { type: { const: 'json_schema' } } },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's `then`, never awaited
      then: { required: ['schema'], properties: { schema: { type: 'object' } } },
    } as SchemaOf<ResponseFormat>,
    temperature: { type: ['number', 'null'] },
    top_p: { type: ['number', 'null'] },
    max_output_tokens: { type: ['integer', 'null'], minimum: 1 },
    conversation_id: { type: ['string', 'null'] },
    stream: { type: ['boolean', 'null'] },
    metadata: { type: ['object', 'null'] },
    /** Per-request model override. */
    model: { type: ['string', 'null'] },
    tool_choice: {
      oneOf: [
        { enum: ['auto', 'none', 'required', null] },
        {
          type: 'object',
          required: ['type', 'name'],
          properties: { type: { const: 'tool' }, name: { type: 'string' } },
        },
      ],
    },
    stop: { type: ['array', 'null'], items: { type: 'string' } },
    reasoning_effort: { type: ['string', 'null'] },
    /** Seconds. */
    timeout: { type: ['number', 'null'], exclusiveMinimum: 0 },
  },
} as const;

/**
 * What an orchestrator sends to `Provider.complete`: the `messages`, the `tools`
 * offered, and optional settings (`temperature`, `max_output_tokens`,
 * `tool_choice`, a per-request `model`, `timeout` in seconds, ...). Plain
 * snake_case JSON data (schema `chat-request`).
 */
export type ChatRequest = Wire<typeof CHAT_REQUEST_SCHEMA>;

/** A tool as offered to the model. */
export type ToolSpec = NonNullable<ChatRequest['tools']>[number];

/**
 * The output format a request asks for: text, any JSON, or JSON matching `schema`
 * (`json_schema`, optionally `strict`). Plain snake_case JSON data.
 */
export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json' }
  | { type: 'json_schema'; schema: JSONSchema; name?: string; strict?: boolean };

/** `auto` | `none` | `required`, or one named tool. */
export type ToolChoice = NonNullable<ChatRequest['tool_choice']>;

/** The JSON Schema of `ChatResponse` (`schemas/chat-response.json`). */
export const CHAT_RESPONSE_SCHEMA = {
  title: 'ChatResponse',
  type: 'object',
  required: ['content'],
  properties: {
    content: { type: 'array', items: { $ref: 'message.json#/$defs/contentBlock' } as SchemaOf<ContentBlock> },
    tool_calls: {
      type: ['array', 'null'],
      items: {
        type: 'object',
        required: ['id', 'name', 'arguments'],
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          /** The arguments, always an object: `{}` when the model sent none, and when they were invalid. */
          arguments: { type: 'object' },
          /**
           * Set when the arguments the model sent were not a JSON object (read once,
           * by `readToolCall` at the provider edge): the call must not run, and an
           * orchestrator tells the model what to fix instead.
           */
          invalid_arguments: {
            type: 'object',
            required: ['raw', 'problem', 'detail'],
            properties: {
              raw: { type: 'string' },
              problem: { enum: ['invalid_json', 'not_object'] },
              detail: { type: 'string' },
            },
          },
        },
      },
    },
    usage: {
      type: ['object', 'null'],
      required: ['input_tokens', 'output_tokens', 'total_tokens'],
      properties: {
        input_tokens: { type: 'integer', minimum: 0 },
        output_tokens: { type: 'integer', minimum: 0 },
        total_tokens: { type: 'integer', minimum: 0 },
        reasoning_tokens: { type: ['integer', 'null'], minimum: 0 },
        cache_read_tokens: { type: ['integer', 'null'], minimum: 0 },
        cache_write_tokens: { type: ['integer', 'null'], minimum: 0 },
        /** A decimal string ("0.0123"); absent when the price is unknown. */
        cost_usd: { type: ['string', 'null'], pattern: '^-?\\d+(\\.\\d+)?$' },
      },
    },
    degradation: {
      type: ['object', 'null'],
      required: ['requested', 'actual', 'reason'],
      properties: { requested: { type: 'string' }, actual: { type: 'string' }, reason: { type: 'string' } },
    },
    finish_reason: { type: ['string', 'null'] },
    metadata: { type: ['object', 'null'] },
  },
} as const;

/**
 * What `Provider.complete` returns: the `content` blocks, the `tool_calls`,
 * `usage`, an optional `degradation`, the `finish_reason` and provider `metadata`.
 * Plain snake_case JSON data (schema `chat-response`).
 */
export type ChatResponse = Wire<typeof CHAT_RESPONSE_SCHEMA>;

/**
 * A tool call, the one shape code works with: what `Provider.parseToolCalls`
 * returns, what `ChatResponse.tool_calls` holds and what an orchestrator runs.
 * The converters below turn it into the wire shapes (`MessageToolCall`,
 * `ToolCallBlock`) and back.
 */
export type ToolCall = NonNullable<ChatResponse['tool_calls']>[number];

/**
 * Why a call's arguments could not be used: the `raw` text the model sent (at
 * most 2,000 characters), the `problem` (`invalid_json`: not JSON;
 * `not_object`: JSON of something else than an object) and its `detail` (the
 * parser's message, or what was there: `array`, `string`, `null`, ...). Plain
 * snake_case JSON data.
 */
export type InvalidToolArguments = NonNullable<ToolCall['invalid_arguments']>;

/**
 * Token counts of one response (`input_tokens`, `output_tokens`, `total_tokens`,
 * optional reasoning and cache counts) and its cost as a decimal string. Plain
 * snake_case JSON data.
 */
export type Usage = NonNullable<ChatResponse['usage']>;

/**
 * What a provider served instead of what was asked: the `requested` and `actual`
 * values and the `reason`. Plain snake_case JSON data.
 */
export type Degradation = NonNullable<ChatResponse['degradation']>;

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
