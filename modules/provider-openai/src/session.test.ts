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
