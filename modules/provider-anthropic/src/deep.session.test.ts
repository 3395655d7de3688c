/**
 * A model whose tool_use input is nested 3,000 and 100,000 levels deep,
 * through a whole session (the real loop-basic, context-simple and this
 * provider against the fake server): the turn completes, the call fails with a
 * clear message, the history stays whole and the next request is bounded JSON.
 */
import { mount as mountContext } from '@amplifier/context-simple';
import {
  AmplifierSession,
  type ContextManager,
  MAX_DATA_DEPTH,
  MAX_DEPTH_MARKER,
  silentLogger,
} from '@amplifier/core';
import { mount as mountLoop } from '@amplifier/loop-basic';
import { FakeLlmServer, reply } from '@amplifier/provider-http/testing';
import { depthOf, EventRecorder, inProcessLoader, MockTool, nestedJson } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  delta,
  MODEL,
  message,
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

describe('tool_use input nested far too deep, through a session', () => {
  for (const depth of [3_000, 100_000]) {
    for (const streaming of [true, false]) {
      it(`${depth.toLocaleString('en-US')} levels (${streaming ? 'streamed' : 'whole response'}): a clear failed call, a whole history, a bounded next request`, async () => {
        const input = `{"q":${nestedJson(depth)}}`;
        if (streaming) {
          server.enqueue(
            reply.sse([
              messageStart(),
              start(0, { type: 'tool_use', id: 'toolu_D', name: 'lookup', input: {} }),
              delta(0, { type: 'input_json_delta', partial_json: input }),
              stop(0),
              messageDelta('tool_use'),
              messageStop(),
            ]),
          );
        } else {
          const body = JSON.stringify(
            message([{ type: 'tool_use', id: 'toolu_D', name: 'lookup', input: '<deep>' }], 'tool_use'),
          ).replace('"<deep>"', input);
          server.enqueue(reply.json(200, body));
        }
        server.enqueue(
          streaming
            ? reply.sse(textStream(['I will send ', 'flatter input.']))
            : reply.json(200, message([{ type: 'text', text: 'I will send flatter input.' }])),
        );
        const tool = new MockTool({ name: 'lookup', output: 'found' });
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
                  use_streaming: streaming,
                  max_retries: 0,
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
        await using _ = session;
        await session.initialize();
        const recorder = new EventRecorder();
        recorder.attach(session.coordinator.hooks, ['tool:error', 'tool:post', 'llm:response']);

        expect(await session.execute('Look it up')).toBe('I will send flatter input.');
        expect(tool.inputs).toEqual([]);
        expect(recorder.getEvents('tool:post')).toEqual([]);
        expect(recorder.getEvents('tool:error')[0]![1]).toMatchObject({
          tool_name: 'lookup',
          tool_call_id: 'toolu_D',
          error: { type: 'InvalidArguments', msg: expect.stringContaining('nested deeper than 253 levels') },
        });
        expect(recorder.getEvents('llm:response').map(([, data]) => data.status)).toEqual(['ok', 'ok']);

        // The second request: the tool_use (its input bounded) and the failed tool_result.
        const second = server.requests[1]!.body;
        // Each message as the context keeps it (bounded); the body adds its own two levels.
        for (const message of second.messages) expect(depthOf(message)).toBeLessThanOrEqual(MAX_DATA_DEPTH);
        const [assistant, results] = second.messages.slice(-2);
        const use = assistant.content.find((b: { type: string }) => b.type === 'tool_use');
        expect(use).toMatchObject({ type: 'tool_use', id: 'toolu_D', name: 'lookup' });
        expect(JSON.stringify(use.input)).toContain(JSON.stringify(MAX_DEPTH_MARKER));
        expect(results.content[0]).toMatchObject({
          type: 'tool_result',
          tool_use_id: 'toolu_D',
          content:
            "Error: the arguments of this call to 'lookup' are nested deeper than 253 levels of objects and arrays; the tool was not run. Send flatter arguments.",
        });

        // The history is whole, bounded, and every read of it works.
        const context = session.coordinator.get('context') as ContextManager;
        const history = await context.getMessages();
        expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
        expect(depthOf(history[1])).toBeLessThanOrEqual(MAX_DATA_DEPTH);
        expect((await context.getMessagesForRequest()).map((m) => m.role)).toEqual(
          history.map((m) => m.role),
        );
      });
    }
  }
});
