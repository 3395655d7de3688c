/**
 * The Coordinator holds what a session has mounted (mount points), the hook
 * registry, capabilities, contribution channels, cleanups and cancellation,
 * and turns hook results into effects (injections, approvals, user messages).
 */
import { CancellationToken } from './cancellation.js';
import type {
  ApprovalProvider,
  Cleanup,
  ContextManager,
  DisplaySystem,
  Logger,
  ModuleLoaderLike,
  ModuleSourceResolver,
  Orchestrator,
  Provider,
  Tool,
} from './contracts.js';
import { AmplifierError, ApprovalTimeoutError, errorMessage, isFatalError } from './errors.js';
import type { EventPayload } from './event-payloads.js';
import { CANCEL_REQUESTED, TOOL_PRE } from './events.js';
import {
  dispatchHooks,
  type EmitResult,
  type EventData,
  type EventKey,
  HookRegistry,
  utcTimestamp,
} from './hooks.js';
import { defaultLogger } from './logger.js';
import type { MountPoint } from './module-types.js';
import { type JournalSlot, journalSlot } from './mount-journal.js';
import type { MountPlan } from './mount-plan.js';
import { type HookResult, sanitizeForLlm } from './results.js';

/**
 * Options of `new Coordinator()`, all optional: the session and parent ids
 * (default `'session'` and `null`), the mount plan, and the app's loader, approval
 * provider, display and logger.
 */
export interface CoordinatorOptions {
  sessionId?: string;
  parentId?: string | null;
  /** The session's mount plan (read for injection limits; modules may read it too). */
  config?: MountPlan;
  /** The loader of the session (readable by modules as `coordinator.loader`); fixed at construction. */
  loader?: ModuleLoaderLike;
  approval?: ApprovalProvider;
  display?: DisplaySystem;
  logger?: Logger;
}

/** `Coordinator.onToolDenied`'s listener: the denied call's `tool:pre` payload and the reason. */
export type ToolDeniedListener = (call: EventData, reason: string) => void;

/** Options of `Coordinator.emitAndProcess`. */
export interface EmitAndProcessOptions {
  /**
   * Return an `inject_context` result as `emit` gave it, without applying it
   * (nothing stored, counted or shown yet): the caller hands it to
   * `processHookResult` later, e.g. once the tool results it must follow are
   * in the context. Default false: it is applied like any other result.
   */
  deferInjection?: boolean;
}

/**
 * One contributor of a contribution channel: its `name` (for logs) and the
 * `callback` that `collectContributions` calls.
 */
export interface Contributor {
  name: string;
  callback: () => unknown;
}

type SingleSlot = 'orchestrator' | 'context' | 'module-source-resolver';

interface SlotTypes {
  orchestrator: Orchestrator;
  context: ContextManager;
  'module-source-resolver': ModuleSourceResolver;
}

const MOUNT_POINTS: ReadonlySet<string> = new Set<MountPoint>([
  'orchestrator',
  'context',
  'providers',
  'tools',
  'hooks',
  'module-source-resolver',
]);

/** Decisions of an approval provider that allow (compared lower-cased and trimmed). */
const ALLOW_DECISIONS: ReadonlySet<string> = new Set(['allow', 'allow once', 'allow always']);

/** Fail closed: only a string from the allow family allows (an answer, or the timeout default). */
function isAllowDecision(decision: unknown): boolean {
  return typeof decision === 'string' && ALLOW_DECISIONS.has(decision.trim().toLowerCase());
}

/** setTimeout turns longer delays into 1 ms: the longest wait the kernel can time. */
const MAX_TIMER_MS = 2_147_483_647;

/** The reference default (300 s) unless the hook gave a positive number of seconds. */
function approvalTimeoutSeconds(value: unknown): number {
  return typeof value === 'number' && value > 0 ? value : 300;
}

function unknownMountPoint(point: string): AmplifierError {
  return new AmplifierError(
    'UNKNOWN_MOUNT_POINT',
    `Unknown mount point: ${point} (expected one of ${[...MOUNT_POINTS].join(', ')})`,
  );
}

/**
 * Holds what a session has mounted: the mount points (orchestrator, context,
 * providers, tools, module-source-resolver), the hook registry, capabilities,
 * contribution channels, cleanups and the cancellation token. `mount`, `unmount`
 * and `get` are synchronous, and `get('tools')` / `get('providers')` return the
 * live Maps. `processHookResult` turns a hook result into its effects (injections,
 * approval, user messages). While a session mounts a module, every change the
 * module makes here is journaled, and undone if its mount fails.
 *
 * @example
 * ```ts
 * import { Coordinator, type Tool } from '@amplifier/core';
 *
 * const coordinator = new Coordinator(); // a session has its own: session.coordinator
 * const clock: Tool = {
 *   name: 'clock',
 *   description: 'Tells the current UTC time.',
 *   execute: async () => ({ success: true, output: new Date().toISOString() }),
 * };
 * coordinator.mount('tools', clock); // keyed by `name`: replaces a tool of the same name
 * coordinator.get('tools', 'clock'); // the tool
 * coordinator.get('tools').size; // 1: the live Map of mounted tools
 *
 * coordinator.registerCapability('app.name', 'demo');
 * coordinator.getCapability<string>('app.name'); // 'demo'
 * coordinator.registerContributor('observability.events', 'clock', () => ['clock:tick']);
 * await coordinator.collectContributions('observability.events'); // [['clock:tick']]
 *
 * coordinator.registerCleanup(() => coordinator.unmount('tools', { name: 'clock' }));
 * await coordinator.cleanup(); // every cleanup once, last registered first
 * ```
 */
export class Coordinator {
  readonly sessionId: string;
  readonly parentId: string | null;
  readonly config: MountPlan;
  readonly hooks: HookRegistry;
  readonly cancellation: CancellationToken;
  readonly logger: Logger;
  approval: ApprovalProvider | undefined;
  display: DisplaySystem | undefined;
  /** Contribution channels: channel name -> contributors in registration order. */
  readonly channels: Map<string, Contributor[]> = new Map();

  readonly #loader: ModuleLoaderLike | undefined;
  readonly #providers = new Map<string, Provider>();
  readonly #tools = new Map<string, Tool>();
  readonly #slots: { [K in SingleSlot]?: SlotTypes[K] } = {};
  readonly #capabilities = new Map<string, unknown>();
  /** `onToolDenied` listeners (copy-on-write). */
  #denied: readonly ToolDeniedListener[] = [];
  #cleanups: Cleanup[] = [];
  /** The journal of the module mounting now, if any (see mount-journal.ts). */
  readonly #journal: JournalSlot = journalSlot(this);
  #turnInjectionTokens = 0;

  constructor(options: CoordinatorOptions = {}) {
    this.sessionId = options.sessionId ?? 'session';
    this.parentId = options.parentId ?? null;
    this.config = options.config ?? ({ session: { orchestrator: '', context: '' } } as MountPlan);
    this.#loader = options.loader;
    this.approval = options.approval;
    this.display = options.display;
    this.logger = options.logger ?? defaultLogger;
    this.hooks = new HookRegistry({ logger: this.logger, journal: this.#journal });
    this.cancellation = new CancellationToken({ journal: this.#journal });
  }

  /**
   * The session's loader (`options.loader`), for modules that load others. Set
   * at construction and never replaced: assigning it throws.
   */
  get loader(): ModuleLoaderLike | undefined {
    return this.#loader;
  }

  // ------------------------------------------------------------ mount points

  /**
   * Mount a module. Single slots (orchestrator, context, module-source-resolver)
   * are replaced; providers and tools are keyed by `name` (default `module.name`).
   * Hooks are registered on `coordinator.hooks`, not mounted.
   */
  mount(point: MountPoint, module: unknown, options: { name?: string } = {}): void {
    switch (point) {
      case 'providers':
      case 'tools': {
        const name = options.name ?? (module as { name?: unknown } | null)?.name;
        if (typeof name !== 'string' || name === '') {
          throw new AmplifierError(
            'MOUNT_FAILED',
            `Name required for ${point}: pass { name } or give the module a name`,
          );
        }
        const map: Map<string, unknown> = point === 'tools' ? this.#tools : this.#providers;
        const had = map.has(name);
        const previous = map.get(name);
        map.set(name, module);
        this.#journal.current?.record(() => {
          if (map.get(name) !== module) return;
          if (had) map.set(name, previous);
          else map.delete(name);
        });
        return;
      }
      case 'hooks':
        throw new AmplifierError(
          'MOUNT_FAILED',
          'Hooks should be registered directly with the HookRegistry: coordinator.hooks.register(event, handler)',
        );
      case 'orchestrator':
      case 'context':
      case 'module-source-resolver': {
        const slots = this.#slots as Record<string, unknown>;
        const previous = slots[point];
        if (previous !== undefined) this.logger.debug(`Replacing existing ${point}`);
        slots[point] = module;
        this.#journal.current?.record(() => {
          if (slots[point] !== module) return;
          if (previous === undefined) delete slots[point];
          else slots[point] = previous;
        });
        return;
      }
      default:
        throw unknownMountPoint(point);
    }
  }

  /** Remove a module. Providers and tools need a name (an unknown name is a no-op); hooks: no-op. */
  unmount(point: MountPoint, options: { name?: string } = {}): void {
    switch (point) {
      case 'providers':
      case 'tools':
        if (options.name === undefined)
          throw new AmplifierError('MOUNT_FAILED', `Name required to unmount from ${point}`);
        (point === 'tools' ? this.#tools : this.#providers).delete(options.name);
        return;
      case 'hooks':
        return;
      case 'orchestrator':
      case 'context':
      case 'module-source-resolver':
        delete this.#slots[point];
        return;
      default:
        throw unknownMountPoint(point);
    }
  }

  get(point: 'tools'): Map<string, Tool>;
  get(point: 'providers'): Map<string, Provider>;
  get(point: 'tools', name: string): Tool | undefined;
  get(point: 'providers', name: string): Provider | undefined;
  get(point: 'hooks'): HookRegistry;
  get<K extends SingleSlot>(point: K): SlotTypes[K] | undefined;
  get(point: MountPoint, name?: string): unknown;
  /** The live Map for providers/tools (or one entry by name), the object in a single slot. */
  get(point: MountPoint, name?: string): unknown {
    switch (point) {
      case 'providers':
      case 'tools': {
        const map = point === 'tools' ? this.#tools : this.#providers;
        return name === undefined ? map : map.get(name);
      }
      case 'hooks':
        return this.hooks;
      case 'orchestrator':
      case 'context':
      case 'module-source-resolver':
        return this.#slots[point];
      default:
        throw unknownMountPoint(point);
    }
  }

  // ------------------------------------------------ capabilities, channels

  /** Register a named value for other modules or the app (a second registration replaces it). */
  registerCapability(name: string, value: unknown): void {
    const capabilities = this.#capabilities;
    const had = capabilities.has(name);
    const previous = capabilities.get(name);
    capabilities.set(name, value);
    this.#journal.current?.record(() => {
      if (capabilities.get(name) !== value) return;
      if (had) capabilities.set(name, previous);
      else capabilities.delete(name);
    });
  }

  getCapability<T = unknown>(name: string): T | undefined {
    return this.#capabilities.get(name) as T | undefined;
  }

  /** Add a contributor to a channel; `callback` is called (sync or async) on every collection. */
  registerContributor(channel: string, name: string, callback: () => unknown): void {
    const contributor: Contributor = { name, callback };
    const list = this.channels.get(channel);
    if (list === undefined) this.channels.set(channel, [contributor]);
    else list.push(contributor);
    this.#journal.current?.record(() => {
      const current = this.channels.get(channel);
      const i = current?.indexOf(contributor) ?? -1;
      if (i >= 0) current!.splice(i, 1);
    });
  }

  /**
   * Call every contributor of `channel` in order and return their non-null
   * results unchanged. A failing contributor is skipped; a cancellation stops
   * the collection and returns what was gathered.
   */
  async collectContributions(channel: string): Promise<unknown[]> {
    const out: unknown[] = [];
    for (const { name, callback } of [...(this.channels.get(channel) ?? [])]) {
      try {
        const value = await callback();
        if (value !== undefined && value !== null) out.push(value);
      } catch (error) {
        if (isFatalError(error)) break;
        this.logger.warn(`contributor '${name}' on channel '${channel}' failed: ${errorMessage(error)}`);
      }
    }
    return out;
  }

  // --------------------------------------------------------------- cleanup

  /** Register a cleanup; they run last-registered first. Non-functions are ignored. */
  registerCleanup(cleanup: unknown): void {
    if (typeof cleanup !== 'function') return;
    const fn = cleanup as Cleanup;
    this.#cleanups.push(fn);
    this.#journal.current?.recordCleanup(fn, () => {
      const i = this.#cleanups.lastIndexOf(fn);
      if (i >= 0) this.#cleanups.splice(i, 1);
    });
  }

  /**
   * Run every cleanup once (LIFO), awaiting each. Errors are logged and the
   * rest still run; the first fatal error (cancellation) is re-thrown at the end.
   */
  async cleanup(): Promise<void> {
    const cleanups = this.#cleanups;
    this.#cleanups = [];
    let fatal: unknown;
    for (let i = cleanups.length - 1; i >= 0; i--) {
      try {
        await cleanups[i]!();
      } catch (error) {
        if (isFatalError(error)) fatal ??= error;
        this.logger.warn(`cleanup failed: ${errorMessage(error)}`);
      }
    }
    if (fatal !== undefined) throw fatal;
  }

  // ---------------------------------------------------- turns, cancellation

  get injectionBudgetPerTurn(): number | null {
    return this.config.session?.injection_budget_per_turn ?? null;
  }
  get injectionSizeLimit(): number | null {
    return this.config.session?.injection_size_limit ?? null;
  }
  /** Estimated tokens injected by hooks this turn (chars / 4). */
  get turnInjectionTokens(): number {
    return this.#turnInjectionTokens;
  }

  /** Start a new turn: zero the injection counter (cancellation is not reset). */
  resetTurn(): void {
    this.#turnInjectionTokens = 0;
  }

  /**
   * Ask running work to stop. Emits `cancel:requested` and runs the
   * cancellation callbacks, only when the state actually changed.
   */
  async requestCancel(options: { immediate?: boolean } = {}): Promise<boolean> {
    const immediate = options.immediate === true;
    const token = this.cancellation;
    const changed = immediate ? token.requestImmediate() : token.requestGraceful();
    if (!changed) return false;
    await this.hooks.emit(CANCEL_REQUESTED, {
      level: immediate ? 'immediate' : 'graceful',
      running_tools: [...token.runningTools],
      running_tool_names: token.runningToolNames,
    });
    await token.triggerCallbacks();
    return true;
  }

  // ------------------------------------------------------ hook results

  /**
   * One hook step: `this.hooks.emit(event, data)`, then
   * `processHookResult(result, event, hookName)` with what it returned; gives
   * back the processed result (`continue` or `deny` after `ask_user`, else
   * the emitted result itself: `deny` with its reason, `continue` with the
   * final data, `inject_context`). Effects are exactly those of the two
   * calls; a bare `continue` without a `user_message` has none and skips the
   * second. `hookName` is what injections, approval requests and messages
   * are attributed to (default `unknown`, as in `processHookResult`). Throws
   * what `processHookResult` throws (an injection over
   * `injection_size_limit`, a failing approval provider).
   *
   * ```ts
   * const pre = await coordinator.emitAndProcess(events.TOOL_PRE, { tool_name, tool_input }, tool_name);
   * if (pre.action === 'deny') return `Denied by hook: ${pre.reason ?? ''}`;
   * ```
   */
  emitAndProcess<E extends EventKey>(
    event: E,
    data: EventPayload<E>,
    hookName = 'unknown',
    options: EmitAndProcessOptions = {},
  ): Promise<HookResult> {
    const hooks = this.hooks;
    // Synchronous handlers (the usual observers) are answered without waiting a microtask turn for
    // `emit`'s promise; an `emit` replaced on the registry (a wrapper, a test double) is used as it is.
    try {
      const emitted =
        hooks.emit === HookRegistry.prototype.emit
          ? dispatchHooks(hooks, event, data)
          : Promise.resolve(hooks.emit(event, data));
      const processed =
        emitted instanceof Promise
          ? emitted.then((result) => this.#processEmitted(result, event, hookName, options))
          : Promise.resolve(this.#processEmitted(emitted, event, hookName, options));
      if (event !== TOOL_PRE || this.#denied.length === 0) return processed;
      return processed.then((result) => {
        if (result.action === 'deny') this.#tellDenied(data as EventData, result.reason ?? '');
        return result;
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Call `listener` with each tool call that `emitAndProcess('tool:pre', ...)`
   * ends in `deny` (a hook denied it, or the approval it asked for did): the
   * `tool:pre` payload as emitted and the reason. No event is emitted for a
   * denied call (as in the reference); this is what a turn stream's
   * `tool_denied` item comes from. Returns the function that removes it.
   */
  onToolDenied(listener: ToolDeniedListener): () => void {
    this.#denied = [...this.#denied, listener];
    return () => {
      this.#denied = this.#denied.filter((l) => l !== listener);
    };
  }

  #tellDenied(call: EventData, reason: string): void {
    for (const listener of this.#denied) {
      try {
        listener(call, reason);
      } catch (error) {
        this.logger.warn(`a tool-denied listener failed: ${errorMessage(error)}`);
      }
    }
  }

  /** `emitAndProcess` once the hooks answered: a bare `continue` (and a deferred injection) needs nothing more. */
  #processEmitted(
    result: EmitResult,
    event: string,
    hookName: string,
    options: EmitAndProcessOptions,
  ): HookResult | Promise<HookResult> {
    if (result.action === 'continue' && !result.user_message) return result;
    if (result.action === 'inject_context' && options.deferInjection === true) return result;
    return this.processHookResult(result, event, hookName);
  }

  /**
   * Apply a hook result: store durable injections in the context (sanitized,
   * size-limited, counted against the turn budget), run the approval flow for
   * `ask_user` (fail-closed), and show `user_message` on the display system.
   * Returns the original result, or a new continue/deny after approval.
   */
  async processHookResult(result: HookResult, event: string, hookName = 'unknown'): Promise<HookResult> {
    if (result.action === 'inject_context' && result.context_injection) {
      await this.#inject(result, event, hookName);
    }
    if (result.action === 'ask_user') return this.#askUser(result, event, hookName);
    if (result.user_message) {
      const source = `hook:${result.user_message_source || hookName}`;
      const level = result.user_message_level ?? 'info';
      if (this.display) {
        try {
          this.display.showMessage(result.user_message, level, source);
        } catch (error) {
          this.logger.warn(`display failed to show a hook message: ${errorMessage(error)}`);
        }
      } else {
        this.logger.info(`${source} (${level}): ${result.user_message}`);
      }
    }
    return result;
  }

  async #inject(result: HookResult, event: string, hookName: string): Promise<void> {
    const content = sanitizeForLlm(result.context_injection ?? '');
    const limit = this.injectionSizeLimit;
    if (limit !== null && content.length > limit) {
      throw new AmplifierError(
        'INJECTION_TOO_LARGE',
        `Context injection exceeds ${limit} characters (hook '${hookName}' on ${event} injected ${content.length}); raise session.injection_size_limit or inject less`,
      );
    }
    const tokens = Math.floor(content.length / 4);
    const budget = this.injectionBudgetPerTurn;
    if (budget !== null && this.#turnInjectionTokens + tokens > budget) {
      this.logger.warn(
        `hook '${hookName}' on ${event} goes over the injection budget (${this.#turnInjectionTokens + tokens} > ${budget} tokens this turn)`,
      );
    }
    this.#turnInjectionTokens += tokens;
    if (result.ephemeral) return;
    const context = this.#slots.context;
    if (typeof context?.addMessage !== 'function') return;
    await context.addMessage({
      role: result.context_injection_role ?? 'system',
      content,
      metadata: { source: 'hook', hook_name: hookName, event, timestamp: utcTimestamp() },
    });
  }

  async #askUser(result: HookResult, event: string, hookName: string): Promise<HookResult> {
    const prompt = result.approval_prompt || 'Allow this operation?';
    if (!this.approval) return { action: 'deny', reason: 'No approval system available' };
    const timeout = approvalTimeoutSeconds(result.approval_timeout);
    const fallback = result.approval_default ?? 'deny';
    const cancelled = this.cancellation.signal;
    if (cancelled.aborted)
      return { action: 'deny', reason: `Cancelled while waiting for approval: ${prompt}` };
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const onCancel = (): void => controller.abort(cancelled.reason);
    cancelled.addEventListener('abort', onCancel, { once: true });
    try {
      const decision = await Promise.race([
        this.approval.requestApproval(
          {
            prompt,
            options: result.approval_options ?? ['Allow', 'Deny'],
            timeout,
            default: fallback,
            event,
            hook_name: hookName,
          },
          { signal: controller.signal },
        ),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new ApprovalTimeoutError()),
            Math.min(timeout * 1000, MAX_TIMER_MS),
          );
          controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
        }),
      ]);
      if (isAllowDecision(decision)) return { action: 'continue' };
      if (typeof decision !== 'string' || decision.trim().toLowerCase() !== 'deny') {
        const shown = typeof decision === 'string' ? decision : `<${typeof decision}>`;
        this.logger.warn(`approval answer '${shown}' is not an allow option; treated as deny`);
      }
      const unattended = this.approval.unattended;
      const who = unattended ? `Denied: ${unattended} (default)` : 'User denied';
      return { action: 'deny', reason: `${who}: ${prompt.slice(0, 200)}` };
    } catch (error) {
      if (
        error instanceof ApprovalTimeoutError ||
        (AmplifierError.is(error) && error.code === 'APPROVAL_TIMEOUT')
      ) {
        if (isAllowDecision(fallback)) return { action: 'continue' };
        return { action: 'deny', reason: `Approval timeout - denied by default: ${prompt}` };
      }
      if (controller.signal.aborted && cancelled.aborted) {
        return { action: 'deny', reason: `Cancelled while waiting for approval: ${prompt}` };
      }
      throw error;
    } finally {
      clearTimeout(timer);
      cancelled.removeEventListener('abort', onCancel);
      controller.abort();
    }
  }
}
