/**
 * Whole sessions: the real loop-basic orchestrator and context-simple with
 * this provider and a tool, loaded through AmplifierSession (dev dependencies
 * only; modules never import each other). First the plan names the package
 * (`@ai-sdk/openai-compatible`, against a local server replaying the recorded
 * tool-call stream, then the recorded text stream); then a model that
 * attaches `providerMetadata` (as Google's and OpenAI's packages do) shows
 * that what loop-basic stores is what the next request replays.
 */
import { readFileSync } from 'node:fs';
import { mount as mountContext } from '@amplifier/context-simple';
import { AmplifierSession, silentLogger } from '@amplifier/core';
import { mount as mountLoop } from '@amplifier/loop-basic';
import { FakeLlmServer, reply, splitBytes } from '@amplifier/provider-http/testing';
import { inProcessLoader, MockTool } from '@amplifier/testing';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type AiSdkModel, createAiSdkProvider, mount, type StreamPart } from './index.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`./__fixtures__/recorded/${name}`, import.meta.url), 'utf8');

let server: FakeLlmServer;
beforeEach(async () => {
  server = await FakeLlmServer.start();
});
afterEach(() => server.close());

it('a plan naming @ai-sdk/openai-compatible runs a turn with a tool call through loop-basic', async () => {
  const tool = new MockTool({ name: 'GetWeatherArgs', output: '12°C, rain' });
  server.enqueue(
    reply.sse(splitBytes(fixture('openai-stream-tool-call.sse'), 97)),
    reply.sse(splitBytes(fixture('openai-stream-text.sse'), 97)),
  );
  const session = new AmplifierSession(
    {
      session: { orchestrator: 'loop-basic', context: 'context-simple' },
      providers: [
        {
          module: 'provider-ai-sdk',
          config: {
            package: '@ai-sdk/openai-compatible',
            options: { name: 'replay' },
            api_key: 'sk-test',
            base_url: `${server.url}/v1`,
            default_model: 'gpt-4o',
          },
        },
      ],
      tools: [{ module: 'tools-test' }],
    },
    {
      loader: inProcessLoader({
        'loop-basic': mountLoop,
        'context-simple': mountContext,
        'provider-ai-sdk': mount,
        'tools-test': (c) => c.mount('tools', tool),
      }),
      logger: silentLogger,
      sessionId: 'session-ai-sdk',
    },
  );
  await using _ = session;
  await session.initialize();
  const answer = await session.execute('Weather in Edinburgh?');
  expect(answer.length).toBeGreaterThan(0);
  expect(tool.inputs).toEqual([{ city: 'Edinburgh', country: 'UK', units: 'c' }]);
  const second = server.requests[1]!.body as { messages: Record<string, unknown>[] };
  const assistant = second.messages.find((m) => m.role === 'assistant')!;
  const calls = assistant.tool_calls as { id: string; function: { name: string } }[];
  expect(calls.map((c) => c.function.name)).toEqual(['GetWeatherArgs']);
  const results = second.messages.filter((m) => m.role === 'tool');
  expect(results.map((m) => m.tool_call_id)).toEqual(calls.map((c) => c.id));
  expect(JSON.stringify(results[0])).toContain('12°C, rain');
});

it('the providerMetadata of a call survives loop-basic and context-simple and goes back as providerOptions', async () => {
  const tool = new MockTool({ name: 'weather', output: 'sunny' });
  const prompts: unknown[] = [];
  const turns: Record<string, unknown>[][] = [
    [
      { type: 'reasoning-start', id: 'r' },
      { type: 'reasoning-delta', id: 'r', delta: 'Look it up.' },
      { type: 'reasoning-end', id: 'r', providerMetadata: { google: { thoughtSignature: 'sig-r' } } },
      {
        type: 'tool-call',
        toolCallId: 'call_1',
        toolName: 'weather',
        input: '{"city":"Oslo"}',
        providerMetadata: { google: { thoughtSignature: 'sig-call' } },
      },
    ],
    [
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Sunny in Oslo.' },
      { type: 'text-end', id: 't' },
    ],
  ];
  const model: AiSdkModel = {
    specificationVersion: 'v3',
    provider: 'google.generative-ai',
    modelId: 'gemini-test',
    async doGenerate() {
      throw new Error('streaming only');
    },
    async doStream(options: { prompt: unknown }) {
      prompts.push(structuredClone(options.prompt));
      const parts = [
        ...(turns.shift() ?? []),
        {
          type: 'finish',
          usage: { inputTokens: { total: 5 }, outputTokens: { total: 5 } },
          finishReason: { unified: 'stop' },
        },
      ] as StreamPart[];
      return {
        stream: new ReadableStream<StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
  const session = new AmplifierSession(
    {
      session: { orchestrator: 'loop-basic', context: 'context-simple' },
      providers: [{ module: 'provider-ai-sdk' }],
      tools: [{ module: 'tools-test' }],
    },
    {
      loader: inProcessLoader({
        'loop-basic': mountLoop,
        'context-simple': mountContext,
        'provider-ai-sdk': (c) => c.mount('providers', createAiSdkProvider(model), { name: 'ai-sdk' }),
        'tools-test': (c) => c.mount('tools', tool),
      }),
      logger: silentLogger,
      sessionId: 'session-ai-sdk-metadata',
    },
  );
  await using _ = session;
  await session.initialize();
  expect(await session.execute('Weather in Oslo?')).toContain('Sunny in Oslo.');
  const second = prompts[1] as { role: string; content: unknown }[];
  const assistant = second.find((m) => m.role === 'assistant')!;
  expect(assistant.content).toEqual([
    { type: 'reasoning', text: 'Look it up.', providerOptions: { google: { thoughtSignature: 'sig-r' } } },
    {
      type: 'tool-call',
      toolCallId: 'call_1',
      toolName: 'weather',
      input: { city: 'Oslo' },
      providerOptions: { google: { thoughtSignature: 'sig-call' } },
    },
  ]);
  expect(second.at(-1)).toMatchObject({
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId: 'call_1', toolName: 'weather' }],
  });
});
