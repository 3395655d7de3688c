import path from 'node:path';
import type { AgentConfig, SpawnRule } from '@amplifier/bundles';
/**
 * A SessionRunner owns one AmplifierSession with its transcript on disk, the
 * live display and Ctrl+C handling during a turn (first press graceful,
 * second immediate, third exits).
 */
import {
  AmplifierError,
  AmplifierSession,
  type ContextManager,
  errorMessage,
  type Logger,
  type Message,
  type ModuleLoader,
} from '@amplifier/core';
import { streamTurn } from '@amplifier/server/stream';
import { CliApproval, terminalCanAsk } from './approval.js';
import type { Display } from './display.js';
import { CliError, EXIT_CANCELLED, noProviderMessage } from './errors.js';
import { CLI_VERSION, createLoader, sourceStandIns, standInNotice } from './modules.js';
import { planSummary, type ResolvedPlan } from './plan.js';
import { repairToolCalls, type SessionRecord, type SessionStore, storedText } from './sessions.js';
import { registerSpawn } from './spawn.js';

/** How a turn ended. */
export interface TurnOutcome {
  status: 'completed' | 'cancelled' | 'failed';
  answer: string;
  error?: unknown;
}

/** Wrap a context so each added message is also appended to the transcript (one line each). */
function recordingContext(
  inner: ContextManager,
  onAdd: (m: Message) => void,
  onClear: () => void,
): ContextManager {
  return new Proxy(inner, {
    get(target, property) {
      if (property === 'addMessage') {
        return async (message: Message) => {
          await target.addMessage(message);
          onAdd(message);
        };
      }
      if (property === 'clear') {
        return async () => {
          await target.clear();
          onClear();
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

export interface OpenOptions {
  resolved: ResolvedPlan;
  cwd: string;
  display: Display;
  store: SessionStore;
  /** Resume this session (its transcript is loaded). */
  record?: SessionRecord | undefined;
  /** Flags to remember in metadata for a later resume. */
  remember: {
    bundle?: string | null;
    sources?: string[] | null;
    provider: string | null;
    model: string | null;
    max_iterations: number | null;
  };
  /** The bundle's system prompt, installed in the context after it is loaded (`applySystemPrompt`). */
  systemPrompt?: (() => Promise<string | undefined>) | undefined;
  /** Whether approvals may ask a person (default: stdin and stderr are terminals). */
  interactive?: boolean;
  /** Agents: the bundle's `spawn` rule and how a child's system prompt is built (default: the agent's instruction). */
  agents?: {
    spawn?: SpawnRule | undefined;
    systemPrompt?: ((agent: AgentConfig | undefined) => Promise<string | undefined>) | undefined;
  };
}

/** One open session: turns, transcript, metadata, Ctrl+C. */
export class SessionRunner {
  readonly session: AmplifierSession;
  readonly record: SessionRecord;
  readonly display: Display;
  readonly approval: CliApproval;
  readonly resolved: ResolvedPlan;
  #presses = 0;
  #inTurn = false;
  #closed = false;
  #detach: () => void = () => {};

  private constructor(
    session: AmplifierSession,
    record: SessionRecord,
    display: Display,
    approval: CliApproval,
    resolved: ResolvedPlan,
  ) {
    this.session = session;
    this.record = record;
    this.display = display;
    this.approval = approval;
    this.resolved = resolved;
  }

  /** Load every module of the plan, check that a provider mounted, restore the transcript when resuming. */
  static async open(options: OpenOptions): Promise<SessionRunner> {
    const { resolved, cwd, display, store } = options;
    const warnings: string[] = [];
    const logger: Logger = {
      debug: (m) => display.debug(m),
      info: (m) => display.debug(m),
      warn: (m) => warnings.push(m),
      error: (m) => display.error(m),
    };
    let runner: SessionRunner | undefined;
    const approval = new CliApproval({
      display,
      interactive: options.interactive ?? terminalCanAsk(),
      onInterrupt: () => runner?.interrupt(),
    });
    const resumed = options.record;
    // The plan is already parsed (resolvePlan): the session keeps it without validating it again.
    // The loader needs nothing of the session: each load gets its mounted module-source-resolver.
    const loader = createLoader(cwd, { logger });
    const session = new AmplifierSession(resolved.plan, {
      loader,
      approval,
      display,
      logger,
      baseDir: cwd,
      workingDir: cwd,
      isResumed: resumed !== undefined,
      ...(resumed && { sessionId: resumed.id }),
    });
    // Where this session's files live; modules that keep per-session state (hooks-approval's
    // grants, tool-bash's background job output) store it here, next to the transcript.
    session.coordinator.registerCapability(
      'session.directory',
      resumed?.dir ?? path.join(store.projectDir(cwd), session.sessionId),
    );
    // session.spawn / session.resume on every root session (reference Part C 5): the delegate tool's
    // children run as sessions stored next to this one, their tool lines shown under the call.
    registerSpawn(session.coordinator, { store, cwd, display, ...options.agents });
    try {
      await session.initialize();
      checkModules(session, warnings, await moduleSuggestions(session, loader));
      // A git source (Amplifier's bundles) is never fetched: say once what stands in for it.
      if (session.coordinator.get('module-source-resolver') === undefined) {
        const notice = standInNotice(await sourceStandIns(resolved.plan, loader));
        if (notice !== undefined) warnings.push(notice);
      }
    } catch (error) {
      await session.cleanup().catch(() => {});
      // A run that never started leaves no session behind (hooks-logging may have opened its log).
      if (resumed === undefined) store.discardUnrecorded(cwd, session.sessionId);
      throw error;
    } finally {
      for (const w of warnings.splice(0)) display.warn(w);
      logger.warn = (m) => display.warn(m);
    }

    const now = new Date().toISOString();
    const record =
      resumed ??
      store.create({
        session_id: session.sessionId,
        created: now,
        updated: now,
        cwd,
        provider: resolved.provider.name,
        model: resolved.model ?? null,
        plan: planSummary(resolved.plan),
        options: { plan_file: resolved.planFile ?? null, ...options.remember },
        turn_count: 0,
        status: 'running',
        name: null,
        pid: process.pid,
        cli_version: CLI_VERSION,
      });
    if (resumed !== undefined && resumed.metadata.provider === '') {
      // A session written elsewhere (Python Amplifier) records no run setup: this run's is remembered.
      resumed.saveMetadata({
        provider: resolved.provider.name,
        model: resolved.model ?? null,
        plan: planSummary(resolved.plan),
        options: { plan_file: resolved.planFile ?? null, ...options.remember },
        cli_version: CLI_VERSION,
      });
    }
    runner = new SessionRunner(session, record, display, approval, resolved);
    await runner.#restoreAndRecord(options.systemPrompt);
    // --json's dump of every hook event (nothing without --json); the display itself draws the turn stream.
    runner.#detach = display.attachJson(session.coordinator.hooks);
    return runner;
  }

  async #restoreAndRecord(systemPrompt: OpenOptions['systemPrompt']): Promise<void> {
    const coordinator = this.session.coordinator;
    const inner = coordinator.get('context') as ContextManager;
    const { messages, skipped } = this.record.readTranscript();
    if (messages.length > 0 || skipped > 0) {
      const { messages: repaired, repaired: count } = repairToolCalls(messages);
      if (skipped > 0) {
        this.display.warn(
          `Skipped ${skipped} unreadable transcript line${skipped === 1 ? '' : 's'} (cut off by a crash).`,
        );
      }
      if (count > 0)
        this.display.debug(
          `${count} tool call${count === 1 ? '' : 's'} without a result marked as interrupted`,
        );
      if (skipped > 0 || count > 0) this.record.rewriteTranscript(repaired);
      await inner.setMessages(repaired);
    }
    // After the transcript (which holds no system messages): a factory, or one system message.
    if (systemPrompt !== undefined) {
      const { applySystemPrompt } = await import('@amplifier/bundles');
      const how = await applySystemPrompt(inner, systemPrompt);
      this.display.debug(
        `bundle instructions: ${how === 'factory' ? "the context's system prompt factory" : how === 'message' ? 'one system message' : 'none'}`,
      );
    }
    this.record.saveMetadata({ pid: process.pid, status: 'running' });
    const wrapped = recordingContext(
      inner,
      (message) => {
        const stamped = message.metadata?.timestamp
          ? message
          : { ...message, metadata: { ...message.metadata, timestamp: new Date().toISOString() } };
        this.record.appendMessage(stamped);
        this.display.toolMessage(message);
      },
      () => this.record.rewriteTranscript([]),
    );
    coordinator.mount('context', wrapped);
  }

  get sessionId(): string {
    return this.session.sessionId;
  }

  get inTurn(): boolean {
    return this.#inTurn;
  }

  /** Ctrl+C during a turn: graceful, then immediate; a third press exits at once. */
  interrupt(): void {
    if (!this.#inTurn) return;
    this.#presses++;
    const coordinator = this.session.coordinator;
    if (this.#presses === 1) {
      this.display.warn(
        'Cancelling: running tools may finish, nothing new starts. Press Ctrl+C again to stop now.',
      );
      void coordinator.requestCancel().catch(() => {});
    } else if (this.#presses === 2) {
      this.display.warn('Stopping now.');
      void coordinator.requestCancel({ immediate: true }).catch(() => {});
    } else {
      process.exit(EXIT_CANCELLED);
    }
  }

  /** Run one prompt to the end (or to cancellation); the answer is printed by the caller. */
  async turn(prompt: string): Promise<TurnOutcome> {
    this.#inTurn = true;
    this.#presses = 0;
    this.display.beginTurn();
    const metadata = this.record.metadata;
    this.record.saveMetadata({
      status: 'running',
      // Redacted before the cut, so a cut never hides a secret from the rules.
      ...(metadata.name === null && { name: storedText(prompt.replace(/\s+/g, ' ').trim()).slice(0, 80) }),
    });
    let outcome: TurnOutcome;
    try {
      const answer = await this.#run(prompt);
      const cancelled =
        this.session.status.status === 'cancelled' || this.session.coordinator.cancellation.isCancelled;
      outcome = { status: cancelled ? 'cancelled' : 'completed', answer };
    } catch (error) {
      const cancelled = this.session.coordinator.cancellation.isCancelled;
      outcome = cancelled ? { status: 'cancelled', answer: '' } : { status: 'failed', answer: '', error };
    } finally {
      this.#inTurn = false;
      this.display.endTurn();
    }
    if (outcome.status === 'cancelled') await this.#keepPartialAnswer();
    this.record.saveMetadata({ status: outcome.status, turn_count: this.record.metadata.turn_count + 1 });
    this.display.emitJson({
      type: 'result',
      session_id: this.sessionId,
      status: outcome.status,
      response: outcome.answer,
      ...(outcome.error !== undefined && { error: errorMessage(outcome.error) }),
    });
    return outcome;
  }

  /**
   * The turn as its stream of items, each drawn by the display where it
   * happens (`onEvent`: inside the emit, so what hooks and the approval
   * question write comes in order); resolves with the answer.
   */
  async #run(prompt: string): Promise<string> {
    const display = this.display;
    let answer = '';
    for await (const item of streamTurn(this.session, prompt, {
      progress: true,
      onEvent: (event) => display.render(event),
    })) {
      if (item.type === 'finish') answer = item.text;
    }
    return answer;
  }

  /**
   * A turn cancelled mid-stream: the text already shown is kept in the
   * context (and so the transcript) as an assistant message marked
   * `metadata.interrupted`, unless the loop already stored it.
   */
  async #keepPartialAnswer(): Promise<void> {
    const partial = this.display.streamedText;
    if (partial === '') return;
    const context = this.session.coordinator.get('context') as ContextManager;
    const messages = await context.getMessages();
    const last = messages[messages.length - 1];
    if (last?.role === 'assistant') return;
    await context.addMessage({
      role: 'assistant',
      content: `${partial}\n\n[interrupted by the user]`,
      metadata: { interrupted: true },
    });
  }

  /** End the session: session:end, every module's cleanup (child processes, sockets), final metadata. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.session.cleanup();
    } finally {
      this.#detach();
      this.record.close();
      const status = this.record.metadata.status === 'running' ? 'completed' : this.record.metadata.status;
      this.record.saveMetadata({ status });
    }
  }
}

/**
 * "Did you mean" for a module that was not found: the closest id (or alias)
 * of the modules this run could have loaded. Nothing is scanned or loaded
 * (the bundles kit holds `closestName`) unless a module was missing.
 */
async function moduleSuggestions(
  session: AmplifierSession,
  loader: ModuleLoader,
): Promise<(id: string) => string | undefined> {
  if (!session.failures.some((f) => AmplifierError.is(f.error, 'MODULE_NOT_FOUND'))) return () => undefined;
  const [{ closestName }, modules] = await Promise.all([
    import('@amplifier/bundles'),
    loader.discover().catch(() => []),
  ]);
  const known = modules.flatMap((m) => [m.id, ...(m.aliases ?? []).map((a) => a.id)]);
  return (id) => closestName(id, known);
}

/** Fail with an actionable message when the plan could not be loaded as a whole. */
function checkModules(
  session: AmplifierSession,
  warnings: string[],
  suggest: (id: string) => string | undefined = () => undefined,
): void {
  const failures = session.failures;
  const handled = (w: string): boolean => failures.some((f) => w.includes(`'${f.module}' was not loaded`));
  warnings.splice(0, warnings.length, ...warnings.filter((w) => !handled(w)));
  const noProvider = session.coordinator.get('providers').size === 0;
  // Tools and hooks must all load (as the reference CLI); providers only when none mounted.
  const fatal = failures.filter((f) => f.section !== 'providers' || noProvider);
  if (fatal.length > 0) {
    const lines = fatal.map((f) => {
      const near = AmplifierError.is(f.error, 'MODULE_NOT_FOUND') ? suggest(f.module) : undefined;
      const hint = near === undefined ? '' : `Did you mean '${near}'? `;
      return `Could not load ${f.section.replace(/s$/, '')} '${f.module}': ${hint}${errorMessage(f.error)}`;
    });
    throw new CliError(lines.join('\n\n'));
  }
  if (noProvider) {
    const planned = (session.config.providers ?? []).map((p) => p.module);
    throw new CliError(
      noProviderMessage(
        planned.length > 0 ? `${planned.join(', ')} did not mount: no credentials` : 'the plan lists none',
      ),
    );
  }
  for (const failure of failures) {
    warnings.push(`provider '${failure.module}' was not loaded: ${errorMessage(failure.error)}`);
  }
}
