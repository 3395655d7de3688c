/**
 * Azure's `parallel` dispatch wrapper (AZ8): one call named `parallel` whose
 * `tool_uses` name the real calls is expanded into them when the request
 * declared no `parallel` tool, in `complete()` and in `stream()`.
 */
import type { ChatRequest, StreamEvent } from '@amplifier/core';
import { FakeLlmServer, reply } from '@amplifier/provider-http/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chunk, DONE, usageChunk } from './__fixtures__/wire.js';
import { resolveAzureConfig } from './azure.js';
import { unwrapParallel } from './azure-parallel.js';
import { AzureOpenAIProvider } from './azure-provider.js';

const WRAPPED = JSON.stringify({
  tool_uses: [
    { recipient_name: 'functions.read_file', parameters: { path: 'a.txt' } },
    { recipient_name: 'functions.grep', parameters: { pattern: 'x' } },
  ],
});
const TOOLS = [
  { name: 'read_file', description: 'read', parameters: { type: 'object' } },
  { name: 'grep', description: 'grep', parameters: { type: 'object' } },
];
const REQUEST: ChatRequest = { messages: [{ role: 'user', content: 'look' }], tools: TOOLS };

function wrapperStream(name = 'parallel', args = WRAPPED): string[] {
  return [
    chunk({ role: 'assistant', content: null }),
    chunk({
      tool_calls: [
        { index: 0, id: 'call_p', type: 'function', function: { name, arguments: args.slice(0, 30) } },
      ],
    }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(30) } }] }),
    chunk({}, 'tool_calls'),
    usageChunk(),
    DONE,
  ];
}

let server: FakeLlmServer;
let provider: AzureOpenAIProvider;
beforeEach(async () => {
  server = await FakeLlmServer.start();
  provider = new AzureOpenAIProvider(resolveAzureConfig({ azure_endpoint: server.url, api_key: 'k' }, {}));
});
afterEach(async () => {
  await provider.close();
  await server.close();
});

describe('the parallel wrapper', () => {
  it('complete(): the wrapper call becomes the calls it holds, with ids of their own', async () => {
    server.enqueue(reply.sse(wrapperStream()));
    const response = await provider.complete(REQUEST);
    expect(response.tool_calls).toEqual([
      { id: 'call_p_0', name: 'read_file', arguments: { path: 'a.txt' } },
      { id: 'call_p_1', name: 'grep', arguments: { pattern: 'x' } },
    ]);
  });

  it('stream(): start, arguments and end of each held call instead of the wrapper', async () => {
    server.enqueue(reply.sse(wrapperStream()));
    const events: StreamEvent[] = [];
    for await (const event of provider.stream(REQUEST)) events.push(event);
    const calls = events.filter((e) => e.type.startsWith('tool_call.'));
    expect(calls.map((e) => [e.type, 'name' in e ? e.name : undefined])).toEqual([
      ['tool_call.start', 'read_file'],
      ['tool_call.delta', undefined],
      ['tool_call.end', 'read_file'],
      ['tool_call.start', 'grep'],
      ['tool_call.delta', undefined],
      ['tool_call.end', 'grep'],
    ]);
    const end = events.at(-1);
    expect(end?.type === 'message.end' && end.response.tool_calls?.map((c) => c.id)).toEqual([
      'call_p_0',
      'call_p_1',
    ]);
  });

  it('a declared parallel tool, or a wrapper of another shape, is left as it is', async () => {
    server.enqueue(reply.sse(wrapperStream()));
    const declared = await provider.complete({
      ...REQUEST,
      tools: [...TOOLS, { name: 'parallel', description: 'mine', parameters: { type: 'object' } }],
    });
    expect(declared.tool_calls?.map((c) => c.name)).toEqual(['parallel']);
    server.enqueue(reply.sse(wrapperStream('parallel', '{"calls":[1,2]}')));
    expect((await provider.complete(REQUEST)).tool_calls?.map((c) => c.name)).toEqual(['parallel']);
  });

  it('hostile wrapper arguments never throw', () => {
    const call = (args: unknown) => ({ id: 'c', name: 'parallel', arguments: { tool_uses: args } });
    expect(unwrapParallel(call([]))).toBeUndefined();
    expect(unwrapParallel(call('x'))).toBeUndefined();
    expect(unwrapParallel(call([null]))).toBeUndefined();
    expect(unwrapParallel(call([{ recipient_name: 7 }]))).toBeUndefined();
    expect(unwrapParallel(call([{ recipient_name: 'functions.bash', parameters: '{"command":' }]))).toEqual([
      expect.objectContaining({
        id: 'c_0',
        name: 'bash',
        arguments: {},
        invalid_arguments: expect.anything(),
      }),
    ]);
    expect(unwrapParallel(call([{ recipient_name: 'grep' }]))).toEqual([
      { id: 'c_0', name: 'grep', arguments: {} },
    ]);
  });
});
