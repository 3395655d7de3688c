import { type ChatRequest, checkData, type StreamEvent, toMessageToolCall } from '@amplifier/core';
import {
  FakeLlmServer,
  llmErrorOf,
  reply,
  streamingContractProblems,
} from '@amplifier/provider-http/testing';
import { EventRecorder } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  delta,
  errorBody,
  ev,
  MODEL,
  message,
  messageDelta,
  messageStart,
  REDACTED,
  SIGNATURE,
  start,
  stop,
  textStream,
  thinkingToolStream,
} from './__fixtures__/wire.js';
import { type AnthropicConfig, resolveConfig } from './config.js';
import { AnthropicProvider } from './provider.js';

const REQUEST: ChatRequest = { messages: [{ role: 'user', content: 'Say hello.' }] };

let server: FakeLlmServer;
let provider: AnthropicProvider;
let recorder: EventRecorder;

function make(config: AnthropicConfig = {}): AnthropicProvider {
  recorder = new EventRecorder();
  provider = new AnthropicProvider(
    resolveConfig(
      {
        api_key: 'sk-ant-test',
        base_url: server.url,
        default_model: MODEL,
        min_retry_delay: 0.001,
        retry_jitter: false,
        ...config,
      },
      {},
    ),
    { hooks: recorder },
  );
  return provider;
}

beforeEach(async () => {
  server = await FakeLlmServer.start();
});
afterEach(async () => {
  await provider?.close();
  await server.close();
});

describe('complete()', () => {
  it('non-streamed: x-api-key and anthropic-version headers, content, usage and cost', async () => {
    server.enqueue(reply.json(200, message([{ type: 'text', text: 'Hello!' }])));
    const response = await make({ use_streaming: false, enable_prompt_caching: false }).complete(REQUEST);
    expect(checkData('chat-response', response)).toEqual([]);
    expect(response.content).toEqual([{ type: 'text', text: 'Hello!' }]);
    // sonnet 4.5: 25 * 3 + 15 * 15 per million
    expect(response.usage).toEqual({
      input_tokens: 25,
      output_tokens: 15,
      total_tokens: 40,
      cost_usd: '0.0003',
    });
    expect(response.finish_reason).toBe('stop');
    const sent = server.requests[0]!;
    expect(sent).toMatchObject({
      method: 'POST',
      url: '/v1/messages',
      headers: { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' },
    });
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body).toEqual({
      model: MODEL,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello.' }] }],
      max_tokens: 128_000,
      temperature: 0.7,
    });
  });

  it('llm:request / llm:response payloads, with thinking from the extended_thinking option', async () => {
    server.enqueue(reply.sse(textStream(['Hi'])));
    await make({ beta_headers: ['a-2025', 'b-2026'] }).complete(
      { messages: [{ role: 'system', content: 's' }, ...REQUEST.messages] },
      { extended_thinking: true },
    );
    expect(server.requests[0]!.headers['anthropic-beta']).toBe('a-2025,b-2026');
    expect(server.requests[0]!.body.thinking).toEqual({ type: 'enabled', budget_tokens: 32_000 });
    expect(recorder.getEvents('llm:request')[0]![1]).toMatchObject({
      provider: 'anthropic',
      model: MODEL,
      message_count: 1,
      has_system: true,
      thinking_enabled: true,
      thinking_budget: 32_000,
      stream: true,
    });
    expect(recorder.getEvents('llm:response')[0]![1]).toMatchObject({
      provider: 'anthropic',
      status: 'ok',
      usage: { input_tokens: 25, output_tokens: 15 },
      finish_reason: 'stop',
    });
  });

  it('model override per request; rate-limit headers reach llm:response', async () => {
    server.enqueue(
      reply.json(200, message([{ type: 'text', text: 'x' }]), {
        'anthropic-ratelimit-requests-limit': '50',
        'anthropic-ratelimit-requests-remaining': '49',
      }),
    );
    await make({ use_streaming: false }).complete({ ...REQUEST, model: 'claude-haiku-4-5' });
    expect(server.requests[0]!.body.model).toBe('claude-haiku-4-5');
    expect(recorder.getEvents('llm:response')[0]![1]).toMatchObject({
      model: 'claude-haiku-4-5',
      rate_limits: { requests_limit: 50, requests_remaining: 49 },
    });
  });

  it('streamed: thinking with its signature, redacted thinking, text and a tool call split across input_json_delta', async () => {
    server.enqueue(reply.sse(thinkingToolStream()));
    const response = await make().complete(REQUEST);
    // Signature and input JSON fragments emit nothing; redacted thinking has no block of the contract.
    expect(streamingContractProblems(recorder.getEvents(), 'ok')).toEqual([]);
    expect(
      recorder
        .getEvents()
        .filter(([n]) => n.startsWith('llm:stream_'))
        .map(([n, d]) => `${n.slice(17)} ${d.block_index} ${d.block_type}`),
    ).toEqual([
      'start 0 thinking',
      'delta 0 thinking',
      'delta 0 thinking',
      'end 0 thinking',
      'start 1 text',
      'delta 1 text',
      'end 1 text',
      'start 2 tool_use',
      'end 2 tool_use',
    ]);
    expect(response.content).toEqual([
      { type: 'thinking', thinking: 'The user wants a file read.', signature: SIGNATURE },
      { type: 'redacted_thinking', data: REDACTED },
      { type: 'text', text: 'Reading it.' },
    ]);
    expect(response.tool_calls).toEqual([
      { id: 'toolu_01A', name: 'read_file', arguments: { path: 'a.txt', n: [1, 2] } },
    ]);
    expect(response.usage).toMatchObject({
      input_tokens: 145,
      output_tokens: 42,
      cache_read_tokens: 100,
      cache_write_tokens: 20,
    });
    expect(response.finish_reason).toBe('tool_calls');
    expect(provider.parseToolCalls(response)).toEqual(response.tool_calls);
  });

  it('thinking signatures preserved across turns: the next request carries the blocks unchanged', async () => {
    server.enqueue(reply.sse(thinkingToolStream()), reply.sse(textStream(['done'])));
    const p = make();
    const first = await p.complete(REQUEST);
    await p.complete({
      messages: [
        ...REQUEST.messages,
        {
          role: 'assistant',
          content: first.content,
          tool_calls: first.tool_calls!.map(toMessageToolCall),
        },
        { role: 'tool', tool_call_id: 'toolu_01A', content: 'file text' },
      ],
    });
    const sent = server.requests[1]!.body.messages;
    expect(sent[1].content.slice(0, 2)).toEqual([
      { type: 'thinking', thinking: 'The user wants a file read.', signature: SIGNATURE },
      { type: 'redacted_thinking', data: REDACTED },
    ]);
    expect(sent[2].content[0]).toMatchObject({
      type: 'tool_result',
      tool_use_id: 'toolu_01A',
      content: 'file text',
    });
  });
});

describe('stream()', () => {
  it('yields message.start, deltas as sent, tool call events with the raw input fragments, message.end', async () => {
    server.enqueue(reply.sse(thinkingToolStream()));
    const events: StreamEvent[] = [];
    for await (const e of make().stream(REQUEST)) events.push(e);
    expect(events.map((e) => e.type)).toEqual([
      'message.start',
      'thinking.delta',
      'thinking.delta',
      'text.delta',
      'tool_call.start',
      'tool_call.delta',
      'tool_call.delta',
      'tool_call.delta',
      'tool_call.delta',
      'tool_call.end',
      'message.end',
    ]);
    const fragments = events.flatMap((e) => (e.type === 'tool_call.delta' ? [e.arguments_fragment] : []));
    expect(fragments.join('')).toBe('{"path": "a.txt", "n": [1, 2]}');
    expect(recorder.names().filter((n) => n.startsWith('llm:stream_block_'))).toEqual([
      'llm:stream_block_start',
      'llm:stream_block_delta',
      'llm:stream_block_delta',
      'llm:stream_block_end',
      'llm:stream_block_start',
      'llm:stream_block_delta',
      'llm:stream_block_end',
      'llm:stream_block_start',
      'llm:stream_block_end',
    ]);
    expect(recorder.getEvents('llm:stream_block_start')[2]![1]).toEqual({
      request_id: expect.any(String),
      block_index: 2,
      block_type: 'tool_use',
      name: 'read_file',
    });
  });

  it('a connection dropped mid-stream: the events so far, then a StreamError (not retried)', async () => {
    server.enqueue(
      reply.sseThenDrop([
        messageStart(),
        start(0, { type: 'text', text: '' }),
        delta(0, { type: 'text_delta', text: 'Hel' }),
      ]),
    );
    const seen: string[] = [];
    const error = await llmErrorOf(
      (async () => {
        for await (const e of make().stream(REQUEST)) seen.push(e.type);
      })(),
    );
    expect(error.kind).toBe('stream');
    expect(seen).toEqual(['message.start', 'text.delta']);
    expect(server.requests).toHaveLength(1);
    expect(recorder.getEvents('llm:response')[0]![1]).toMatchObject({
      status: 'error',
      error_kind: 'stream',
    });
  });

  it('a slow stream aborted by signal: abort error, connection closed', async () => {
    const slow = reply.sseThenHang([
      messageStart(),
      start(0, { type: 'text', text: '' }),
      delta(0, { type: 'text_delta', text: 'slow' }),
    ]);
    server.enqueue(slow.handler);
    const controller = new AbortController();
    const error = await llmErrorOf(
      (async () => {
        for await (const e of make().stream(REQUEST, { signal: controller.signal })) {
          if (e.type === 'text.delta') controller.abort();
        }
      })(),
    );
    expect(error.kind).toBe('abort');
    await slow.closed;
  });
});

describe('errors and retries', () => {
  it('429 with Retry-After, then success', async () => {
    server.enqueue(
      reply.json(
        429,
        errorBody('rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'),
        { 'retry-after': '0.05' },
      ),
      reply.sse(textStream(['ok'])),
    );
    expect((await make().complete(REQUEST)).content).toEqual([{ type: 'text', text: 'ok' }]);
    const [retry] = recorder.getEvents('provider:retry');
    expect(retry![1]).toMatchObject({
      provider: 'anthropic',
      attempt: 1,
      max_retries: 5,
      error_type: 'RateLimitError',
      status_code: 429,
    });
    expect(retry![1].delay as number).toBeGreaterThanOrEqual(0.05);
  });

  it('500 then success; overloaded (529) then success', async () => {
    server.enqueue(
      reply.json(500, errorBody('api_error', 'Internal server error')),
      reply.json(529, errorBody('overloaded_error', 'Overloaded')),
      reply.sse(textStream(['ok'])),
    );
    expect((await make().complete(REQUEST)).content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(recorder.getEvents('provider:retry').map(([, d]) => d.status_code)).toEqual([500, 529]);
  });

  it('overloaded error event mid-stream: complete() retries and succeeds', async () => {
    server.enqueue(
      reply.sse([
        messageStart(),
        start(0, { type: 'text', text: '' }),
        ev('error', { error: { type: 'overloaded_error', message: 'Overloaded' } }),
      ]),
      reply.sse(textStream(['after'])),
    );
    expect((await make().complete(REQUEST)).content).toEqual([{ type: 'text', text: 'after' }]);
    expect(recorder.getEvents('provider:retry')[0]![1]).toMatchObject({ error_kind: 'unavailable' });
    // No delta was emitted before the error: no llm:stream_aborted, and the retry is safe.
    expect(recorder.names()).not.toContain('llm:stream_aborted');
  });

  it('bounded by max_retries', async () => {
    server.fallback(reply.json(529, errorBody('overloaded_error', 'Overloaded')));
    const error = await llmErrorOf(make({ max_retries: 1 }).complete(REQUEST));
    expect(error).toMatchObject({ kind: 'unavailable', status_code: 529 });
    expect(server.requests).toHaveLength(2);
  });

  it('authentication errors are not retried', async () => {
    server.enqueue(reply.json(401, errorBody('authentication_error', 'invalid x-api-key')));
    expect((await llmErrorOf(make().complete(REQUEST))).kind).toBe('authentication');
    expect(server.requests).toHaveLength(1);
  });

  it('context length from a 400 body', async () => {
    server.enqueue(
      reply.json(
        400,
        errorBody('invalid_request_error', 'prompt is too long: 250000 tokens > 200000 maximum'),
      ),
    );
    expect((await llmErrorOf(make().complete(REQUEST))).kind).toBe('context_length');
  });

  it('malformed JSON: a non-JSON body fails at once; malformed JSON in a stream is retried', async () => {
    server.enqueue(reply.raw(200, '{"content": [', 'application/json'));
    const error = await llmErrorOf(make({ use_streaming: false }).complete(REQUEST));
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(
      /not a JSON object.*is base_url \(.*\) the API root, e\.g\. https:\/\/api\.anthropic\.com\?$/,
    );
    await provider.close();
    server.enqueue(
      reply.sse([messageStart(), 'event: content_block_start\ndata: {oops\n\n']),
      reply.sse(textStream(['fine'])),
    );
    expect((await make().complete(REQUEST)).content).toEqual([{ type: 'text', text: 'fine' }]);
  });

  it('a stream that ends before message_stop is incomplete', async () => {
    server.enqueue(
      reply.sse([
        messageStart(),
        start(0, { type: 'text', text: '' }),
        delta(0, { type: 'text_delta', text: 'x' }),
        stop(0),
        messageDelta('end_turn'),
      ]),
    );
    expect((await llmErrorOf(make({ max_retries: 0 }).complete(REQUEST))).message).toMatch(
      /before message_stop/,
    );
  });

  it('a connection dropped mid-stream is retried by complete()', async () => {
    server.enqueue(
      reply.sseThenDrop([messageStart(), start(0, { type: 'text', text: '' })]),
      reply.sse(textStream(['whole'])),
    );
    expect((await make().complete(REQUEST)).content).toEqual([{ type: 'text', text: 'whole' }]);
  });

  it('signal aborts a waiting request', async () => {
    const never = reply.hang();
    server.enqueue(never.handler);
    const controller = new AbortController();
    const arrived = server.nextRequest();
    const pending = make().complete(REQUEST, { signal: controller.signal });
    await arrived;
    controller.abort();
    expect((await llmErrorOf(pending)).kind).toBe('abort');
    await never.closed;
  });
});

describe('missing tool results', () => {
  it('repair event: synthetic tool_result blocks keep the API from rejecting the conversation', async () => {
    server.enqueue(reply.sse(textStream(['ok'])));
    await make().complete({
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: [{ type: 'tool_call', id: 'toolu_a', name: 'bash', input: {} }],
          tool_calls: [
            { id: 'toolu_a', tool: 'bash', arguments: {} },
            { id: 'toolu_b', tool: 'grep', arguments: {} },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_a', content: 'done' },
      ],
    });
    expect(recorder.getEvents('provider:tool_sequence_repaired')[0]![1]).toEqual({
      provider: 'anthropic',
      repair_count: 1,
      repairs: [{ tool_call_id: 'toolu_b', tool_name: 'grep' }],
    });
    const last = server.requests[0]!.body.messages.at(-1);
    expect(last.role).toBe('user');
    expect(last.content.map((b: { tool_use_id: string }) => b.tool_use_id)).toEqual(['toolu_a', 'toolu_b']);
    expect(last.content[1].content).toContain('Tool result missing from conversation history');
  });
});

describe('models', () => {
  it('listModels pages through GET /v1/models', async () => {
    server.enqueue(
      reply.json(200, {
        data: [
          { type: 'model', id: 'claude-a', display_name: 'A', max_input_tokens: 300_000, max_tokens: 32_000 },
        ],
        has_more: true,
        first_id: 'claude-a',
        last_id: 'claude-a',
      }),
      reply.json(200, {
        data: [{ type: 'model', id: 'claude-b', display_name: 'B' }],
        has_more: false,
        first_id: 'claude-b',
        last_id: 'claude-b',
      }),
    );
    const models = await make().listModels();
    expect(server.requests.map((r) => r.url)).toEqual([
      '/v1/models?limit=1000',
      '/v1/models?limit=1000&after_id=claude-a',
    ]);
    expect(models.map((m) => [m.id, m.display_name, m.context_window, m.max_output_tokens])).toEqual([
      ['claude-a', 'A', 300_000, 32_000],
      ['claude-b', 'B', 200_000, 8192],
    ]);
  });

  it('getInfo defaults come from the model table', () => {
    expect(make().getInfo()).toMatchObject({
      id: 'anthropic',
      credential_env_vars: ['ANTHROPIC_API_KEY'],
      defaults: {
        model: MODEL,
        max_tokens: 128_000,
        temperature: 0.7,
        context_window: 1_000_000,
        max_output_tokens: 128_000,
      },
    });
  });
});
