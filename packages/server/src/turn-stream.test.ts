/**
 * `streamTurn(session, prompt)`: one turn as an async iterable of typed events, on
 * real sessions with in-process modules (a provider streaming scripted
 * responses through the hooks, a small agent loop, a tool). No timing: every
 * wait is on an explicit promise; "still pending" is checked after the event
 * loop has run everything it could (one `setImmediate` turn).
 */

import { AmplifierError, type AmplifierSession, CancelledError, dynamicEvent } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { record, type ScriptedResponse, streamingSession } from './__fixtures__/streaming.js';
import {
  streamTurn,
  TURN_PROGRESS_EVENTS,
  TURN_STREAM_EVENTS,
  TURN_STREAM_HANDLER,
  type TurnEvent,
  toTurnEvent,
  watchTurnEvents,
} from './turn-stream.js';

/** Collect every event of the stream; `error` is what the iterator threw. */
async function collect(
  iterable: AsyncIterable<TurnEvent>,
): Promise<{ events: TurnEvent[]; error?: unknown }> {
  const events: TurnEvent[] = [];
  try {
    for await (const event of iterable) events.push(event);
  } catch (error) {
    return { events, error };
  }
  return { events };
}

/** Whether `promise` has settled once the event loop has run everything queued (no timer). */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  const marker = Symbol('pending');
  const first = await Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    new Promise<typeof marker>((resolve) => setImmediate(() => resolve(marker))),
  ]);
  return first !== marker;
}

/** The names of the stream's handlers still registered on the session's hooks. */
function streamHandlers(session: AmplifierSession): string[] {
  const all = session.coordinator.hooks.listHandlers();
  return Object.entries(all).flatMap(([event, names]) =>
    names.filter((n) => n === TURN_STREAM_HANDLER).map(() => event),
  );
}

const usage = { input_tokens: 10, output_tokens: 4 };

describe('streamTurn(session, prompt): the events of one turn', () => {
  it('yields text and thinking deltas in order, each before finish, and finish with what execute() returns', async () => {
    const { session } = streamingSession([
      { blocks: [{ thinking: ['Let me ', 'think'] }, { text: ['Hel', 'lo ', 'Ada'] }], usage },
    ]);
    await session.initialize();
    const { events, error } = await collect(streamTurn(session, 'greet'));
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: 'thinking_delta', request_id: 'req_1', block_index: 0, sequence: 0, text: 'Let me ' },
      { type: 'thinking_delta', request_id: 'req_1', block_index: 0, sequence: 1, text: 'think' },
      { type: 'text_delta', request_id: 'req_1', block_index: 1, sequence: 0, text: 'Hel' },
      { type: 'text_delta', request_id: 'req_1', block_index: 1, sequence: 1, text: 'lo ' },
      { type: 'text_delta', request_id: 'req_1', block_index: 1, sequence: 2, text: 'Ada' },
      { type: 'usage', provider: 'streamer', model: 'scripted', usage },
      { type: 'finish', text: 'Hello Ada' },
    ]);
    expect(session.status.status).toBe('completed');
    // The same turn through execute() answers the same.
    const again = streamingSession([{ blocks: [{ thinking: ['x'] }, { text: ['Hel', 'lo ', 'Ada'] }] }]);
    expect(await again.session.execute('greet')).toBe('Hello Ada');
  });

  it('yields tool calls and their results (with ids), a tool error, and the usage of every model call', async () => {
    const { session } = streamingSession([
      {
        blocks: [
          { text: ['Checking'] },
          { tool: { id: 'call_1', name: 'echo', input: { word: 'hi' } } },
          { tool: { id: 'call_2', name: 'nope', input: {} } },
        ],
        usage: { input_tokens: 5, output_tokens: 2 },
      },
      { blocks: [{ text: ['Done'] }], usage: { input_tokens: 9, output_tokens: 1 } },
    ]);
    const { events } = await collect(streamTurn(session, 'use tools'));
    expect(events).toEqual([
      { type: 'text_delta', request_id: 'req_1', block_index: 0, sequence: 0, text: 'Checking' },
      {
        type: 'usage',
        provider: 'streamer',
        model: 'scripted',
        usage: { input_tokens: 5, output_tokens: 2 },
      },
      { type: 'tool_call', tool_call_id: 'call_1', tool_name: 'echo', tool_input: { word: 'hi' } },
      {
        type: 'tool_result',
        tool_call_id: 'call_1',
        tool_name: 'echo',
        result: { success: true, output: { word: 'hi' } },
      },
      { type: 'tool_call', tool_call_id: 'call_2', tool_name: 'nope', tool_input: {} },
      {
        type: 'tool_error',
        tool_call_id: 'call_2',
        tool_name: 'nope',
        error: { type: 'ToolNotFound', msg: "no tool 'nope'" },
      },
      { type: 'text_delta', request_id: 'req_2', block_index: 0, sequence: 0, text: 'Done' },
      {
        type: 'usage',
        provider: 'streamer',
        model: 'scripted',
        usage: { input_tokens: 9, output_tokens: 1 },
      },
      { type: 'finish', text: 'Done' },
    ]);
  });

  it('a tool call denied by a hook yields nothing; one another hook modifies yields the input the tool got', async () => {
    const { session } = streamingSession([
      {
        blocks: [
          { tool: { id: 'c1', name: 'echo', input: { word: 'secret' } } },
          { tool: { id: 'c2', name: 'echo', input: { word: 'plain' } } },
        ],
      },
      { blocks: [{ text: ['ok'] }] },
    ]);
    await session.initialize();
    session.coordinator.hooks.register('tool:pre', (_e, data) => {
      if (data.tool_call_id === 'c1') return { action: 'deny', reason: 'no' };
      return { action: 'modify', data: { ...data, tool_input: { word: 'PLAIN' } } };
    });
    const { events } = await collect(streamTurn(session, 'p'));
    const tools = events.filter((e) => e.type === 'tool_call' || e.type === 'tool_result');
    expect(tools).toEqual([
      { type: 'tool_call', tool_call_id: 'c2', tool_name: 'echo', tool_input: { word: 'PLAIN' } },
      {
        type: 'tool_result',
        tool_call_id: 'c2',
        tool_name: 'echo',
        result: { success: true, output: { word: 'PLAIN' } },
      },
    ]);
  });

  it("never changes what the emitters get back: the stream's handlers return nothing", async () => {
    const { session, orchestrator } = streamingSession([]);
    const payloads: Record<string, Record<string, unknown>> = {
      'llm:stream_block_delta': {
        request_id: 'r',
        block_index: 0,
        block_type: 'text',
        sequence: 0,
        text: 'x',
      },
      'llm:stream_aborted': { request_id: 'r', error: { type: 'Error', msg: 'm' } },
      'tool:pre': { tool_name: 'echo', tool_input: { a: 1 }, tool_call_id: 'c' },
      'tool:post': { tool_name: 'echo', tool_call_id: 'c', result: { success: true } },
      'tool:error': { tool_name: 'echo', tool_call_id: 'c', error: { type: 'Error', msg: 'm' } },
      'llm:response': { provider: 'p', model: 'm', status: 'ok', duration_ms: 1, usage: usage },
      'provider:error': { provider: 'p', error: { type: 'Error', msg: 'm' } },
    };
    expect(Object.keys(payloads).sort()).toEqual([...TURN_STREAM_EVENTS].sort());
    const results: unknown[] = [];
    orchestrator.turn = async (_prompt, run) => {
      for (const [event, data] of Object.entries(payloads))
        results.push(await run.hooks.emit(dynamicEvent(event), data));
      return 'done';
    };
    const { events } = await collect(streamTurn(session, 'p'));
    expect(events.map((e) => e.type)).toEqual([
      'text_delta',
      'stream_aborted',
      'tool_call',
      'tool_result',
      'tool_error',
      'usage',
      'provider_error',
      'finish',
    ]);
    expect(results).toEqual(
      Object.values(payloads).map((data) => ({ action: 'continue', data: expect.objectContaining(data) })),
    );
  });

  it('with progress, also yields provider calls, retries, block ends, whole blocks and compactions', async () => {
    const { session, orchestrator } = streamingSession([]);
    const payloads: Array<[string, Record<string, unknown>]> = [
      ['provider:request', { provider: 'p', iteration: 0 }],
      [
        'provider:retry',
        { provider: 'p', model: 'm', attempt: 1, max_retries: 3, delay: 0.5, cause: 'reset' },
      ],
      ['llm:stream_block_end', { request_id: 'r', block_index: 1, block_type: 'text' }],
      ['content_block:end', { block_index: 0, total_blocks: 2, block: { type: 'thinking', thinking: 'hm' } }],
      [
        'content_block:end',
        { block_index: 1, total_blocks: 2, block: { type: 'text', text: 'Let me look' } },
      ],
      ['content_block:end', { block_index: 2, total_blocks: 3, block: { type: 'tool_call', id: 'x' } }],
      ['provider:response', { provider: 'p', usage: null, tool_calls: true }],
      ['context:compaction', { strategy_level: 3, before_tokens: 10 }],
      ['provider:retry', { provider: 'p', attempt: 'two', error: 42 }],
    ];
    expect([...new Set(payloads.map(([event]) => event))].sort()).toEqual([...TURN_PROGRESS_EVENTS].sort());
    orchestrator.turn = async (_prompt, run) => {
      for (const [event, data] of payloads) await run.hooks.emit(dynamicEvent(event), data);
      return 'done';
    };
    const plain = await collect(streamTurn(session, 'p'));
    expect(plain.events).toEqual([{ type: 'finish', text: 'done' }]);
    const { events } = await collect(streamTurn(session, 'p', { progress: true }));
    expect(events).toEqual([
      { type: 'provider_request', provider: 'p', iteration: 0 },
      { type: 'provider_retry', provider: 'p', attempt: 1, max_retries: 3, delay: 0.5, cause: 'reset' },
      { type: 'block_end', request_id: 'r', block_index: 1, block_type: 'text' },
      { type: 'content_block', block_type: 'thinking', text: 'hm' },
      { type: 'content_block', block_type: 'text', text: 'Let me look' },
      { type: 'provider_response', provider: 'p', tool_calls: true },
      { type: 'compaction', strategy_level: 3 },
      // Fields of the wrong type are left out, never passed on.
      { type: 'provider_retry', provider: 'p' },
      { type: 'finish', text: 'done' },
    ]);
    expect(streamHandlers(session)).toEqual([]);
  });

  it('with progress, a call a hook denies is a tool_denied item, and one its approval denies follows its tool_call', async () => {
    const asked: string[] = [];
    const { session } = streamingSession(
      [
        {
          blocks: [
            { tool: { id: 'c1', name: 'echo', input: { word: 'secret' } } },
            { tool: { id: 'c2', name: 'echo', input: { word: 'ask' } } },
            { tool: { id: 'c3', name: 'echo', input: { word: 'fine' } } },
          ],
        },
        { blocks: [{ text: ['ok'] }] },
        {
          blocks: [
            { tool: { id: 'c1', name: 'echo', input: { word: 'secret' } } },
            { tool: { id: 'c2', name: 'echo', input: { word: 'ask' } } },
            { tool: { id: 'c3', name: 'echo', input: { word: 'fine' } } },
          ],
        },
        { blocks: [{ text: ['ok'] }] },
      ],
      {
        approval: {
          requestApproval: async (request) => {
            asked.push(request.prompt);
            return 'deny';
          },
        },
      },
    );
    await session.initialize();
    session.coordinator.hooks.register('tool:pre', (_e, data) => {
      if (data.tool_call_id === 'c1') return { action: 'deny', reason: 'no secrets' };
      if (data.tool_call_id === 'c2') return { action: 'ask_user', approval_prompt: 'Echo ask?' };
      return undefined;
    });
    const calls = (events: TurnEvent[]) =>
      events
        .filter((e) => e.type.startsWith('tool_'))
        .map((e) => [e.type, 'tool_call_id' in e && e.tool_call_id]);
    // Without progress: as before, denied calls leave no trace.
    const plain = await collect(streamTurn(session, 'p'));
    expect(calls(plain.events)).toEqual([
      ['tool_call', 'c2'],
      ['tool_call', 'c3'],
      ['tool_result', 'c3'],
    ]);
    const { events } = await collect(streamTurn(session, 'p', { progress: true }));
    expect(events.filter((e) => e.type === 'tool_denied')).toEqual([
      {
        type: 'tool_denied',
        tool_call_id: 'c1',
        tool_name: 'echo',
        tool_input: { word: 'secret' },
        reason: 'no secrets',
      },
      {
        type: 'tool_denied',
        tool_call_id: 'c2',
        tool_name: 'echo',
        tool_input: { word: 'ask' },
        reason: 'User denied: Echo ask?',
      },
    ]);
    expect(calls(events)).toEqual([
      ['tool_denied', 'c1'],
      ['tool_call', 'c2'],
      ['tool_denied', 'c2'],
      ['tool_call', 'c3'],
      ['tool_result', 'c3'],
    ]);
    expect(asked).toEqual(['Echo ask?', 'Echo ask?']);
    expect(streamHandlers(session)).toEqual([]);
  });

  it('onEvent sees each event inside its emit, before the approval is asked; the iterator still yields them all', async () => {
    const seen: TurnEvent[] = [];
    let seenWhenAsked: TurnEvent[] = [];
    const { session } = streamingSession(
      [
        { blocks: [{ text: ['Let me'] }, { tool: { id: 'c1', name: 'echo', input: { word: 'hi' } } }] },
        { blocks: [{ text: ['ok'] }] },
      ],
      {
        approval: {
          requestApproval: async () => {
            seenWhenAsked = [...seen];
            return 'allow';
          },
        },
      },
    );
    await session.initialize();
    session.coordinator.hooks.register('tool:pre', () => ({ action: 'ask_user' }));
    // A hook that runs after the stream's handler would find the item already shown: it runs after every hook.
    session.coordinator.hooks.register('tool:post', () => {
      expect(seen.at(-1)?.type).not.toBe('tool_result');
    });
    const { events } = await collect(
      streamTurn(session, 'p', {
        progress: true,
        onEvent: (event) => {
          seen.push(event);
          if (event.type === 'usage') throw new Error('a broken display');
        },
      }),
    );
    expect(seenWhenAsked.at(-1)).toEqual({
      type: 'tool_call',
      tool_call_id: 'c1',
      tool_name: 'echo',
      tool_input: { word: 'hi' },
    });
    // What onEvent threw was skipped: every event still reached it and the iterator.
    expect([...seen, { type: 'finish', text: 'ok' }]).toEqual(events);
  });

  it('watchTurnEvents shows the items of turns something else runs, until it is stopped', async () => {
    const { session } = streamingSession([
      { blocks: [{ tool: { id: 'c1', name: 'echo', input: { word: 'hi' } } }] },
      { blocks: [{ text: ['ok'] }] },
      { blocks: [{ text: ['again'] }] },
    ]);
    await session.initialize();
    session.coordinator.hooks.register('tool:pre', (_e, data) => ({
      action: 'modify',
      data: { ...data, tool_input: { word: 'HI' } },
    }));
    const seen: TurnEvent[] = [];
    const stop = watchTurnEvents(session.coordinator, (item) => seen.push(item), { progress: true });
    expect(await session.execute('p')).toBe('ok');
    expect(seen.filter((e) => e.type === 'tool_call')).toEqual([
      { type: 'tool_call', tool_call_id: 'c1', tool_name: 'echo', tool_input: { word: 'HI' } },
    ]);
    expect(seen.some((e) => e.type === 'provider_request' || e.type === 'text_delta')).toBe(true);
    expect(streamHandlers(session).length).toBe(TURN_STREAM_EVENTS.length + TURN_PROGRESS_EVENTS.length);
    stop();
    expect(streamHandlers(session)).toEqual([]);
    const count = seen.length;
    await session.execute('p');
    expect(seen.length).toBe(count);
  });

  it('toTurnEvent is the translation of the stream: progress items only when asked', () => {
    const data = { provider: 'p', iteration: 2 };
    expect(toTurnEvent('provider:request', data)).toBeUndefined();
    expect(toTurnEvent('provider:request', data, true)).toEqual({
      type: 'provider_request',
      provider: 'p',
      iteration: 2,
    });
    expect(toTurnEvent('tool:pre', { tool_name: 'echo', tool_input: { a: 1 } })).toEqual({
      type: 'tool_call',
      tool_name: 'echo',
      tool_input: { a: 1 },
    });
    expect(toTurnEvent('session:start', { session_id: 's' }, true)).toBeUndefined();
  });

  it('a failing turn makes the iterator throw its error, after the events that came before', async () => {
    const wireError = new Error('connection reset');
    const { session } = streamingSession([
      { blocks: [{ text: ['one ', 'two ', 'three'] }], fail: { after: 2, error: wireError } },
    ]);
    const { events, error } = await collect(streamTurn(session, 'p'));
    expect(error).toBe(wireError);
    expect(events).toEqual([
      { type: 'text_delta', request_id: 'req_1', block_index: 0, sequence: 0, text: 'one ' },
      { type: 'text_delta', request_id: 'req_1', block_index: 0, sequence: 1, text: 'two ' },
      { type: 'stream_aborted', request_id: 'req_1', error: { type: 'Error', msg: 'connection reset' } },
      { type: 'provider_error', provider: 'streamer', error: { type: 'Error', msg: 'connection reset' } },
    ]);
    expect(session.status.status).toBe('failed');
    expect(streamHandlers(session)).toEqual([]);
    // The iterator is done after the error.
    const stream = streamTurn(session, 'q');
    await collect(stream);
    expect(await stream.next()).toEqual({ value: undefined, done: true });
  });

  it('a session that cannot start throws its initialize() error at the first next(), with no event', async () => {
    const { session, modules } = streamingSession([]);
    modules['context-simple'] = () => {
      throw new Error('context broke');
    };
    const { events, error } = await collect(streamTurn(session, 'p'));
    expect(events).toEqual([]);
    expect(AmplifierError.is(error, 'MOUNT_FAILED')).toBe(true);
    expect(streamHandlers(session)).toEqual([]);
  });
});

describe('streamTurn(session, prompt): only this turn, one turn at a time', () => {
  it('is lazy: nothing runs and nothing is registered before the first next()', async () => {
    const { session, provider } = streamingSession([{ blocks: [{ text: ['a'] }] }]);
    await session.initialize();
    const stream = streamTurn(session, 'p');
    expect(streamHandlers(session)).toEqual([]);
    expect(provider.calls).toBe(0);
    // Returning a stream never started runs nothing either.
    expect(await stream.return()).toEqual({ value: undefined, done: true });
    expect(await stream.next()).toEqual({ value: undefined, done: true });
    expect(provider.calls).toBe(0);
  });

  it('registers its handlers for the turn only and removes them once the turn has settled', async () => {
    const { session } = streamingSession([{ blocks: [{ text: ['a', 'never'] }], hang: { after: 1 } }]);
    await session.initialize();
    const stream = streamTurn(session, 'p');
    await stream.next(); // the provider now hangs: the turn is running
    expect(streamHandlers(session).sort()).toEqual([...TURN_STREAM_EVENTS].sort());
    for (const event of TURN_STREAM_EVENTS) expect(session.coordinator.hooks.has(event)).toBe(true);
    await stream.return();
    expect(streamHandlers(session)).toEqual([]);
    for (const event of TURN_STREAM_EVENTS) expect(session.coordinator.hooks.has(event)).toBe(false);
    // A turn that completes removes them too.
    const done = streamingSession([{ blocks: [{ text: ['a', 'b'] }] }]);
    await collect(streamTurn(done.session, 'p'));
    expect(streamHandlers(done.session)).toEqual([]);
  });

  it('refuses to start while another turn runs (SESSION_INVALID, nothing registered), and runs after it', async () => {
    const { session, orchestrator } = streamingSession([{ blocks: [{ text: ['streamed'] }] }]);
    await session.initialize();
    const turn = orchestrator.turn;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    orchestrator.turn = async () => {
      entered();
      await gate;
      return 'executed';
    };
    const executing = session.execute('first');
    await inside;
    const { events, error } = await collect(streamTurn(session, 'second'));
    expect(events).toEqual([]);
    expect(AmplifierError.is(error, 'SESSION_INVALID')).toBe(true);
    expect(streamHandlers(session)).toEqual([]);
    release();
    expect(await executing).toBe('executed');
    orchestrator.turn = turn;
    expect((await collect(streamTurn(session, 'third'))).events.at(-1)).toEqual({
      type: 'finish',
      text: 'streamed',
    });
  });
});

describe('streamTurn(session, prompt): cancellation', () => {
  const hanging = (): ScriptedResponse[] => [
    { blocks: [{ text: ['first ', 'never'] }], hang: { after: 1 } },
    { blocks: [{ text: ['next turn'] }] },
  ];

  it('breaking out of for await cancels the turn immediately; the loop ends after the turn settled; the session runs another turn', async () => {
    const { session } = streamingSession(hanging());
    await session.initialize();
    const seen = record(session, 'cancel:requested', 'cancel:completed');
    const events: TurnEvent[] = [];
    for await (const event of streamTurn(session, 'p')) {
      events.push(event);
      break; // the provider hangs after this delta: only a cancellation ends its call
    }
    expect(events).toEqual([
      { type: 'text_delta', request_id: 'req_1', block_index: 0, sequence: 0, text: 'first ' },
    ]);
    // The turn has settled when the loop is left: cancelled, cancel:completed emitted, handlers gone.
    expect(session.status.status).toBe('cancelled');
    expect(seen.map(([e, d]) => [e, d.level ?? d.was_immediate])).toEqual([
      ['cancel:requested', 'immediate'],
      ['cancel:completed', true],
    ]);
    expect(streamHandlers(session)).toEqual([]);
    const next = await collect(streamTurn(session, 'again'));
    expect(next.error).toBeUndefined();
    expect(next.events.at(-1)).toEqual({ type: 'finish', text: 'next turn' });
    expect(session.status.status).toBe('completed');
  });

  it('return() called while a next() waits resolves both; return() is idempotent', async () => {
    const { session } = streamingSession(hanging());
    await session.initialize();
    const stream = streamTurn(session, 'p');
    expect((await stream.next()).value).toMatchObject({ text: 'first ' });
    const waiting = stream.next(); // the provider hangs: nothing comes
    const [returned, waited] = await Promise.all([stream.return(), waiting]);
    expect(returned).toEqual({ value: undefined, done: true });
    expect(waited).toEqual({ value: undefined, done: true });
    expect(await stream.return()).toEqual({ value: undefined, done: true });
    expect(session.status.status).toBe('cancelled');
    expect(streamHandlers(session)).toEqual([]);
  });

  it('aborting the signal cancels the turn immediately; the iterator throws the turn error; the session runs another turn', async () => {
    const { session } = streamingSession(hanging());
    await session.initialize();
    const controller = new AbortController();
    const events: TurnEvent[] = [];
    let thrown: unknown;
    try {
      for await (const event of streamTurn(session, 'p', { signal: controller.signal })) {
        events.push(event);
        if (event.type === 'text_delta') controller.abort(new Error('user pressed Ctrl+C twice'));
      }
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(CancelledError);
    expect(events).toEqual([
      { type: 'text_delta', request_id: 'req_1', block_index: 0, sequence: 0, text: 'first ' },
      {
        type: 'provider_error',
        provider: 'streamer',
        error: { type: 'CancelledError', msg: 'Cancelled immediately' },
      },
    ]);
    expect(session.status.status).toBe('cancelled');
    expect(streamHandlers(session)).toEqual([]);
    expect((await collect(streamTurn(session, 'again'))).events.at(-1)).toEqual({
      type: 'finish',
      text: 'next turn',
    });
  });

  it('an already-aborted signal cancels before the orchestrator starts, as execute() does', async () => {
    const { session } = streamingSession([{ blocks: [{ text: ['a'] }] }]);
    const { events, error } = await collect(streamTurn(session, 'p', { signal: AbortSignal.abort() }));
    expect(error).toBeInstanceOf(CancelledError);
    expect(events.map((e) => e.type)).toEqual(['provider_error']);
    expect(session.status.status).toBe('cancelled');
  });
});

describe('streamTurn(session, prompt): backpressure', () => {
  it('a full buffer holds the emitter until the consumer takes an event; nothing is dropped', async () => {
    const texts = Array.from({ length: 8 }, (_, i) => `t${i}`);
    const { session } = streamingSession([{ blocks: [{ text: texts }] }]);
    await session.initialize();
    const hooks = session.coordinator.hooks;
    // Runs before the stream's handler on each delta: which deltas the provider has emitted.
    const reached: number[] = [];
    const reachedAt: (() => void)[] = [];
    const reachedPromises = texts.map(
      (_, i) =>
        new Promise<void>((resolve) => {
          reachedAt[i] = resolve;
        }),
    );
    const reachedPromise = (sequence: number): Promise<void> => reachedPromises[sequence]!;
    // Runs after it: which emits got past the stream's handler.
    const passed: number[] = [];
    hooks.register(
      'llm:stream_block_delta',
      (_e, data) => {
        reached.push(data.sequence as number);
        reachedAt[data.sequence as number]?.();
      },
      { priority: -1 },
    );
    hooks.register(
      'llm:stream_block_delta',
      (_e, data) => {
        passed.push(data.sequence as number);
      },
      { priority: Number.POSITIVE_INFINITY },
    );

    const stream = streamTurn(session, 'p', { bufferSize: 2 });
    const third = reachedPromise(3);
    // The first next() starts the turn and takes t0; t1 and t2 fill the buffer; t3 must wait.
    expect((await stream.next()).value).toMatchObject({ text: 't0' });
    await third;
    const fourth = reachedPromise(4);
    expect(await settledYet(fourth)).toBe(false); // the provider is held inside the emit of t3
    expect(reached).toEqual([0, 1, 2, 3]);
    expect(passed).toEqual([0, 1, 2]);

    // The consumer takes one: t3 moves into the buffer, its emit returns, t4 is emitted and held.
    expect((await stream.next()).value).toMatchObject({ text: 't1' });
    await fourth;
    expect(passed).toEqual([0, 1, 2, 3]);
    const fifth = reachedPromise(5);
    expect(await settledYet(fifth)).toBe(false);
    expect(reached).toEqual([0, 1, 2, 3, 4]);

    // Reading the rest lets the turn finish, every event in order.
    const { events } = await collect(stream);
    expect(events.map((e) => (e.type === 'text_delta' ? e.text : e.type))).toEqual([
      't2',
      't3',
      't4',
      't5',
      't6',
      't7',
      'usage',
      'finish',
    ]);
    expect(streamHandlers(session)).toEqual([]);
  });

  it('a consumer that leaves while the emitter is held releases it, and the turn is cancelled', async () => {
    const { session } = streamingSession([{ blocks: [{ text: ['a', 'b', 'c', 'd'] }] }]);
    await session.initialize();
    let heldAt!: () => void;
    const held = new Promise<void>((resolve) => {
      heldAt = resolve;
    });
    session.coordinator.hooks.register(
      'llm:stream_block_delta',
      (_e, data) => {
        if (data.sequence === 2) heldAt();
      },
      { priority: -1 },
    );
    const stream = streamTurn(session, 'p', { bufferSize: 1 });
    expect((await stream.next()).value).toMatchObject({ text: 'a' }); // b buffered, c held
    await held;
    expect(await stream.return()).toEqual({ value: undefined, done: true });
    expect(session.status.status).toBe('cancelled');
    expect(streamHandlers(session)).toEqual([]);
  });

  it('aborting the signal while the emitter is held releases it: the turn ends, events that find the buffer full are dropped', async () => {
    const { session } = streamingSession([{ blocks: [{ text: ['a', 'b', 'c', 'd'] }] }]);
    await session.initialize();
    const hooks = session.coordinator.hooks;
    let heldAt!: () => void;
    const held = new Promise<void>((resolve) => {
      heldAt = resolve;
    });
    hooks.register(
      'llm:stream_block_delta',
      (_e, data) => {
        if (data.sequence === 2) heldAt();
      },
      { priority: -1 },
    );
    let completedAt!: () => void;
    const completed = new Promise<void>((resolve) => {
      completedAt = resolve;
    });
    hooks.register('cancel:completed', () => completedAt());
    const controller = new AbortController();
    const stream = streamTurn(session, 'p', { bufferSize: 1, signal: controller.signal });
    expect((await stream.next()).value).toMatchObject({ text: 'a' }); // b buffered, c held
    await held;
    controller.abort();
    await completed; // the turn ended while the consumer read nothing
    expect(session.status.status).toBe('cancelled');
    const { events, error } = await collect(stream);
    // c was released (dropped) by the cancellation, and so was provider_error: the buffer still held b.
    expect(events.map((e) => (e.type === 'text_delta' ? e.text : e.type))).toEqual(['b']);
    expect(error).toBeInstanceOf(CancelledError);
    expect(streamHandlers(session)).toEqual([]);
  });

  it('an event emitted by the turn but reaching the stream after the turn settled is not kept', async () => {
    const { session, orchestrator } = streamingSession([]);
    await session.initialize();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Runs before the stream's handler: holds the one emit nobody awaits until the turn has settled.
    session.coordinator.hooks.register(
      'llm:stream_block_delta',
      async (_e, data) => {
        if (data.text === 'late') await gate;
      },
      { priority: -1 },
    );
    let late!: Promise<unknown>;
    orchestrator.turn = async (_prompt, run) => {
      late = run.hooks.emit('llm:stream_block_delta', {
        request_id: 'r',
        block_index: 0,
        block_type: 'text',
        sequence: 0,
        text: 'late',
      });
      return 'done';
    };
    const stream = streamTurn(session, 'p');
    expect(await stream.next()).toEqual({ value: { type: 'finish', text: 'done' }, done: false });
    release();
    await late; // the stream's handler ran now, with the turn settled
    expect(await stream.next()).toEqual({ value: undefined, done: true });
  });

  it('rejects a bufferSize that is not a positive integer', () => {
    const { session } = streamingSession([]);
    for (const bufferSize of [0, -1, 1.5, Number.NaN]) {
      expect(() => streamTurn(session, 'p', { bufferSize })).toThrow(RangeError);
    }
  });
});
