/**
 * Tool pairs: which assistant message made the call each tool result answers,
 * computed once per compaction in one pass, in flat typed arrays.
 */
import type { Message } from '@amplifier/core';

/** Role codes in `PairIndex.kind`. */
export const KIND_OTHER = 0;
export const KIND_USER = 1;
export const KIND_TOOL = 2;
/** An assistant message that made at least one tool call. */
export const KIND_CALLER = 3;

export interface PairIndex {
  /** One role code per message. */
  kind: Uint8Array;
  /** For a tool message: the index of the assistant whose call it answers, else -1. */
  owner: Int32Array;
  /** For a caller: 1 when it and its results may go as one unit. */
  removable: Uint8Array;
  /** Results of caller `a` are `results[start[a]] .. results[start[a + 1] - 1]`. */
  start: Int32Array;
  results: Int32Array;
}

/** Distinct call ids of an assistant (`tool_calls` and `tool_call` blocks); '' for an id-less call. */
function callIds(message: Message): string[] {
  const ids: string[] = [];
  const add = (id: unknown): void => {
    const key = typeof id === 'string' ? id : '';
    if (!ids.includes(key)) ids.push(key);
  };
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls as unknown[]) {
      const c = call as { id?: unknown; tool_call_id?: unknown } | null;
      add(c?.id ?? c?.tool_call_id);
    }
  }
  if (Array.isArray(message.content)) {
    for (const block of message.content) if (block?.type === 'tool_call') add(block.id);
  }
  return ids;
}

/** Call ids a tool message answers (`tool_call_id` and `tool_result` blocks). */
function resultIds(message: Message): string[] {
  const ids = typeof message.tool_call_id === 'string' ? [message.tool_call_id] : [];
  if (Array.isArray(message.content)) {
    for (const block of message.content) {
      if (block?.type === 'tool_result' && typeof block.tool_call_id === 'string')
        ids.push(block.tool_call_id);
    }
  }
  return ids;
}

/**
 * Bind every tool result to the latest earlier assistant that declared its
 * call id (so ids reused across turns bind correctly). A caller is removable
 * only when every call has a result; one with an id-less call, or sharing a
 * result message with another caller, never is.
 */
export function indexPairs(messages: readonly Message[]): PairIndex {
  const n = messages.length;
  const kind = new Uint8Array(n);
  const owner = new Int32Array(n).fill(-1);
  const calls = new Int32Array(n);
  const answered = new Int32Array(n);
  const pinned = new Uint8Array(n);
  // id -> caller index * 2 + (1 once that caller got a result for it)
  const pending = new Map<string, number>();
  let resultCount = 0;

  for (let i = 0; i < n; i++) {
    const message = messages[i]!;
    const role = message?.role;
    if (role === 'user') kind[i] = KIND_USER;
    else if (role === 'assistant') {
      const ids = callIds(message);
      if (ids.length === 0) continue;
      kind[i] = KIND_CALLER;
      calls[i] = ids.length;
      for (const id of ids) {
        if (id === '') pinned[i] = 1;
        else pending.set(id, i * 2);
      }
    } else if (role === 'tool') {
      kind[i] = KIND_TOOL;
      let bound = -1;
      let ambiguous = false;
      for (const id of resultIds(message)) {
        const value = pending.get(id);
        if (value === undefined) continue;
        const a = value >> 1;
        if ((value & 1) === 0) {
          answered[a]!++;
          pending.set(id, value | 1);
        }
        if (bound === -1) bound = a;
        else if (bound !== a) {
          ambiguous = true;
          pinned[a] = 1;
          pinned[bound] = 1;
        }
      }
      if (bound >= 0 && !ambiguous) {
        owner[i] = bound;
        resultCount++;
      }
    }
  }

  const start = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) if (owner[i]! >= 0) start[owner[i]! + 1]!++;
  for (let i = 0; i < n; i++) start[i + 1]! += start[i]!;
  const results = new Int32Array(resultCount);
  const fill = start.slice(0, n);
  for (let i = 0; i < n; i++) if (owner[i]! >= 0) results[fill[owner[i]!]!++] = i;

  const removable = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (kind[i] === KIND_CALLER && pinned[i] === 0 && answered[i] === calls[i]) removable[i] = 1;
  }
  return { kind, owner, removable, start, results };
}
