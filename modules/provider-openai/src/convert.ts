/**
 * Messages both ways between Amplifier's envelope and the Chat Completions
 * wire format: the request body (messages, tools, tool_choice,
 * response_format, reasoning_effort, limits) and a non-streamed completion
 * as a ChatResponse (text, reasoning, tool calls, usage).
 */
import {
  type ChatRequest,
  type ChatResponse,
  type ContentBlock,
  type ImageSource,
  type JSONSchema,
  type Message,
  messageToolCalls,
  readToolCall,
  responseText,
  stringifyJson,
  type ToolCall,
  type ToolChoice,
  type Usage,
} from '@amplifier/core';
import { toolBlocksText, toolResultText } from '@amplifier/provider-http';
import { filterMetadata } from './content-filters.js';
import { wireParameters } from './strict-tools.js';

type Json = Record<string, unknown>;

/** Per-call settings that are not in the ChatRequest. */
export interface BodyOptions {
  model: string;
  stream: boolean;
  maxTokens: number | undefined;
  maxTokensField: 'max_completion_tokens' | 'max_tokens';
  temperature: number | undefined;
  topP: number | undefined;
  extraBody: Json;
}

/** `data:` URL for base64 images, the URL itself for URL images. */
export function imageUrl(source: ImageSource): string | undefined {
  if (source.type === 'base64' && typeof source.data === 'string') {
    return `data:${String(source.media_type ?? 'image/png')};base64,${source.data}`;
  }
  if (source.type === 'url' && typeof source.url === 'string') return source.url;
  return undefined;
}

/** The parts of a user message with images, in an API's form (Chat Completions: `text`, `image_url`). */
export interface PartForms {
  text(text: string): Json;
  image(url: string): Json;
}

const CHAT_PARTS: PartForms = {
  text: (text) => ({ type: 'text', text }),
  image: (url) => ({ type: 'image_url', image_url: { url } }),
};

/** User content: a string, or parts (text, image) when it has images. */
export function userContent(content: Message['content'], forms: PartForms = CHAT_PARTS): string | Json[] {
  if (typeof content === 'string') return content;
  if (!content.some((b) => b?.type === 'image')) return responseText(content);
  const parts: Json[] = [];
  for (const block of content) {
    if (block?.type === 'text') parts.push(forms.text(block.text));
    else if (block?.type === 'image') {
      const url = imageUrl(block.source);
      if (url !== undefined) parts.push(forms.image(url));
    }
  }
  return parts;
}

/**
 * A user message's `tool_result` blocks (`{id, output}`, output as text) and
 * the content left beside them (undefined: nothing else to send).
 */
export function userToolResults(message: Message): {
  results: { id: string; output: string }[];
  rest: Message['content'] | undefined;
} {
  const blocks = Array.isArray(message.content) ? message.content : [];
  const results = blocks
    .filter((block) => block?.type === 'tool_result')
    .map((block) => ({ id: block.tool_call_id, output: toolResultText(block.output) }));
  const rest = Array.isArray(message.content)
    ? message.content.filter((b) => b?.type !== 'tool_result')
    : message.content;
  return {
    results,
    rest: typeof rest === 'string' || rest.length > 0 || blocks.length === 0 ? rest : undefined,
  };
}

/** A tool message's text: its content, or its blocks' results and text. */
export function toolMessageText(message: Message): string {
  return typeof message.content === 'string' ? message.content : toolBlocksText(message.content);
}

/**
 * The assistant's calls (core's `messageToolCalls`: each id once). Arguments
 * are written by core's `stringifyJson`: never a throw, and nesting deeper
 * than `MAX_DATA_DEPTH` is sent as its marker.
 */
function assistantCalls(message: Message): Json[] {
  return messageToolCalls(message).map(({ id, name, arguments: args }) => ({
    id,
    type: 'function',
    function: { name, arguments: stringifyJson(args) },
  }));
}

/**
 * Amplifier messages as Chat Completions messages. `developer` becomes
 * `system` (every compatible server knows it; OpenAI treats them alike);
 * thinking blocks are not sent back (Chat Completions has no field for them);
 * `tool_result` blocks inside a message become `tool` messages.
 */
export function toWireMessages(messages: readonly Message[]): Json[] {
  const out: Json[] = [];
  for (const message of messages) {
    const named = message.name ? { name: message.name } : {};
    switch (message.role) {
      case 'system':
      case 'developer':
        out.push({ role: 'system', content: responseText(message.content), ...named });
        break;
      case 'assistant': {
        const calls = assistantCalls(message);
        const text = responseText(message.content);
        if (calls.length === 0 && text === '') break; // nothing to say: servers reject empty turns
        out.push({
          role: 'assistant',
          content: text === '' ? null : text,
          ...named,
          ...(calls.length > 0 && { tool_calls: calls }),
        });
        break;
      }
      case 'tool':
      case 'function':
        out.push({
          role: 'tool',
          tool_call_id: message.tool_call_id ?? '',
          content: toolMessageText(message),
        });
        break;
      default: {
        const { results, rest } = userToolResults(message);
        for (const { id, output } of results) out.push({ role: 'tool', tool_call_id: id, content: output });
        if (rest !== undefined) out.push({ role: 'user', content: userContent(rest), ...named });
      }
    }
  }
  return out;
}

function wireToolChoice(choice: ToolChoice): unknown {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

/** A Chat Completions tool's `parameters`, and `strict: true` only for a strict tool (servers that imitate the API may not know the key). */
function strictFields(wire: { parameters: JSONSchema; strict: boolean }): {
  parameters: JSONSchema;
  strict?: true;
} {
  return wire.strict ? { parameters: wire.parameters, strict: true } : { parameters: wire.parameters };
}

/** The Chat Completions request body for `request`. */
export function toWireBody(request: ChatRequest, messages: readonly Message[], options: BodyOptions): Json {
  const body: Json = { model: options.model, messages: toWireMessages(messages) };
  if (request.tools?.length) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: {
        name: tool.name,
        ...(tool.description !== undefined && { description: tool.description }),
        ...strictFields(wireParameters(tool)),
      },
    }));
  }
  if (request.tool_choice !== undefined) body.tool_choice = wireToolChoice(request.tool_choice);
  const format = request.response_format;
  if (format?.type === 'json') body.response_format = { type: 'json_object' };
  else if (format?.type === 'json_schema') {
    body.response_format = {
      type: 'json_schema',
      json_schema: {
        name: format.name ?? 'response',
        schema: format.schema,
        ...(format.strict !== undefined && { strict: format.strict }),
      },
    };
  }
  const maxTokens = request.max_output_tokens ?? options.maxTokens;
  if (maxTokens !== undefined) body[options.maxTokensField] = maxTokens;
  const temperature = request.temperature ?? options.temperature;
  if (temperature !== undefined) body.temperature = temperature;
  const topP = request.top_p ?? options.topP;
  if (topP !== undefined) body.top_p = topP;
  if (request.stop?.length) body.stop = request.stop;
  if (request.reasoning_effort !== undefined) body.reasoning_effort = request.reasoning_effort;
  if (options.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return { ...options.extraBody, ...body };
}

/** Chat Completions usage as Amplifier usage (`input_tokens` includes cached tokens). */
export function toUsage(wire: unknown): Usage | undefined {
  if (typeof wire !== 'object' || wire === null) return undefined;
  const u = wire as Json;
  const int = (v: unknown): number =>
    typeof v === 'number' && Number.isFinite(v) ? Math.max(0, Math.round(v)) : 0;
  const input = int(u.prompt_tokens);
  const output = int(u.completion_tokens);
  const usage: Usage = {
    input_tokens: input,
    output_tokens: output,
    total_tokens: int(u.total_tokens) || input + output,
  };
  const cached = int((u.prompt_tokens_details as Json | undefined)?.cached_tokens);
  if (cached > 0) usage.cache_read_tokens = cached;
  const reasoning = int((u.completion_tokens_details as Json | undefined)?.reasoning_tokens);
  if (reasoning > 0) usage.reasoning_tokens = reasoning;
  return usage;
}

/** The reasoning text some servers return (`reasoning_content`: vLLM, DeepSeek, llama.cpp; `reasoning`: OpenRouter, Ollama). */
export function reasoningOf(message: Json): string | undefined {
  const value = message.reasoning_content ?? message.reasoning;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A finished response from its parts: content is thinking then text; the calls are in `tool_calls` only. */
export function buildResponse(parts: {
  text: string;
  reasoning: string;
  refusal: string;
  calls: ToolCall[];
  usage: Usage | undefined;
  finishReason: string | undefined;
  id: string | undefined;
  model: string | undefined;
  /** More metadata (Azure's content-filter results). */
  metadata?: Json;
}): ChatResponse {
  const content: ContentBlock[] = [];
  if (parts.reasoning !== '') content.push({ type: 'thinking', thinking: parts.reasoning });
  if (parts.text !== '') content.push({ type: 'text', text: parts.text });
  if (parts.refusal !== '') content.push({ type: 'text', text: parts.refusal });
  const response: ChatResponse = { content };
  if (parts.calls.length > 0) response.tool_calls = parts.calls;
  if (parts.usage !== undefined) response.usage = parts.usage;
  if (parts.finishReason !== undefined) response.finish_reason = parts.finishReason;
  const metadata: Json = { ...parts.metadata };
  if (parts.id !== undefined) metadata['openai:response_id'] = parts.id;
  if (parts.model !== undefined) metadata['openai:model'] = parts.model;
  if (parts.refusal !== '') metadata['openai:refusal'] = parts.refusal;
  if (Object.keys(metadata).length > 0) response.metadata = metadata;
  return response;
}

/** A non-streamed `chat.completion` object as a ChatResponse. */
export function fromWireCompletion(payload: Json): ChatResponse {
  const choice = (Array.isArray(payload.choices) ? payload.choices[0] : undefined) as Json | undefined;
  const message = (choice?.message ?? {}) as Json;
  const calls: ToolCall[] = [];
  for (const [k, raw] of (Array.isArray(message.tool_calls) ? message.tool_calls : []).entries()) {
    const call = raw as Json;
    const fn = (call.function ?? {}) as Json;
    // Arguments as a server sent them: JSON text (the API) or an object (some compatible servers).
    const id = typeof call.id === 'string' && call.id !== '' ? call.id : `call_${k}`;
    calls.push(readToolCall(id, String(fn.name ?? ''), fn.arguments));
  }
  return buildResponse({
    text: typeof message.content === 'string' ? message.content : '',
    reasoning: reasoningOf(message) ?? '',
    refusal: typeof message.refusal === 'string' ? message.refusal : '',
    calls,
    usage: toUsage(payload.usage),
    finishReason: typeof choice?.finish_reason === 'string' ? choice.finish_reason : undefined,
    id: typeof payload.id === 'string' ? payload.id : undefined,
    model: typeof payload.model === 'string' ? payload.model : undefined,
    metadata: filterMetadata(
      payload.prompt_filter_results,
      choice?.content_filter_results as Json | undefined,
    ),
  });
}
