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
  sseEvent,
  transcript,
  unansweredToolCalls,
} from '@amplifier/provider-http/testing';
import { EventRecorder, inProcessLoader, MockTool } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chunk, DONE, MODEL, textStream, usageChunk } from './__fixtures__/wire.js';
import { mount } from './index.js';

let server: FakeLlmServer;
beforeEach(async () => {
  server = await FakeLlmServer.start();
});
afterEach(() => server.close());

it('a whole turn: loop-basic + context-simple + provider-openai + a tool, against the fake server', async () => {
  const tool = new MockTool({ name: 'lookup', output: { answer: 42 } });
  server.enqueue(
    reply.sse([
      chunk({ role: 'assistant', content: '' }),
      chunk({
        tool_calls: [
          { index: 0, id: 'call_L1', type: 'function', function: { name: 'lookup', arguments: '{"q":' } },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: ' "life"}' } }] }),
      chunk({}, 'tool_calls'),
      usageChunk(50, 10),
      DONE,
    ]),
    reply.sse(textStream(['The answer ', 'is 42.'])),
  );
  const session = new AmplifierSession(
    {
      session: { orchestrator: 'loop-basic', context: 'context-simple' },
      providers: [
        {
          module: 'provider-openai',
          config: { api_key: 'sk-test', base_url: `${server.url}/v1`, default_model: MODEL },
        },
      ],
      tools: [{ module: 'tools-test' }],
    },
    {
      loader: inProcessLoader({
        'loop-basic': mountLoop,
        'context-simple': mountContext,
        'provider-openai': mount,
        'tools-test': (c) => c.mount('tools', tool),
      }),
      logger: silentLogger,
      sessionId: 'session-openai',
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
      type: 'function',
      function: { name: 'lookup', description: 'Mock tool: lookup', parameters: tool.inputSchema },
    },
  ]);
  const roles = second.messages.map((m: { role: string }) => m.role);
  expect(roles.slice(-3)).toEqual(['user', 'assistant', 'tool']);
  expect(second.messages.at(-2).tool_calls).toEqual([
    { id: 'call_L1', type: 'function', function: { name: 'lookup', arguments: '{"q":"life"}' } },
  ]);
  expect(second.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_L1', content: '{"answer":42}' });
  expect(recorder.names()).toEqual([
    'llm:request',
    'llm:response',
    'tool:pre',
    'tool:post',
    'llm:request',
    'llm:response',
  ]);
  expect(recorder.getEvents('llm:response')[0]![1]).toMatchObject({
    session_id: 'session-openai',
    status: 'ok',
  });
  const cost = await session.coordinator.collectContributions('session.cost');
  expect(cost).toEqual([{ provider: 'openai', cost_usd: expect.stringMatching(/^0\.0000\d+$/) }]);
});

describe('streaming faults', () => {
  /** A session over the fake server (retries without delay), recording the stream events. */
  async function faultSession(tool = new MockTool({ name: 'lookup', output: { answer: 42 } })) {
    const session = new AmplifierSession(
      {
        session: { orchestrator: 'loop-basic', context: 'context-simple' },
        providers: [
          {
            module: 'provider-openai',
            config: {
              api_key: 'sk-test',
              base_url: `${server.url}/v1`,
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
          'provider-openai': mount,
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

  /** No tool call left unanswered, none sent again, and the next turn runs. */
  async function expectConsistent(f: Awaited<ReturnType<typeof faultSession>>) {
    expect(unansweredToolCalls(await f.messages())).toEqual([]);
    server.enqueue(reply.sse(textStream(['All ', 'good.'])));
    expect(await f.session.execute('Again?')).toBe('All good.');
    const sent = server.requests.at(-1)!.body.messages as { role: string; tool_calls?: unknown }[];
    expect(sent.filter((m) => m.tool_calls !== undefined)).toEqual([]);
    expect((await f.history()).slice(-2)).toEqual([
      { role: 'user', text: 'Again?' },
      { role: 'assistant', text: 'All good.' },
    ]);
  }

  const partial = [chunk({ role: 'assistant', content: '' }), chunk({ content: 'The answer ' })];

  it('(a) the caller aborts after the first delta: aborted (abort), the turn is cancelled, the context stays consistent', async () => {
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
    expect(f.streamEvents()).toEqual([
      ['block_start', { request: 0, block_index: 0, block_type: 'text' }],
      ['block_delta', { request: 0, block_index: 0, block_type: 'text', sequence: 0, text: 'The answer ' }],
      ['aborted', { request: 0, error: { type: 'AbortError', msg: 'openai: request aborted' } }],
    ]);
    expect(server.requests).toHaveLength(1);
    expect(await f.history()).toEqual([{ role: 'user', text: 'What is the answer?' }]);
    off();
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
    expect(await f.history()).toEqual([{ role: 'user', text: 'What is the answer?' }]);
    await expectConsistent(f);
  });

  it('(c) an error chunk after partial output: aborted with the server error, not retried, the turn fails', async () => {
    const f = await faultSession();
    await using _ = f.session;
    server.enqueue(
      reply.sse([
        ...partial,
        sseEvent({ error: { message: 'The server had an error', type: 'server_error' } }),
      ]),
    );
    const error = await f.session.execute('What is the answer?').catch((e: unknown) => e);
    expect(LLMError.is(error)).toBe(true);
    expect((error as Error).name).toBe('StreamError');
    expect((error as Error).message).toContain('The server had an error');
    expect(server.requests).toHaveLength(1);
    expect(f.streamEvents()).toEqual([
      ['block_start', { request: 0, block_index: 0, block_type: 'text' }],
      ['block_delta', { request: 0, block_index: 0, block_type: 'text', sequence: 0, text: 'The answer ' }],
      ['aborted', { request: 0, error: { type: (error as Error).name, msg: (error as Error).message } }],
    ]);
    await expectConsistent(f);
  });

  it('(d) a 429 before the first byte, then a good stream: retried, one attempt of deltas under one request_id', async () => {
    const f = await faultSession();
    await using _ = f.session;
    server.enqueue(
      reply.json(429, { error: { message: 'Rate limit reached', type: 'requests' } }, { 'retry-after': '0' }),
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
    expect(await f.history()).toEqual([
      { role: 'user', text: 'What is the answer?' },
      { role: 'assistant', text: 'The answer is 42.' },
    ]);
    await expectConsistent(f);
  });

  it('(e) a tool call streamed halfway when the stream drops: no aborted (no delta), not retried, no half call stored', async () => {
    const f = await faultSession();
    await using _ = f.session;
    server.enqueue(
      reply.sseThenDrop([
        chunk({ role: 'assistant', content: null }),
        chunk({
          tool_calls: [
            { index: 0, id: 'call_L1', type: 'function', function: { name: 'lookup', arguments: '{"q":' } },
          ],
        }),
      ]),
    );
    const error = await f.session.execute('What is the answer?').catch((e: unknown) => e);
    expect(LLMError.is(error)).toBe(true);
    expect((error as Error).name).toBe('StreamError');
    expect(server.requests).toHaveLength(1);
    expect(f.streamEvents()).toEqual([
      ['block_start', { request: 0, block_index: 0, block_type: 'tool_use', name: 'lookup' }],
    ]);
    expect(f.tool.inputs).toEqual([]);
    expect(await f.history()).toEqual([{ role: 'user', text: 'What is the answer?' }]);
    await expectConsistent(f);
  });

  it('(e) text, then a tool call streamed halfway when an error chunk arrives: aborted after the delta', async () => {
    const f = await faultSession();
    await using _ = f.session;
    server.enqueue(
      reply.sse([
        chunk({ role: 'assistant', content: 'Let me look.' }),
        chunk({
          tool_calls: [
            { index: 0, id: 'call_L1', type: 'function', function: { name: 'lookup', arguments: '{"q":' } },
          ],
        }),
        sseEvent({ error: { message: 'The server had an error', type: 'server_error' } }),
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
    expect(await f.history()).toEqual([{ role: 'user', text: 'What is the answer?' }]);
    await expectConsistent(f);
  });
});
