/** Message builders and invariant checks shared by the tests. */
import type { Message } from '@amplifier/core';

export const system = (content: string, metadata?: Record<string, unknown>): Message => ({
  role: 'system',
  content,
  ...(metadata && { metadata }),
});
export const user = (content: string): Message => ({ role: 'user', content });
export const assistant = (content: string): Message => ({ role: 'assistant', content });
export const call = (...ids: string[]): Message => ({
  role: 'assistant',
  content: '',
  tool_calls: ids.map((id) => ({ id, tool: 'bash', arguments: { cmd: `echo ${id}` } })),
});
export const result = (id: string, content: string): Message => ({ role: 'tool', tool_call_id: id, content });

/** A stable JSON form without timestamps, to compare histories. */
export const strip = (messages: readonly Message[]): unknown[] =>
  messages.map((m) => {
    const { metadata, ...rest } = m;
    const { timestamp: _t, ...meta } = metadata ?? {};
    return Object.keys(meta).length > 0 ? { ...rest, metadata: meta } : rest;
  });

/**
 * Problems with tool pairing in `view`, compared with the history it came
 * from: a result whose call's assistant (present in the history) is missing or
 * comes after it; an assistant whose results (present in the history) are not
 * all in the view, or not adjacent to it in order.
 */
export function pairingProblems(view: readonly Message[], history: readonly Message[]): string[] {
  const problems: string[] = [];
  const historyResults = new Map<string, number>();
  for (const m of history) {
    if (m.role === 'tool' && m.tool_call_id) {
      historyResults.set(m.tool_call_id, (historyResults.get(m.tool_call_id) ?? 0) + 1);
    }
  }
  const callPos = new Map<string, number>();
  view.forEach((m, i) => {
    for (const c of m.tool_calls ?? []) callPos.set(c.id, i);
  });
  const historyCalls = new Set(history.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id)));
  view.forEach((m, i) => {
    if (m.role === 'tool' && m.tool_call_id && historyCalls.has(m.tool_call_id)) {
      const at = callPos.get(m.tool_call_id);
      if (at === undefined || at > i) problems.push(`orphan tool result ${m.tool_call_id} at ${i}`);
    }
    if (m.role === 'assistant' && m.tool_calls?.length) {
      const expected = m.tool_calls.filter((c) => historyResults.has(c.id)).map((c) => c.id);
      const following: string[] = [];
      for (let k = i + 1; k < view.length && view[k]!.role === 'tool'; k++)
        following.push(view[k]!.tool_call_id!);
      for (const id of expected) {
        if (!following.includes(id)) problems.push(`assistant at ${i} lost or separated result ${id}`);
      }
    }
  });
  return problems;
}
