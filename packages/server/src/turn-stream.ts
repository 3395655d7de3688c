/**
 * The app-level stream of one turn (`streamTurn(session, prompt)`): the hook events
 * of the turn (streamed text and thinking, tool calls and results, usage,
 * errors) as a small union of plain snake_case data, then the answer. Built
 * on the hook registry only: handlers are registered when the turn starts,
 * return nothing (they never change what the emitters get back) and are
 * unregistered when the turn has settled.
 */

import {
  AmplifierError,
  type AmplifierSession,
  type EventData,
  type EventErrorInfo,
  type EventName,
  errorMessage,
  type HookRegistry,
  type LLMResponseUsage,
  type Logger,
  type ToolDeniedListener,
  type ToolResult,
} from '@amplifier/core';

// ------------------------------------------------------------ the events yielded

/** A fragment of streamed answer text (`llm:stream_block_delta` with `block_type: 'text'`). */
export interface TurnTextDelta {
  type: 'text_delta';
  /** One per model call: every event of the call carries it. */
  request_id: string;
  /** The block's index in its response (0-based, shared by all block types). */
  block_index: number;
  /** 0-based counter per block. */
  sequence: number;
  text: string;
}

/** A fragment of streamed reasoning (`llm:stream_block_delta` with `block_type: 'thinking'`). */
export interface TurnThinkingDelta {
  type: 'thinking_delta';
  request_id: string;
  block_index: number;
  sequence: number;
  text: string;
}

/** A tool call is about to run (`tool:pre`, after every hook allowed it: a denied call has no event). */
export interface TurnToolCall {
  type: 'tool_call';
  /** Present when the orchestrator sends it (loop-basic always does). */
  tool_call_id?: string;
  tool_name: string;
  /** The input the tool gets (after hooks that `modify` it). */
  tool_input: Record<string, unknown>;
}

/** A tool call returned (`tool:post`). */
export interface TurnToolResult {
  type: 'tool_result';
  tool_call_id?: string;
  tool_name: string;
  /** Present when the orchestrator sends it (loop-basic always does). */
  result?: ToolResult;
}

/** A tool call failed (`tool:error`: unknown tool, invalid input, the tool threw). */
export interface TurnToolError {
  type: 'tool_error';
  tool_call_id?: string;
  tool_name: string;
  error: EventErrorInfo;
}

/** The token usage of one model call (`llm:response` with `status: 'ok'` and a `usage`). */
export interface TurnUsage {
  type: 'usage';
  provider: string;
  model: string;
  usage: LLMResponseUsage;
}

/** A provider call failed (`provider:error`); the orchestrator may still recover (a retry, another provider). */
export interface TurnProviderError {
  type: 'provider_error';
  provider: string;
  error: EventErrorInfo;
}

/** A model's stream failed after some deltas (`llm:stream_aborted`): the text streamed for `request_id` is incomplete. */
export interface TurnStreamAborted {
  type: 'stream_aborted';
  request_id: string;
  /** The error's class name and message. */
  error: { type: string; msg: string };
}

// Progress items: yielded only with `TurnStreamOptions.progress` (what a live display needs).

/** The orchestrator is about to call the provider (`provider:request`). Progress item. */
export interface TurnProviderRequest {
  type: 'provider_request';
  provider: string;
  /** Present when the orchestrator sends it (loop-basic: from 0). */
  iteration?: number;
}

/** The provider answered (`provider:response`). Progress item. */
export interface TurnProviderResponse {
  type: 'provider_response';
  provider: string;
  /** The response asks for tool calls. */
  tool_calls: boolean;
}

/** A retryable provider failure, before retry number `attempt` (`provider:retry`). Progress item. */
export interface TurnProviderRetry {
  type: 'provider_retry';
  provider: string;
  /** 1-based; present when the provider sends it. */
  attempt?: number;
  max_retries?: number;
  /** Seconds until the retry. */
  delay?: number;
  /** The error's message. */
  error?: string;
  /** The message of the error's innermost cause. */
  cause?: string;
}

/** A streamed block completed (`llm:stream_block_end`). Progress item. */
export interface TurnBlockEnd {
  type: 'block_end';
  request_id: string;
  block_index: number;
  block_type: string;
}

/**
 * A whole block of a response, text or thinking (`content_block:end`; other
 * block types are not yielded). Progress item.
 */
export interface TurnContentBlock {
  type: 'content_block';
  block_type: 'text' | 'thinking';
  text: string;
}

/** The context was compacted (`context:compaction`). Progress item. */
export interface TurnCompaction {
  type: 'compaction';
  /** The highest strategy level reached, when the context manager says. */
  strategy_level?: number;
}

/**
 * A tool call was refused before it ran: a `tool:pre` hook denied it, or the
 * approval a hook asked for did (`Coordinator.onToolDenied`; no hook event
 * exists for it). Follows the call's `tool_call` when the call passed every
 * hook before the approval said no. Progress item.
 */
export interface TurnToolDenied {
  type: 'tool_denied';
  tool_call_id?: string;
  tool_name: string;
  /** The input as the orchestrator emitted it (before hooks). */
  tool_input: Record<string, unknown>;
  /** The hook's (or the approval's) reason, e.g. `User denied: Run bash?`. */
  reason: string;
}

/** The last event of a turn that returned: `text` is the turn's answer (what `execute()` returns). */
export interface TurnFinish {
  type: 'finish';
  text: string;
}

/**
 * What `streamTurn()` yields: plain snake_case data, discriminated by
 * `type`. `finish` comes last, only when the turn returned; a turn that failed
 * makes the iterator throw its error instead, after the events before it.
 */
export type TurnEvent =
  | TurnTextDelta
  | TurnThinkingDelta
  | TurnToolCall
  | TurnToolResult
  | TurnToolError
  | TurnUsage
  | TurnProviderError
  | TurnStreamAborted
  | TurnProviderRequest
  | TurnProviderResponse
  | TurnProviderRetry
  | TurnBlockEnd
  | TurnContentBlock
  | TurnCompaction
  | TurnToolDenied
  | TurnFinish;

/** Options of `streamTurn()`: the turn's abort `signal` and the size of the event buffer. */
export interface TurnStreamOptions {
  /** Aborting it cancels the turn immediately, as with `execute()`. */
  signal?: AbortSignal;
  /**
   * How many events wait for the consumer before the turn is held (default
   * 256, at least 1). When the buffer is full, the hook handler that adds an
   * event waits until the consumer takes one: emitters await their hooks, so
   * the provider (or the orchestrator) waits too. Nothing is dropped.
   */
  bufferSize?: number;
  /**
   * Also yield the progress items (`provider_request`, `provider_response`,
   * `provider_retry`, `block_end`, `content_block`, `compaction`,
   * `tool_denied`): what a live display shows besides text and tools.
   * Default false.
   */
  progress?: boolean;
  /**
   * Also called with each event but `finish` synchronously where it happens (inside the
   * emit, after every other hook; a `tool_denied` where the denial is
   * decided), before the iterator yields it, which it still does. For a
   * display whose output must interleave with what hooks and the approval
   * provider write as they run (the question comes after the call it asks
   * about). It must return quickly; what it throws is logged and skipped.
   */
  onEvent?: (event: TurnEvent) => void;
}

/**
 * One turn as an async iterable (and its own async iterator) of `TurnEvent`s,
 * returned by `streamTurn()`. The turn starts at the first `next()` (the
 * first step of `for await`), so a stream never iterated runs nothing.
 * `return()` (breaking out of `for await`) cancels the turn immediately and
 * resolves once the turn has settled and the stream's handlers are gone.
 */
export interface TurnStream extends AsyncIterator<TurnEvent, undefined, undefined>, AsyncIterable<TurnEvent> {
  /** The next event; after `finish` (or the turn's error) `{ done: true }`. */
  next(): Promise<IteratorResult<TurnEvent, undefined>>;
  /** Stop: cancel the turn if it runs, wait until it settled, then `{ done: true }`. Never throws the turn's error. */
  return(): Promise<IteratorResult<TurnEvent, undefined>>;
  [Symbol.asyncIterator](): TurnStream;
}

/** Default `TurnStreamOptions.bufferSize`. */
export const DEFAULT_TURN_BUFFER_SIZE = 256;

// ------------------------------------------------------------ the payloads read

// The four `llm:stream_*` payloads of the provider streaming contract, as read
// here. Their canonical types go into event-payloads.ts with the providers'
// change; these local shapes keep this file independent of it. Every field is
// checked at run time: the payload is outside data.

/** What the handlers read: fields checked one by one. */
type Payload = EventData;

const str = (data: Payload, key: string): string | undefined =>
  typeof data[key] === 'string' ? (data[key] as string) : undefined;
const num = (data: Payload, key: string): number | undefined =>
  typeof data[key] === 'number' ? (data[key] as number) : undefined;
const obj = (data: Payload, key: string): Record<string, unknown> | undefined => {
  const value = data[key];
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
};
const errorInfo = (data: Payload): EventErrorInfo => {
  const error = obj(data, 'error');
  return {
    type: typeof error?.type === 'string' ? error.type : 'Error',
    msg: typeof error?.msg === 'string' ? error.msg : String(data.error ?? ''),
  };
};
function withCallId<T extends object>(event: T, data: Payload): T & { tool_call_id?: string } {
  const id = str(data, 'tool_call_id');
  return id === undefined ? event : { ...event, tool_call_id: id };
}

/** Hook event -> the turn event it becomes (undefined: nothing to yield). */
const TRANSLATE: { readonly [E in EventName]?: (data: Payload) => TurnEvent | undefined } = {
  'llm:stream_block_delta': (data) => {
    const text = str(data, 'text');
    const blockType = data.block_type;
    if (text === undefined || (blockType !== 'text' && blockType !== 'thinking')) return undefined;
    return {
      type: blockType === 'text' ? 'text_delta' : 'thinking_delta',
      request_id: str(data, 'request_id') ?? '',
      block_index: num(data, 'block_index') ?? 0,
      sequence: num(data, 'sequence') ?? 0,
      text,
    };
  },
  'llm:stream_aborted': (data) => ({
    type: 'stream_aborted',
    request_id: str(data, 'request_id') ?? '',
    error: errorInfo(data),
  }),
  'tool:pre': (data) =>
    withCallId(
      {
        type: 'tool_call' as const,
        tool_name: str(data, 'tool_name') ?? '',
        tool_input: obj(data, 'tool_input') ?? {},
      },
      data,
    ),
  'tool:post': (data) => {
    const event: TurnToolResult = withCallId(
      { type: 'tool_result' as const, tool_name: str(data, 'tool_name') ?? '' },
      data,
    );
    if (obj(data, 'result') !== undefined) event.result = data.result as ToolResult;
    return event;
  },
  'tool:error': (data) =>
    withCallId(
      { type: 'tool_error' as const, tool_name: str(data, 'tool_name') ?? '', error: errorInfo(data) },
      data,
    ),
  'llm:response': (data) => {
    const usage = obj(data, 'usage');
    if (data.status !== 'ok' || usage === undefined) return undefined;
    return {
      type: 'usage',
      provider: str(data, 'provider') ?? '',
      model: str(data, 'model') ?? '',
      usage: usage as LLMResponseUsage,
    };
  },
  'provider:error': (data) => ({
    type: 'provider_error',
    provider: str(data, 'provider') ?? '',
    error: errorInfo(data),
  }),
};

const optNum = <T extends object>(event: T, key: string, data: Payload): T => {
  const value = num(data, key);
  return value === undefined ? event : { ...event, [key]: value };
};
const optStr = <T extends object>(event: T, key: string, data: Payload): T => {
  const value = str(data, key);
  return value === undefined ? event : { ...event, [key]: value };
};

/** Hook event -> the progress item it becomes (`TurnStreamOptions.progress`). */
const PROGRESS: { readonly [E in EventName]?: (data: Payload) => TurnEvent | undefined } = {
  'provider:request': (data) =>
    optNum({ type: 'provider_request' as const, provider: str(data, 'provider') ?? '' }, 'iteration', data),
  'provider:response': (data) => ({
    type: 'provider_response',
    provider: str(data, 'provider') ?? '',
    tool_calls: data.tool_calls === true,
  }),
  'provider:retry': (data) => {
    let event: TurnProviderRetry = { type: 'provider_retry', provider: str(data, 'provider') ?? '' };
    for (const key of ['attempt', 'max_retries', 'delay']) event = optNum(event, key, data);
    for (const key of ['error', 'cause']) event = optStr(event, key, data);
    return event;
  },
  'llm:stream_block_end': (data) => ({
    type: 'block_end',
    request_id: str(data, 'request_id') ?? '',
    block_index: num(data, 'block_index') ?? 0,
    block_type: str(data, 'block_type') ?? '',
  }),
  'content_block:end': (data) => {
    const block = obj(data, 'block');
    if (block?.type === 'text' && typeof block.text === 'string') {
      return { type: 'content_block', block_type: 'text', text: block.text };
    }
    if (block?.type === 'thinking' && typeof block.thinking === 'string') {
      return { type: 'content_block', block_type: 'thinking', text: block.thinking };
    }
    return undefined;
  },
  'context:compaction': (data) => optNum({ type: 'compaction' as const }, 'strategy_level', data),
};

/** The events a turn stream subscribes to. */
export const TURN_STREAM_EVENTS: readonly EventName[] = Object.freeze(Object.keys(TRANSLATE) as EventName[]);

/** The events a turn stream with `progress` also subscribes to. */
export const TURN_PROGRESS_EVENTS: readonly EventName[] = Object.freeze(Object.keys(PROGRESS) as EventName[]);

/**
 * The turn item a hook event becomes (undefined: nothing to yield): the one
 * translation behind `streamTurn()`, for a consumer that must see the
 * events where they are emitted (e.g. before other hooks run). Progress items
 * only with `progress`.
 */
export function toTurnEvent(event: EventName, data: EventData, progress = false): TurnEvent | undefined {
  const translate = TRANSLATE[event] ?? (progress ? PROGRESS[event] : undefined);
  return translate?.(data);
}

/** The name of the stream's handlers (`hooks.listHandlers()`). */
export const TURN_STREAM_HANDLER = 'session-stream';

/** A denied call's `tool:pre` payload as its `tool_denied` item. */
function deniedItem(call: EventData, reason: string): TurnToolDenied {
  return withCallId(
    {
      type: 'tool_denied' as const,
      tool_name: str(call, 'tool_name') ?? '',
      tool_input: obj(call, 'tool_input') ?? {},
      reason,
    },
    call,
  );
}

/**
 * Where turn items come from: a session's coordinator, or anything with its
 * `hooks` (and `onToolDenied`, without which no `tool_denied` is seen).
 */
export interface TurnEventSource {
  hooks: HookRegistry;
  onToolDenied?(listener: ToolDeniedListener): () => void;
}

/** Options of `watchTurnEvents`. */
export interface TurnWatchOptions {
  /** Also the progress items, as `TurnStreamOptions.progress`. Default false. */
  progress?: boolean;
}

/**
 * Register `take` for every turn item of `source` (the one registration behind
 * streams and watchers): after every other hook, named `session-stream`.
 * What `take` returns is what the hook handler returns (a stream's backpressure).
 */
function subscribe(
  source: TurnEventSource,
  take: (item: TurnEvent) => Promise<void> | undefined,
  progress: boolean,
): () => void {
  const handler = (event: string, data: EventData): Promise<void> | undefined => {
    const item = toTurnEvent(event as EventName, data, progress);
    return item === undefined ? undefined : take(item);
  };
  const events = progress ? [...TURN_STREAM_EVENTS, ...TURN_PROGRESS_EVENTS] : TURN_STREAM_EVENTS;
  const offs = events.map((event) =>
    // Last of all handlers: it sees the data other hooks modified, and a denied tool call never.
    source.hooks.register(event, handler, { priority: Number.MAX_SAFE_INTEGER, name: TURN_STREAM_HANDLER }),
  );
  if (progress && source.onToolDenied !== undefined) {
    offs.push(
      source.onToolDenied((call, reason) => {
        void take(deniedItem(call, reason));
      }),
    );
  }
  return () => {
    for (const off of offs) off();
  };
}

/**
 * Call `listener` with the turn items of every turn that runs on `source` (a
 * session's coordinator), synchronously where each happens: the translation
 * and the place (after every other hook) of `streamTurn()`, for a session
 * whose turns something else runs (a child session a tool spawned). What
 * `listener` throws is logged by the registry and skipped. Returns the
 * function that stops it.
 *
 * @example
 * ```ts
 * import { type AmplifierSession, watchTurnEvents } from '@amplifier/core';
 *
 * export function logToolCalls(child: AmplifierSession): () => void {
 *   return watchTurnEvents(child.coordinator, (item) => {
 *     if (item.type === 'tool_call') console.log(`child runs ${item.tool_name}`);
 *   });
 * }
 * ```
 */
export function watchTurnEvents(
  source: TurnEventSource,
  listener: (item: TurnEvent) => void,
  options: TurnWatchOptions = {},
): () => void {
  return subscribe(
    source,
    (item) => {
      listener(item);
      return undefined;
    },
    options.progress === true,
  );
}

// ------------------------------------------------------------ the stream

type Outcome = { ok: true; text: string } | { ok: false; error: unknown };

interface Waiter {
  event: TurnEvent;
  resolve(): void;
}

interface Taker {
  resolve(result: IteratorResult<TurnEvent, undefined>): void;
  reject(error: unknown): void;
}

/** What a turn stream needs of its session. */
export interface TurnStreamSource extends TurnEventSource {
  /** The signal of the running turn's cancellation (aborts on immediate cancellation). */
  turnSignal(): AbortSignal;
  /**
   * Start the turn with `signal` (its abort cancels the turn immediately).
   * May throw synchronously (the session is busy): nothing has run then.
   */
  run(signal: AbortSignal): Promise<string>;
  /** Where a failing `onEvent` is reported (default: nowhere). */
  logger?: Logger;
}

/** Builds a stream over any `source`; `streamTurn(session, …)` is the usual way. */
export function createTurnStream(source: TurnStreamSource, options: TurnStreamOptions = {}): TurnStream {
  return new SessionTurnStream(source, options);
}

/**
 * Run one turn of `session` like `session.execute(prompt)` does, as an async
 * iterable of its events: streamed text and thinking (`text_delta`,
 * `thinking_delta`), `tool_call`, `tool_result`, `tool_error`, `usage`,
 * `provider_error`, `stream_aborted`, then `finish` with the answer `execute()`
 * would return. A turn that fails makes the iterator throw its error, after
 * the events that came before.
 *
 * - **Lazy.** The turn starts at the first `next()` (the first step of
 *   `for await`); a stream never iterated runs nothing.
 * - **This turn only.** The stream's handlers (named `session-stream`, run
 *   after every other handler, return nothing) are registered when the turn
 *   starts and removed when it has settled. A session runs one turn at a
 *   time: while another turn runs (`session.isRunning`), the stream throws
 *   `SESSION_INVALID` at its first `next()` and runs nothing (an `execute()`
 *   started during a stream is not refused, and its events would reach the
 *   stream: don't).
 * - **Cancellation.** Aborting `signal` cancels the turn immediately, as
 *   with `execute()` (the stream then ends as the turn does: `finish`, or the
 *   turn's error). Leaving the loop (`break`, `return`, a throw: the
 *   iterator's `return()`) cancels it immediately too, and resolves only once
 *   the turn has settled and the handlers are gone; the turn's error is not
 *   thrown then.
 * - **Backpressure.** At most `bufferSize` events (default 256) wait for the
 *   consumer. When the buffer is full, the handler that adds an event waits
 *   until the consumer takes one; emitters await their hooks, so the provider
 *   reading the model's stream (or the orchestrator) waits too. Nothing is
 *   dropped, except when the consumer has left, or the turn was cancelled
 *   immediately and the buffer is full (a cancelled turn is never held).
 *   Stop reading by leaving the loop (or `return()`), never by dropping the
 *   iterator: a full buffer nobody reads holds the turn.
 * - **Live.** `onEvent` is also called with each event where it happens
 *   (inside the emit): a display drawn with it interleaves correctly with
 *   what hooks and the approval provider write. With `progress`, a tool call
 *   a hook (or its approval) denied is a `tool_denied` item.
 *
 * @example
 * ```ts
 * import type { AmplifierSession } from '@amplifier/core';
 * import { streamTurn } from '@amplifier/server';
 *
 * export async function printTurn(session: AmplifierSession, prompt: string): Promise<string> {
 *   let answer = '';
 *   for await (const event of streamTurn(session, prompt, { signal: AbortSignal.timeout(60_000) })) {
 *     if (event.type === 'text_delta') process.stdout.write(event.text);
 *     else if (event.type === 'tool_call') console.log(`\n[${event.tool_name}]`);
 *     else if (event.type === 'finish') answer = event.text;
 *   }
 *   return answer;
 * }
 * ```
 */
export function streamTurn(
  session: AmplifierSession,
  prompt: string,
  options: TurnStreamOptions = {},
): TurnStream {
  const { coordinator } = session;
  return createTurnStream(
    {
      hooks: coordinator.hooks,
      onToolDenied: (listener) => coordinator.onToolDenied(listener),
      logger: coordinator.logger,
      turnSignal: () => coordinator.cancellation.signal,
      run: (signal) => {
        if (session.isRunning) {
          throw new AmplifierError(
            'SESSION_INVALID',
            'Another turn is running on this session: a session runs one turn at a time (await or cancel it first)',
          );
        }
        return session.execute(prompt, { signal });
      },
    },
    options,
  );
}

class SessionTurnStream implements TurnStream {
  readonly #source: TurnStreamSource;
  readonly #signal: AbortSignal | undefined;
  readonly #size: number;
  readonly #progress: boolean;
  readonly #onEvent: ((event: TurnEvent) => void) | undefined;
  /** Aborted by the consumer leaving or by `options.signal`: `execute`'s signal. */
  readonly #abort = new AbortController();
  readonly #buffer: TurnEvent[] = [];
  /** Handlers waiting for room, each holding its event (first in, first out). */
  readonly #waiters: Waiter[] = [];
  readonly #takers: Taker[] = [];
  #started = false;
  /** The consumer called `return()`: events are no longer kept. */
  #closed = false;
  #outcome: Outcome | undefined;
  /** The outcome was delivered (`finish` yielded or the error thrown). */
  #done = false;
  /** Settles after the turn settled and the handlers were unregistered. */
  #settled: Promise<void> = Promise.resolve();

  constructor(source: TurnStreamSource, options: TurnStreamOptions) {
    this.#source = source;
    this.#signal = options.signal;
    const size = options.bufferSize ?? DEFAULT_TURN_BUFFER_SIZE;
    if (!Number.isInteger(size) || size < 1) {
      throw new RangeError(`bufferSize must be an integer of at least 1, got ${String(size)}`);
    }
    this.#size = size;
    this.#progress = options.progress === true;
    this.#onEvent = options.onEvent;
  }

  [Symbol.asyncIterator](): TurnStream {
    return this;
  }

  next(): Promise<IteratorResult<TurnEvent, undefined>> {
    if (!this.#started && !this.#closed) this.#start();
    const event = this.#take();
    if (event !== undefined) return Promise.resolve({ value: event, done: false });
    if (this.#closed || this.#done) return Promise.resolve({ value: undefined, done: true });
    if (this.#outcome !== undefined) return this.#deliver(this.#outcome);
    return new Promise((resolve, reject) => {
      this.#takers.push({ resolve, reject });
    });
  }

  async return(): Promise<IteratorResult<TurnEvent, undefined>> {
    if (!this.#closed) {
      this.#closed = true;
      this.#buffer.length = 0;
      // Cancel first, so that an emitter released below finds its turn cancelled.
      if (this.#started && this.#outcome === undefined) this.#abort.abort();
      // Handlers waiting for room go on (their events dropped), so the turn can settle.
      for (const waiter of this.#waiters.splice(0)) waiter.resolve();
      for (const taker of this.#takers.splice(0)) taker.resolve({ value: undefined, done: true });
    }
    await this.#settled;
    return { value: undefined, done: true };
  }

  #start(): void {
    this.#started = true;
    const onEvent = this.#onEvent;
    const unsubscribe = subscribe(
      this.#source,
      onEvent === undefined
        ? (item) => this.#put(item)
        : (item) => {
            // An emit nobody awaited, still running after the turn settled: not shown either.
            if (!this.#closed && this.#outcome === undefined) {
              try {
                onEvent(item);
              } catch (error) {
                this.#source.logger?.warn(`a turn stream's onEvent failed: ${errorMessage(error)}`);
              }
            }
            return this.#put(item);
          },
      this.#progress,
    );
    const signal = this.#signal;
    const onAbort = (): void => this.#abort.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (outcome: Outcome): void => {
      unsubscribe();
      signal?.removeEventListener('abort', onAbort);
      this.#settle(outcome);
    };
    let turn: Promise<string>;
    try {
      turn = this.#source.run(this.#abort.signal);
    } catch (error) {
      finish({ ok: false, error });
      return;
    }
    this.#settled = turn.then(
      (text) => finish({ ok: true, text }),
      (error: unknown) => finish({ ok: false, error }),
    );
  }

  /** Called by the handlers: hand the event to a waiting consumer, buffer it, or wait for room. */
  #put(event: TurnEvent): Promise<void> | undefined {
    // The consumer left, or the turn has settled (an emit nobody awaited, still running): not kept.
    if (this.#closed || this.#outcome !== undefined) return undefined;
    const taker = this.#takers.shift();
    if (taker !== undefined) {
      taker.resolve({ value: event, done: false });
      return undefined;
    }
    if (this.#buffer.length < this.#size) {
      this.#buffer.push(event);
      return undefined;
    }
    // Full: hold the emitter until the consumer takes an event. After an immediate
    // cancellation nothing waits (the turn must be able to stop): the event is dropped.
    const turnSignal = this.#source.turnSignal();
    if (turnSignal.aborted) return undefined;
    return new Promise<void>((resolve) => {
      const waiter: Waiter = {
        event,
        resolve: () => {
          turnSignal.removeEventListener('abort', onCancel);
          resolve();
        },
      };
      const onCancel = (): void => {
        const i = this.#waiters.indexOf(waiter);
        if (i >= 0) this.#waiters.splice(i, 1);
        waiter.resolve();
      };
      turnSignal.addEventListener('abort', onCancel, { once: true });
      this.#waiters.push(waiter);
    });
  }

  /** The next buffered event; a waiting handler's event moves into the room it leaves. */
  #take(): TurnEvent | undefined {
    const event = this.#buffer.shift();
    if (event === undefined) return undefined;
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) {
      this.#buffer.push(waiter.event);
      waiter.resolve();
    }
    return event;
  }

  #settle(outcome: Outcome): void {
    this.#outcome = outcome;
    // Takers wait only while the buffer is empty: the outcome is next.
    const taker = this.#takers.shift();
    if (taker !== undefined) {
      this.#deliver(outcome).then(taker.resolve, taker.reject);
      for (const rest of this.#takers.splice(0)) rest.resolve({ value: undefined, done: true });
    }
  }

  #deliver(outcome: Outcome): Promise<IteratorResult<TurnEvent, undefined>> {
    this.#done = true;
    if (outcome.ok) return Promise.resolve({ value: { type: 'finish', text: outcome.text }, done: false });
    return Promise.reject(outcome.error);
  }
}
