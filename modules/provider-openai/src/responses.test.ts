/**
 * provider-openai in Responses mode against a local FakeLlmServer: the
 * recorded Responses streams and answers (`__fixtures__/recorded/`) replayed
 * in 61-byte pieces, the token-streaming events they give, a second turn
 * that carries the reasoning back, and the faults (429 with retry info,
 * insufficient_quota, a dropped stream, error frames before and after
 * output, a failed and an incomplete response).
 */
import { readFileSync } from 'node:fs';
import { type ChatRequest, checkData, type Message } from '@amplifier/core';
import {
  FakeLlmServer,
  llmErrorOf,
  reply,
  splitBytes,
  sseEvent,
  streamingContractProblems,
} from '@amplifier/provider-http/testing';
import { EventRecorder } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type OpenAIConfig, resolveConfig } from './config.js';
import { OpenAIProvider } from './provider.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`./__fixtures__/recorded/${name}`, import.meta.url), 'utf8');
const REQUEST: ChatRequest = { messages: [{ role: 'user', content: 'What is the capital of France?' }] };

let server: FakeLlmServer;
let provider: OpenAIProvider;
let recorder: EventRecorder;

function make(config: OpenAIConfig = {}, sessionId?: string): OpenAIProvider {
  recorder = new EventRecorder();
  provider = new OpenAIProvider(
    resolveConfig(
      {
        api: 'responses',
        api_key: 'sk-test',
        base_url: `${server.url}/v1`,
        default_model: 'gpt-5-mini',
        min_retry_delay: 0.001,
        retry_jitter: false,
        ...config,
      },
      {},
    ),
    { hooks: recorder, ...(sessionId !== undefined && { sessionId }) },
  );
  return provider;
}

/** The stream events of the recorder, as `type@index` (deltas joined per block). */
function blocks(): string[] {
  const out: string[] = [];
  for (const [name, data] of recorder.getEvents()) {
    if (!name.startsWith('llm:stream_')) continue;
    const what = `${name.slice('llm:stream_'.length)}:${String(data.block_type ?? '')}@${String(data.block_index ?? '')}`;
    if (out.at(-1) !== what) out.push(what);
  }
  return out;
}

const frame = (data: Record<string, unknown>): string => sseEvent(data, String(data.type));
const created = frame({
  type: 'response.created',
  response: { id: 'resp_1', model: 'gpt-5-mini', status: 'in_progress', output: [] },
});
const textItem = (text: string): string[] => [
  frame({
    type: 'response.output_item.added',
    output_index: 0,
    item: { type: 'message', id: 'msg_1', role: 'assistant', content: [] },
  }),
  frame({ type: 'response.output_text.delta', output_index: 0, content_index: 0, delta: text }),
];
const completed = (usage = { input_tokens: 10, output_tokens: 3, total_tokens: 13 }): string =>
  frame({
    type: 'response.completed',
    response: { id: 'resp_1', model: 'gpt-5-mini', status: 'completed', usage },
  });

beforeEach(async () => {
  server = await FakeLlmServer.start();
});
afterEach(async () => {
  await provider?.close();
  await server.close();
});

describe('which API (R1)', () => {
  it('Responses for OpenAI itself (no base_url, or host api.openai.com), Chat Completions for any other server; api overrides', () => {
    expect(resolveConfig({}, {}).api).toBe('responses');
    expect(resolveConfig({ base_url: 'https://api.openai.com/v1' }, {}).api).toBe('responses');
    expect(resolveConfig({}, { OPENAI_BASE_URL: 'http://localhost:11434/v1' }).api).toBe('chat');
    expect(resolveConfig({ base_url: 'https://openrouter.ai/api/v1' }, {}).api).toBe('chat');
    expect(resolveConfig({ api: 'chat' }, {}).api).toBe('chat');
    expect(resolveConfig({ api: 'responses', base_url: 'http://127.0.0.1:8000/v1' }, {}).api).toBe(
      'responses',
    );
  });

  it('Responses mode posts to /responses; chat mode to /chat/completions', async () => {
    server.enqueue(reply.json(200, JSON.parse(fixture('openai-responses-nonstream-function-call.json'))));
    await make({ use_streaming: false }).complete(REQUEST);
    expect(server.requests[0]).toMatchObject({
      method: 'POST',
      url: '/v1/responses',
      headers: { authorization: 'Bearer sk-test' },
    });
    expect(provider.getInfo().display_name).toBe('OpenAI (Responses)');
  });

  it('a Chat Completions server answering a Responses request: a configuration error that names the fix, not retried', async () => {
    server.enqueue(
      reply.sse([
        sseEvent({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'hi' } }] }),
        'data: [DONE]\n\n',
      ]),
    );
    const error = await llmErrorOf(make().complete(REQUEST));
    expect(error.kind).toBe('configuration');
    expect(error.message).toMatch(/api config to "chat"/);
    expect(server.requests).toHaveLength(1);
  });
});

describe('recorded streams (R7, R8, R9, R10)', () => {
  it('a function call: one tool_use block with its name, no argument deltas; the call by call_id; usage', async () => {
    server.enqueue(reply.sse(splitBytes(fixture('openai-responses-stream-function-call.sse'), 61)));
    const response = await make({ default_model: 'gpt-4o' }).complete(REQUEST);
    expect(checkData('chat-response', response)).toEqual([]);
    expect(response.tool_calls).toEqual([
      { id: 'call_kL0PCQV7M2WMoVX8V8OtYSAL', name: 'get_capital', arguments: { country: 'France' } },
    ]);
    expect(response.finish_reason).toBe('tool_calls');
    expect(response.usage).toMatchObject({
      input_tokens: expect.any(Number),
      output_tokens: expect.any(Number),
    });
    expect(blocks()).toEqual(['block_start:tool_use@0', 'block_end:tool_use@0']);
    expect(recorder.getEvents('llm:stream_block_start')[0]![1]).toMatchObject({ name: 'get_capital' });
    expect(streamingContractProblems(recorder.getEvents(), 'ok')).toEqual([]);
  });

  it('reasoning then a call: a thinking block from the summary deltas, encrypted_content from output_item.done, then tool_use', async () => {
    const sse = fixture('openai-responses-stream-reasoning-summary-function-call.sse');
    server.enqueue(reply.sse(splitBytes(sse, 61)));
    const response = await make({ default_model: 'gpt-5.1-codex-max' }).complete(REQUEST);
    const done = sse
      .split('\n')
      .filter((l) => l.startsWith('data: ') && l.includes('"response.output_item.done"'))
      .map((l) => JSON.parse(l.slice(6)).item as Record<string, unknown>)
      .find((item) => item.type === 'reasoning')!;
    const added = JSON.parse(
      sse
        .split('\n')
        .find((l) => l.includes('"response.output_item.added"'))!
        .slice(6),
    ).item;
    expect(added.encrypted_content).not.toBe(done.encrypted_content);
    const thinking = response.content[0]!;
    expect(thinking).toMatchObject({ type: 'thinking', content: [done.encrypted_content, done.id] });
    const streamed = recorder
      .getEvents('llm:stream_block_delta')
      .filter(([, d]) => d.block_type === 'thinking')
      .map(([, d]) => d.text)
      .join('');
    expect(streamed).toBe((thinking as { thinking: string }).thinking);
    expect(streamed.startsWith('**Calculating step-by-step')).toBe(true);
    expect(response.tool_calls?.[0]).toMatchObject({
      id: expect.stringMatching(/^call_/),
      name: 'calculator',
    });
    expect(blocks()).toEqual([
      'block_start:thinking@0',
      'block_delta:thinking@0',
      'block_end:thinking@0',
      'block_start:tool_use@1',
      'block_end:tool_use@1',
    ]);
    expect(streamingContractProblems(recorder.getEvents(), 'ok')).toEqual([]);
  });

  it('two message items are two text blocks; cached and reasoning tokens in usage; gaps in sequence_number do not matter', async () => {
    server.enqueue(reply.sse(splitBytes(fixture('openai-responses-stream-text-cached-tokens.sse'), 61)));
    const response = await make({ default_model: 'gpt-5.3-codex' }).complete(REQUEST);
    expect(response.content.map((b) => b.type)).toEqual(['text', 'text']);
    expect(response.usage).toMatchObject({ cache_read_tokens: 3072, reasoning_tokens: 64 });
    expect(blocks()).toEqual([
      'block_start:text@0',
      'block_delta:text@0',
      'block_end:text@0',
      'block_start:text@1',
      'block_delta:text@1',
      'block_end:text@1',
    ]);
    const deltas = recorder
      .getEvents('llm:stream_block_delta')
      .filter(([, d]) => d.block_index === 1)
      .map(([, d]) => d.text)
      .join('');
    // The recording was trimmed (two deltas kept per item): what output_item.done adds streams then.
    expect(deltas).toBe((response.content[1] as { text: string }).text);
    expect(deltas).toMatch(/investor-grade morning brief/);
    expect(recorder.getEvents('llm:stream_block_delta').filter(([, d]) => d.block_index === 1)).toHaveLength(
      3,
    );
  });

  it('a non-streamed recorded reasoning answer through the provider: thinking and text, reasoning tokens, cost', async () => {
    server.enqueue(
      reply.json(200, JSON.parse(fixture('openai-responses-nonstream-reasoning-encrypted.json'))),
    );
    const response = await make({ use_streaming: false }).complete(REQUEST);
    expect(checkData('chat-response', response)).toEqual([]);
    expect(response.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    expect(response.usage).toMatchObject({ reasoning_tokens: 128, cost_usd: expect.any(String) });
    expect(recorder.names().some((n) => n.startsWith('llm:stream_'))).toBe(false);
  });
});

describe('synthetic streams the recordings do not cover (R8, R9, R10)', () => {
  it('parallel calls after a two-part reasoning summary: dense blocks, parts joined by a blank line, calls in order', async () => {
    const summaryDelta = (summary_index: number, delta: string) =>
      frame({
        type: 'response.reasoning_summary_text.delta',
        output_index: 0,
        summary_index,
        delta,
        obfuscation: 'xx',
      });
    const call = (output_index: number, call_id: string, name: string, args: string): string[] => [
      frame({
        type: 'response.output_item.added',
        output_index,
        item: { type: 'function_call', id: `fc_${output_index}`, call_id, name, arguments: '' },
      }),
      frame({
        type: 'response.function_call_arguments.delta',
        output_index,
        item_id: `fc_${output_index}`,
        delta: args.slice(0, 3),
      }),
      frame({
        type: 'response.function_call_arguments.delta',
        output_index,
        item_id: `fc_${output_index}`,
        delta: args.slice(3),
      }),
      frame({ type: 'response.function_call_arguments.done', output_index, arguments: args }),
      frame({
        type: 'response.output_item.done',
        output_index,
        item: {
          type: 'function_call',
          id: `fc_${output_index}`,
          call_id,
          name,
          arguments: args,
          status: 'completed',
        },
      }),
    ];
    server.enqueue(
      reply.sse(
        splitBytes(
          [
            created,
            frame({
              type: 'response.output_item.added',
              output_index: 0,
              item: { type: 'reasoning', id: 'rs_1', summary: [] },
            }),
            summaryDelta(0, '**Plan**'),
            summaryDelta(1, 'Read both files.'),
            frame({
              type: 'response.output_item.done',
              output_index: 0,
              item: {
                type: 'reasoning',
                id: 'rs_1',
                encrypted_content: 'enc-final',
                summary: [
                  { type: 'summary_text', text: '**Plan**' },
                  { type: 'summary_text', text: 'Read both files.' },
                ],
              },
            }),
            // A hosted tool between them opens no block.
            frame({
              type: 'response.output_item.added',
              output_index: 1,
              item: { type: 'web_search_call', id: 'ws_1', status: 'in_progress' },
            }),
            frame({
              type: 'response.output_item.done',
              output_index: 1,
              item: { type: 'web_search_call', id: 'ws_1', status: 'completed' },
            }),
            ...call(2, 'call_a', 'read_file', '{"path":"a.txt"}'),
            ...call(3, 'call_b', 'read_file', '{"path":"b.txt"}'),
            completed(),
          ].join(''),
          61,
        ),
      ),
    );
    const response = await make().complete(REQUEST);
    expect(response.content).toEqual([
      { type: 'thinking', thinking: '**Plan**\n\nRead both files.', content: ['enc-final', 'rs_1'] },
    ]);
    expect(response.tool_calls).toEqual([
      { id: 'call_a', name: 'read_file', arguments: { path: 'a.txt' } },
      { id: 'call_b', name: 'read_file', arguments: { path: 'b.txt' } },
    ]);
    expect(response.metadata?.['openai:output_items']).toEqual([
      'reasoning',
      'function_call',
      'function_call',
    ]);
    const thinking = recorder
      .getEvents('llm:stream_block_delta')
      .map(([, d]) => d.text)
      .join('');
    expect(thinking).toBe('**Plan**\n\nRead both files.');
    expect(blocks()).toEqual([
      'block_start:thinking@0',
      'block_delta:thinking@0',
      'block_end:thinking@0',
      'block_start:tool_use@1',
      'block_end:tool_use@1',
      'block_start:tool_use@2',
      'block_end:tool_use@2',
    ]);
    expect(streamingContractProblems(recorder.getEvents(), 'ok')).toEqual([]);
  });

  it('stream(): message.start with the model, tool_call.start / argument fragments / end, message.end (recorded function call)', async () => {
    server.enqueue(reply.sse(splitBytes(fixture('openai-responses-stream-function-call.sse'), 61)));
    const events = [];
    for await (const event of make().stream!(REQUEST)) events.push(event);
    expect(events[0]).toEqual({ type: 'message.start', model: 'gpt-4o-2024-08-06' });
    const fragments = events.filter((e) => e.type === 'tool_call.delta').map((e) => e.arguments_fragment);
    expect(fragments.join('')).toBe('{"country":"France"}');
    expect(events.filter((e) => e.type === 'tool_call.end')).toEqual([
      {
        type: 'tool_call.end',
        id: 'call_kL0PCQV7M2WMoVX8V8OtYSAL',
        name: 'get_capital',
        arguments: { country: 'France' },
      },
    ]);
    expect(events.at(-1)?.type).toBe('message.end');
  });
});

describe('round trip across turns (R15, R19)', () => {
  it('the second request carries the reasoning item before the call, the call by call_id and its output; store:false, include, cache key per session', async () => {
    server.enqueue(
      reply.sse(splitBytes(fixture('openai-responses-stream-reasoning-summary-function-call.sse'), 61)),
    );
    server.enqueue(reply.sse([created, ...textItem('570'), completed()]));
    make({}, 'session-abc');
    const first = await provider.complete(REQUEST);
    const call = first.tool_calls![0]!;
    const history: Message[] = [
      ...REQUEST.messages,
      {
        role: 'assistant',
        content: first.content,
        tool_calls: [{ id: call.id, tool: call.name, arguments: call.arguments }],
        metadata: first.metadata!,
      },
      { role: 'tool', tool_call_id: call.id, content: '19' },
    ];
    const second = await provider.complete({ messages: history });
    expect(second.content).toEqual([{ type: 'text', text: '570' }]);
    const sent = server.requests[1]!.body;
    expect(sent).toMatchObject({
      store: false,
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: 'session-abc',
      stream: true,
    });
    const input = sent.input as Record<string, unknown>[];
    expect(input.map((i) => i.type ?? i.role)).toEqual([
      'user',
      'reasoning',
      'function_call',
      'function_call_output',
    ]);
    const thinking = first.content[0] as { content: string[] };
    expect(input[1]).toMatchObject({
      encrypted_content: thinking.content[0],
      id: thinking.content[1],
      summary: [{ type: 'summary_text' }],
    });
    expect(input[2]).toMatchObject({ call_id: call.id, name: 'calculator' });
    expect(input[3]).toEqual({ type: 'function_call_output', call_id: call.id, output: '19' });
  });

  it('a call left without a result is answered by the kit before sending (no 400 "No tool output found")', async () => {
    server.enqueue(reply.sse([created, ...textItem('ok'), completed()]));
    await make().complete({
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'call_lost', tool: 'x', arguments: {} }] },
        { role: 'user', content: 'and?' },
      ],
    });
    const input = server.requests[0]!.body.input as Record<string, unknown>[];
    expect(input.filter((i) => i.type === 'function_call_output').map((i) => i.call_id)).toEqual([
      'call_lost',
    ]);
  });
});

describe('faults (R11, R12, R13)', () => {
  it('429 rate_limit_exceeded with retry-after-ms is retried after that wait', async () => {
    server.enqueue(
      reply.json(429, JSON.parse(fixture('openai-error-429-tokens.json')), { 'retry-after-ms': '20' }),
      reply.sse([created, ...textItem('fine'), completed()]),
    );
    const response = await make().complete(REQUEST);
    expect(response.content).toEqual([{ type: 'text', text: 'fine' }]);
    expect(server.requests).toHaveLength(2);
    expect(recorder.getEvents('provider:retry')[0]![1]).toMatchObject({
      status_code: 429,
      retry_after: 0.02,
    });
  });

  it('429 insufficient_quota (recorded body) is a quota error, never retried', async () => {
    server.enqueue(
      reply.json(429, JSON.parse(fixture('openai-responses-error-429-insufficient-quota.json')), {
        'retry-after': '1',
      }),
    );
    const error = await llmErrorOf(make().complete(REQUEST));
    expect(error.kind).toBe('quota_exceeded');
    expect(error.retryable).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it('400 param temperature (recorded body) is an invalid request, not retried', async () => {
    server.enqueue(
      reply.json(400, JSON.parse(fixture('openai-responses-error-400-unsupported-parameter.json'))),
    );
    const error = await llmErrorOf(make().complete(REQUEST));
    expect(error.kind).toBe('invalid_request');
    expect(error.message).toMatch(/temperature/);
    expect(server.requests).toHaveLength(1);
  });

  it('a stream dropped after a delta: llm:stream_aborted, a stream error, no retry', async () => {
    server.enqueue(reply.sseThenDrop([created, ...textItem('Par')]));
    const error = await llmErrorOf(make().complete(REQUEST));
    expect(error.kind).toBe('stream');
    expect(recorder.names()).toContain('llm:stream_aborted');
    expect(server.requests).toHaveLength(1);
  });

  it('a stream that ends without response.completed (nothing streamed) is retried', async () => {
    server.enqueue(reply.sse([created]), reply.sse([created, ...textItem('Paris'), completed()]));
    const response = await make().complete(REQUEST);
    expect(response.content).toEqual([{ type: 'text', text: 'Paris' }]);
    expect(server.requests).toHaveLength(2);
    expect(recorder.names()).not.toContain('llm:stream_aborted');
  });

  it('an error frame before any output: classified like the HTTP error (a rate limit is retried, no stream_aborted)', async () => {
    server.enqueue(
      reply.sse([
        created,
        frame({
          type: 'error',
          code: 'rate_limit_exceeded',
          message: 'Rate limit reached',
          param: null,
          sequence_number: 2,
        }),
      ]),
      reply.sse([created, ...textItem('Paris'), completed()]),
    );
    const response = await make().complete(REQUEST);
    expect(response.content).toEqual([{ type: 'text', text: 'Paris' }]);
    expect(server.requests).toHaveLength(2);
    expect(recorder.names()).not.toContain('llm:stream_aborted');
  });

  it('an error frame (older nested shape) with insufficient_quota before output: quota error, not retried', async () => {
    server.enqueue(
      reply.sse([
        created,
        frame({
          type: 'error',
          error: {
            type: 'insufficient_quota',
            code: 'insufficient_quota',
            message: 'You exceeded your current quota',
          },
        }),
      ]),
    );
    const error = await llmErrorOf(make().complete(REQUEST));
    expect(error.kind).toBe('quota_exceeded');
    expect(server.requests).toHaveLength(1);
  });

  it('an invalid_request_error in the stream is never retried', async () => {
    server.enqueue(
      reply.sse([
        created,
        frame({
          type: 'error',
          error: { type: 'invalid_request_error', code: null, message: 'Invalid input' },
        }),
      ]),
    );
    const error = await llmErrorOf(make().complete(REQUEST));
    expect(error.kind).toBe('invalid_request');
    expect(server.requests).toHaveLength(1);
  });

  it('an error frame after output: llm:stream_aborted as the last stream event, then the error; not retried', async () => {
    server.enqueue(
      reply.sse([
        created,
        ...textItem('Par'),
        frame({ type: 'error', code: 'server_error', message: 'The server had an error' }),
      ]),
    );
    const error = await llmErrorOf(make().complete(REQUEST));
    expect(error.kind).toBe('stream'); // retryable, but output was streamed: not retried
    expect(server.requests).toHaveLength(1);
    const streamEvents = recorder.names().filter((n) => n.startsWith('llm:stream_'));
    expect(streamEvents.at(-1)).toBe('llm:stream_aborted');
    expect(recorder.getEvents('llm:stream_aborted')[0]![1]).toMatchObject({
      error: { type: 'StreamError', msg: expect.stringMatching(/server had an error/) },
    });
    expect(streamingContractProblems(recorder.getEvents(), 'failed')).toEqual([]);
  });

  it('response.failed: its error by code (context_length_exceeded is a context-length error, not retried)', async () => {
    server.enqueue(
      reply.sse([
        created,
        frame({
          type: 'response.failed',
          response: {
            id: 'resp_1',
            status: 'failed',
            error: {
              code: 'context_length_exceeded',
              message: 'Your input exceeds the context window of this model.',
            },
          },
        }),
      ]),
    );
    const error = await llmErrorOf(make().complete(REQUEST));
    expect(error.kind).toBe('context_length');
    expect(server.requests).toHaveLength(1);
  });

  it('a non-streamed failed response is its classified error', async () => {
    server.enqueue(
      reply.json(200, {
        id: 'resp_2',
        status: 'failed',
        output: [],
        error: { code: 'invalid_prompt', message: 'Invalid prompt' },
      }),
    );
    const error = await llmErrorOf(make({ use_streaming: false }).complete(REQUEST));
    expect(error.kind).toBe('invalid_request');
  });

  it('response.incomplete: finish length with the partial text; a call cut off inside is an invalid_tool_call error', async () => {
    server.enqueue(
      reply.sse([
        created,
        ...textItem('Half an ans'),
        frame({
          type: 'response.incomplete',
          response: {
            id: 'resp_1',
            status: 'incomplete',
            incomplete_details: { reason: 'max_output_tokens' },
            usage: { input_tokens: 5, output_tokens: 9, total_tokens: 14 },
          },
        }),
      ]),
    );
    const cut = await make().complete(REQUEST);
    expect(cut.finish_reason).toBe('length');
    expect(cut.content).toEqual([{ type: 'text', text: 'Half an ans' }]);
    expect(streamingContractProblems(recorder.getEvents(), 'ok')).toEqual([]);

    server.enqueue(
      reply.sse([
        created,
        frame({
          type: 'response.output_item.added',
          output_index: 0,
          item: { type: 'function_call', call_id: 'call_w', name: 'write_file', arguments: '' },
        }),
        frame({ type: 'response.function_call_arguments.delta', output_index: 0, delta: '{"path":"a' }),
        frame({
          type: 'response.incomplete',
          response: {
            id: 'resp_1',
            status: 'incomplete',
            incomplete_details: { reason: 'max_output_tokens' },
          },
        }),
      ]),
    );
    const error = await llmErrorOf(provider.complete(REQUEST));
    expect(error.kind).toBe('invalid_tool_call');
    expect(error.message).toMatch(/write_file/);
  });

  it('x-ratelimit-* headers are reported on llm:response (R14)', async () => {
    server.enqueue(
      reply.sse([created, ...textItem('ok'), completed()], {
        'x-ratelimit-limit-requests': '500',
        'x-ratelimit-remaining-requests': '499',
        'x-ratelimit-reset-requests': '120ms',
      }),
    );
    await make().complete(REQUEST);
    expect(recorder.getEvents('llm:response')[0]![1]).toMatchObject({
      rate_limits: { requests_limit: 500, requests_remaining: 499, requests_reset: '120ms' },
    });
  });
});

describe('server-side state, store: true (R17)', () => {
  const stored = (id: string, text: string): string[] => [
    frame({ type: 'response.created', response: { id, status: 'in_progress', store: true } }),
    ...textItem(text),
    frame({ type: 'response.completed', response: { id, status: 'completed', store: true } }),
  ];
  const FIRST_TURN: Message[] = [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Hi' },
  ];
  const history = (first: Awaited<ReturnType<OpenAIProvider['complete']>>): Message[] => [
    ...FIRST_TURN,
    { role: 'assistant', content: first.content, metadata: first.metadata! },
    { role: 'user', content: 'And again?' },
  ];

  it('the next request chains with previous_response_id, sends only the new items and resends the instructions', async () => {
    server.enqueue(reply.sse(stored('resp_a', 'Hello.')), reply.sse(stored('resp_b', 'Again.')));
    make({ store: true });
    const first = await provider.complete({ messages: FIRST_TURN });
    expect(first.metadata).toMatchObject({ 'openai:response_id': 'resp_a', 'openai:stored': true });
    await provider.complete({ messages: history(first) });
    const sent = server.requests[1]!.body;
    expect(sent).toMatchObject({ store: true, previous_response_id: 'resp_a', instructions: 'Be brief.' });
    expect(sent).not.toHaveProperty('include');
    expect(sent.input).toEqual([{ role: 'user', content: 'And again?' }]);
  });

  it('a chain the server lost (404 previous_response_not_found): provider:response_chain_invalidated, then once more with the whole history', async () => {
    server.enqueue(
      reply.sse(stored('resp_a', 'Hello.')),
      reply.json(404, {
        error: {
          message: "Previous response with id 'resp_a' not found.",
          type: 'invalid_request_error',
          param: 'previous_response_id',
          code: 'previous_response_not_found',
        },
      }),
      reply.sse(stored('resp_c', 'Again.')),
    );
    make({ store: true });
    const first = await provider.complete({ messages: FIRST_TURN });
    const second = await provider.complete({ messages: history(first) });
    expect(second.content).toEqual([{ type: 'text', text: 'Again.' }]);
    expect(server.requests).toHaveLength(3);
    expect(server.requests[2]!.body).not.toHaveProperty('previous_response_id');
    expect((server.requests[2]!.body.input as unknown[]).length).toBe(3);
    expect(recorder.getEvents('provider:response_chain_invalidated')).toEqual([
      [
        'provider:response_chain_invalidated',
        expect.objectContaining({ provider: 'openai', previous_response_id: 'resp_a', reason: 'not_found' }),
      ],
    ]);
  });

  it('stateless responses (store false, the default) are never chained; other errors of a chained call are not retried whole', async () => {
    server.enqueue(
      reply.sse(stored('resp_a', 'Hello.')),
      reply.sse([created, ...textItem('x'), completed()]),
    );
    make();
    const first = await provider.complete({ messages: FIRST_TURN });
    await provider.complete({ messages: history(first) });
    expect(server.requests[1]!.body).not.toHaveProperty('previous_response_id');

    server.enqueue(
      reply.sse(stored('resp_a', 'Hello.')),
      reply.json(401, { error: { message: 'Incorrect API key', code: 'invalid_api_key' } }),
    );
    make({ store: true });
    const again = await provider.complete({ messages: FIRST_TURN });
    const error = await llmErrorOf(provider.complete({ messages: history(again) }));
    expect(error.kind).toBe('authentication');
    expect(recorder.getEvents('provider:response_chain_invalidated')).toEqual([]);
  });
});
