/**
 * Tool pairs: which assistant message made the call each tool result answers,
 * in flat typed arrays, built as messages are added.
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
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls as unknown[]) {
      const c = call as { id?: unknown; tool_call_id?: unknown } | null;
      addId(ids, c?.id ?? c?.tool_call_id);
    }
  }
  if (Array.isArray(message.content)) {
    for (const block of message.content) if (block?.type === 'tool_call') addId(ids, block.id);
  }
  return ids;
}

function addId(ids: string[], id: unknown): void {
  const key = typeof id === 'string' ? id : '';
  if (!ids.includes(key)) ids.push(key);
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

/** Typed arrays that grow (doubling) as messages are added. */
function grown<T extends Uint8Array | Int32Array>(array: T, need: number): T {
  if (need <= array.length) return array;
  const next = new (array.constructor as new (n: number) => T)(Math.max(need, array.length * 2));
  next.set(array);
  return next;
}

/**
 * Builds the pair index one message at a time, so the context manager keeps it
 * up to date as its history grows and a compaction starts from it instead of
 * reading every message again. Each tool result binds to the latest earlier
 * assistant that declared its call id (so ids reused across turns bind
 * correctly). A caller is removable only when every call has a result; one
 * with an id-less call, or sharing a result message with another caller, never is.
 */
export class PairTracker {
  #n = 0;
  #kind = new Uint8Array(16);
  #owner = new Int32Array(16);
  #calls = new Int32Array(16);
  #answered = new Int32Array(16);
  #pinned = new Uint8Array(16);
  /** id -> caller index * 2 + (1 once that caller got a result for it) */
  readonly #pending = new Map<string, number>();
  /** A caller declared an id an earlier caller had declared (`survivors` then rebuilds). */
  #reused = false;

  /** How many messages were added. */
  get length(): number {
    return this.#n;
  }

  /** Add the next message (messages are indexed in the order they are added). */
  add(message: Message): void {
    const i = this.#n++;
    if (i >= this.#kind.length) this.#grow(i + 1);
    this.#owner[i] = -1;
    const role = message?.role;
    if (role === 'user') this.#kind[i] = KIND_USER;
    else if (role === 'assistant') {
      // A plain answer (no tool_calls, text content) makes no call: skip the id lists.
      if (!Array.isArray(message.tool_calls) && !Array.isArray(message.content)) return;
      const ids = callIds(message);
      if (ids.length === 0) return;
      this.#kind[i] = KIND_CALLER;
      this.#calls[i] = ids.length;
      for (const id of ids) {
        if (id === '') this.#pinned[i] = 1;
        else {
          if (this.#pending.has(id)) this.#reused = true;
          this.#pending.set(id, i * 2);
        }
      }
    } else if (role === 'tool') {
      this.#kind[i] = KIND_TOOL;
      let bound = -1;
      let ambiguous = false;
      // The usual result (one tool_call_id, text content) needs no id list.
      const ids = Array.isArray(message.content)
        ? resultIds(message)
        : typeof message.tool_call_id === 'string'
          ? [message.tool_call_id]
          : [];
      for (const id of ids) {
        const value = this.#pending.get(id);
        if (value === undefined) continue;
        const a = value >> 1;
        if ((value & 1) === 0) {
          this.#answered[a]!++;
          this.#pending.set(id, value | 1);
        }
        if (bound === -1) bound = a;
        else if (bound !== a) {
          ambiguous = true;
          this.#pinned[a] = 1;
          this.#pinned[bound] = 1;
        }
      }
      if (bound >= 0 && !ambiguous) this.#owner[i] = bound;
    }
  }

  #grow(need: number): void {
    this.#kind = grown(this.#kind, need);
    this.#owner = grown(this.#owner, need);
    this.#calls = grown(this.#calls, need);
    this.#answered = grown(this.#answered, need);
    this.#pinned = grown(this.#pinned, need);
  }

  /**
   * The tracker of the messages a compaction kept (`alive[i]` for message `i`,
   * rewrites keeping each message's role and ids), equal to a new tracker given
   * those messages in order, without reading them again; this one is left as
   * it is. Undefined when that cannot be carried over: an id declared by more
   * than one caller (a removed caller's ids would unshadow an earlier one's), or a
   * result removed without its caller or kept without it (compaction removes a
   * caller with all its results, so neither happens there).
   */
  survivors(alive: ArrayLike<number>): PairTracker | undefined {
    if (this.#reused) return undefined;
    const n = this.#n;
    const kind = this.#kind;
    const owner = this.#owner;
    const map = new Int32Array(n);
    let count = 0;
    for (let i = 0; i < n; i++) map[i] = alive[i] ? count++ : -1;
    const next = new PairTracker();
    if (count > next.#kind.length) next.#grow(count);
    next.#n = count;
    for (let i = 0; i < n; i++) {
      const j = map[i]!;
      const o = owner[i]!;
      if (kind[i] === KIND_TOOL && (o >= 0 ? map[o]! < 0 !== j < 0 : j < 0)) return undefined;
      if (j < 0) continue;
      next.#kind[j] = kind[i]!;
      next.#owner[j] = o >= 0 ? map[o]! : -1;
      next.#calls[j] = this.#calls[i]!;
      next.#answered[j] = this.#answered[i]!;
      next.#pinned[j] = this.#pinned[i]!;
    }
    for (const [id, value] of this.#pending) {
      const a = map[value >> 1]!;
      if (a >= 0) next.#pending.set(id, a * 2 + (value & 1));
    }
    return next;
  }

  /** The index of the messages added so far (its arrays are valid until the next `add`). */
  index(): PairIndex {
    const n = this.#n;
    const kind = this.#kind.subarray(0, n);
    const owner = this.#owner.subarray(0, n);
    const start = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) if (owner[i]! >= 0) start[owner[i]! + 1]!++;
    for (let i = 0; i < n; i++) start[i + 1]! += start[i]!;
    const results = new Int32Array(start[n]!);
    const fill = start.slice(0, n);
    for (let i = 0; i < n; i++) if (owner[i]! >= 0) results[fill[owner[i]!]!++] = i;
    const removable = new Uint8Array(n);
    const calls = this.#calls;
    const answered = this.#answered;
    const pinned = this.#pinned;
    for (let i = 0; i < n; i++) {
      if (kind[i] === KIND_CALLER && pinned[i] === 0 && answered[i] === calls[i]) removable[i] = 1;
    }
    return { kind, owner, removable, start, results };
  }
}

/** A tracker given `messages` in order. */
export function trackPairs(messages: readonly Message[]): PairTracker {
  const tracker = new PairTracker();
  for (const message of messages) tracker.add(message);
  return tracker;
}

/** The pair index of `messages` (see `PairTracker`). */
export function indexPairs(messages: readonly Message[]): PairIndex {
  return trackPairs(messages).index();
}
