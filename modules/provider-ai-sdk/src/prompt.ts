/**
 * Amplifier's request as the AI SDK's standard prompt and call options:
 * system/developer text before the conversation as system messages (later
 * ones, hook injections, as user text in `<system-reminder>`), user text and images, assistant
 * text, reasoning and tool calls (each with the `providerMetadata` it came
 * with replayed as its `providerOptions`), tool results as `tool` messages
 * named after their calls; tools, tool choice, response format and sampling
 * settings as the spec's options.
 */
import { type ChatRequest, type ContentBlock, type Message, messageToolCalls, setOwn } from '@amplifier/core';
import { toolBlocksText, toolResultText } from '@amplifier/provider-http';
import type { CallOptions, PromptMessage, PromptPart, ProviderMetadata } from './spec.js';

/** Block field (text and thinking blocks): the part's `providerMetadata`, replayed as `providerOptions`. */
export const METADATA_FIELD = 'provider_metadata';
/** Response/message metadata: the AI SDK provider id that answered (`mistral.chat`). */
export const PROVIDER_KEY = 'ai_sdk:provider';
/** Response/message metadata: per tool call id, the `providerMetadata` of its `tool-call` part. */
export const CALLS_KEY = 'ai_sdk:calls';

type Json = Record<string, unknown>;

function plainObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A stored metadata value as `providerOptions` (a namespace → options object), or undefined. */
function options(value: unknown): ProviderMetadata | undefined {
  if (!plainObject(value)) return undefined;
  const out: ProviderMetadata = {};
  for (const [key, inner] of Object.entries(value)) if (plainObject(inner)) setOwn(out, key, inner);
  return Object.keys(out).length > 0 ? out : undefined;
}

function withOptions<T extends object>(part: T, metadata: unknown): T {
  const providerOptions = options(metadata);
  return providerOptions === undefined ? part : { ...part, providerOptions };
}

function blocks(content: Message['content']): ContentBlock[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

/** User-side parts: text and images (base64 data or a URL). */
function userParts(content: Message['content']): PromptPart[] {
  const out: PromptPart[] = [];
  for (const block of blocks(content)) {
    if (block?.type === 'text' && block.text !== '') out.push({ type: 'text', text: block.text });
    else if (block?.type === 'image') {
      const source = block.source as Json;
      const mediaType = typeof source.media_type === 'string' ? source.media_type : 'image/png';
      if (source.type === 'base64' && typeof source.data === 'string')
        out.push({ type: 'file', data: source.data, mediaType });
      else if (source.type === 'url' && typeof source.url === 'string' && URL.canParse(source.url))
        out.push({ type: 'file', data: new URL(source.url), mediaType });
    }
  }
  return out;
}

/**
 * An assistant turn's parts: reasoning (only from this provider's own answers:
 * another vendor's reasoning means nothing here), text, then the calls.
 */
function assistantParts(message: Message, provider: string): PromptPart[] {
  const ours = message.metadata?.[PROVIDER_KEY] === provider;
  const out: PromptPart[] = [];
  for (const block of blocks(message.content)) {
    const metadata = ours ? (block as Json | undefined)?.[METADATA_FIELD] : undefined;
    if (block?.type === 'thinking' && ours) {
      out.push(withOptions({ type: 'reasoning', text: block.thinking }, metadata));
    } else if (block?.type === 'text' && (block.text !== '' || metadata !== undefined)) {
      out.push(withOptions({ type: 'text', text: block.text }, metadata));
    }
  }
  const calls = message.metadata?.[CALLS_KEY];
  for (const call of messageToolCalls(message)) {
    const state =
      ours && plainObject(calls) && Object.hasOwn(calls, call.id) ? (calls[call.id] as Json) : undefined;
    out.push(
      withOptions(
        { type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.arguments },
        state?.[METADATA_FIELD],
      ),
    );
  }
  return out;
}

/**
 * The standard prompt of `messages`. Tool results (a `tool` message, or
 * `tool_result` blocks) become `tool` messages, consecutive ones merged, each
 * result named after the call it answers.
 */
export function toPrompt(messages: readonly Message[], provider: string): PromptMessage[] {
  const names = new Map<string, string>();
  const prompt: PromptMessage[] = [];
  const result = (id: string, output: string): PromptPart => ({
    type: 'tool-result',
    toolCallId: id,
    toolName: names.get(id) ?? 'unknown',
    output: { type: 'text', value: output },
  });
  const pushTool = (parts: PromptPart[]): void => {
    const last = prompt.at(-1);
    if (last?.role === 'tool') last.content.push(...parts);
    else prompt.push({ role: 'tool', content: parts });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
      case 'developer': {
        const text =
          typeof message.content === 'string'
            ? message.content
            : blocks(message.content)
                .flatMap((b) => (b?.type === 'text' ? [b.text] : []))
                .join('\n\n');
        if (text === '') break;
        // System text after the conversation began (a hook's injection) stays in place as user text:
        // several vendors' packages refuse a system message between turns.
        if (prompt.every((m) => m.role === 'system')) prompt.push({ role: 'system', content: text });
        else
          prompt.push({
            role: 'user',
            content: [{ type: 'text', text: `<system-reminder>\n${text}\n</system-reminder>` }],
          });
        break;
      }
      case 'assistant': {
        for (const call of messageToolCalls(message)) names.set(call.id, call.name);
        const parts = assistantParts(message, provider);
        if (parts.length > 0) prompt.push({ role: 'assistant', content: parts });
        break;
      }
      case 'tool':
      case 'function': {
        const id = message.tool_call_id;
        const content = message.content;
        if (typeof id === 'string' && id !== '') {
          pushTool([result(id, typeof content === 'string' ? content : toolBlocksText(content))]);
        } else if (typeof content !== 'string') {
          const parts = content.flatMap((b) =>
            b?.type === 'tool_result' ? [result(b.tool_call_id, toolResultText(b.output))] : [],
          );
          if (parts.length > 0) pushTool(parts);
        }
        break;
      }
      default: {
        const content = message.content;
        if (typeof content !== 'string') {
          const results = content.flatMap((b) =>
            b?.type === 'tool_result' ? [result(b.tool_call_id, toolResultText(b.output))] : [],
          );
          if (results.length > 0) pushTool(results);
        }
        const parts = userParts(content);
        if (parts.length > 0) prompt.push({ role: 'user', content: parts });
      }
    }
  }
  return prompt;
}

/** What the call options are built from beside the request. */
export interface CallSettings {
  provider: string;
  maxTokens: number | undefined;
  temperature: number | undefined;
  topP: number | undefined;
  providerOptions: ProviderMetadata | undefined;
  headers: Record<string, string>;
}

/** The spec's call options for `request` (its messages already repaired), without the abort signal. */
export function toCallOptions(
  request: ChatRequest,
  messages: readonly Message[],
  settings: CallSettings,
): CallOptions {
  const out: CallOptions = { prompt: toPrompt(messages, settings.provider) };
  const maxTokens = request.max_output_tokens ?? settings.maxTokens;
  if (maxTokens !== undefined && maxTokens !== null) out.maxOutputTokens = maxTokens;
  const temperature = request.temperature ?? settings.temperature;
  if (temperature !== undefined && temperature !== null) out.temperature = temperature;
  const topP = request.top_p ?? settings.topP;
  if (topP !== undefined && topP !== null) out.topP = topP;
  if (request.stop && request.stop.length > 0) out.stopSequences = [...request.stop];
  const format = request.response_format;
  if (format?.type === 'json') out.responseFormat = { type: 'json' };
  else if (format?.type === 'json_schema') {
    out.responseFormat = {
      type: 'json',
      schema: format.schema as Json,
      ...(typeof format.name === 'string' && { name: format.name }),
    };
  }
  if (request.tools && request.tools.length > 0) {
    out.tools = request.tools.map((tool) => ({
      type: 'function' as const,
      name: tool.name,
      ...(typeof tool.description === 'string' && { description: tool.description }),
      inputSchema: tool.parameters as Json,
    }));
  }
  const choice = request.tool_choice;
  if (choice === 'auto' || choice === 'none' || choice === 'required') out.toolChoice = { type: choice };
  else if (typeof choice === 'object' && choice !== null)
    out.toolChoice = { type: 'tool', toolName: choice.name };
  if (settings.providerOptions !== undefined) out.providerOptions = settings.providerOptions;
  if (Object.keys(settings.headers).length > 0) out.headers = { ...settings.headers };
  return out;
}
