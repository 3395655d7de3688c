/**
 * The messages of a turn: tool calls read from a response, the assistant
 * message stored for it, the answer text, and ephemeral injections added to
 * one request without touching the stored history.
 */
import { randomUUID } from 'node:crypto';
import {
  type ChatResponse,
  type ContentBlock,
  type HookResult,
  type Message,
  type Provider,
  readToolCall,
  sanitizeForLlm,
  type ToolCall,
  toMessageToolCall,
} from '@amplifier/core';

/** An injection for the next request only (never stored). */
export interface Ephemeral {
  role: Message['role'];
  content: string;
  append: boolean;
}

/** The ephemeral injection a hook result asks for, if any. */
export function ephemeralOf(result: HookResult): Ephemeral | undefined {
  if (result.action !== 'inject_context' || !result.ephemeral || !result.context_injection) return undefined;
  return {
    role: result.context_injection_role ?? 'system',
    content: sanitizeForLlm(result.context_injection),
    append: result.append_to_last_tool_result === true,
  };
}

/**
 * A copy of `messages` with the injections added (the stored messages are
 * never changed). Appends go to the last message of the view when it is a
 * tool result (whatever order the injections came in); the rest become new
 * messages at the end, in order.
 */
export function applyEphemeral(messages: readonly Message[], injections: readonly Ephemeral[]): Message[] {
  const out = messages.slice();
  const lastIndex = out.length - 1;
  const last = out[lastIndex];
  const extra: Message[] = [];
  for (const injection of injections) {
    if (injection.append && last?.role === 'tool') {
      const target = out[lastIndex]!;
      const content =
        typeof target.content === 'string'
          ? `${target.content}\n\n${injection.content}`
          : [...target.content, { type: 'text' as const, text: injection.content }];
      out[lastIndex] = { ...target, content };
    } else {
      extra.push({ role: injection.role, content: injection.content });
    }
  }
  for (const message of extra) out.push(message);
  return out;
}

/**
 * The response's tool calls, each with an id. Providers read the arguments
 * (core's `readToolCall`); a call that still holds something other than an
 * object (a provider that passed the wire's JSON text on) is read here by the
 * same function, so the tool runner sees object arguments or
 * `invalid_arguments`, never text.
 */
export function parseToolCalls(provider: Provider, response: ChatResponse): ToolCall[] {
  const calls =
    (typeof provider.parseToolCalls === 'function'
      ? provider.parseToolCalls(response)
      : response.tool_calls) ?? [];
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i]!;
    const args: unknown = call.arguments;
    const goodId = typeof call.id === 'string' && call.id !== '';
    if (goodId && typeof args === 'object' && args !== null && !Array.isArray(args)) continue;
    const id = goodId ? call.id : `call_${randomUUID()}`;
    calls[i] =
      typeof args === 'object' && args !== null && !Array.isArray(args)
        ? { ...call, id }
        : { ...call, ...readToolCall(id, call.name, args) };
  }
  return calls;
}

/**
 * The assistant message stored for a response. Each call is stored once, in
 * `tool_calls` (Amplifier's `{id, tool, arguments}`): `tool_call` blocks a
 * provider also left in the content are not stored.
 */
export function assistantMessage(response: ChatResponse, toolCalls?: readonly ToolCall[]): Message {
  let content = response.content ?? '';
  if (Array.isArray(content) && content.some((block) => block?.type === 'tool_call')) {
    content = content.filter((block) => block?.type !== 'tool_call');
  }
  const message: Message = { role: 'assistant', content };
  if (toolCalls !== undefined) message.tool_calls = toolCalls.map(toMessageToolCall);
  if (response.metadata !== undefined) message.metadata = response.metadata;
  return message;
}

export function hasContent(content: string | readonly ContentBlock[] | undefined): boolean {
  return typeof content === 'string' ? content.length > 0 : Array.isArray(content) && content.length > 0;
}

/** The answer text: `text` blocks (and typeless blocks with text) joined by a blank line; never thinking. */
export function textOf(content: string | readonly ContentBlock[] | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const block of content as readonly { type?: string; text?: unknown }[]) {
    if ((block.type ?? 'text') === 'text' && typeof block.text === 'string') parts.push(block.text);
  }
  return parts.join('\n\n');
}
