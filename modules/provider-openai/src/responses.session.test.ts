/**
 * A whole session in Responses mode against the recorded reasoning + call
 * stream: the real loop-basic orchestrator, context-simple, this provider and
 * a tool, loaded through AmplifierSession. The second request carries the
 * reasoning item (encrypted, byte for byte) before the call it preceded, the
 * call by `call_id` and the tool's output: the orchestrator keeps the
 * response metadata on the stored assistant message, which is what the
 * replay order rests on.
 */
import { readFileSync } from 'node:fs';
import { mount as mountContext } from '@amplifier/context-simple';
import { AmplifierSession, silentLogger } from '@amplifier/core';
import { mount as mountLoop } from '@amplifier/loop-basic';
import { FakeLlmServer, reply, splitBytes, sseEvent } from '@amplifier/provider-http/testing';
import { inProcessLoader, MockTool } from '@amplifier/testing';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { mount } from './index.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`./__fixtures__/recorded/${name}`, import.meta.url), 'utf8');

let server: FakeLlmServer;
beforeEach(async () => {
  server = await FakeLlmServer.start();
});
afterEach(() => server.close());

it('a reasoning model calls a tool, then answers: its reasoning goes back with the call, in order', async () => {
  const sse = fixture('openai-responses-stream-reasoning-summary-function-call.sse');
  const done = sse
    .split('\n')
    .filter((l) => l.startsWith('data: ') && l.includes('"response.output_item.done"'))
    .map((l) => JSON.parse(l.slice(6)).item as Record<string, unknown>);
  const reasoning = done.find((i) => i.type === 'reasoning')!;
  const call = done.find((i) => i.type === 'function_call')!;
  const tool = new MockTool({ name: String(call.name), output: '19' });
  const frame = (data: Record<string, unknown>): string => sseEvent(data, String(data.type));
  server.enqueue(
    reply.sse(splitBytes(sse, 61)),
    reply.sse([
      frame({ type: 'response.created', response: { id: 'resp_2', status: 'in_progress' } }),
      frame({ type: 'response.output_item.added', output_index: 0, item: { type: 'message', content: [] } }),
      frame({ type: 'response.output_text.delta', output_index: 0, delta: '12 + 7 = 19.' }),
      frame({ type: 'response.completed', response: { id: 'resp_2', status: 'completed' } }),
    ]),
  );
  const session = new AmplifierSession(
    {
      session: { orchestrator: 'loop-basic', context: 'context-simple' },
      providers: [
        {
          module: 'provider-openai',
          config: {
            api: 'responses',
            api_key: 'sk-test',
            base_url: `${server.url}/v1`,
            default_model: 'gpt-5.1-codex-max',
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
      sessionId: 'session-responses',
    },
  );
  await using _ = session;
  await session.initialize();

  expect(await session.execute('What is 12 + 7?')).toBe('12 + 7 = 19.');
  expect(tool.inputs).toHaveLength(1);
  const first = server.requests[0]!.body;
  expect(first).toMatchObject({
    store: false,
    include: ['reasoning.encrypted_content'],
    prompt_cache_key: 'session-responses',
  });
  expect(first.reasoning).toMatchObject({ summary: 'auto' });
  const input = server.requests[1]!.body.input as Record<string, unknown>[];
  expect(input.map((i) => i.type ?? i.role)).toEqual([
    'user',
    'reasoning',
    'function_call',
    'function_call_output',
  ]);
  expect(input[1]).toMatchObject({ id: reasoning.id, encrypted_content: reasoning.encrypted_content });
  expect(input[2]).toMatchObject({ call_id: call.call_id, name: call.name });
  expect(input[3]).toMatchObject({ type: 'function_call_output', call_id: call.call_id });
});
