/**
 * The sessions of this process that have a span open, so that a child
 * session (a sub-agent: `parent_id` set, and usually the parent's
 * `tool_call_id` in its metadata) finds the span to hang under. Each mounted
 * module registers its session when the session span starts and removes it
 * when the span ends; nothing else is kept.
 */
import { type Context, context, type Span, trace } from '@opentelemetry/api';

export interface LiveSession {
  readonly span: Span;
  /** The open tool spans of the session, by tool call id. */
  readonly tools: ReadonlyMap<string, Span>;
}

const live = new Map<string, LiveSession>();

export function registerSession(sessionId: string, session: LiveSession): void {
  live.set(sessionId, session);
}

export function unregisterSession(sessionId: string, session: LiveSession): void {
  if (live.get(sessionId) === session) live.delete(sessionId);
}

/**
 * The context a child session's span starts in: the parent's tool span for
 * `toolCallId` when it is open, else the parent's session span, else the
 * active context (an unknown parent, or one in another process).
 */
export function parentContext(parentId: string | undefined, toolCallId: string | undefined): Context {
  const active = context.active();
  if (parentId === undefined) return active;
  const parent = live.get(parentId);
  if (parent === undefined) return active;
  const tool = toolCallId === undefined ? undefined : parent.tools.get(toolCallId);
  return trace.setSpan(active, tool ?? parent.span);
}
