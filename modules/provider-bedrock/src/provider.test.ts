/**
 * The provider against Bedrock's recorded answers (`__fixtures__/recorded/`:
 * pydantic-ai's VCR cassettes of real Converse / ConverseStream answers,
 * sources in realworld-fixtures' README) replayed by a 127.0.0.1 server: the
 * binary event stream as `application/vnd.amazon.eventstream`, decoded by the
 * AWS SDK over the kit's transport; SigV4 or Bearer on the wire; reasoning
 * signatures round-tripped; usage normalised.
 */
import type { ChatRequest, EventKey, Message } from '@amplifier/core';
import { FakeLlmServer, reply } from '@amplifier/provider-http/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isolateAwsEnv, recorded, testProvider } from './__fixtures__/env.js';
import { encodeStream, event, eventStreamReply, parseJsonl } from './__fixtures__/eventstream.js';

let restoreEnv: () => void;
beforeAll(() => {
  restoreEnv = isolateAwsEnv();
});
afterAll(() => restoreEnv());

let server: FakeLlmServer;
beforeEach(async () => {
  server = await FakeLlmServer.start();
});
afterEach(() => server.close());

const STREAM = recorded('bedrock-converse-stream-tooluse.eventstream');
const TOOLUSE = JSON.parse(recorded('bedrock-converse-tooluse.json').toString('utf8'));
const CACHE = JSON.parse(recorded('bedrock-converse-cache-usage.json').toString('utf8'));
const ASK: ChatRequest = {
  messages: [{ role: 'user', content: 'What is the temperature of the capital of France?' }],
  tools: [{ name: 'get_temperature', description: 'Temperature of a city', parameters: { type: 'object' } }],
};

function recorder(): {
  events: [string, Record<string, unknown>][];
  hooks: { emit: (e: EventKey, d: unknown) => Promise<void> };
} {
  const events: [string, Record<string, unknown>][] = [];
  return {
    events,
    hooks: {
      emit: async (name, data) => {
        events.push([name, structuredClone(data) as Record<string, unknown>]);
      },
    },
  };
}

describe('ConverseStream: the recorded binary event stream (Nova Micro)', () => {
  it('is decoded by the SDK from 7-byte pieces into text (Nova <thinking> tags kept as text), a tool call, usage and stop reason', async () => {
    server.enqueue(eventStreamReply(STREAM, { pieceSize: 7 }));
    const { events, hooks } = recorder();
    const provider = testProvider(server.url, {}, hooks);
    const response = await provider.complete(ASK);
    await provider.close();

    const frames = parseJsonl(recorded('bedrock-converse-stream-tooluse.events.jsonl').toString('utf8'));
    const text = frames
      .map((f) => (f.payload as { delta?: { text?: string } }).delta?.text)
      .filter((t): t is string => typeof t === 'string')
      .join('');
    expect(text.startsWith('<thinking>')).toBe(true);
    expect(response.content).toEqual([{ type: 'text', text }]);
    expect(response.tool_calls).toHaveLength(1);
    expect(response.tool_calls![0]!.name).toBe('get_temperature');
    expect(response.finish_reason).toBe('tool_calls');
    expect(response.usage).toMatchObject({ input_tokens: 471, output_tokens: 91, total_tokens: 562 });
    expect(response.metadata?.['bedrock:latency_ms']).toBe(422);

    const stream = events.filter(([n]) => n.startsWith('llm:stream_'));
    expect(stream[0]).toEqual([
      'llm:stream_block_start',
      expect.objectContaining({ block_index: 0, block_type: 'text' }),
    ]);
    const toolStart = stream.find(([n, d]) => n === 'llm:stream_block_start' && d.block_type === 'tool_use');
    expect(toolStart?.[1]).toMatchObject({ block_index: 1, name: 'get_temperature' });
    expect(stream.filter(([n, d]) => n === 'llm:stream_block_delta' && d.block_type === 'tool_use')).toEqual(
      [],
    );
    expect(stream.at(-1)).toEqual(['llm:stream_block_end', expect.objectContaining({ block_index: 1 })]);
  });

  it('signs with SigV4 for service bedrock in the region, on the inference profile of the model (us.)', async () => {
    server.enqueue(eventStreamReply(STREAM));
    const provider = testProvider(server.url);
    await provider.complete(ASK);
    await provider.close();
    const sent = server.requests[0]!;
    expect(sent.url).toBe('/model/us.amazon.nova-micro-v1%3A0/converse-stream');
    expect(sent.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDTESTBEDROCK\/\d{8}\/us-east-1\/bedrock\/aws4_request/,
    );
    expect(sent.body.modelId).toBeUndefined(); // modelId travels in the path
    expect(sent.body.messages).toEqual([
      { role: 'user', content: [{ text: ASK.messages[0]!.content }, { cachePoint: { type: 'default' } }] },
    ]);
    expect(sent.body.toolConfig.tools[0]).toEqual({
      toolSpec: {
        name: 'get_temperature',
        description: 'Temperature of a city',
        inputSchema: { json: { type: 'object' } },
      },
    });
  });

  it('a Bedrock API key (api_key, or AWS_BEARER_TOKEN_BEDROCK) is sent as Bearer instead of a signature', async () => {
    server.enqueue(eventStreamReply(STREAM));
    const provider = testProvider(server.url, { api_key: 'bedrock-api-key-123' });
    await provider.complete(ASK);
    await provider.close();
    expect(server.requests[0]!.headers.authorization).toBe('Bearer bedrock-api-key-123');
  });

  it('stream() yields the events of the recorded stream, ending with message.end carrying the response', async () => {
    server.enqueue(eventStreamReply(STREAM, { pieceSize: 100 }));
    const provider = testProvider(server.url);
    const types: string[] = [];
    let last: unknown;
    for await (const event of provider.stream(ASK)) {
      types.push(event.type);
      last = event;
    }
    await provider.close();
    expect(types[0]).toBe('message.start');
    expect(types).toContain('text.delta');
    expect(types.filter((t) => t.startsWith('tool_call.'))).toEqual([
      'tool_call.start',
      'tool_call.delta',
      'tool_call.end',
    ]);
    expect(last).toMatchObject({ type: 'message.end', response: { finish_reason: 'tool_calls' } });
  });

  it('config headers are added to every request after signing', async () => {
    server.enqueue(eventStreamReply(STREAM));
    const provider = testProvider(server.url, { headers: { 'X-Team': 'search' } });
    await provider.complete(ASK);
    await provider.close();
    expect(server.requests[0]!.headers['x-team']).toBe('search');
    expect(server.requests[0]!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 /);
  });

  it('reasoning deltas stream as thinking; the signature (and redacted reasoning) is kept, never streamed', async () => {
    const frames = [
      event('messageStart', { role: 'assistant' }),
      event('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: 'Let me ' } } }),
      event('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: 'think.' } } }),
      event('contentBlockDelta', {
        contentBlockIndex: 0,
        delta: { reasoningContent: { signature: 'c2lnbmF0dXJl' } },
      }),
      event('contentBlockStop', { contentBlockIndex: 0 }),
      event('contentBlockDelta', {
        contentBlockIndex: 1,
        delta: { reasoningContent: { redactedContent: 'cmVkYWN0ZWQ=' } },
      }),
      event('contentBlockStop', { contentBlockIndex: 1 }),
      event('contentBlockDelta', { contentBlockIndex: 2, delta: { text: 'Paris.' } }),
      event('contentBlockStop', { contentBlockIndex: 2 }),
      event('messageStop', { stopReason: 'end_turn' }),
      event('metadata', {
        usage: {
          inputTokens: 10,
          outputTokens: 20,
          totalTokens: 1130,
          cacheReadInputTokens: 1000,
          cacheWriteInputTokens: 100,
        },
        metrics: { latencyMs: 5 },
      }),
    ];
    server.enqueue(eventStreamReply(encodeStream(frames), { pieceSize: 13 }));
    const { events, hooks } = recorder();
    const provider = testProvider(
      server.url,
      { default_model: 'anthropic.claude-sonnet-4-5-20250929-v1:0' },
      hooks,
    );
    const response = await provider.complete({ messages: [{ role: 'user', content: 'Capital?' }] });
    await provider.close();
    expect(response.content).toEqual([
      { type: 'thinking', thinking: 'Let me think.', signature: 'c2lnbmF0dXJl' },
      { type: 'redacted_thinking', data: 'cmVkYWN0ZWQ=' },
      { type: 'text', text: 'Paris.' },
    ]);
    expect(response.usage).toMatchObject({
      input_tokens: 1010,
      output_tokens: 20,
      total_tokens: 1130,
      cache_read_tokens: 1000,
      cache_write_tokens: 100,
    });
    const deltas = events
      .filter(([n]) => n === 'llm:stream_block_delta')
      .map(([, d]) => [d.block_type, d.text]);
    expect(deltas).toEqual([
      ['thinking', 'Let me '],
      ['thinking', 'think.'],
      ['text', 'Paris.'],
    ]);
    expect(server.requests[0]!.url).toBe(
      '/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream',
    );
  });
});

describe('Converse: recorded answers (Claude 3.7 / Sonnet 4.5)', () => {
  it('reads reasoning with its signature, text and toolUse in order, the stop reason and usage', async () => {
    server.enqueue(reply.json(200, TOOLUSE));
    const provider = testProvider(server.url, { use_streaming: false });
    const response = await provider.complete(ASK);
    await provider.close();
    const reasoning = TOOLUSE.output.message.content[0].reasoningContent.reasoningText;
    expect(response.content).toEqual([
      { type: 'thinking', thinking: reasoning.text, signature: reasoning.signature },
      { type: 'text', text: "I'll need to check what country you're from to answer that question." },
    ]);
    expect(response.tool_calls).toEqual([
      { id: 'tooluse_W9DaUFg4Tj2cRPpndqxWSg', name: 'get_user_country', arguments: {} },
    ]);
    expect(response.finish_reason).toBe('tool_calls');
    expect(response.usage).toMatchObject({ input_tokens: 397, output_tokens: 130, total_tokens: 527 });
    expect(server.requests[0]!.url).toBe('/model/us.amazon.nova-micro-v1%3A0/converse');
  });

  it('cache usage: input = inputTokens + cacheRead; cache reads reported, writes never added to input', async () => {
    server.enqueue(reply.json(200, CACHE));
    const provider = testProvider(server.url, { use_streaming: false });
    const response = await provider.complete(ASK);
    await provider.close();
    expect(response.usage).toMatchObject({
      input_tokens: 1324,
      output_tokens: 5,
      total_tokens: 1329,
      cache_read_tokens: 1322,
    });
  });

  it('round trip: the signed reasoning goes back untrimmed as the first block of the assistant turn, the result in one user turn', async () => {
    server.enqueue(reply.json(200, TOOLUSE), reply.json(200, CACHE));
    const provider = testProvider(server.url, { use_streaming: false, enable_prompt_caching: false });
    const tools = [{ name: 'get_user_country', parameters: { type: 'object' } }];
    const first = await provider.complete({ messages: [{ role: 'user', content: 'Largest city?' }], tools });
    const assistant: Message = {
      role: 'assistant',
      // The text first, the reasoning after it: the provider still sends the reasoning first.
      content: [...first.content].reverse(),
      tool_calls: first.tool_calls!.map((c) => ({ id: c.id, tool: c.name, arguments: c.arguments })),
    };
    await provider.complete({
      messages: [
        { role: 'user', content: 'Largest city?' },
        assistant,
        { role: 'tool', tool_call_id: 'tooluse_W9DaUFg4Tj2cRPpndqxWSg', content: 'Mexico' },
      ],
      tools,
    });
    await provider.close();
    const reasoning = TOOLUSE.output.message.content[0].reasoningContent;
    const sent = server.requests[1]!.body;
    expect(sent.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { reasoningContent: reasoning },
        { text: "I'll need to check what country you're from to answer that question." },
        { toolUse: { toolUseId: 'tooluse_W9DaUFg4Tj2cRPpndqxWSg', name: 'get_user_country', input: {} } },
      ],
    });
    expect(sent.messages[2]).toEqual({
      role: 'user',
      content: [
        { toolResult: { toolUseId: 'tooluse_W9DaUFg4Tj2cRPpndqxWSg', content: [{ text: 'Mexico' }] } },
      ],
    });
    expect(sent.toolConfig).toBeDefined();
  });

  it('redacted reasoning goes back as the same bytes', async () => {
    server.enqueue(reply.json(200, CACHE));
    const provider = testProvider(server.url, { use_streaming: false });
    await provider.complete({
      messages: [
        { role: 'user', content: 'a' },
        {
          role: 'assistant',
          content: [
            { type: 'redacted_thinking', data: 'AAECAwQ=' },
            { type: 'text', text: 'b' },
          ],
        },
        { role: 'user', content: 'c' },
      ],
    });
    await provider.close();
    expect(server.requests[0]!.body.messages[1].content[0]).toEqual({
      reasoningContent: { redactedContent: 'AAECAwQ=' },
    });
  });
});
