/**
 * The official `openai` SDK as a test oracle: the bytes the fake server sends
 * must parse with the SDK to the same content this provider produces.
 */
import { type ChatRequest, LLMError, type StreamEvent } from '@amplifier/core';
import { FakeLlmServer, type FakeReply, reply } from '@amplifier/provider-http/testing';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  chunk,
  completion,
  DONE,
  MODEL,
  textStream,
  toolCallStream,
  usageChunk,
} from './__fixtures__/wire.js';
import { resolveConfig } from './config.js';
import { OpenAIProvider } from './provider.js';

const REQUEST: ChatRequest = { messages: [{ role: 'user', content: 'hi' }] };
const MESSAGES = [{ role: 'user' as const, content: 'hi' }];

let server: FakeLlmServer;
let sdk: OpenAI;
let provider: OpenAIProvider;

beforeEach(async () => {
  server = await FakeLlmServer.start();
  sdk = new OpenAI({ apiKey: 'sk-test', baseURL: `${server.url}/v1`, maxRetries: 0 });
  provider = new OpenAIProvider(
    resolveConfig(
      { api_key: 'sk-test', base_url: `${server.url}/v1`, default_model: MODEL, max_retries: 0 },
      {},
    ),
  );
});
afterEach(async () => {
  await provider.close();
  await server.close();
});

/** The SDK's aggregate of a stream. */
async function sdkStream(handler: FakeReply) {
  server.enqueue(handler);
  const stream = sdk.chat.completions.stream({
    model: MODEL,
    messages: MESSAGES,
    stream_options: { include_usage: true },
  });
  return stream.finalChatCompletion();
}

describe('the official SDK parses the same bytes to the same content', () => {
  it('a streamed text answer', async () => {
    const pieces = textStream(['Hel', 'lo, ', 'wörld ✓']);
    const oracle = await sdkStream(reply.sse(pieces));
    server.enqueue(reply.sse(pieces));
    const ours = await provider.complete(REQUEST);
    expect(ours.content).toEqual([{ type: 'text', text: oracle.choices[0]!.message.content }]);
    expect(ours.usage).toMatchObject({
      input_tokens: oracle.usage!.prompt_tokens,
      output_tokens: oracle.usage!.completion_tokens,
      total_tokens: oracle.usage!.total_tokens,
    });
    expect(ours.finish_reason).toBe(oracle.choices[0]!.finish_reason);
  });

  it('tool calls split across chunks: ids, names, arguments (and the raw argument text of stream())', async () => {
    const oracle = await sdkStream(reply.sse(toolCallStream()));
    server.enqueue(reply.sse(toolCallStream()));
    const events: StreamEvent[] = [];
    for await (const e of provider.stream(REQUEST)) events.push(e);
    const end = events.at(-1) as Extract<StreamEvent, { type: 'message.end' }>;
    const sdkCalls = oracle.choices[0]!.message.tool_calls!.map((c) => {
      if (c.type !== 'function') throw new Error('unexpected tool call type');
      return c;
    });
    expect(end.response.tool_calls).toEqual(
      sdkCalls.map((c) => ({ id: c.id, name: c.function.name, arguments: JSON.parse(c.function.arguments) })),
    );
    for (const call of sdkCalls) {
      const fragments = events
        .filter(
          (e): e is Extract<StreamEvent, { type: 'tool_call.delta' }> =>
            e.type === 'tool_call.delta' && e.id === call.id,
        )
        .map((e) => e.arguments_fragment)
        .join('');
      expect(fragments).toBe(call.function.arguments);
    }
  });

  it('a non-streamed completion with text and a tool call', async () => {
    const body = completion(
      {
        content: 'Checking.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } },
        ],
      },
      'tool_calls',
    );
    server.enqueue(reply.json(200, body));
    const oracle = await sdk.chat.completions.create({ model: MODEL, messages: MESSAGES });
    server.enqueue(reply.json(200, body));
    const p = new OpenAIProvider(
      resolveConfig({ api_key: 'k', base_url: `${server.url}/v1`, use_streaming: false, max_retries: 0 }, {}),
    );
    const ours = await p.complete(REQUEST);
    await p.close();
    const message = oracle.choices[0]!.message;
    const call = message.tool_calls![0]!;
    if (call.type !== 'function') throw new Error('unexpected tool call type');
    expect(ours.content[0]).toEqual({ type: 'text', text: message.content });
    expect(ours.tool_calls).toEqual([
      { id: call.id, name: call.function.name, arguments: JSON.parse(call.function.arguments) },
    ]);
    expect(ours.metadata?.['openai:response_id']).toBe(oracle.id);
  });

  it('a stream with keep-alive comments and CRLF line ends', async () => {
    const crlf = [
      ': keep-alive\r\n\r\n',
      ...[
        chunk({ role: 'assistant', content: '' }),
        chunk({ content: 'a\nb' }),
        chunk({}, 'stop'),
        usageChunk(),
        DONE,
      ].map((e) => e.replaceAll('\n\n', '\r\n\r\n')),
    ];
    const oracle = await sdkStream(reply.sse(crlf));
    server.enqueue(reply.sse(crlf));
    const ours = await provider.complete(REQUEST);
    expect(ours.content).toEqual([{ type: 'text', text: oracle.choices[0]!.message.content }]);
  });

  it('HTTP errors: the SDK error class and our kind agree', async () => {
    const cases: [number, string, string][] = [
      [400, 'BadRequestError', 'invalid_request'],
      [401, 'AuthenticationError', 'authentication'],
      [403, 'PermissionDeniedError', 'access_denied'],
      [404, 'NotFoundError', 'not_found'],
      [429, 'RateLimitError', 'rate_limit'],
      [500, 'InternalServerError', 'unavailable'],
    ];
    for (const [status, sdkClass, kind] of cases) {
      const handler = reply.json(status, { error: { message: `status ${status}`, type: 'x' } });
      server.enqueue(handler, handler);
      const sdkError = await sdk.chat.completions
        .create({ model: MODEL, messages: MESSAGES })
        .catch((e: unknown) => e);
      const ours = await provider.complete(REQUEST).catch((e: unknown) => e);
      expect((sdkError as Error).constructor.name).toBe(sdkClass);
      expect(LLMError.is(ours) && ours.kind).toBe(kind);
      expect((ours as LLMError).message).toContain(`status ${status}`);
    }
  });
});
