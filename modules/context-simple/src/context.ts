/**
 * SimpleContextManager: the in-memory history with a view-only compacted
 * request list. Stored messages are private, frozen snapshots with their token
 * estimate computed once on the way in, so a request that needs no compaction
 * costs one pass over the list and no re-measuring.
 */
import {
  type ContextManager,
  type EventSink,
  events,
  type GetMessagesOptions,
  type Logger,
  type Message,
  utcTimestamp,
} from '@amplifier/core';
import { requestBudget } from './budget.js';
import {
  type CompactionStats,
  compactPrepared,
  estimateTokens,
  type PreparedResult,
  type Rewrite,
} from './compaction.js';
import { type ContextSimpleConfig, type ResolvedConfig, resolveConfig } from './config.js';
import { MEMORY_FILE_SOURCE } from './memory-files.js';
import { noticeMessage } from './notice.js';
import { PairTracker, trackPairs } from './pairs.js';
import { copyPlain, snapshotMessage } from './snapshot.js';

export interface SimpleContextOptions {
  /** Where `context:compaction` goes (the mount passes `coordinator.hooks`). */
  hooks?: EventSink;
  logger?: Logger;
}

/** Produces the system prompt; called on every `getMessagesForRequest`. */
export type SystemPromptFactory = () => string | Promise<string>;

/** A stored system message that factory mode replaces (hook injections and memory files are kept). */
function isStaticSystem(message: Message): boolean {
  const source = message.metadata?.source;
  return message.role === 'system' && source !== 'hook' && source !== MEMORY_FILE_SOURCE;
}

/**
 * The compacted view kept between requests (sticky compaction): the non-system
 * messages that survived the last compaction, then every non-system message
 * added since, with their estimates, and the notice of that compaction.
 */
interface StickyView {
  /** The effective budget it was compacted against; another budget starts afresh. */
  readonly effective: number;
  readonly work: Message[];
  readonly tokens: number[];
  /** The tool pairs of `work`, extended with it (carried over from a compaction's survivors, not rebuilt). */
  readonly pairs: PairTracker;
  /** Sum of `tokens`. */
  workTokens: number;
  /** How many of the history's non-system messages it has taken in. */
  seen: number;
  readonly notice: Message | undefined;
}

/** The reference's in-memory context manager with ephemeral, progressive compaction. */
export class SimpleContextManager implements ContextManager {
  /** The validated config with defaults applied. */
  readonly config: Readonly<ResolvedConfig>;
  readonly #hooks: EventSink | undefined;
  readonly #logger: Logger | undefined;
  /** The history: frozen snapshots, in order. */
  #messages: Message[] = [];
  /** Estimate of the whole history. */
  #total = 0;
  // What compaction starts from: the history split into system messages and the rest (kept
  // up to date by every add), the estimates of the rest, and, brought up to date by each
  // compaction, the tool pairs of the rest and their rewrites (truncations, stubs) so far.
  #systems: Message[] = [];
  #work: Message[] = [];
  #workTokens: number[] = [];
  /** Sum of `#workTokens`. */
  #workTotal = 0;
  #sticky: StickyView | undefined;
  #pairs = new PairTracker();
  #rewrites: (Rewrite | undefined)[] = [];
  /** Estimate of the stored system messages a system prompt factory replaces. */
  #staticSystemTokens = 0;
  #staticSystemCount = 0;
  #factory: SystemPromptFactory | undefined;
  /** The factory's last prompt text and its estimate. */
  #lastPrompt: { content: string; tokens: number } | undefined;
  #lastStats: CompactionStats | undefined;

  constructor(
    config: ContextSimpleConfig | Record<string, unknown> = {},
    options: SimpleContextOptions = {},
  ) {
    this.config = Object.freeze(resolveConfig(config as Record<string, unknown>, options.logger));
    this.#hooks = options.hooks;
    this.#logger = options.logger;
  }

  /** Stats of the last compaction (also sent as `context:compaction`), if any. */
  get lastCompactionStats(): CompactionStats | undefined {
    return this.#lastStats;
  }

  /** Estimated tokens of the stored history (kept up to date on every change). */
  get estimatedTokens(): number {
    return this.#total;
  }

  get messageCount(): number {
    return this.#messages.length;
  }

  /**
   * Append a message (never rejected, even over budget: a tool result must
   * always land next to its call). Stores a frozen copy; sets
   * `metadata.timestamp` (ISO-8601 UTC, milliseconds) unless it has one.
   */
  async addMessage(message: Message): Promise<void> {
    if (typeof message !== 'object' || message === null) {
      throw new TypeError(
        `addMessage expects a message object, got ${message === null ? 'null' : typeof message}`,
      );
    }
    const timestamp = message.metadata?.timestamp;
    const stamp = timestamp === undefined || timestamp === null ? utcTimestamp() : undefined;
    const { value, jsonLength } = snapshotMessage(message, stamp);
    this.#push(value, Math.floor(jsonLength / 4));
  }

  /** Store `stored` (a frozen snapshot) whose estimate is `tokens`. */
  #push(stored: Message, tokens: number): void {
    this.#messages.push(stored);
    this.#total += tokens;
    if (stored.role === 'system') {
      this.#systems.push(stored);
      if (isStaticSystem(stored)) {
        this.#staticSystemTokens += tokens;
        this.#staticSystemCount++;
      }
    } else {
      this.#work.push(stored);
      this.#workTokens.push(tokens);
      this.#workTotal += tokens;
    }
  }

  /** The full history, never compacted, as mutable copies (each message copied on its own, as stored). */
  async getMessages(): Promise<Message[]> {
    const messages = this.#messages;
    const out = new Array<Message>(messages.length);
    for (let i = 0; i < messages.length; i++) out[i] = copyPlain(messages[i]!);
    return out;
  }

  /** Replace the history (session resume). Messages are stored as given: no timestamps are added. */
  async setMessages(messages: Message[]): Promise<void> {
    if (!Array.isArray(messages)) throw new TypeError('setMessages expects an array of messages');
    this.#reset();
    for (const message of messages) {
      const { value, jsonLength } = snapshotMessage(message);
      this.#push(value, Math.floor(jsonLength / 4));
    }
  }

  async clear(): Promise<void> {
    this.#reset();
  }

  #reset(): void {
    this.#messages = [];
    this.#total = 0;
    this.#systems = [];
    this.#work = [];
    this.#workTokens = [];
    this.#workTotal = 0;
    this.#sticky = undefined;
    this.#pairs = new PairTracker();
    this.#rewrites = [];
    this.#staticSystemTokens = 0;
    this.#staticSystemCount = 0;
  }

  /**
   * Factory mode: `factory()` is called on every request and its text becomes
   * the first (system) message; stored system messages are left out of the
   * request, except hook injections (`metadata.source == "hook"`). `null` ends it.
   */
  async setSystemPromptFactory(factory: SystemPromptFactory | null): Promise<void> {
    this.#factory = factory ?? undefined;
  }

  /** True when `tokenCount / budget` reaches `compact_threshold`; a budget <= 0 never compacts. */
  shouldCompact(tokenCount: number, budget: number): boolean {
    const usage = budget > 0 ? tokenCount / budget : 0;
    return usage >= this.config.compact_threshold;
  }

  /**
   * The request budget, before the notice reserve: an explicit `tokenBudget`;
   * else the provider's model info, else its `getInfo().defaults`
   * (`context_window - floor(max_output_tokens * output_reserve_fraction) - 4096`,
   * capped by `max_tokens` only when that was configured); else `max_tokens`.
   */
  async calculateBudget(options: GetMessagesOptions = {}): Promise<number> {
    return requestBudget(options, this.config, this.#logger);
  }

  /**
   * The messages for the next LLM request: the history (with the factory's
   * system prompt in factory mode), compacted into a new list when it reaches
   * the threshold of the effective budget. History is never modified. The
   * returned messages are frozen snapshots: replace one to change it.
   */
  async getMessagesForRequest(options: GetMessagesOptions = {}): Promise<Message[]> {
    const pending = requestBudget(options, this.config, this.#logger);
    const budget = typeof pending === 'number' ? pending : await pending;
    const effective = this.config.compaction_notice_enabled
      ? budget - this.config.compaction_notice_token_reserve
      : budget;

    if (this.#factory === undefined) {
      // The stored messages are frozen, so the view shares them: only the array is new.
      if (!this.shouldCompact(this.#total, effective)) {
        this.#sticky = undefined;
        return this.#messages.slice();
      }
      return this.#compacted(this.#systems, this.#total, effective);
    }

    const text = this.#factory();
    const content = typeof text === 'string' ? text : await text;
    const prompt: Message = { role: 'system', content };
    // A factory usually returns the same text request after request: measure it once.
    let promptTokens: number;
    if (typeof content === 'string' && this.#lastPrompt?.content === content) {
      promptTokens = this.#lastPrompt.tokens;
    } else {
      promptTokens = estimateTokens(prompt);
      if (typeof content === 'string') this.#lastPrompt = { content, tokens: promptTokens };
    }
    const total = this.#total - this.#staticSystemTokens + promptTokens;
    if (this.shouldCompact(total, effective)) {
      const systems = [prompt];
      for (const message of this.#systems) if (!isStaticSystem(message)) systems.push(message);
      return this.#compacted(systems, total, effective);
    }
    this.#sticky = undefined;
    if (this.#staticSystemCount === 0) return [prompt, ...this.#messages];
    const view: Message[] = [prompt];
    for (const message of this.#messages) if (!isStaticSystem(message)) view.push(message);
    return view;
  }

  /**
   * The view of a history over the threshold: with sticky compaction, the kept
   * view extended with the messages added since, compacted again only when it
   * reaches the threshold itself; else (or for a new budget) the whole history
   * compacted afresh. `total` is the estimate of `systems` and the history's
   * non-system messages.
   */
  async #compacted(systems: readonly Message[], total: number, effective: number): Promise<Message[]> {
    const sticky = this.#sticky;
    if (!this.config.sticky_compaction || sticky === undefined || sticky.effective !== effective) {
      return this.#settle(this.#compactHistory(systems, total, effective), effective, this.#pairs);
    }
    const work = this.#work;
    const tokens = this.#workTokens;
    for (let i = sticky.seen; i < work.length; i++) {
      sticky.work.push(work[i]!);
      sticky.pairs.add(work[i]!);
      sticky.tokens.push(tokens[i]!);
      sticky.workTokens += tokens[i]!;
    }
    sticky.seen = work.length;
    const viewTotal = total - this.#workTotal + sticky.workTokens;
    if (!this.shouldCompact(viewTotal, effective)) return withNotice(systems, sticky.notice, sticky.work);
    const input = {
      system: systems,
      work: sticky.work,
      tokens: sticky.tokens,
      total: viewTotal,
      pairs: sticky.pairs.index(),
    };
    return this.#settle(compactPrepared(input, effective, this.config), effective, sticky.pairs);
  }

  /** Compact the stored non-system messages behind `systems` (whose estimates and the history's add up to `total`). */
  #compactHistory(systems: readonly Message[], total: number, effective: number): PreparedResult {
    const work = this.#work;
    for (let i = this.#pairs.length; i < work.length; i++) this.#pairs.add(work[i]!);
    while (this.#rewrites.length < work.length) this.#rewrites.push(undefined);
    const input = {
      system: systems,
      work,
      tokens: this.#workTokens,
      total,
      pairs: this.#pairs.index(),
      rewrites: this.#rewrites,
    };
    return compactPrepared(input, effective, this.config);
  }

  /**
   * Keep what a compaction made (for sticky compaction; `pairs` tracked its input), emit
   * `context:compaction`, add the notice.
   */
  async #settle(result: PreparedResult, effective: number, pairs: PairTracker): Promise<Message[]> {
    const { messages, stats } = result;
    this.#lastStats = stats;
    if (this.#hooks !== undefined) {
      try {
        await this.#hooks.emit(events.CONTEXT_COMPACTION, { ...stats });
      } catch (error) {
        this.#logger?.warn(`context-simple: could not emit ${events.CONTEXT_COMPACTION}: ${String(error)}`);
      }
    }
    const notice =
      this.config.compaction_notice_enabled && stats.strategy_level >= this.config.compaction_notice_min_level
        ? noticeMessage(stats, this.config.compaction_notice_verbosity)
        : undefined;
    if (this.config.sticky_compaction) {
      let workTokens = 0;
      for (const t of result.tokens) workTokens += t;
      this.#sticky = {
        effective,
        work: result.work,
        tokens: result.tokens,
        pairs: pairs.survivors(result.alive) ?? trackPairs(result.work),
        workTokens,
        seen: this.#work.length,
        notice,
      };
    }
    if (notice !== undefined) {
      // Index 1, after the first system message; at the front when there is none, so the
      // notice can never land between a tool call and its results (a reference quirk).
      messages.splice(messages[0]?.role === 'system' ? 1 : 0, 0, notice);
    }
    return messages;
  }
}

/** A new array: `systems`, then `notice` after the first system message (first when none), then `work`. */
function withNotice(systems: readonly Message[], notice: Message | undefined, work: Message[]): Message[] {
  if (notice === undefined) return systems.length === 0 ? work.slice() : systems.concat(work);
  if (systems.length === 0) return [notice].concat(work);
  return [systems[0]!, notice, ...systems.slice(1)].concat(work);
}
