/**
 * The reference's progressive, view-only compaction (8 levels), working from
 * what the context manager keeps up to date as messages are added: per-message
 * token estimates, the tool-pair index and earlier rewrites. Every operation
 * updates a running total, so compacting costs a few passes over flat arrays
 * plus the messages it rewrites for the first time, never a re-measure or a
 * re-read of the whole list.
 */
import type { Message } from '@amplifier/core';
import { stubbed, truncated } from './notice.js';
import { indexPairs, KIND_CALLER, KIND_TOOL, KIND_USER, type PairIndex } from './pairs.js';
import { jsonLength } from './snapshot.js';

/**
 * Estimated tokens of one message: the length of its JSON text / 4, rounded
 * down. Keys and punctuation count, like the reference's `len(str(msg)) // 4`;
 * it overestimates English prose roughly 2x, which errs on the safe side.
 * (`JSON.stringify`; core's `stringifyJson` where that throws: bigint, cycles.)
 */
export function estimateTokens(message: unknown): number {
  return Math.floor(jsonLength(message) / 4);
}

export interface CompactionSettings {
  target_usage: number;
  protected_recent: number;
  protected_tool_results: number;
  truncate_chars: number;
}

/** What `context:compaction` carries (the reference's stats, same names). */
export interface CompactionStats {
  before_tokens: number;
  after_tokens: number;
  before_messages: number;
  after_messages: number;
  messages_removed: number;
  messages_truncated: number;
  user_messages_stubbed: number;
  system_messages_preserved: number;
  /** The highest level (1-8) the strategy reached. */
  strategy_level: number;
  /** The effective budget compacted against. */
  budget: number;
  target_tokens: number;
  protected_recent: number;
  protected_tool_results: number;
}

export interface CompactionResult {
  messages: Message[];
  stats: CompactionStats;
}

/** A truncated or stubbed message (frozen) and its estimate; `null` when rewriting would not shorten it. */
export type Rewrite = { readonly message: Message; readonly tokens: number } | null;

/** What a compaction starts from; the context manager keeps it up to date as messages are added. */
export interface CompactionInput {
  /** The system messages: never touched, first in the result, in this order. */
  system: readonly Message[];
  /** Every other message, in order. */
  work: readonly Message[];
  /** The estimate of each `work` message. */
  tokens: ArrayLike<number>;
  /** The estimate of all the messages, system included. */
  total: number;
  /** The pair index of `work`. */
  pairs: PairIndex;
  /**
   * Rewrites of `work[i]` made by earlier compactions (`undefined`: none yet),
   * filled in by this one. Only valid while `work[i]` and `truncate_chars`
   * stay the same: the context manager keeps one per history.
   */
  rewrites?: (Rewrite | undefined)[];
}

/** User messages at most this long are never stubbed. */
const STUB_MIN_CHARS = 80;

/**
 * Compact `messages` (whose estimates are `tokens`, summing to `total`) toward
 * `floor(budget * target_usage)`. Returns a new list; the input and its
 * messages are never modified (rewritten messages are new, frozen objects).
 */
export function compactMessages(
  messages: readonly Message[],
  tokens: readonly number[],
  total: number,
  budget: number,
  settings: CompactionSettings,
): CompactionResult {
  const system: Message[] = [];
  const work: Message[] = [];
  const workTokens: number[] = [];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === 'system') system.push(message);
    else {
      work.push(message);
      workTokens.push(tokens[i] ?? 0);
    }
  }
  const { messages: view, stats } = compactPrepared(
    { system, work, tokens: workTokens, total, pairs: indexPairs(work) },
    budget,
    settings,
  );
  return { messages: view, stats };
}

/** A compaction's result with the surviving non-system messages and their estimates, in order. */
export interface PreparedResult extends CompactionResult {
  work: Message[];
  tokens: number[];
  /** 1 for each input `work` message kept (rewritten or not), 0 for each removed. */
  alive: Uint8Array;
}

/** `compactMessages` from an input the caller keeps (see `CompactionInput`). */
export function compactPrepared(
  input: CompactionInput,
  budget: number,
  settings: CompactionSettings,
): PreparedResult {
  return new Compaction(input, budget, settings).run();
}

class Compaction {
  readonly #settings: CompactionSettings;
  readonly #rewrites: (Rewrite | undefined)[] | undefined;
  readonly #budget: number;
  readonly #target: number;
  readonly #system: readonly Message[];
  /** Non-system messages (a copy: rewrites replace entries); indices stay stable, removal clears `#alive`. */
  readonly #work: Message[];
  readonly #tokens: Float64Array;
  readonly #alive: Uint8Array;
  readonly #pairs: PairIndex;
  /** Set on messages this run truncated or stubbed (never done twice). */
  readonly #touched: Uint8Array;
  readonly #firstUser: number;
  readonly #lastUser: number;
  #current: number;
  readonly #beforeTokens: number;
  readonly #beforeMessages: number;
  #removed = 0;
  #truncated = 0;
  #stubbed = 0;
  #level = 1;

  constructor(input: CompactionInput, budget: number, settings: CompactionSettings) {
    this.#settings = settings;
    this.#rewrites = input.rewrites;
    this.#budget = budget;
    this.#target = Math.floor(budget * settings.target_usage);
    this.#current = input.total;
    this.#beforeTokens = input.total;
    this.#system = input.system;
    this.#work = input.work.slice();
    this.#tokens = new Float64Array(input.tokens);
    this.#beforeMessages = this.#system.length + this.#work.length;
    const n = this.#work.length;
    this.#alive = new Uint8Array(n).fill(1);
    this.#touched = new Uint8Array(n);
    this.#pairs = input.pairs;
    // Users are only ever removed at level 8 (never the first or the last), so these hold throughout.
    this.#firstUser = this.#pairs.kind.indexOf(KIND_USER);
    this.#lastUser = this.#pairs.kind.lastIndexOf(KIND_USER);
  }

  #done(): boolean {
    return this.#current <= this.#target;
  }

  run(): PreparedResult {
    const p = this.#settings.protected_recent;
    const steps: (() => void)[] = [
      () => this.#truncateWave(0, 0.25),
      () => this.#truncateWave(0.25, 0.5),
      () => this.#removeWithProtection(p),
      () => this.#truncateWave(0.5, 0.75),
      () => this.#removeWithProtection(p * 0.6),
      () => this.#truncateWave(0, 1),
      () => this.#removeWithProtection(p * 0.3),
      () => this.#lastResort(p * 0.3),
    ];
    for (let i = 0; i < steps.length; i++) {
      this.#level = i + 1;
      steps[i]!();
      if (this.#done()) break;
    }
    return this.#finish();
  }

  /** Indices of the tool results still present, in order. */
  #aliveTools(): number[] {
    const out: number[] = [];
    const { kind } = this.#pairs;
    for (let i = 0; i < kind.length; i++) if (kind[i] === KIND_TOOL && this.#alive[i]) out.push(i);
    return out;
  }

  /** Tool result `i` is protected (last N) iff `i >= #protectedToolsFrom(tools)`; N <= 0 protects none. */
  #protectedToolsFrom(tools: readonly number[]): number {
    const n = this.#settings.protected_tool_results;
    if (n <= 0 || tools.length === 0) return Number.POSITIVE_INFINITY;
    return tools[Math.max(0, tools.length - n)]!;
  }

  /** Levels 1, 2, 4 and 6: truncate the tool results between two fractions of their positions. */
  #truncateWave(from: number, to: number): void {
    const tools = this.#aliveTools();
    const protectedFrom = this.#protectedToolsFrom(tools);
    const end = Math.floor(tools.length * to);
    const keep = this.#settings.truncate_chars;
    for (let k = Math.floor(tools.length * from); k < end && !this.#done(); k++) {
      const i = tools[k]!;
      if (i >= protectedFrom || this.#touched[i]) continue;
      if (this.#replace(i, truncated, keep)) this.#truncated++;
    }
  }

  /**
   * Put the rewrite of message `i` (made by `rewrite`, or taken from the
   * cache) in its place and update the running total. False when there is
   * none (the message would not get shorter).
   */
  #replace(
    i: number,
    rewrite: (message: Message, keep: number) => Message | undefined,
    keep: number,
  ): boolean {
    let done = this.#rewrites?.[i];
    if (done === undefined) {
      const replacement = rewrite(this.#work[i]!, keep);
      done = replacement === undefined ? null : { message: replacement, tokens: estimateTokens(replacement) };
      if (this.#rewrites !== undefined) this.#rewrites[i] = done;
    }
    if (done === null) return false;
    this.#current += done.tokens - this.#tokens[i]!;
    this.#work[i] = done.message;
    this.#tokens[i] = done.tokens;
    this.#touched[i] = 1;
    return true;
  }

  #stub(i: number): void {
    if (this.#touched[i]) return;
    if (this.#replace(i, stubbed, STUB_MIN_CHARS)) this.#stubbed++;
  }

  #remove(i: number): void {
    this.#alive[i] = 0;
    this.#current -= this.#tokens[i]!;
    this.#removed++;
  }

  /** Position of each present message among the present ones, and how many there are. */
  #ranks(): { rank: Int32Array; count: number } {
    const rank = new Int32Array(this.#work.length);
    let count = 0;
    for (let i = 0; i < rank.length; i++) rank[i] = this.#alive[i] ? count++ : -1;
    return { rank, count };
  }

  /**
   * Levels 3, 5 and 7: remove the oldest non-user messages outside the
   * protected tail (never the last user message, never a protected tool
   * result); a tool call and all its results go together or not at all; then
   * stub intermediate user messages.
   */
  #removeWithProtection(protection: number): void {
    const { kind, owner, removable, start, results } = this.#pairs;
    const { rank, count } = this.#ranks();
    const boundary = Math.floor(count * (1 - protection));
    const toolsFrom = this.#protectedToolsFrom(this.#aliveTools());
    const last = this.#lastUser;
    const isProtected = (i: number): boolean =>
      rank[i]! >= boundary || i === last || (kind[i] === KIND_TOOL && i >= toolsFrom);

    const removePair = (a: number): void => {
      if (!removable[a] || !this.#alive[a] || isProtected(a)) return;
      for (let r = start[a]!; r < start[a + 1]!; r++) if (isProtected(results[r]!)) return;
      this.#remove(a);
      for (let r = start[a]!; r < start[a + 1]!; r++) this.#remove(results[r]!);
    };

    for (let i = 0; i < kind.length && !this.#done(); i++) {
      if (!this.#alive[i] || i === last) continue;
      if (rank[i]! >= boundary) break;
      const k = kind[i];
      if (k === KIND_USER) continue; // users are only ever stubbed
      if (k === KIND_TOOL) {
        if (owner[i]! >= 0) removePair(owner[i]!);
      } else if (k === KIND_CALLER) removePair(i);
      else this.#remove(i);
    }

    for (let i = 0; i < kind.length && !this.#done(); i++) {
      if (kind[i] !== KIND_USER || !this.#alive[i] || i === this.#firstUser || i === last) continue;
      if (rank[i]! >= boundary) break;
      this.#stub(i);
    }
  }

  /** Level 8: stub the first user message (unless it is the last), then drop older stubs. */
  #lastResort(protection: number): void {
    const first = this.#firstUser;
    const last = this.#lastUser;
    if (first >= 0 && first !== last) this.#stub(first);
    const { rank, count } = this.#ranks();
    const boundary = Math.floor(count * (1 - protection));
    const { kind } = this.#pairs;
    for (let i = 0; i < kind.length && !this.#done(); i++) {
      if (!this.#alive[i] || rank[i]! >= boundary) continue;
      // The first user message stays (as a stub), unlike the reference's quirk.
      if (kind[i] === KIND_USER && this.#touched[i] && i !== first && i !== last) this.#remove(i);
    }
  }

  #finish(): PreparedResult {
    const messages = this.#system.slice();
    const work: Message[] = [];
    const tokens: number[] = [];
    for (let i = 0; i < this.#work.length; i++) {
      if (!this.#alive[i]) continue;
      messages.push(this.#work[i]!);
      work.push(this.#work[i]!);
      tokens.push(this.#tokens[i]!);
    }
    return {
      messages,
      work,
      tokens,
      alive: this.#alive,
      stats: {
        before_tokens: this.#beforeTokens,
        after_tokens: this.#current,
        before_messages: this.#beforeMessages,
        after_messages: messages.length,
        messages_removed: this.#removed,
        messages_truncated: this.#truncated,
        user_messages_stubbed: this.#stubbed,
        system_messages_preserved: this.#system.length,
        strategy_level: this.#level,
        budget: this.#budget,
        target_tokens: this.#target,
        protected_recent: this.#settings.protected_recent,
        protected_tool_results: this.#settings.protected_tool_results,
      },
    };
  }
}
