/**
 * Messages both ways between Amplifier's envelope and the Messages API:
 * system prompt hoisting, tool_use / tool_result pairs with their ids,
 * thinking and redacted_thinking blocks sent back byte-for-byte, images,
 * cache breakpoints; and a `message` object as a ChatResponse.
 */
import {
  type ChatResponse,
  type ContentBlock,
  type ImageSource,
  type Message,
  messageToolCalls,
  readToolCall,
  responseText,
  type ToolCall,
  type Usage,
} from '@amplifier/core';
import { toolBlocksText, toolResultText } from '@amplifier/provider-http';

type Json = Record<string, unknown>;

const EPHEMERAL = { type: 'ephemeral' };

function image(source: ImageSource): Json | undefined {
  if (source.type === 'base64' && typeof source.data === 'string') {
    return { type: 'image', source: { type: 'base64', media_type: source.media_type, data: source.data } };
  }
  if (source.type === 'url' && typeof source.url === 'string') {
    return { type: 'image', source: { type: 'url', url: source.url } };
  }
  return undefined;
}

/** User-side blocks: text, images and tool results (thinking never goes on the user side). */
function userBlocks(content: Message['content']): Json[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  const out: Json[] = [];
  for (const block of content) {
    if (block?.type === 'text' && block.text !== '') out.push({ type: 'text', text: block.text });
    else if (block?.type === 'image') {
      const converted = image(block.source);
      if (converted !== undefined) out.push(converted);
    } else if (block?.type === 'tool_result') {
      out.push({
        type: 'tool_result',
        tool_use_id: block.tool_call_id,
        content: toolResultText(block.output),
      });
    }
  }
  return out;
}

/**
 * Assistant blocks in their order: thinking with its signature and
 * redacted_thinking exactly as received (thinking without a signature, e.g.
 * from another provider, cannot be verified by the API and is left out),
 * text; then one tool_use per call (core's `messageToolCalls`: each id once).
 */
function assistantBlocks(message: Message): Json[] {
  const out: Json[] = [];
  const content =
    typeof message.content === 'string'
      ? [{ type: 'text', text: message.content } as const]
      : message.content;
  for (const block of content) {
    switch (block?.type) {
      case 'thinking':
        if (typeof block.signature === 'string' && block.signature !== '')
          out.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
        break;
      case 'redacted_thinking':
        out.push({ type: 'redacted_thinking', data: block.data });
        break;
      case 'text':
        if (block.text !== '') out.push({ type: 'text', text: block.text });
        break;
      default:
        break; // tool_call blocks (older and Python-written transcripts) are among the calls below
    }
  }
  for (const call of messageToolCalls(message)) out.push(toolUse(call));
  return out;
}

/** A call as a Messages API `tool_use` block. */
function toolUse(call: ToolCall): Json {
  return { type: 'tool_use', id: call.id, name: call.name, input: call.arguments };
}

/**
 * Amplifier messages as `{system, messages}`. System and developer messages
 * before the conversation starts are hoisted into `system`; later ones (hook
 * injections) stay in place as user text wrapped in `<system-reminder>`, so
 * the cached prefix does not change. `tool` messages become `tool_result`
 * blocks; consecutive same-role messages are merged (tool results first).
 */
export function toWireMessages(messages: readonly Message[]): { system: Json[]; messages: Json[] } {
  const system: Json[] = [];
  const out: { role: 'user' | 'assistant'; content: Json[] }[] = [];
  let started = false;
  const push = (role: 'user' | 'assistant', content: Json[]): void => {
    if (content.length === 0) return;
    const last = out.at(-1);
    if (last?.role === role) last.content.push(...content);
    else out.push({ role, content: [...content] });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
      case 'developer': {
        const body = responseText(message.content);
        if (body === '') break;
        if (!started) system.push({ type: 'text', text: body });
        else push('user', [{ type: 'text', text: `<system-reminder>\n${body}\n</system-reminder>` }]);
        break;
      }
      case 'assistant':
        started = true;
        push('assistant', assistantBlocks(message));
        break;
      case 'tool':
      case 'function':
        started = true;
        push('user', [
          {
            type: 'tool_result',
            tool_use_id: message.tool_call_id ?? '',
            content: typeof message.content === 'string' ? message.content : toolBlocksText(message.content),
          },
        ]);
        break;
      default:
        started = true;
        push('user', userBlocks(message.content));
    }
  }
  for (const message of out) {
    if (message.role === 'user') {
      message.content.sort((a, b) => Number(b.type === 'tool_result') - Number(a.type === 'tool_result'));
    }
  }
  return { system, messages: out };
}

/** Cache breakpoints: the last system block, the last tool, and the last cacheable block of the last message. */
export function addCacheBreakpoints(body: Json): void {
  const system = body.system as Json[] | undefined;
  if (system?.length) system[system.length - 1] = { ...system.at(-1), cache_control: EPHEMERAL };
  const tools = body.tools as Json[] | undefined;
  if (tools?.length) tools[tools.length - 1] = { ...tools.at(-1), cache_control: EPHEMERAL };
  const last = (body.messages as { content: Json[] }[]).at(-1);
  if (last === undefined) return;
  for (let i = last.content.length - 1; i >= 0; i--) {
    const type = last.content[i]!.type;
    if (type === 'thinking' || type === 'redacted_thinking') continue;
    last.content[i] = { ...last.content[i], cache_control: EPHEMERAL };
    return;
  }
}

/** Anthropic usage as Amplifier usage: `input_tokens` is the gross input (fresh + cache reads + cache writes). */
export function toUsage(wire: unknown, previous?: Usage): Usage | undefined {
  if (typeof wire !== 'object' || wire === null) return previous;
  const u = wire as Json;
  const num = (v: unknown): number | undefined =>
    typeof v === 'number' && Number.isFinite(v) ? Math.max(0, Math.round(v)) : undefined;
  const read = num(u.cache_read_input_tokens) ?? previous?.cache_read_tokens ?? 0;
  const write = num(u.cache_creation_input_tokens) ?? previous?.cache_write_tokens ?? 0;
  const fresh = num(u.input_tokens);
  const input = fresh !== undefined ? fresh + read + write : (previous?.input_tokens ?? 0);
  const output = num(u.output_tokens) ?? previous?.output_tokens ?? 0;
  const usage: Usage = { input_tokens: input, output_tokens: output, total_tokens: input + output };
  if (read > 0) usage.cache_read_tokens = read;
  if (write > 0) usage.cache_write_tokens = write;
  const thinking =
    num((u.output_tokens_details as Json | undefined)?.thinking_tokens) ?? previous?.reasoning_tokens;
  if (thinking) usage.reasoning_tokens = thinking;
  return usage;
}

const FINISH: Readonly<Record<string, string>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

/** What a Messages API content block is read as: a content block, or a tool call (`tool_use`). */
export type WireItem = ContentBlock | ToolCall;

/** True for a tool call (a content block always has a `type`). */
export function isCall(item: WireItem): item is ToolCall {
  return !('type' in item);
}

/**
 * A Messages API content block as an Amplifier block, or a `tool_use` as a
 * ToolCall (its input read by core's `readToolCall`); undefined for
 * server-side blocks.
 */
export function fromWireBlock(block: Json): WireItem | undefined {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: String(block.text ?? '') };
    case 'thinking':
      return {
        type: 'thinking',
        thinking: String(block.thinking ?? ''),
        ...(typeof block.signature === 'string' && { signature: block.signature }),
      };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: String(block.data ?? '') };
    case 'tool_use':
      return readToolCall(String(block.id), String(block.name), block.input);
    default:
      return undefined;
  }
}

/**
 * A finished response from the items in order: content blocks in `content`,
 * each call once, in `tool_calls`; usage, the finish reason (raw one in metadata).
 */
export function buildResponse(parts: {
  items: readonly WireItem[];
  usage: Usage | undefined;
  stopReason: string | undefined;
  id: string | undefined;
  model: string | undefined;
}): ChatResponse {
  const content: ContentBlock[] = [];
  const calls: ToolCall[] = [];
  for (const item of parts.items) {
    if (isCall(item)) calls.push(item);
    else content.push(item);
  }
  const response: ChatResponse = { content };
  if (calls.length > 0) response.tool_calls = calls;
  if (parts.usage !== undefined) response.usage = parts.usage;
  if (parts.stopReason !== undefined) response.finish_reason = FINISH[parts.stopReason] ?? parts.stopReason;
  const metadata: Json = {};
  if (parts.id !== undefined) metadata['anthropic:message_id'] = parts.id;
  if (parts.model !== undefined) metadata['anthropic:model'] = parts.model;
  if (parts.stopReason !== undefined) metadata['anthropic:stop_reason'] = parts.stopReason;
  if (Object.keys(metadata).length > 0) response.metadata = metadata;
  return response;
}

/** A non-streamed `message` object as a ChatResponse. */
export function fromWireMessage(payload: Json): ChatResponse {
  const items: WireItem[] = [];
  for (const raw of Array.isArray(payload.content) ? (payload.content as Json[]) : []) {
    const item = typeof raw === 'object' && raw !== null ? fromWireBlock(raw) : undefined;
    if (item !== undefined) items.push(item);
  }
  return buildResponse({
    items,
    usage: toUsage(payload.usage),
    stopReason: typeof payload.stop_reason === 'string' ? payload.stop_reason : undefined,
    id: typeof payload.id === 'string' ? payload.id : undefined,
    model: typeof payload.model === 'string' ? payload.model : undefined,
  });
}
