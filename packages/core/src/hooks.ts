/**
 * HookRegistry: ordered, sequential event dispatch with Amplifier's result
 * semantics (deny short-circuits, modify chains, first ask_user wins,
 * inject_context merges). Handler lists are copy-on-write, so every emit sees
 * a snapshot for free and emitting with no handlers costs one lookup.
 */
import type { Logger } from './contracts.js';
import { errorMessage } from './errors.js';
import type { EventName, EventPayload } from './event-payloads.js';
import { defaultLogger } from './logger.js';
import type { JournalSlot } from './mount-journal.js';
import { HOOK_ACTIONS, type HookResult } from './results.js';

/** Event payload: plain JSON-able data with snake_case keys. */
export type EventData = Record<string, unknown>;

/**
 * Returning nothing means continue. Sync and async handlers are both fine.
 * `HookHandler<'tool:pre'>` gets the payload type of `tool:pre` (see
 * `EventPayloads`); plain `HookHandler` gets `EventData`.
 */
export type HookHandler<E extends string = string> = (
  event: E,
  data: EventPayload<E>,
) => HookResult | undefined | void | Promise<HookResult | undefined | void>;

declare const dynamicName: unique symbol;

/**
 * An event name known only at run time (a mount plan's `additional_events`, a
 * bundle's hook config, a bridge relaying another process's events): a string
 * marked by `dynamicEvent`. Its payload type is `EventData`.
 */
export type DynamicEventName = string & { readonly [dynamicName]: true };

/**
 * The escape hatch of the closed event map: `hooks.register(dynamicEvent(name), handler)`
 * for a name read at run time. Nothing is checked or changed (it returns
 * `name`); the call marks, where it is written, that the compiler cannot know
 * this name. A name known when the code is written belongs in `EventPayloads`.
 */
export function dynamicEvent(name: string): DynamicEventName {
  return name as DynamicEventName;
}

/**
 * What `emit` and `register` take: a typed event name (`EventPayloads`:
 * canonical, token-streaming, or declared by a module) or a `dynamicEvent`.
 * Any other string is a type error.
 */
export type EventKey = EventName | DynamicEventName;

/**
 * Where a module sends its events: a `HookRegistry` (the coordinator's
 * `hooks`) or anything with its typed `emit` (a test recorder). Providers and
 * contexts take one in their options.
 */
export interface EventSink {
  emit<E extends EventKey>(event: E, data: EventPayload<E>): Promise<unknown>;
}

/** Options of `HookRegistry.register`: the handler's `priority` and `name`. */
export interface RegisterOptions {
  /** Lower runs first; equal priorities run in registration order. Default 0. */
  priority?: number;
  /** Shown by `listHandlers` and in logs. Default: the function's name, else `_auto_<event>_<n>`. */
  name?: string;
}

interface Entry {
  readonly handler: HookHandler;
  readonly priority: number;
  readonly name: string;
  readonly seq: number;
}

/** What `emit` returns: always an `action`; `data` is the final event data on continue. */
export type EmitResult = HookResult & { action: NonNullable<HookResult['action']> };

const EMPTY: readonly Entry[] = Object.freeze([]);

let lastMs = 0;
let lastStamp = '';

/** Current UTC time, ISO-8601 with `+00:00`, never earlier than the previous stamp. */
export function utcTimestamp(): string {
  const now = Date.now();
  if (now <= lastMs) return lastStamp;
  lastMs = now;
  lastStamp = `${new Date(now).toISOString().slice(0, -1)}+00:00`;
  return lastStamp;
}

/**
 * `HookRegistry`'s dispatch for core's own callers (`Coordinator.emitAndProcess`):
 * the result itself while every handler is synchronous, else a promise. Not
 * part of the public API.
 */
export let dispatchHooks: (
  registry: HookRegistry,
  event: string,
  data: EventData | undefined,
) => EmitResult | Promise<EmitResult>;

/**
 * Dispatches events to handlers one at a time in ascending priority, with
 * Amplifier's result semantics: `deny` stops the chain, `modify` hands new data to
 * the next handlers, the first `ask_user` wins and `inject_context` results are
 * merged. A handler that throws is logged and skipped. `emit` gives the handlers
 * `{ ...defaultFields, ...data, timestamp }` and never changes the caller's
 * object. Each coordinator owns one (`coordinator.hooks`).
 *
 * @example
 * ```ts
 * import { HookRegistry } from '@amplifier/core';
 *
 * const hooks = new HookRegistry(); // in a session: coordinator.hooks
 * const unregister = hooks.register(
 *   'tool:pre',
 *   (_event, data) => {
 *     if (data.tool_name === 'bash') return { action: 'deny', reason: 'bash is disabled here' };
 *   },
 *   { priority: 10, name: 'no-bash' },
 * );
 *
 * await hooks.emit('tool:pre', { tool_name: 'bash', tool_input: { command: 'ls' } });
 * // { action: 'deny', reason: 'bash is disabled here' }   (later handlers never run)
 * await hooks.emit('tool:pre', { tool_name: 'grep', tool_input: { pattern: 'x' } });
 * // { action: 'continue', data: { tool_name: 'grep', tool_input: { pattern: 'x' }, timestamp: '...+00:00' } }
 * hooks.listHandlers('tool:pre'); // { 'tool:pre': ['no-bash'] }
 * unregister(); // a hook module returns these from `mount` as its cleanup
 * ```
 */
export class HookRegistry {
  static {
    dispatchHooks = (registry, event, data) => registry.#dispatch(event, registry.#handlers.get(event), data);
  }

  readonly #handlers = new Map<string, readonly Entry[]>();
  #defaults: EventData = {};
  /** The defaults hold an own `__proto__` key (data from JSON.parse): payloads take the slow, exact copy. */
  #protoDefaults = false;
  #seq = 0;
  readonly #logger: Logger;

  readonly #journal: JournalSlot | undefined;
  /** While it answers true, emits deliver to no handler (see `suppressWhile`). */
  #suppressed: (() => boolean) | undefined;

  /** `journal`: the coordinator's, so a registration made while a module mounts is undone if the mount fails. */
  constructor(options: { logger?: Logger; journal?: JournalSlot } = {}) {
    this.#logger = options.logger ?? defaultLogger;
    this.#journal = options.journal;
  }

  /**
   * Register `handler` for `event`; returns a function that removes exactly
   * this registration. For an event of `EventPayloads` the handler gets that
   * payload type (`tool:pre`: `ToolPreEvent`); for a `dynamicEvent`, `EventData`.
   */
  register<E extends EventKey>(event: E, handler: HookHandler<E>, options: RegisterOptions = {}): () => void {
    const seq = ++this.#seq;
    const priority = options.priority ?? 0;
    const entry: Entry = {
      handler: handler as HookHandler,
      priority: Number.isNaN(priority) ? 0 : priority,
      name: options.name ?? (handler.name || `_auto_${event}_${seq}`),
      seq,
    };
    const next = [...(this.#handlers.get(event) ?? EMPTY), entry];
    next.sort((a, b) => a.priority - b.priority || a.seq - b.seq);
    this.#handlers.set(event, next);
    const unregister = (): void => {
      const list = this.#handlers.get(event);
      if (list?.includes(entry)) {
        this.#handlers.set(
          event,
          list.filter((e) => e !== entry),
        );
      }
    };
    // Registered while a module mounts: undone if that mount fails.
    this.#journal?.current?.record(unregister);
    return unregister;
  }

  /** Alias of `register`. */
  on<E extends EventKey>(event: E, handler: HookHandler<E>, options?: RegisterOptions): () => void {
    return this.register(event, handler, options);
  }

  /** True when at least one handler is registered for `event`. */
  has(event: string): boolean {
    return (this.#handlers.get(event)?.length ?? 0) > 0;
  }

  /**
   * Deliver no event while `predicate()` answers true: `emit` resolves with
   * `continue` and the data as given, `emitAndCollect` with `[]`, and no
   * handler runs. For a durable engine replaying a turn from its journal, so
   * that what the first run already emitted (and logged) is not emitted twice.
   * One predicate at a time; returns the function that removes it.
   */
  suppressWhile(predicate: () => boolean): () => void {
    this.#suppressed = predicate;
    return () => {
      if (this.#suppressed === predicate) this.#suppressed = undefined;
    };
  }

  /** Replace (not merge) the fields merged into every `emit` payload (`session_id`, `parent_id`). */
  setDefaultFields(defaults: EventData): void {
    this.#defaults = { ...defaults };
    this.#protoDefaults = Object.hasOwn(this.#defaults, '__proto__');
  }

  /** The current default fields (a copy). */
  getDefaultFields(): EventData {
    return { ...this.#defaults };
  }

  /**
   * Run the handlers of `event` one at a time in priority order. Handlers see
   * `{...defaults, ...data, timestamp}` (one object per emit, shared by the
   * handlers of that emit: change data with `modify`, never in place).
   * Precedence of the outcome: deny > ask_user > inject_context > continue.
   * `data` is checked against the payload type of `event` when `EventPayloads`
   * has it (types only: nothing is validated at run time); a name known only
   * at run time goes through `dynamicEvent(name)`.
   */
  emit<E extends EventKey>(event: E, data?: EventPayload<E>): Promise<EmitResult> {
    const list = this.#handlers.get(event);
    // Nothing to run (and nothing that can throw): the result without entering the dispatch.
    if (list === undefined || list.length === 0) return Promise.resolve({ action: 'continue', data });
    try {
      // A promise (once a handler was async) is returned as it is by Promise.resolve.
      return Promise.resolve(this.#dispatch(event, list, data));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * `emit`'s work. While every handler answers synchronously (the usual
   * observer) the result itself: no async function and no microtask turn
   * per handler; from the first handler that returns a promise on, a
   * promise of it. Throws what `emit` rejects with.
   */
  #dispatch(
    event: string,
    list: readonly Entry[] | undefined,
    data: EventData | undefined,
  ): EmitResult | Promise<EmitResult> {
    if (list === undefined || list.length === 0 || this.#suppressed?.()) return { action: 'continue', data };
    const outcome = new Outcome(payload(this.#defaults, data, this.#protoDefaults));
    for (let i = 0; i < list.length; i++) {
      const entry = list[i]!;
      let returned: ReturnType<HookHandler>;
      let pending: boolean;
      try {
        returned = entry.handler(event, outcome.current);
        pending = isThenable(returned); // reads `then`: a getter that throws is this handler's failure
      } catch (error) {
        this.#failed(entry, event, error);
        continue;
      }
      if (pending)
        return this.#settle(event, list, i, returned as PromiseLike<HookResult | undefined | void>, outcome);
      const stop = this.#take(entry, event, returned, outcome);
      if (stop !== undefined) return stop;
    }
    return outcome.final();
  }

  /** The rest of `#dispatch` once handler `from` returned `pending`: each promise is awaited in turn. */
  async #settle(
    event: string,
    list: readonly Entry[],
    from: number,
    pending: PromiseLike<HookResult | undefined | void>,
    outcome: Outcome,
  ): Promise<EmitResult> {
    for (let i = from; i < list.length; i++) {
      const entry = list[i]!;
      let result: HookResult | undefined | void;
      try {
        const returned = i === from ? pending : entry.handler(event, outcome.current);
        result = isThenable(returned) ? await returned : returned;
      } catch (error) {
        this.#failed(entry, event, error);
        continue;
      }
      const stop = this.#take(entry, event, result, outcome);
      if (stop !== undefined) return stop;
    }
    return outcome.final();
  }

  #failed(entry: Entry, event: string, error: unknown): void {
    this.#logger.warn(`hook '${entry.name}' failed on ${event}: ${errorMessage(error)}`);
  }

  /** Record one handler's result in `outcome`; the result that ends the chain (a deny), if it does. */
  #take(entry: Entry, event: string, result: unknown, outcome: Outcome): EmitResult | undefined {
    if (result === undefined || result === null) return undefined;
    const hookResult = result as HookResult;
    if (
      typeof result !== 'object' ||
      (hookResult.action !== undefined && !HOOK_ACTIONS.has(hookResult.action))
    ) {
      this.#logger.warn(`hook '${entry.name}' returned an invalid HookResult on ${event}; ignored`);
      return undefined;
    }
    return outcome.take(hookResult);
  }

  /**
   * Call every handler with the raw `data` (no defaults, no timestamp), each
   * bounded by `timeoutMs`, and collect the non-null `result.data` in priority
   * order. Actions are ignored; failures and timeouts are logged and skipped.
   */
  async emitAndCollect<E extends EventKey>(
    event: E,
    data?: EventPayload<E>,
    options: { timeoutMs?: number } = {},
  ): Promise<Record<string, unknown>[]> {
    const list = this.#handlers.get(event);
    if (list === undefined || list.length === 0 || this.#suppressed?.()) return [];
    const timeoutMs = options.timeoutMs ?? 1000;
    const collected: Record<string, unknown>[] = [];
    for (const entry of list) {
      let timer: NodeJS.Timeout | undefined;
      try {
        const result = await Promise.race([
          Promise.resolve(entry.handler(event, data ?? {})),
          new Promise<'timeout'>((resolve) => {
            timer = setTimeout(() => resolve('timeout'), timeoutMs);
          }),
        ]);
        if (result === 'timeout') {
          this.#logger.warn(`hook '${entry.name}' timed out after ${timeoutMs} ms on ${event}`);
        } else if (
          result &&
          typeof result === 'object' &&
          result.data !== undefined &&
          result.data !== null
        ) {
          collected.push(result.data);
        }
      } catch (error) {
        this.#logger.warn(`hook '${entry.name}' failed on ${event}: ${errorMessage(error)}`);
      } finally {
        clearTimeout(timer);
      }
    }
    return collected;
  }

  /** `{event: [names in execution order]}` for one event (key always present) or for all. */
  listHandlers(event?: string): Record<string, string[]> {
    if (event !== undefined) {
      return { [event]: (this.#handlers.get(event) ?? EMPTY).map((e) => e.name) };
    }
    const out: Record<string, string[]> = {};
    for (const [name, list] of this.#handlers) out[name] = list.map((e) => e.name);
    return out;
  }
}

/** What the handlers of one emit have said so far. */
class Outcome {
  current: EventData;
  #askUser: EmitResult | undefined;
  #injections: EmitResult[] | undefined;

  constructor(current: EventData) {
    this.current = current;
  }

  /** Take a valid result: `deny` ends the chain (returned), `modify` hands on new data, the first `ask_user` wins, injections merge. */
  take(result: HookResult): EmitResult | undefined {
    switch (result.action) {
      case 'deny':
        return result as EmitResult;
      case 'modify':
        if (result.data !== undefined && result.data !== null) this.current = result.data;
        break;
      case 'inject_context':
        if (result.context_injection) {
          this.#injections ??= [];
          this.#injections.push(result as EmitResult);
        }
        break;
      case 'ask_user':
        this.#askUser ??= result as EmitResult;
        break;
      default:
        break;
    }
    return undefined;
  }

  final(): EmitResult {
    if (this.#askUser) return this.#askUser;
    const injections = this.#injections;
    if (injections) return injections.length === 1 ? injections[0]! : mergeInjections(injections);
    return { action: 'continue', data: this.current };
  }
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

/**
 * `{ ...defaults, ...data, timestamp }`. Built with Object.assign onto a fresh
 * object: V8 (Node 20) builds the spread literal through a slow path (~3 µs,
 * against ~0.1 µs). Assigning a `__proto__` key would change the prototype
 * instead of copying it, so such data (from JSON.parse) takes the spread.
 */
function payload(defaults: EventData, data: EventData | undefined, protoDefaults: boolean): EventData {
  if (protoDefaults || (data != null && Object.hasOwn(data, '__proto__'))) {
    return { ...defaults, ...data, timestamp: utcTimestamp() };
  }
  const out: EventData = Object.assign({}, defaults, data);
  out.timestamp = utcTimestamp();
  return out;
}

/**
 * Merge several inject_context results: texts joined with a blank line in
 * order, role from the first, `ephemeral` and `append_to_last_tool_result` if
 * any asked for it, `suppress_output` from the first; other fields dropped.
 */
function mergeInjections(results: readonly EmitResult[]): EmitResult {
  const first = results[0]!;
  const merged: EmitResult = {
    action: 'inject_context',
    context_injection: results.map((r) => r.context_injection).join('\n\n'),
    ephemeral: results.some((r) => r.ephemeral === true),
    append_to_last_tool_result: results.some((r) => r.append_to_last_tool_result === true),
  };
  if (first.context_injection_role !== undefined)
    merged.context_injection_role = first.context_injection_role;
  if (first.suppress_output !== undefined) merged.suppress_output = first.suppress_output;
  return merged;
}
