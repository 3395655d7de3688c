/**
 * The parent's conversation as text for a child (the reference's
 * `_build_inherited_context`): which messages a `context_depth` and
 * `context_scope` keep, and the text prepended to the child's instruction.
 * Parent messages are never passed to the child as messages.
 */
import type { Message } from '@amplifier/core';

export type ContextDepth = 'none' | 'recent' | 'all';
export type ContextScope = 'conversation' | 'agents' | 'full';

export const CONTEXT_DEPTHS: readonly ContextDepth[] = ['none', 'recent', 'all'];
export const CONTEXT_SCOPES: readonly ContextScope[] = ['conversation', 'agents', 'full'];

/** Characters kept of one USER/ASSISTANT line. */
export const MESSAGE_CHARS = 2000;
/** Characters kept of one tool result (`agents` and `full` scopes). */
export const TOOL_RESULT_CHARS = 4000;
const TRUNCATED = '... [truncated]';

/** Tools whose results are agent results (`agents` scope). */
const AGENT_TOOLS: ReadonlySet<string> = new Set(['delegate', 'task']);

export interface InheritanceOptions {
  depth: ContextDepth;
  /** For `recent`: keep everything from the `turns`-th last user message on. */
  turns: number;
  scope: ContextScope;
}

/** The text blocks of a message's content, joined by newlines (other blocks dropped). */
function textOf(content: Message['content'] | unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content === undefined || content === null ? '' : String(content);
  const parts: string[] = [];
  for (const block of content) {
    if (typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'text') {
      const text = (block as { text?: unknown }).text;
      if (typeof text === 'string') parts.push(text);
    }
  }
  return parts.join('\n');
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}${TRUNCATED}` : text;
}

function isToolResult(message: Message): boolean {
  return message.role === 'tool' || message.role === 'function' || typeof message.tool_call_id === 'string';
}

/** Tool names by call id, from the assistant messages' `tool_calls` and `tool_call` blocks. */
function toolNames(messages: readonly Message[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const call of message.tool_calls ?? []) names.set(call.id, call.tool);
    if (Array.isArray(message.content)) {
      for (const block of message.content) {
        if (block.type === 'tool_call') names.set(block.id, block.name);
      }
    }
  }
  return names;
}

/** The messages a depth keeps: `recent` starts at the `turns`-th last user message. */
function byDepth(messages: readonly Message[], depth: ContextDepth, turns: number): readonly Message[] {
  if (depth !== 'recent') return messages;
  let seen = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === 'user' && !isToolResult(message)) {
      seen++;
      if (seen === turns) return messages.slice(i);
    }
  }
  return messages;
}

/** One line per kept message, in order. */
function lines(messages: readonly Message[], scope: ContextScope, names: Map<string, string>): string[] {
  const out: string[] = [];
  for (const message of messages) {
    if (isToolResult(message)) {
      if (scope === 'conversation') continue;
      const tool =
        (message.tool_call_id !== undefined && names.get(message.tool_call_id)) || message.name || 'unknown';
      const text = textOf(message.content);
      if (scope === 'agents') {
        if (AGENT_TOOLS.has(tool)) out.push(`[Agent Result from ${tool}]: ${cut(text, TOOL_RESULT_CHARS)}`);
      } else {
        out.push(`[Tool Result from ${tool}]: ${cut(text, TOOL_RESULT_CHARS)}`);
      }
      continue;
    }
    if (message.role !== 'user' && message.role !== 'assistant') continue;
    const text = textOf(message.content).trim();
    // An assistant message that only calls tools (or any message without text) says nothing.
    if (text === '') continue;
    out.push(`${message.role === 'user' ? 'USER' : 'ASSISTANT'}: ${cut(text, MESSAGE_CHARS)}`);
  }
  return out;
}

/**
 * The inherited-context text for `messages`, or undefined when nothing is
 * inherited (`none`, or no message survives the scope).
 */
export function buildInheritedContext(
  messages: readonly Message[],
  options: InheritanceOptions,
): string | undefined {
  if (options.depth === 'none' || messages.length === 0) return undefined;
  const kept = lines(byDepth(messages, options.depth, options.turns), options.scope, toolNames(messages));
  if (kept.length === 0) return undefined;
  return kept.join('\n\n');
}

/** The child's instruction: the inherited context (when any) in its markers, then the task. */
export function withInheritedContext(instruction: string, context: string | undefined): string {
  if (context === undefined) return instruction;
  return [
    '[PARENT CONVERSATION CONTEXT]',
    'The following is conversation history from the parent session, for context:',
    '',
    context,
    '',
    '[END PARENT CONTEXT]',
    '',
    '[YOUR TASK]',
    instruction,
  ].join('\n');
}
