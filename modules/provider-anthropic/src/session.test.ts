/**
 * A whole session against the fake Chat Completions server: the real
 * loop-basic orchestrator, context-simple, this provider and a tool, loaded
 * through AmplifierSession (dev dependencies only; modules never import each other).
 */
import { mount as mountContext } from '@amplifier/context-simple';
import { AmplifierSession, silentLogger } from '@amplifier/core';
import { mount as mountLoop } from '@amplifier/loop-basic';
import { FakeLlmServer, reply } from '@amplifier/provider-http/testing';
import { EventRecorder, inProcessLoader, MockTool } from '@amplifier/testing';
import { afterEach, beforeEach, expect, it } from 'vitest';
import {
  delta,
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
