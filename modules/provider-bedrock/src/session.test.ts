/**
 * A whole session against a local Bedrock server: the real loop-basic
 * orchestrator and context-simple, this provider and a tool, loaded through
 * AmplifierSession (dev dependencies only; modules never import each other).
 * The recorded Converse answer (Claude reasoning with its signature, text, a
 * toolUse) goes through the real loop; the next request carries the signed
 * reasoning back first in the assistant turn and the tool's result in one
 * user turn: what the orchestrator stores is what Bedrock needs.
 */
import { mount as mountContext } from '@amplifier/context-simple';
import { AmplifierSession, silentLogger } from '@amplifier/core';
import { mount as mountLoop } from '@amplifier/loop-basic';
import { FakeLlmServer, reply } from '@amplifier/provider-http/testing';
import { inProcessLoader, MockTool } from '@amplifier/testing';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { isolateAwsEnv, recorded, TEST_CREDENTIALS } from './__fixtures__/env.js';
import { mount } from './index.js';

let restoreEnv: () => void;
let server: FakeLlmServer;
beforeAll(() => {
  restoreEnv = isolateAwsEnv();
  process.env.AWS_ACCESS_KEY_ID = TEST_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = TEST_CREDENTIALS.secretAccessKey;
});
afterAll(() => restoreEnv());
beforeEach(async () => {
  server = await FakeLlmServer.start();
});
afterEach(() => server.close());

it('a turn with a signed reasoning block and a tool call: the next request replays the reasoning first and the result', async () => {
  const tool = new MockTool({ name: 'get_user_country', output: 'Mexico' });
  const recordedAnswer = JSON.parse(recorded('bedrock-converse-tooluse.json').toString('utf8'));
  server.enqueue(
    reply.json(200, recordedAnswer),
    reply.json(200, {
      output: { message: { role: 'assistant', content: [{ text: 'Mexico City.' }] } },
      stopReason: 'end_turn',
      usage: { inputTokens: 600, outputTokens: 4, totalTokens: 604 },
    }),
  );
  const session = new AmplifierSession(
    {
      session: { orchestrator: 'loop-basic', context: 'context-simple' },
      providers: [
        {
          module: 'provider-bedrock',
          config: {
            base_url: server.url,
            aws_region: 'us-east-1',
            default_model: 'anthropic.claude-3-7-sonnet-20250219-v1:0',
            extended_thinking: true,
            use_streaming: false,
          },
        },
      ],
      tools: [{ module: 'tools-test' }],
    },
    {
      loader: inProcessLoader({
        'loop-basic': mountLoop,
        'context-simple': mountContext,
        'provider-bedrock': mount,
        'tools-test': (c) => c.mount('tools', tool),
      }),
      logger: silentLogger,
      sessionId: 'session-bedrock',
    },
  );
  await using _ = session;
  await session.initialize();
  const answer = await session.execute('What is the largest city in my country?');
  expect(answer).toContain('Mexico City.');
  expect(tool.inputs).toEqual([{}]);
  const [first, second] = server.requests;
  expect(first!.url).toBe('/model/us.anthropic.claude-3-7-sonnet-20250219-v1%3A0/converse');
  expect(first!.body.additionalModelRequestFields.thinking).toEqual({
    type: 'enabled',
    budget_tokens: 16_000,
  });
  const assistant = second!.body.messages[1];
  expect(assistant.role).toBe('assistant');
  expect(assistant.content[0]).toEqual({
    reasoningContent: recordedAnswer.output.message.content[0].reasoningContent,
  });
  expect(assistant.content.at(-1)).toEqual({
    toolUse: { toolUseId: 'tooluse_W9DaUFg4Tj2cRPpndqxWSg', name: 'get_user_country', input: {} },
  });
  const results = second!.body.messages[2];
  expect(results.role).toBe('user');
  expect(results.content[0].toolResult.toolUseId).toBe('tooluse_W9DaUFg4Tj2cRPpndqxWSg');
  expect(JSON.stringify(results.content[0].toolResult.content)).toContain('Mexico');
});
