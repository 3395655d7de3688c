/**
 * A model that sends tool-call arguments nested 3,000 and 100,000 levels deep,
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
import { chunk, DONE, MODEL, textStream, usageChunk } from './__fixtures__/wire.js';
import { mount } from './index.js';

let server: FakeLlmServer;
beforeEach(async () => {
  server = await FakeLlmServer.start();
});
afterEach(() => server.close());

describe('tool-call arguments nested far too deep, through a session', () => {
  for (const depth of [3_000, 100_000]) {
    for (const streaming of [true, false]) {
      it(`${depth.toLocaleString('en-US')} levels (${streaming ? 'streamed' : 'whole response'}): a clear failed call, a whole history, a bounded next request`, async () => {
        const args = `{"q":${nestedJson(depth)}}`;
        if (streaming) {
          server.enqueue(
            reply.sse([
              chunk({ role: 'assistant', content: null }),
              chunk({
                tool_calls: [
                  { index: 0, id: 'call_D', type: 'function', function: { name: 'lookup', arguments: '' } },
                ],
              }),
              chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] }),
              chunk({}, 'tool_calls'),
              usageChunk(50, 10),
              DONE,
            ]),
          );
        } else {
          server.enqueue(
            reply.json(200, {
              id: 'chatcmpl-deep',
              object: 'chat.completion',
              model: MODEL,
              choices: [
                {
                  index: 0,
                  message: {
                    role: 'assistant',
                    content: null,
                    tool_calls: [
                      { id: 'call_D', type: 'function', function: { name: 'lookup', arguments: args } },
                    ],
                  },
                  finish_reason: 'tool_calls',
                },
              ],
              usage: { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 },
            }),
          );
        }
        server.enqueue(
          streaming
            ? reply.sse(textStream(['I will send ', 'flatter arguments.']))
            : reply.json(200, {
                id: 'chatcmpl-text',
                object: 'chat.completion',
                model: MODEL,
                choices: [
                  {
                    index: 0,
                    message: { role: 'assistant', content: 'I will send flatter arguments.' },
                    finish_reason: 'stop',
                  },
                ],
              }),
        );
        const tool = new MockTool({ name: 'lookup', output: 'found' });
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
              'provider-openai': mount,
              'tools-test': (c) => c.mount('tools', tool),
            }),
            logger: silentLogger,
          },
        );
        await using _ = session;
        await session.initialize();
        const recorder = new EventRecorder();
        recorder.attach(session.coordinator.hooks, ['tool:error', 'tool:post', 'llm:response']);

        expect(await session.execute('Look it up')).toBe('I will send flatter arguments.');
        expect(tool.inputs).toEqual([]);
        expect(recorder.getEvents('tool:post')).toEqual([]);
        expect(recorder.getEvents('tool:error')[0]![1]).toMatchObject({
          tool_name: 'lookup',
          tool_call_id: 'call_D',
          error: { type: 'InvalidArguments', msg: expect.stringContaining('nested deeper than 253 levels') },
        });
        expect(recorder.getEvents('llm:response').map(([, data]) => data.status)).toEqual(['ok', 'ok']);

        // The second request: the call (its arguments bounded JSON text) and the failed result.
        const second = server.requests[1]!.body;
        const [assistant, result] = second.messages.slice(-2);
        expect(assistant.tool_calls[0].id).toBe('call_D');
        const sentArgs = JSON.parse(assistant.tool_calls[0].function.arguments);
        expect(JSON.stringify(sentArgs)).toContain(JSON.stringify(MAX_DEPTH_MARKER));
        expect(depthOf(sentArgs)).toBeLessThanOrEqual(MAX_DATA_DEPTH);
        expect(result).toEqual({
          role: 'tool',
          tool_call_id: 'call_D',
          content:
            "Error: the arguments of this call to 'lookup' are nested deeper than 253 levels of objects and arrays; the tool was not run. Send flatter arguments.",
        });

        // The history is whole, bounded, and every read of it works.
        const context = session.coordinator.get('context') as ContextManager;
        const history = await context.getMessages();
        expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
        expect(depthOf(history[1])).toBeLessThanOrEqual(MAX_DATA_DEPTH);
        expect(JSON.stringify(history[1])).toContain(JSON.stringify(MAX_DEPTH_MARKER));
        expect((await context.getMessagesForRequest()).map((m) => m.role)).toEqual(
          history.map((m) => m.role),
        );
      });
    }
  }
});
