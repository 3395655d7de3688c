/**
 * Amplifier's envelope both ways against the OpenAI Responses API
 * (`POST /responses`): the request body (`instructions`, `input` items with
 * the reasoning items of earlier turns replayed before the items that followed
 * them, flat function tools, `text.format`, `reasoning`, `include`, the prompt
 * cache key) and a response object's `output` items as a ChatResponse
 * (thinking with its encrypted reasoning, text, calls by `call_id`, usage).
 */

import { randomUUID } from 'node:crypto';
import {
  type ChatRequest,
  type ChatResponse,
  type ContentBlock,
  createLLMError,
  type Message,
  messageToolCalls,
  readToolCall,
  responseText,
  stringifyJson,
  type ToolCall,
  type Usage,
} from '@amplifier/core';
import type { RequestContext } from '@amplifier/provider-http';
import type { ResponsesSettings } from './config.js';
import { type PartForms, toolMessageText, userContent, userToolResults } from './convert.js';
import { wireParameters } from './strict-tools.js';

type Json = Record<string, unknown>;

/** Response metadata: the output item types in order (`reasoning`, `message`, `function_call`), for replay. */
export const OUTPUT_ITEMS_KEY = 'openai:output_items';

/** Request metadata: send the whole history, not a chain (the retry after a broken chain). */
export const NO_CHAIN_KEY = 'openai:no_chain';

/** Per-call settings that are not in the ChatRequest. */
export interface ResponsesBodyOptions extends ResponsesSettings {
  model: string;
  stream: boolean;
  /** The model reasons (`reasoning`, `include` and no sampling parameters). */
  reasons: boolean;
  maxTokens: number | undefined;
  temperature: number | undefined;
  topP: number | undefined;
  extraBody: Json;
  /** Replayed assistant messages get a fresh `msg_` id (vLLM and llama-server want one; OpenAI does not). */
  messageIds: boolean;
  /** The session's prompt-cache key when config names none. */
  sessionKey: string | undefined;
}

/**
 * The turn a request can chain to with `previous_response_id`: the last
 * assistant message whose response the server stored (metadata
 * `openai:stored`, from the response's own `store`), with its index.
 */
export function chainLink(messages: readonly Message[]): { index: number; id: string } | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== 'assistant') continue;
    const id = message.metadata?.['openai:response_id'];
    if (message.metadata?.['openai:stored'] === true && typeof id === 'string' && id !== '')
      return { index: i, id };
  }
  return undefined;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** Responses user parts: `input_text` and `input_image`. */
const INPUT_PARTS: PartForms = {
  text: (text) => ({ type: 'input_text', text }),
  image: (url) => ({ type: 'input_image', image_url: url }),
};

/** `[encrypted_content, rs_id]` of a thinking block (Amplifier's representation), when it has them. */
function reasoningState(block: ContentBlock): { encrypted: string; id: string | undefined } | undefined {
  if (block?.type !== 'thinking' || !Array.isArray(block.content)) return undefined;
  const [encrypted, id] = block.content as unknown[];
  if (typeof encrypted !== 'string' || encrypted === '') return undefined;
  return { encrypted, id: typeof id === 'string' && id !== '' ? id : undefined };
}

/**
 * An assistant message as input items, in the order the model produced them
 * (response metadata `openai:output_items`; else reasoning, text, then calls).
 * A thinking block without encrypted reasoning is dropped (it cannot be
 * replayed); so is a reasoning item nothing follows, which the API refuses.
 */
function assistantItems(message: Message, messageIds: boolean): Json[] {
  const blocks = typeof message.content === 'string' ? [] : message.content;
  const reasoning: (Json | undefined)[] = [];
  const texts: string[] = [];
  for (const block of blocks) {
    if (block?.type === 'thinking') {
      const state = reasoningState(block);
      reasoning.push(
        state === undefined
          ? undefined
          : {
              type: 'reasoning',
              ...(state.id !== undefined && { id: state.id }),
              encrypted_content: state.encrypted,
              summary: block.thinking ? [{ type: 'summary_text', text: block.thinking }] : [],
            },
      );
    } else if (block?.type === 'text' && block.text !== '') texts.push(block.text);
  }
  if (typeof message.content === 'string' && message.content !== '') texts.push(message.content);
  const calls = messageToolCalls(message).map((call) => ({
    type: 'function_call',
    call_id: call.id,
    name: call.name,
    arguments: stringifyJson(call.arguments),
  }));
  const messageItem = (t: string): Json => ({
    type: 'message',
    role: 'assistant',
    ...(messageIds && { id: `msg_${randomUUID().replaceAll('-', '')}` }),
    status: 'completed',
    content: [{ type: 'output_text', text: t, annotations: [] }],
  });
  const ordered: (Json | undefined)[] = [];
  const order = message.metadata?.[OUTPUT_ITEMS_KEY];
  if (Array.isArray(order)) {
    for (const type of order) {
      if (type === 'reasoning' && reasoning.length > 0) ordered.push(reasoning.shift());
      else if (type === 'message' && texts.length > 0) ordered.push(messageItem(texts.shift()!));
      else if (type === 'function_call' && calls.length > 0) ordered.push(calls.shift());
    }
  }
  ordered.push(...reasoning, ...texts.map(messageItem), ...calls);
  const items = ordered.filter((item): item is Json => item !== undefined);
  // A reasoning item must be followed by an item of the same turn (not by another reasoning item alone).
  return items.filter(
    (item, i) => item.type !== 'reasoning' || items.slice(i + 1).some((n) => n.type !== 'reasoning'),
  );
}

/**
 * Amplifier messages as `instructions` (every system message, joined by a
 * blank line) and `input` items: developer messages as user messages wrapped
 * in `<context_file>`, tool results as `function_call_output` by `call_id`,
 * assistant turns with their reasoning items replayed in place.
 */
export function toResponsesInput(
  messages: readonly Message[],
  messageIds = false,
  from = 0,
): { instructions: string | undefined; input: Json[] } {
  const system: string[] = [];
  const input: Json[] = [];
  for (const [index, message] of messages.entries()) {
    // A chained request sends the items after `from` only; instructions always come from every system message.
    if (index < from && message.role !== 'system') continue;
    switch (message.role) {
      case 'system': {
        const t = responseText(message.content);
        if (t !== '') system.push(t);
        break;
      }
      case 'developer':
        input.push({
          role: 'user',
          content: `<context_file>\n${responseText(message.content)}\n</context_file>`,
        });
        break;
      case 'assistant':
        input.push(...assistantItems(message, messageIds));
        break;
      case 'tool':
      case 'function':
        input.push({
          type: 'function_call_output',
          call_id: message.tool_call_id ?? '',
          output: toolMessageText(message),
        });
        break;
      default: {
        const { results, rest } = userToolResults(message);
        for (const { id, output } of results)
          input.push({ type: 'function_call_output', call_id: id, output });
        if (rest !== undefined) input.push({ role: 'user', content: userContent(rest, INPUT_PARTS) });
      }
    }
  }
  return { instructions: system.length > 0 ? system.join('\n\n') : undefined, input };
}

/** The `POST /responses` body for `request`. */
export function toResponsesBody(
  request: ChatRequest,
  messages: readonly Message[],
  options: ResponsesBodyOptions,
): Json {
  const link = options.store && request.metadata?.[NO_CHAIN_KEY] !== true ? chainLink(messages) : undefined;
  const { instructions, input } = toResponsesInput(
    messages,
    options.messageIds,
    link === undefined ? 0 : link.index + 1,
  );
  const body: Json = { model: options.model };
  if (instructions !== undefined) body.instructions = instructions;
  if (link !== undefined) body.previous_response_id = link.id;
  body.input = input;
  if (request.tools?.length) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      ...(tool.description != null && { description: tool.description }),
      // `strict` is always sent: omitted, the API would make the schema strict and fill every optional property.
      ...wireParameters(tool),
    }));
  }
  const choice = request.tool_choice;
  if (choice != null)
    body.tool_choice = typeof choice === 'string' ? choice : { type: 'function', name: choice.name };
  const format = request.response_format;
  if (format?.type === 'json') body.text = { format: { type: 'json_object' } };
  else if (format?.type === 'json_schema') {
    body.text = {
      format: {
        type: 'json_schema',
        name: format.name ?? 'response',
        schema: format.schema,
        ...(format.strict != null && { strict: format.strict }),
      },
    };
  }
  const maxTokens = request.max_output_tokens ?? options.maxTokens;
  if (maxTokens != null) body.max_output_tokens = maxTokens;
  const effort = request.reasoning_effort ?? options.reasoningEffort;
  const reasons = options.reasons && effort !== 'none';
  if (reasons) {
    body.reasoning = {
      ...(effort != null && { effort }),
      ...(options.reasoningSummary !== 'none' && { summary: options.reasoningSummary }),
    };
  } else {
    // Reasoning models refuse sampling parameters (400 `param: temperature`).
    const temperature = request.temperature ?? options.temperature;
    if (temperature != null) body.temperature = temperature;
    const topP = request.top_p ?? options.topP;
    if (topP != null) body.top_p = topP;
  }
  body.store = options.store;
  if (!options.store && options.reasons) body.include = ['reasoning.encrypted_content'];
  const cacheKey = options.promptCacheKey ?? request.conversation_id ?? options.sessionKey;
  if (cacheKey) body.prompt_cache_key = cacheKey;
  // gpt-5.5 refuses `in_memory` retention (its cache is always extended): leave it out there.
  if (
    options.promptCacheRetention !== undefined &&
    !(options.promptCacheRetention === 'in_memory' && /^(?:openai\/)?gpt-5\.5/.test(options.model))
  )
    body.prompt_cache_retention = options.promptCacheRetention;
  if (options.truncation !== undefined) body.truncation = options.truncation;
  if (options.stream) body.stream = true;
  return { ...options.extraBody, ...body };
}

const int = (v: unknown): number =>
  typeof v === 'number' && Number.isFinite(v) ? Math.max(0, Math.round(v)) : 0;

/**
 * Responses usage as Amplifier usage: input counts fresh and cache-read
 * tokens (a `cache_write_tokens` subset is reported apart), output includes
 * reasoning.
 */
export function toResponsesUsage(wire: unknown): Usage | undefined {
  if (typeof wire !== 'object' || wire === null) return undefined;
  const u = wire as Json;
  const details = (u.input_tokens_details ?? {}) as Json;
  const cacheWrite = int(details.cache_write_tokens);
  const input = Math.max(0, int(u.input_tokens) - cacheWrite);
  const output = int(u.output_tokens);
  const usage: Usage = {
    input_tokens: input,
    output_tokens: output,
    total_tokens: int(u.total_tokens) || input + cacheWrite + output,
  };
  const cached = int(details.cached_tokens);
  if (cached > 0) usage.cache_read_tokens = cached;
  if (cacheWrite > 0) usage.cache_write_tokens = cacheWrite;
  const reasoning = int((u.output_tokens_details as Json | undefined)?.reasoning_tokens);
  if (reasoning > 0) usage.reasoning_tokens = reasoning;
  return usage;
}

/** The text of a `message` item (output_text and refusal parts), and its refusal alone. */
export function messageText(item: Json): { text: string; refusal: string } {
  let all = '';
  let refusal = '';
  for (const part of Array.isArray(item.content) ? (item.content as Json[]) : []) {
    if (part?.type === 'output_text') all += text(part.text);
    else if (part?.type === 'refusal') {
      all += text(part.refusal);
      refusal += text(part.refusal);
    }
  }
  return { text: all, refusal };
}

/** A reasoning item's summary (parts joined by a blank line), or its raw reasoning text. */
export function reasoningText(item: Json): string {
  const parts = (Array.isArray(item.summary) ? item.summary : []) as Json[];
  const summary = parts.map((p) => text(p?.text)).filter((t) => t !== '');
  if (summary.length > 0) return summary.join('\n\n');
  const raw = (Array.isArray(item.content) ? item.content : []) as Json[];
  return raw.map((p) => text(p?.text)).join('');
}

/** The end of one response: how it finished and what it said about itself. */
export interface ResponseEnd {
  id?: string | undefined;
  model?: string | undefined;
  status?: string | undefined;
  incompleteReason?: string | undefined;
  usage?: unknown;
  /** The server kept the response (`store: true`): a later request may chain to it. */
  stored?: boolean | undefined;
}

/**
 * Output items (in `output_index` order) as a ChatResponse: reasoning →
 * thinking (`content: [encrypted_content, id]`), messages → text, function
 * calls → `tool_calls` with `call_id` as the id (`""` arguments are `{}`);
 * hosted-tool items are left out. A call cut off by an incomplete response
 * is never returned as executable: that throws an `invalid_tool_call` error.
 */
export function fromOutputItems(
  items: readonly Json[],
  end: ResponseEnd,
  context: RequestContext,
): ChatResponse {
  const content: ContentBlock[] = [];
  const calls: ToolCall[] = [];
  const order: string[] = [];
  let refusal = '';
  for (const item of items) {
    if (item?.type === 'reasoning') {
      const encrypted = text(item.encrypted_content);
      const block: ContentBlock = { type: 'thinking', thinking: reasoningText(item) };
      if (encrypted !== '') block.content = [encrypted, text(item.id)];
      content.push(block);
      order.push('reasoning');
    } else if (item?.type === 'message') {
      const m = messageText(item);
      refusal += m.refusal;
      if (m.text !== '') {
        content.push({ type: 'text', text: m.text });
        order.push('message');
      }
    } else if (item?.type === 'function_call') {
      const name = text(item.name);
      if (end.status === 'incomplete' && item.status !== undefined && item.status !== 'completed') {
        throw createLLMError(
          'invalid_tool_call',
          `${context.provider}: the answer was cut off (${end.incompleteReason ?? 'incomplete'}) inside the call to ${name}, so its arguments are incomplete; raise max_tokens (or max_output_tokens) and try again`,
          { ...context, retryable: false },
        );
      }
      const id = text(item.call_id) || text(item.id) || `call_${calls.length}`;
      calls.push(readToolCall(id, name, item.arguments));
      order.push('function_call');
    }
  }
  const response: ChatResponse = { content };
  if (calls.length > 0) response.tool_calls = calls;
  const usage = toResponsesUsage(end.usage);
  if (usage !== undefined) response.usage = usage;
  response.finish_reason =
    end.incompleteReason === 'max_output_tokens'
      ? 'length'
      : end.incompleteReason === 'content_filter'
        ? 'content_filter'
        : calls.length > 0
          ? 'tool_calls'
          : 'stop';
  const metadata: Json = { [OUTPUT_ITEMS_KEY]: order };
  if (end.id !== undefined) metadata['openai:response_id'] = end.id;
  if (end.model !== undefined) metadata['openai:model'] = end.model;
  if (end.status !== undefined) metadata['openai:status'] = end.status;
  if (end.incompleteReason !== undefined) metadata['openai:incomplete_reason'] = end.incompleteReason;
  if (end.stored === true) metadata['openai:stored'] = true;
  if (refusal !== '') metadata['openai:refusal'] = refusal;
  response.metadata = metadata;
  return response;
}

/** How a response object ended: id, model, status, the incomplete reason and usage. */
export function responseEnd(response: Json): ResponseEnd {
  const reason = (response.incomplete_details as Json | null | undefined)?.reason;
  return {
    id: typeof response.id === 'string' ? response.id : undefined,
    model: typeof response.model === 'string' ? response.model : undefined,
    status: typeof response.status === 'string' ? response.status : undefined,
    incompleteReason: typeof reason === 'string' ? reason : undefined,
    usage: response.usage,
    stored: response.store === true,
  };
}

/** A non-streamed response object as a ChatResponse. */
export function fromResponseObject(response: Json, context: RequestContext): ChatResponse {
  const items = Array.isArray(response.output) ? (response.output as Json[]) : [];
  return fromOutputItems(items, responseEnd(response), context);
}
