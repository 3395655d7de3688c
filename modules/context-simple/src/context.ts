/**
 * SimpleContextManager: the in-memory history with a view-only compacted
 * request list. Stored messages are private, frozen snapshots with their token
 * estimate computed once on the way in, so a request that needs no compaction
 * costs one pass over the list and no re-measuring.
 */
import {
  type ContextManager,
  events,
  type GetMessagesOptions,
  type Logger,
  type Message,
  utcTimestamp,
} from '@amplifier/core';
import { type CompactionStats, compactMessages, estimateTokens } from './compaction.js';
import { type ContextSimpleConfig, type ResolvedConfig, resolveConfig } from './config.js';
import { noticeMessage } from './notice.js';

/** Tokens kept free for safety on top of the reserved output (the reference's margin). */
export const SAFETY_MARGIN_TOKENS = 4096;

/** Anything with a HookRegistry-like `emit` (the coordinator's `hooks`, an `EventRecorder`). */
export interface EventEmitterLike {
  emit(event: string, data: Record<string, unknown>): Promise<unknown>;
}

export interface SimpleContextOptions {
  /** Where `context:compaction` goes (the mount passes `coordinator.hooks`). */
  hooks?: EventEmitterLike;
  logger?: Logger;
}

/** Produces the system prompt; called on every `getMessagesForRequest`. */
export type SystemPromptFactory = () => string | Promise<string>;

/**
 * Deep-copy plain data (arrays and plain objects; other values are shared),
 * optionally freezing the copies. Cycles are preserved, not followed forever.
 */
function copyPlain<T>(value: T, freeze: boolean, seen = new Map<object, unknown>()): T {
  if (typeof value !== 'object' || value === null) return value;
  const done = seen.get(value);
  if (done !== undefined) return done as T;
  let out: Record<string, unknown> | unknown[];
  if (Array.isArray(value)) {
    out = new Array(value.length);
    seen.set(value, out);
    for (let i = 0; i < value.length; i++) out[i] = copyPlain(value[i], freeze, seen);
  } else {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return value;
    out = {};
    seen.set(value, out);
    for (const key of Object.keys(value)) {
      out[key] = copyPlain((value as Record<string, unknown>)[key], freeze, seen);
    }
  }
  return (freeze ? Object.freeze(out) : out) as T;
}

/** A stored system message that factory mode replaces (hook injections are kept). */
function isStaticSystem(message: Message): boolean {
  return message.role === 'system' && message.metadata?.source !== 'hook';
}

function positive(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

/** The reference's in-memory context manager with ephemeral, progressive compaction. */
export class SimpleContextManager implements ContextManager {
  /** The validated config with defaults applied. */
  readonly config: Readonly<ResolvedConfig>;
  readonly #hooks: EventEmitterLike | undefined;
  readonly #logger: Logger | undefined;
  #messages: Message[] = [];
  /** `#tokens[i]` is the estimate of `#messages[i]`. */
  #tokens: number[] = [];
  #total = 0;
  /** Estimate of the stored system messages a system prompt factory replaces. */
  #staticSystemTokens = 0;
  #factory: SystemPromptFactory | undefined;
  #lastStats: CompactionStats | undefined;

  constructor(
    config: ContextSimpleConfig | Record<string, unknown> = {},
    options: SimpleContextOptions = {},
  ) {
    this.config = Object.freeze(resolveConfig(config as Record<string, unknown>));
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
    const metadata = message.metadata;
    const stamped: Message =
      metadata?.timestamp === undefined || metadata.timestamp === null
        ? { ...message, metadata: { ...metadata, timestamp: utcTimestamp() } }
        : message;
    this.#push(copyPlain(stamped, true));
  }

  #push(stored: Message): void {
    const tokens = estimateTokens(stored);
    this.#messages.push(stored);
    this.#tokens.push(tokens);
    this.#total += tokens;
    if (isStaticSystem(stored)) this.#staticSystemTokens += tokens;
  }

  /** The full history, never compacted, as mutable copies. */
  async getMessages(): Promise<Message[]> {
    return copyPlain(this.#messages, false);
  }

  /** Replace the history (session resume). Messages are stored as given: no timestamps are added. */
  async setMessages(messages: Message[]): Promise<void> {
    if (!Array.isArray(messages)) throw new TypeError('setMessages expects an array of messages');
    this.#reset();
    for (const message of messages) this.#push(copyPlain(message, true));
  }

  async clear(): Promise<void> {
    this.#reset();
  }

  #reset(): void {
    this.#messages = [];
    this.#tokens = [];
    this.#total = 0;
    this.#staticSystemTokens = 0;
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
    if (typeof options.tokenBudget === 'number' && Number.isFinite(options.tokenBudget)) {
      return options.tokenBudget;
    }
    const provider = options.provider;
    if (provider !== undefined && provider !== null) {
      const fromModel = this.#fromLimits(await this.#safely(() => provider.getModelInfo?.()));
      if (fromModel !== undefined) return fromModel;
      const fromDefaults = this.#fromLimits(await this.#safely(() => provider.getInfo().defaults));
      if (fromDefaults !== undefined) return fromDefaults;
    }
    return this.config.max_tokens;
  }

  async #safely<T>(read: () => T): Promise<T | undefined> {
    try {
      return await read();
    } catch (error) {
      this.#logger?.debug(`context-simple: could not read provider limits: ${String(error)}`);
      return undefined;
    }
  }

  #fromLimits(
    limits: { context_window?: unknown; max_output_tokens?: unknown } | undefined,
  ): number | undefined {
    const window = limits?.context_window;
    const maxOutput = limits?.max_output_tokens;
    if (!positive(window) || !positive(maxOutput)) return undefined;
    const budget =
      window - Math.floor(maxOutput * this.config.output_reserve_fraction) - SAFETY_MARGIN_TOKENS;
    return this.config.max_tokens_explicit ? Math.min(budget, this.config.max_tokens) : budget;
  }

  /**
   * The messages for the next LLM request: the history (with the factory's
   * system prompt in factory mode), compacted into a new list when it reaches
   * the threshold of the effective budget. History is never modified. The
   * returned messages are frozen snapshots: replace one to change it.
   */
  async getMessagesForRequest(options: GetMessagesOptions = {}): Promise<Message[]> {
    const budget = await this.calculateBudget(options);
    const effective = this.config.compaction_notice_enabled
      ? budget - this.config.compaction_notice_token_reserve
      : budget;

    let working: Message[];
    let tokens: number[];
    let total: number;
    if (this.#factory === undefined) {
      total = this.#total;
      if (!this.shouldCompact(total, effective)) return this.#messages.slice();
      working = this.#messages;
      tokens = this.#tokens;
    } else {
      const prompt: Message = { role: 'system', content: await this.#factory() };
      const promptTokens = estimateTokens(prompt);
      total = this.#total - this.#staticSystemTokens + promptTokens;
      working = [prompt];
      tokens = [promptTokens];
      for (let i = 0; i < this.#messages.length; i++) {
        const message = this.#messages[i]!;
        if (isStaticSystem(message)) continue;
        working.push(message);
        tokens.push(this.#tokens[i]!);
      }
      if (!this.shouldCompact(total, effective)) return working;
    }

    const { messages, stats } = compactMessages(working, tokens, total, effective, this.config);
    this.#lastStats = stats;
    if (this.#hooks !== undefined) {
      try {
        await this.#hooks.emit(events.CONTEXT_COMPACTION, { ...stats });
      } catch (error) {
        this.#logger?.warn(`context-simple: could not emit ${events.CONTEXT_COMPACTION}: ${String(error)}`);
      }
    }
    if (
      this.config.compaction_notice_enabled &&
      stats.strategy_level >= this.config.compaction_notice_min_level
    ) {
      // Index 1, after the first system message; at the front when there is none, so the
      // notice can never land between a tool call and its results (a reference quirk).
      const at = messages[0]?.role === 'system' ? 1 : 0;
      messages.splice(at, 0, noticeMessage(stats, this.config.compaction_notice_verbosity));
    }
    return messages;
  }
}
