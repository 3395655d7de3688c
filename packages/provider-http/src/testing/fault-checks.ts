/**
 * What a provider's end-to-end fault tests look at after a failed stream:
 * the stream events a renderer saw, in a form to compare whole, and the
 * conversation a context holds, with every tool call and its answer.
 */
import type { HookRegistry } from '@amplifier/core';

const STREAM_EVENTS = [
  'llm:stream_block_start',
  'llm:stream_block_delta',
  'llm:stream_block_end',
  'llm:stream_aborted',
] as const;

/** Fields the session adds to every payload, left out of a recorded stream event. */
const SESSION_FIELDS = new Set(['request_id', 'session_id', 'parent_id', 'timestamp']);

/** A recorded stream event: the name after `llm:stream_`, and `request` (the call's ordinal) for `request_id`. */
export type LoggedStreamEvent = readonly [
  'block_start' | 'block_delta' | 'block_end' | 'aborted',
  { request: number; [field: string]: unknown },
];

/**
 * Record the four token-streaming events on `hooks` (a handler that runs
 * first); `events()` gives them in order, each `request_id` replaced by its
 * ordinal (0 for the first call seen, 1 for the next), so one call's events
 * compare whole with `toEqual` and a second `request_id` shows.
 */
export function recordStreamEvents(hooks: HookRegistry): {
  events(): LoggedStreamEvent[];
  stop(): void;
} {
  const seen: [string, Record<string, unknown>][] = [];
  const offs = STREAM_EVENTS.map((event) =>
    hooks.register(
      event,
      (name, data) => {
        seen.push([name, { ...data }]);
      },
      { name: `record-${event}`, priority: -1e9 },
    ),
  );
  return {
    events() {
      const ids: unknown[] = [];
      return seen.map(([name, data]) => {
        if (!ids.includes(data.request_id)) ids.push(data.request_id);
        const rest = Object.fromEntries(Object.entries(data).filter(([key]) => !SESSION_FIELDS.has(key)));
        return [
          name.slice('llm:stream_'.length) as LoggedStreamEvent[0],
          { request: ids.indexOf(data.request_id), ...rest },
        ];
      });
    },
    stop() {
      for (const off of offs) off();
    },
  };
}

/** One message of a transcript: role and text, the ids of its tool calls, the call a result answers. */
export interface TranscriptLine {
  role: string;
  text: string;
  calls?: string[];
  result_of?: string;
}

interface StoredMessage {
  role: string;
  content?: unknown;
  tool_calls?: readonly { id: string }[];
  tool_call_id?: string;
}

/**
 * A context's messages as role and text, with the ids of tool calls (the
 * `tool_calls` field or `tool_call` blocks) and of the call a tool result
 * answers; metadata left out.
 */
export function transcript(messages: readonly StoredMessage[]): TranscriptLine[] {
  return messages.map((m) => {
    const blocks = Array.isArray(m.content)
      ? (m.content as { type: string; text?: string; id?: string }[])
      : [];
    const text =
      typeof m.content === 'string'
        ? m.content
        : blocks
            .filter((b) => b.type === 'text')
            .map((b) => b.text ?? '')
            .join('');
    const calls = [
      ...(m.tool_calls ?? []).map((c) => c.id),
      ...blocks.filter((b) => b.type === 'tool_call').map((b) => String(b.id)),
    ];
    return {
      role: m.role,
      text,
      ...(calls.length > 0 && { calls }),
      ...(m.tool_call_id !== undefined && { result_of: m.tool_call_id }),
    };
  });
}

/** The ids of tool calls in `messages` that no tool result answers (none in a consistent history). */
export function unansweredToolCalls(messages: readonly StoredMessage[]): string[] {
  const lines = transcript(messages);
  const answered = new Set(lines.map((line) => line.result_of));
  return lines.flatMap((line) => line.calls ?? []).filter((id) => !answered.has(id));
}
