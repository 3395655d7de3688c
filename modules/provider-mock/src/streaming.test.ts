/**
 * provider-mock as the deterministic fixture of the token-streaming contract:
 * the provider kit's conformance suite, then the exact events of a script,
 * fragment size, the pause between fragments (aborted by the signal), and the
 * ways to turn streaming off.
 */
import { type ChatRequest, OBSERVABILITY_EVENTS_CHANNEL, type StreamEvent } from '@amplifier/core';
import {
  type RecordedStreamEvent,
  type StreamingScenario,
  streamingConformance,
  streamingContractProblems,
} from '@amplifier/provider-http/testing';
import { createTestCoordinator, EventRecorder } from '@amplifier/testing';
import { describe, expect, it } from 'vitest';
import { createMockProvider, EXTRA_EVENTS, mount, type ScriptStep } from './index.js';

const REQUEST: ChatRequest = { messages: [{ role: 'user', content: 'hello' }] };

const SCRIPTS: Record<StreamingScenario, ScriptStep> = {
  text: 'Hello there: a mock answer long enough for several fragments.',
  tool_use: {
    thinking: 'The user wants a file.',
    text: 'Reading it.',
    tool_calls: [{ name: 'read_file', arguments: { path: 'a.txt' } }],
  },
  fail_after_delta: 'This answer is cut off by an abort after its first fragment.',
  fail_before_delta: { error: { kind: 'invalid_request', message: 'bad request' } },
  non_streaming: 'Hello.',
};

streamingConformance({
  async start(scenario, hooks) {
    const controller = new AbortController();
    const provider = createMockProvider({
      script: [SCRIPTS[scenario]],
      hooks: {
        async emit(event, data) {
          await hooks.emit(event, data);
          // The failure after a delta: the caller aborts once the first fragment arrived.
          if (scenario === 'fail_after_delta' && event === 'llm:stream_block_delta') controller.abort();
        },
      },
    });
    return { provider: { complete: (request) => provider.complete(request, { signal: controller.signal }) } };
  },
});

function recorded(recorder: EventRecorder): RecordedStreamEvent[] {
  return recorder.getEvents() as RecordedStreamEvent[];
}

describe('streaming complete()', () => {
  it('thinking, text and a tool call: the exact events, fragments of stream_chunk_chars', async () => {
    const recorder = new EventRecorder();
    const provider = createMockProvider({
      hooks: recorder,
      stream_chunk_chars: 4,
      script: [{ thinking: 'hmm, ok', text: 'Hi there', tool_calls: [{ id: 'c1', name: 'grep' }] }],
    });
    const response = await provider.complete(REQUEST);
    expect(response.tool_calls).toEqual([{ id: 'c1', name: 'grep', arguments: {} }]);
    const events = recorded(recorder);
    expect(streamingContractProblems(events, 'ok')).toEqual([]);
    const id = events.find(([name]) => name === 'llm:stream_block_start')![1].request_id;
    const stream = events.filter(([name]) => name.startsWith('llm:stream_'));
    expect(stream).toEqual([
      ['llm:stream_block_start', { request_id: id, block_index: 0, block_type: 'thinking' }],
      [
        'llm:stream_block_delta',
        { request_id: id, block_index: 0, block_type: 'thinking', sequence: 0, text: 'hmm,' },
      ],
      [
        'llm:stream_block_delta',
        { request_id: id, block_index: 0, block_type: 'thinking', sequence: 1, text: ' ok' },
      ],
      ['llm:stream_block_end', { request_id: id, block_index: 0, block_type: 'thinking' }],
      ['llm:stream_block_start', { request_id: id, block_index: 1, block_type: 'text' }],
      [
        'llm:stream_block_delta',
        { request_id: id, block_index: 1, block_type: 'text', sequence: 0, text: 'Hi t' },
      ],
      [
        'llm:stream_block_delta',
        { request_id: id, block_index: 1, block_type: 'text', sequence: 1, text: 'here' },
      ],
      ['llm:stream_block_end', { request_id: id, block_index: 1, block_type: 'text' }],
      ['llm:stream_block_start', { request_id: id, block_index: 2, block_type: 'tool_use', name: 'grep' }],
      ['llm:stream_block_end', { request_id: id, block_index: 2, block_type: 'tool_use' }],
    ]);
    expect(events[0]![0]).toBe('llm:request');
    expect(events.at(-1)![0]).toBe('llm:response');
  });

  it('fragments never split a character; the default fragment is 16 characters', async () => {
    const recorder = new EventRecorder();
    const text = `${'é'.repeat(20)}😀😀`;
    await createMockProvider({ hooks: recorder, script: [text] }).complete(REQUEST);
    const pieces = recorder.getEvents('llm:stream_block_delta').map(([, d]) => d.text as string);
    expect(pieces).toEqual(['é'.repeat(16), 'éééé😀😀']);
  });

  it('use_streaming: false, or metadata.stream === false for one call: no llm:stream_* event', async () => {
    const off = new EventRecorder();
    await createMockProvider({ hooks: off, use_streaming: false, script: ['hi'] }).complete(REQUEST);
    expect(off.names()).toEqual(['llm:request', 'llm:response']);
    const once = new EventRecorder();
    const provider = createMockProvider({ hooks: once, repeat_last: true, script: ['hi'] });
    await provider.complete({ ...REQUEST, metadata: { stream: false } });
    expect(once.names()).toEqual(['llm:request', 'llm:response']);
    await provider.complete({ ...REQUEST, metadata: { stream: 'no' } });
    expect(once.names()).toContain('llm:stream_block_delta');
  });

  it('stream_delay (seconds) pauses between fragments; the signal ends the pause at once', async () => {
    const recorder = new EventRecorder();
    const controller = new AbortController();
    const provider = createMockProvider({
      // An hour between fragments: the test ends only because the abort ends the pause.
      stream_delay: 3600,
      stream_chunk_chars: 2,
      script: ['abcdef'],
      hooks: {
        async emit(event, data) {
          await recorder.emit(event, data);
          if (event === 'llm:stream_block_delta') controller.abort(new Error('ctrl-c'));
        },
      },
    });
    await expect(provider.complete(REQUEST, { signal: controller.signal })).rejects.toMatchObject({
      kind: 'abort',
    });
    expect(recorder.getEvents('llm:stream_block_delta')).toHaveLength(1);
    expect(recorder.names().slice(-2)).toEqual(['llm:stream_aborted', 'llm:response']);
    expect(recorder.getEvents('llm:stream_aborted')[0]![1]).toMatchObject({
      error: { type: 'AbortError', msg: 'provider-mock: request aborted while streaming' },
    });
    expect(recorder.getEvents('llm:response')[0]![1]).toMatchObject({ status: 'error', error_kind: 'abort' });
  });

  it('stream_delay is validated; stream_delay_ms is its alias in milliseconds', () => {
    expect(() => createMockProvider({ stream_delay: -1 })).toThrow('stream_delay must be >= 0');
    expect(() => createMockProvider({ stream_delay: 1, stream_delay_ms: 5 })).toThrow('disagree');
    expect(() => createMockProvider({ stream_delay_ms: 5, stream_chunk_chars: 1 })).not.toThrow();
    expect(() => createMockProvider({ stream_chunk_chars: 0 })).toThrow('stream_chunk_chars must be >= 1');
  });
});

describe('stream()', () => {
  it('emits the token-streaming events too, the same fragments as the deltas it yields', async () => {
    const recorder = new EventRecorder();
    const provider = createMockProvider({ hooks: recorder, stream_chunk_chars: 3, script: ['abcdefg'] });
    const yielded: StreamEvent[] = [];
    for await (const event of provider.stream(REQUEST)) yielded.push(event);
    const texts = yielded.flatMap((e) => (e.type === 'text.delta' ? [e.text] : []));
    expect(texts).toEqual(['abc', 'def', 'g']);
    expect(recorder.getEvents('llm:stream_block_delta').map(([, d]) => d.text)).toEqual(texts);
    expect(streamingContractProblems(recorded(recorder), 'ok')).toEqual([]);
  });

  it('metadata.stream === false: the events are yielded, none is emitted; a consumer who stops reports aborted', async () => {
    const quiet = new EventRecorder();
    const provider = createMockProvider({
      hooks: quiet,
      repeat_last: true,
      stream_chunk_chars: 2,
      script: ['abcdef'],
    });
    for await (const _ of provider.stream({ ...REQUEST, metadata: { stream: false } }));
    expect(quiet.names()).toEqual(['llm:request', 'llm:response']);
    quiet.clear();
    for await (const event of provider.stream(REQUEST)) if (event.type === 'text.delta') break;
    expect(quiet.names().slice(-2)).toEqual(['llm:stream_aborted', 'llm:response']);
    expect(quiet.getEvents('llm:response')[0]![1]).toMatchObject({ status: 'error', error_kind: 'abort' });
    expect(streamingContractProblems(recorded(quiet), 'failed')).toEqual([]);
  });

  it('emits llm:response after the stream events, as a real provider does', async () => {
    const recorder = new EventRecorder();
    const provider = createMockProvider({ hooks: recorder, stream_chunk_chars: 4, script: ['abcdefgh'] });
    for await (const _ of provider.stream(REQUEST));
    expect(recorder.names()).toEqual([
      'llm:request',
      'llm:stream_block_start',
      'llm:stream_block_delta',
      'llm:stream_block_delta',
      'llm:stream_block_end',
      'llm:response',
    ]);
    expect(recorder.getEvents('llm:response')[0]![1]).toMatchObject({ status: 'ok' });
  });
});

describe('stream_error: a stream cut after partial output', () => {
  const script = [
    {
      thinking: 'plan',
      text: 'The answer is cut',
      tool_calls: [{ id: 'c1', name: 'never_sent' }],
      stream_error: { kind: 'network' as const, message: 'connection reset by peer' },
    },
  ];

  it('complete(): the text streams, then stream_aborted and a failed llm:response; the call rejects', async () => {
    const recorder = new EventRecorder();
    const provider = createMockProvider({ hooks: recorder, stream_chunk_chars: 5, script });
    await expect(provider.complete(REQUEST)).rejects.toMatchObject({
      kind: 'network',
      message: 'connection reset by peer',
    });
    const deltas = recorder.getEvents('llm:stream_block_delta').map(([, d]) => d);
    expect(
      deltas
        .filter((d) => d.block_type === 'text')
        .map((d) => d.text)
        .join(''),
    ).toBe('The answer is cut');
    expect(recorder.getEvents('llm:stream_block_start').map(([, d]) => d.block_type)).toEqual([
      'thinking',
      'text',
    ]);
    expect(recorder.names().slice(-2)).toEqual(['llm:stream_aborted', 'llm:response']);
    expect(recorder.getEvents('llm:stream_aborted')[0]![1]).toMatchObject({
      error: { msg: 'connection reset by peer' },
    });
    expect(recorder.getEvents('llm:response')[0]![1]).toMatchObject({
      status: 'error',
      error_kind: 'network',
    });
    expect(streamingContractProblems(recorded(recorder), 'failed')).toEqual([]);
  });

  it('stream(): the fragments are yielded, then the error is thrown (no tool call, no message.end)', async () => {
    const provider = createMockProvider({ stream_chunk_chars: 100, script });
    const yielded: string[] = [];
    await expect(
      (async () => {
        for await (const event of provider.stream(REQUEST)) yielded.push(event.type);
      })(),
    ).rejects.toMatchObject({ kind: 'network' });
    expect(yielded).toEqual(['message.start', 'thinking.delta', 'text.delta']);
  });

  it('without streaming the call fails at once, with no stream event', async () => {
    const recorder = new EventRecorder();
    const provider = createMockProvider({ hooks: recorder, use_streaming: false, script });
    await expect(provider.complete(REQUEST)).rejects.toMatchObject({ kind: 'network' });
    expect(recorder.names()).toEqual(['llm:request', 'llm:response']);
  });

  it('needs text or thinking to stream', () => {
    expect(() =>
      createMockProvider({ script: [{ tool_calls: [{ name: 'x' }], stream_error: { kind: 'network' } }] }),
    ).toThrow('script[0].stream_error needs text or thinking');
  });
});

it('mount declares the four stream events on observability.events (so event logs subscribe to them)', async () => {
  const coordinator = createTestCoordinator({ bare: true });
  await mount(coordinator, {});
  expect(await coordinator.collectContributions(OBSERVABILITY_EVENTS_CHANNEL)).toEqual([EXTRA_EVENTS]);
  expect(EXTRA_EVENTS).toEqual([
    'llm:stream_block_start',
    'llm:stream_block_delta',
    'llm:stream_block_end',
    'llm:stream_aborted',
  ]);
});
