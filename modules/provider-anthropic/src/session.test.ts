/**
 * A whole session against the fake Chat Completions server: the real
 * loop-basic orchestrator, context-simple, this provider and a tool, loaded
 * through AmplifierSession (dev dependencies only; modules never import each other).
 */
import { mount as mountContext } from '@amplifier/context-simple';
import { AmplifierSession, LLMError, silentLogger } from '@amplifier/core';
import { mount as mountLoop } from '@amplifier/loop-basic';
import {
  FakeLlmServer,
  recordStreamEvents,
  reply,
  transcript,
  unansweredToolCalls,
} from '@amplifier/provider-http/testing';
import { EventRecorder, inProcessLoader, MockTool } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  delta,
  errorBody,
  ev,
  MODEL,
  messageDelta,
  messageStart,
  messageStop,
  start,
  stop,
  textStream,
} from './__fixtures__/wire.js';
import { mount } from './index.js';

let server: FakeLlmServer;
beforeEach(async () => {
  server = await FakeLlmServer.start();
});
afterEach(() => server.close());

it('a whole turn: loop-basic + context-simple + provider-anthropic + a tool, against the fake server', async () => {
  const tool = new MockTool({ name: 'lookup', output: { answer: 42 } });
  server.enqueue(
    reply.sse([
      messageStart(),
      start(0, { type: 'text', text: '' }),
      delta(0, { type: 'text_delta', text: 'Let me look.' }),
      stop(0),
      start(1, { type: 'tool_use', id: 'toolu_L1', name: 'lookup', input: {} }),
      delta(1, { type: 'input_json_delta', partial_json: '{"q":' }),
      delta(1, { type: 'input_json_delta', partial_json: ' "life"}' }),
      stop(1),
      messageDelta('tool_use'),
      messageStop(),
    ]),
    reply.sse(textStream(['The answer ', 'is 42.'])),
  );
  const session = new AmplifierSession(
    {
      session: { orchestrator: 'loop-basic', context: 'context-simple' },
      providers: [
        {
          module: 'provider-anthropic',
          config: { api_key: 'sk-ant-test', base_url: server.url, default_model: MODEL },
        },
      ],
      tools: [{ module: 'tools-test' }],
    },
    {
      loader: inProcessLoader({
        'loop-basic': mountLoop,
        'context-simple': mountContext,
        'provider-anthropic': mount,
        'tools-test': (c) => c.mount('tools', tool),
      }),
      logger: silentLogger,
      sessionId: 'session-anthropic',
    },
  );
  await using _ = session;
  await session.initialize();
  const recorder = new EventRecorder();
  recorder.attach(session.coordinator.hooks, ['llm:request', 'llm:response', 'tool:pre', 'tool:post']);

  expect(await session.execute('What is the answer?')).toBe('The answer is 42.');

  expect(tool.inputs).toEqual([{ q: 'life' }]);
  const second = server.requests[1]!.body;
  expect(second.tools).toEqual([
    {
      name: 'lookup',
      description: 'Mock tool: lookup',
      input_schema: tool.inputSchema,
      cache_control: { type: 'ephemeral' },
    },
  ]);
  const turns = second.messages;
  expect(turns.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user']);
  expect(turns[1].content).toEqual([
    { type: 'text', text: 'Let me look.' },
    { type: 'tool_use', id: 'toolu_L1', name: 'lookup', input: { q: 'life' } },
  ]);
  expect(turns[2].content).toEqual([
    {
      type: 'tool_result',
      tool_use_id: 'toolu_L1',
      content: '{"answer":42}',
      cache_control: { type: 'ephemeral' },
    },
  ]);
  expect(recorder.names()).toEqual([
    'llm:request',
    'llm:response',
    'tool:pre',
    'tool:post',
    'llm:request',
    'llm:response',
  ]);
  expect(recorder.getEvents('llm:response')[0]![1]).toMatchObject({
    session_id: 'session-anthropic',
    status: 'ok',
  });
  const cost = await session.coordinator.collectContributions('session.cost');
  expect(cost).toEqual([{ provider: 'anthropic', cost_usd: expect.stringMatching(/^0\.000\d+$/) }]);
});

describe('streaming faults', () => {
  /** A session over the fake server (retries without delay), recording the stream events. */
  async function faultSession(tool = new MockTool({ name: 'lookup', output: { answer: 42 } })) {
    const session = new AmplifierSession(
      {
        session: { orchestrator: 'loop-basic', context: 'context-simple' },
        providers: [
          {
            module: 'provider-anthropic',
            config: {
              api_key: 'sk-ant-test',
              base_url: server.url,
              default_model: MODEL,
              max_retries: 2,
              min_retry_delay: 0,
              max_retry_delay: 0,
            },
          },
        ],
        tools: [{ module: 'tools-test' }],
      },
      {
        loader: inProcessLoader({
          'loop-basic': mountLoop,
          'context-simple': mountContext,
          'provider-anthropic': mount,
          'tools-test': (c) => c.mount('tools', tool),
        }),
        logger: silentLogger,
      },
    );
    await session.initialize();
    const recorder = recordStreamEvents(session.coordinator.hooks);
    const messages = () => session.coordinator.get('context')!.getMessages();
    return {
      session,
      tool,
      streamEvents: () => recorder.events(),
      messages,
      history: async () => transcript(await messages()),
    };
  }

  /** No tool call left unanswered, no tool_use sent again, and the next turn runs. */
  async function expectConsistent(f: Awaited<ReturnType<typeof faultSession>>) {
    expect(unansweredToolCalls(await f.messages())).toEqual([]);
    server.enqueue(reply.sse(textStream(['All ', 'good.'])));
    expect(await f.session.execute('Again?')).toBe('All good.');
    const sent = server.requests.at(-1)!.body.messages as { content: unknown }[];
    expect(JSON.stringify(sent)).not.toContain('tool_use');
    expect((await f.history()).slice(-2)).toEqual([
      { role: 'user', text: 'Again?' },
      { role: 'assistant', text: 'All good.' },
    ]);
  }

  const partial = [
    messageStart(),
    start(0, { type: 'text', text: '' }),
    delta(0, { type: 'text_delta', text: 'The answer ' }),
  ];
  const overloaded = ev('error', errorBody('overloaded_error', 'Overloaded'));
  const asked = [{ role: 'user', text: 'What is the answer?' }];

  it('(a) the caller aborts after the first delta: aborted (AbortError), the turn is cancelled, the context stays consistent', async () => {
    const f = await faultSession();
    await using _ = f.session;
    const held = reply.sseThenHang(partial);
    server.enqueue(held.handler);
    const controller = new AbortController();
    const off = f.session.coordinator.hooks.register(
      'llm:stream_block_delta',
      () => controller.abort(new Error('stop')),
      { name: 'test-abort' },
    );
    expect(await f.session.execute('What is the answer?', { signal: controller.signal })).toBe('');
    await held.closed;
    off();
    expect(f.streamEvents()).toEqual([
      ['block_start', { request: 0, block_index: 0, block_type: 'text' }],
      ['block_delta', { request: 0, block_index: 0, block_type: 'text', sequence: 0, text: 'The answer ' }],
      ['aborted', { request: 0, error: { type: 'AbortError', msg: 'anthropic: request aborted' } }],
    ]);
    expect(server.requests).toHaveLength(1);
    expect(await f.history()).toEqual(asked);
    await expectConsistent(f);
  });

  it('(b) the connection drops after a delta: aborted, not retried, the turn fails', async () => {
    const f = await faultSession();
    await using _ = f.session;
    server.enqueue(reply.sseThenDrop(partial));
    const error = await f.session.execute('What is the answer?').catch((e: unknown) => e);
    expect(LLMError.is(error)).toBe(true);
    expect((error as Error).name).toBe('StreamError');
    expect(server.requests).toHaveLength(1);
    expect(f.streamEvents()).toEqual([
      ['block_start', { request: 0, block_index: 0, block_type: 'text' }],
      ['block_delta', { request: 0, block_index: 0, block_type: 'text', sequence: 0, text: 'The answer ' }],
      ['aborted', { request: 0, error: { type: (error as Error).name, msg: (error as Error).message } }],
    ]);
    expect(await f.history()).toEqual(asked);
    await expectConsistent(f);
  });

  it('(c) `event: error` after partial output: aborted with the server error, not retried, the turn fails', async () => {
    const f = await faultSession();
    await using _ = f.session;
    server.enqueue(reply.sse([...partial, overloaded]));
    const error = await f.session.execute('What is the answer?').catch((e: unknown) => e);
    expect(LLMError.is(error)).toBe(true);
    expect((error as Error).name).toBe('ProviderUnavailableError');
    expect((error as Error).message).toContain('Overloaded');
    expect(server.requests).toHaveLength(1);
    expect(f.streamEvents()).toEqual([
      ['block_start', { request: 0, block_index: 0, block_type: 'text' }],
      ['block_delta', { request: 0, block_index: 0, block_type: 'text', sequence: 0, text: 'The answer ' }],
      ['aborted', { request: 0, error: { type: (error as Error).name, msg: (error as Error).message } }],
    ]);
    expect(await f.history()).toEqual(asked);
    await expectConsistent(f);
  });

  it('(d) a 429 before the first byte, then a good stream: retried, one attempt of deltas under one request_id', async () => {
    const f = await faultSession();
    await using _ = f.session;
    server.enqueue(
      reply.json(429, errorBody('rate_limit_error', 'Rate limited'), { 'retry-after': '0' }),
      reply.sse(textStream(['The answer ', 'is 42.'])),
    );
    expect(await f.session.execute('What is the answer?')).toBe('The answer is 42.');
    expect(server.requests).toHaveLength(2);
    expect(f.streamEvents()).toEqual([
      ['block_start', { request: 0, block_index: 0, block_type: 'text' }],
      ['block_delta', { request: 0, block_index: 0, block_type: 'text', sequence: 0, text: 'The answer ' }],
      ['block_delta', { request: 0, block_index: 0, block_type: 'text', sequence: 1, text: 'is 42.' }],
      ['block_end', { request: 0, block_index: 0, block_type: 'text' }],
    ]);
    expect(await f.history()).toEqual([...asked, { role: 'assistant', text: 'The answer is 42.' }]);
    await expectConsistent(f);
  });

  it('(e) text, then a tool_use streamed halfway when the connection drops: aborted after the delta, no half call stored', async () => {
    const f = await faultSession();
    await using _ = f.session;
    server.enqueue(
      reply.sseThenDrop([
        messageStart(),
        start(0, { type: 'text', text: '' }),
        delta(0, { type: 'text_delta', text: 'Let me look.' }),
        stop(0),
        start(1, { type: 'tool_use', id: 'toolu_L1', name: 'lookup', input: {} }),
        delta(1, { type: 'input_json_delta', partial_json: '{"q":' }),
      ]),
    );
    const error = await f.session.execute('What is the answer?').catch((e: unknown) => e);
    expect(LLMError.is(error)).toBe(true);
    expect((error as Error).name).toBe('StreamError');
    expect(server.requests).toHaveLength(1);
    expect(f.streamEvents()).toEqual([
      ['block_start', { request: 0, block_index: 0, block_type: 'text' }],
      ['block_delta', { request: 0, block_index: 0, block_type: 'text', sequence: 0, text: 'Let me look.' }],
      ['block_end', { request: 0, block_index: 0, block_type: 'text' }],
      ['block_start', { request: 0, block_index: 1, block_type: 'tool_use', name: 'lookup' }],
      ['aborted', { request: 0, error: { type: (error as Error).name, msg: (error as Error).message } }],
    ]);
    expect(f.tool.inputs).toEqual([]);
    expect(await f.history()).toEqual(asked);
    await expectConsistent(f);
  });

  it('(e) a tool_use streamed halfway (no text) when `event: error` arrives: no aborted (no delta), not retried', async () => {
    const f = await faultSession();
    await using _ = f.session;
    server.enqueue(
      reply.sse([
        messageStart(),
        start(0, { type: 'tool_use', id: 'toolu_L1', name: 'lookup', input: {} }),
        delta(0, { type: 'input_json_delta', partial_json: '{"q":' }),
        overloaded,
      ]),
    );
    const error = await f.session.execute('What is the answer?').catch((e: unknown) => e);
    expect(LLMError.is(error)).toBe(true);
    expect((error as Error).name).toBe('ProviderUnavailableError');
    expect(server.requests).toHaveLength(1);
    expect(f.streamEvents()).toEqual([
      ['block_start', { request: 0, block_index: 0, block_type: 'tool_use', name: 'lookup' }],
    ]);
    expect(f.tool.inputs).toEqual([]);
    expect(await f.history()).toEqual(asked);
    await expectConsistent(f);
  });
});
