import { type ChatRequest, checkData, type StreamEvent } from '@amplifier/core';
import {
  FakeLlmServer,
  llmErrorOf,
  reply,
  sseEvent,
  streamingContractProblems,
} from '@amplifier/provider-http/testing';
import { EventRecorder } from '@amplifier/testing';
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
import { type OpenAIConfig, resolveConfig } from './config.js';
import { OpenAIProvider } from './provider.js';

const REQUEST: ChatRequest = { messages: [{ role: 'user', content: 'Say hello.' }] };

let server: FakeLlmServer;
let provider: OpenAIProvider;
let recorder: EventRecorder;

function make(config: OpenAIConfig = {}): OpenAIProvider {
  recorder = new EventRecorder();
  provider = new OpenAIProvider(
    resolveConfig(
      {
        api_key: 'sk-test',
        base_url: `${server.url}/v1`,
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

async function collect(iterable: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of iterable) out.push(e);
  return out;
}

describe('complete()', () => {
  it('non-streamed: sends the request with the key and returns content, usage and cost', async () => {
    server.enqueue(reply.json(200, completion({ content: 'Hello!' })));
    const response = await make({ use_streaming: false }).complete(REQUEST);
    expect(checkData('chat-response', response)).toEqual([]);
    expect(response.content).toEqual([{ type: 'text', text: 'Hello!' }]);
    expect(response.usage).toEqual({
      input_tokens: 12,
      output_tokens: 7,
      total_tokens: 19,
      cost_usd: '0.000006',
    });
    const sent = server.requests[0]!;
    expect(sent).toMatchObject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { authorization: 'Bearer sk-test' },
    });
    expect(sent.body).toEqual({ model: MODEL, messages: [{ role: 'user', content: 'Say hello.' }] });
  });

  it('llm:request and llm:response carry the reference payloads', async () => {
    server.enqueue(reply.sse(textStream(['Hel', 'lo'])));
    await make({ raw: true }).complete({
      ...REQUEST,
      messages: [{ role: 'system', content: 's' }, ...REQUEST.messages],
    });
    const [request] = recorder.getEvents('llm:request');
    expect(request![1]).toMatchObject({
      provider: 'openai',
      model: MODEL,
      message_count: 2,
      has_instructions: true,
      reasoning_enabled: false,
      thinking_enabled: false,
      thinking_budget: null,
      background_mode: false,
      stream: true,
      raw: { model: MODEL, stream: true },
    });
    const [response] = recorder.getEvents('llm:response');
    expect(response![1]).toMatchObject({
      provider: 'openai',
      model: MODEL,
      status: 'ok',
      usage: { input_tokens: 12, output_tokens: 7 },
      continuation_count: 0,
      finish_reason: 'stop',
    });
    expect(response![1].usage).not.toHaveProperty('total_tokens');
    expect(typeof response![1].duration_ms).toBe('number');
  });

  it('streaming aggregated: text pieces and usage from the final chunk make one response', async () => {
    server.enqueue(reply.sse(textStream(['Hel', 'lo', ' wor', 'ld'])));
    const response = await make().complete(REQUEST);
    expect(response.content).toEqual([{ type: 'text', text: 'Hello world' }]);
    expect(response.usage).toMatchObject({ input_tokens: 12, output_tokens: 7 });
    expect(server.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const blocks = recorder.names().filter((n) => n.startsWith('llm:stream_block'));
    expect(blocks).toEqual([
      'llm:stream_block_start',
      ...Array(4).fill('llm:stream_block_delta'),
      'llm:stream_block_end',
    ]);
  });

  it('tool calls split across chunks (arguments deltas, interleaved calls) are reassembled with their ids', async () => {
    server.enqueue(reply.sse(toolCallStream()));
    const response = await make().complete(REQUEST);
    expect(response.tool_calls).toEqual([
      { id: 'call_read', name: 'read_file', arguments: { path: 'a.txt' } },
      { id: 'call_grep', name: 'grep', arguments: { pattern: 'é\n' } },
    ]);
    // Each call is stored once: in tool_calls, not again as a content block.
    expect(response.content.filter((b) => b.type === 'tool_call')).toHaveLength(0);
    expect(response.finish_reason).toBe('tool_calls');
    expect(provider.parseToolCalls(response)).toEqual(response.tool_calls);
    // Interleaved calls: a tool_use block each, in start order, start and end only.
    expect(streamingContractProblems(recorder.getEvents(), 'ok')).toEqual([]);
    expect(
      recorder.getEvents('llm:stream_block_start').map(([, d]) => [d.block_index, d.block_type, d.name]),
    ).toEqual([
      [0, 'tool_use', 'read_file'],
      [1, 'tool_use', 'grep'],
    ]);
    expect(recorder.names()).not.toContain('llm:stream_block_delta');
  });

  it('a server that answers a stream request with plain JSON still works', async () => {
    server.enqueue(reply.json(200, completion({ content: 'not streamed' })));
    expect((await make().complete(REQUEST)).content).toEqual([{ type: 'text', text: 'not streamed' }]);
  });

  it('model override per request; rate-limit headers reach llm:response', async () => {
    server.enqueue(
      reply.json(200, completion({ content: 'x' }), {
        'x-ratelimit-limit-requests': '500',
        'x-ratelimit-remaining-tokens': '149000',
      }),
    );
    await make({ use_streaming: false }).complete({ ...REQUEST, model: 'gpt-4.1', timeout: 5 });
    expect(server.requests[0]!.body.model).toBe('gpt-4.1');
    expect(recorder.getEvents('llm:response')[0]![1]).toMatchObject({
      model: 'gpt-4.1',
      rate_limits: { requests_limit: 500, tokens_remaining: 149_000 },
    });
  });
});

describe('stream()', () => {
  it('yields message.start, deltas as the server sent them, tool call events, then message.end', async () => {
    server.enqueue(
      reply.sse([
        chunk({ role: 'assistant', content: '' }),
        chunk({ content: 'Ok' }),
        ...toolCallStream().slice(1),
      ]),
    );
    const events = await collect(make().stream!(REQUEST));
    expect(events.map((e) => e.type)).toEqual([
      'message.start',
      'text.delta',
      'tool_call.start',
      'tool_call.delta',
      'tool_call.delta',
      'tool_call.start',
      'tool_call.delta',
      'tool_call.delta',
      'tool_call.delta',
      'tool_call.end',
      'tool_call.end',
      'message.end',
    ]);
    const fragments = events.filter((e) => e.type === 'tool_call.delta' && e.id === 'call_read');
    expect(fragments.map((e) => (e as { arguments_fragment: string }).arguments_fragment).join('')).toBe(
      '{"path": "a.txt"}',
    );
    const end = events.at(-1) as Extract<StreamEvent, { type: 'message.end' }>;
    expect(end.response.content[0]).toEqual({ type: 'text', text: 'Ok' });
    expect(end.response.usage?.cost_usd).toBeDefined();
  });

  it('a connection dropped mid-stream: the events so far, then a StreamError; llm:stream_aborted and llm:response error', async () => {
    server.enqueue(reply.sseThenDrop([chunk({ role: 'assistant', content: '' }), chunk({ content: 'Hel' })]));
    const seen: StreamEvent[] = [];
    const error = await llmErrorOf(
      (async () => {
        for await (const e of make().stream!(REQUEST)) seen.push(e);
      })(),
    );
    expect(error.kind).toBe('stream');
    expect(seen.map((e) => e.type)).toEqual(['message.start', 'text.delta']);
    expect(recorder.names()).toContain('llm:stream_aborted');
    expect(recorder.getEvents('llm:response')[0]![1]).toMatchObject({
      status: 'error',
      error_kind: 'stream',
    });
    expect(server.requests).toHaveLength(1); // never retried after events went out
  });

  it('a slow stream aborted by signal: rejects with an abort error and closes the connection', async () => {
    const slow = reply.sseThenHang([
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'thinking slowly' }),
    ]);
    server.enqueue(slow.handler);
    const controller = new AbortController();
    const error = await llmErrorOf(
      (async () => {
        for await (const e of make().stream!(REQUEST, { signal: controller.signal })) {
          if (e.type === 'text.delta') controller.abort(new Error('stop'));
        }
      })(),
    );
    expect(error.kind).toBe('abort');
    await slow.closed;
    expect(recorder.getEvents('llm:response')[0]![1]).toMatchObject({ status: 'error', error_kind: 'abort' });
  });

  it('a consumer that stops reading releases the connection and reports the stream aborted', async () => {
    const slow = reply.sseThenHang([chunk({ role: 'assistant', content: '' }), chunk({ content: 'a' })]);
    server.enqueue(slow.handler);
    for await (const e of make().stream!(REQUEST)) if (e.type === 'text.delta') break;
    await slow.closed;
    expect(recorder.getEvents('llm:stream_aborted')[0]![1]).toMatchObject({
      request_id: expect.any(String),
      error: { type: 'AbortError' },
    });
  });
});

describe('errors and retries', () => {
  it('429 with Retry-After, then success: one provider:retry honouring Retry-After', async () => {
    server.enqueue(
      reply.json(
        429,
        { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } },
        { 'retry-after': '0.05' },
      ),
      reply.sse(textStream(['fine'])),
    );
    const response = await make().complete(REQUEST);
    expect(response.content).toEqual([{ type: 'text', text: 'fine' }]);
    expect(server.requests).toHaveLength(2);
    const retries = recorder.getEvents('provider:retry');
    expect(retries).toHaveLength(1);
    expect(retries[0]![1]).toMatchObject({
      provider: 'openai',
      model: MODEL,
      attempt: 1,
      max_retries: 5,
      error_type: 'RateLimitError',
      status_code: 429,
      retry_after: 0.05,
    });
    expect(retries[0]![1].delay as number).toBeGreaterThanOrEqual(0.05);
  });

  it('with jitter on, the wait after a Retry-After is never shorter than it', async () => {
    const limited = reply.json(429, { error: { message: 'slow down' } }, { 'retry-after': '0.02' });
    server.enqueue(limited, limited, limited, limited, reply.sse(textStream(['ok'])));
    await make({ retry_jitter: 0.5 }).complete(REQUEST);
    const delays = recorder.getEvents('provider:retry').map(([, d]) => d.delay as number);
    expect(delays).toHaveLength(4);
    for (const delay of delays) expect(delay).toBeGreaterThanOrEqual(0.02);
  });

  it('500 then success, and overloaded 529 then success', async () => {
    server.enqueue(
      reply.json(500, { error: { message: 'The server had an error' } }),
      reply.json(529, { error: { message: 'Overloaded' } }),
      reply.sse(textStream(['ok'])),
    );
    expect((await make().complete(REQUEST)).content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(recorder.getEvents('provider:retry').map(([, d]) => d.status_code)).toEqual([500, 529]);
  });

  it('retries are bounded by max_retries; the last error is thrown and llm:response reports it once', async () => {
    server.fallback(reply.json(503, { error: { message: 'unavailable' } }));
    const error = await llmErrorOf(make({ max_retries: 2 }).complete(REQUEST));
    expect(error).toMatchObject({ kind: 'unavailable', status_code: 503, retryable: true });
    expect(server.requests).toHaveLength(3);
    expect(recorder.getEvents('provider:retry').map(([, d]) => d.attempt)).toEqual([1, 2]);
    expect(recorder.getEvents('llm:response')).toHaveLength(1);
    expect(recorder.getEvents('llm:response')[0]![1]).toMatchObject({ status: 'error', status_code: 503 });
  });

  it('a non-retryable error (401) is thrown at once', async () => {
    server.enqueue(reply.json(401, { error: { message: 'Incorrect API key', code: 'invalid_api_key' } }));
    const error = await llmErrorOf(make().complete(REQUEST));
    expect(error).toMatchObject({ kind: 'authentication', status_code: 401, retryable: false });
    expect(server.requests).toHaveLength(1);
  });

  it('context length detected from a 400 body', async () => {
    server.enqueue(
      reply.json(400, {
        error: { message: "This model's maximum context length is 8192 tokens", code: null },
      }),
    );
    expect((await llmErrorOf(make().complete(REQUEST))).kind).toBe('context_length');
  });

  it('malformed JSON in a non-streamed answer fails at once with a hint about base_url', async () => {
    server.enqueue(reply.raw(200, '{"choices": [', 'application/json'));
    const error = await llmErrorOf(make({ use_streaming: false }).complete(REQUEST));
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(
      /not a JSON object.*is base_url \(http:\/\/127\.0\.0\.1:\d+\/v1\) the API root, e\.g\. https:\/\/api\.openai\.com\/v1 or http:\/\/localhost:11434\/v1\?$/,
    );
  });

  it('malformed JSON in a stream is a stream error, retried by complete() before any delta', async () => {
    server.enqueue(
      reply.sse([chunk({ role: 'assistant', content: '' }), 'data: {not json\n\n']),
      reply.sse(textStream(['b'])),
    );
    expect((await make().complete(REQUEST)).content).toEqual([{ type: 'text', text: 'b' }]);
    expect(recorder.getEvents('provider:retry')[0]![1]).toMatchObject({ error_type: 'StreamError' });
  });

  it('a connection dropped before any delta is retried by complete() and the retry succeeds', async () => {
    server.enqueue(
      reply.sseThenDrop([chunk({ role: 'assistant', content: '' })]),
      reply.sse(textStream(['whole'])),
    );
    expect((await make().complete(REQUEST)).content).toEqual([{ type: 'text', text: 'whole' }]);
    expect(recorder.names()).not.toContain('llm:stream_aborted');
  });

  it('a connection dropped after a delta is not retried: llm:stream_aborted, then the StreamError', async () => {
    server.enqueue(reply.sseThenDrop([chunk({ content: 'par' })]), reply.sse(textStream(['whole'])));
    expect((await llmErrorOf(make().complete(REQUEST))).kind).toBe('stream');
    expect(server.requests).toHaveLength(1);
    expect(recorder.names().slice(-2)).toEqual(['llm:stream_aborted', 'llm:response']);
  });

  it('a stream that ends without [DONE] or finish_reason is incomplete', async () => {
    server.enqueue(reply.sse([chunk({ content: 'cut' })]));
    expect((await llmErrorOf(make({ max_retries: 0 }).complete(REQUEST))).message).toMatch(
      /ended before the response was complete/,
    );
  });

  it('an error event inside the stream is mapped', async () => {
    server.enqueue(
      reply.sse([
        chunk({ content: 'a' }),
        sseEvent({ error: { message: 'Rate limit', code: 'rate_limit_exceeded' } }),
      ]),
    );
    expect((await llmErrorOf(make({ max_retries: 0 }).complete(REQUEST))).kind).toBe('rate_limit');
  });

  it('signal aborts a waiting request: abort error, no retry, the server sees the close', async () => {
    const never = reply.hang();
    server.enqueue(never.handler);
    const controller = new AbortController();
    const arrived = server.nextRequest();
    const pending = make().complete(REQUEST, { signal: controller.signal });
    await arrived;
    controller.abort();
    expect((await llmErrorOf(pending)).kind).toBe('abort');
    await never.closed;
    expect(server.requests).toHaveLength(1);
  });

  it('signal aborts the wait between retries', async () => {
    server.enqueue(reply.json(429, { error: { message: 'slow down' } }, { 'retry-after': '30' }));
    const controller = new AbortController();
    const p = make();
    recorder.emit = async (name, data = {}) => {
      recorder.events.push([name, data]);
      if (name === 'provider:retry') controller.abort();
      return { action: 'continue' };
    };
    const error = await llmErrorOf(p.complete(REQUEST, { signal: controller.signal }));
    expect(error.kind).toBe('abort');
    expect(server.requests).toHaveLength(1);
  });

  it('an already-aborted signal fails before any request', async () => {
    const controller = new AbortController();
    controller.abort();
    expect((await llmErrorOf(make().complete(REQUEST, { signal: controller.signal }))).kind).toBe('abort');
    expect(server.requests).toHaveLength(0);
  });

  it('request timeout: a request may set its own timeout (seconds)', async () => {
    server.enqueue(reply.hang().handler);
    const error = await llmErrorOf(make({ max_retries: 0 }).complete({ ...REQUEST, timeout: 0.2 }));
    expect(error.kind).toBe('timeout');
  });

  it('request timeout: no answer within `timeout` seconds is a timeout error', async () => {
    server.enqueue(reply.hang().handler);
    const error = await llmErrorOf(make({ timeout: 0.2, max_retries: 0 }).complete(REQUEST));
    expect(error.kind).toBe('timeout');
  });
});

describe('missing tool results', () => {
  it('repair event: a call without a result gets a synthetic one and provider:tool_sequence_repaired', async () => {
    server.enqueue(reply.sse(textStream(['ok'])));
    await make().complete({
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'call_lost', tool: 'bash', arguments: {} }] },
        { role: 'user', content: 'and?' },
      ],
    });
    const [repaired] = recorder.getEvents('provider:tool_sequence_repaired');
    expect(repaired![1]).toEqual({
      provider: 'openai',
      repair_count: 1,
      repairs: [{ tool_call_id: 'call_lost', tool_name: 'bash' }],
      synthetic_assistant_count: 1,
    });
    const sent = server.requests[0]!.body.messages;
    expect(sent.map((m: { role: string }) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
    expect(sent[2]).toMatchObject({
      tool_call_id: 'call_lost',
      content: expect.stringContaining('Tool result missing'),
    });
  });
});

describe('models', () => {
  it('listModels reads GET /models and the context sizes servers report', async () => {
    server.enqueue(
      reply.json(200, {
        object: 'list',
        data: [
          { id: 'llama3.1:8b', object: 'model', owned_by: 'library', max_model_len: 131_072 },
          { id: 'qwen', object: 'model' },
        ],
      }),
    );
    const models = await make({ default_model: 'llama3.1:8b' }).listModels();
    expect(server.requests[0]).toMatchObject({ method: 'GET', url: '/v1/models' });
    expect(models.map((m) => [m.id, m.context_window])).toEqual([
      ['llama3.1:8b', 131_072],
      ['qwen', 128_000],
    ]);
    expect(provider.getModelInfo()).toMatchObject({ id: 'llama3.1:8b', context_window: 131_072 });
    expect(provider.getInfo().defaults).toMatchObject({ model: 'llama3.1:8b', context_window: 131_072 });
  });

  it('listModels falls back to the table when the server has no /models', async () => {
    server.enqueue(reply.json(404, { error: 'not found' }));
    const models = await make({
      models: { custom: { context_window: 2048, max_output_tokens: 512 } },
    }).listModels();
    expect(models.map((m) => m.id)).toEqual([MODEL, 'custom']);
  });

  it('getInfo describes the provider', () => {
    const info = make().getInfo();
    expect(info).toMatchObject({ id: 'openai', credential_env_vars: ['OPENAI_API_KEY'] });
    expect(info.defaults).toMatchObject({ model: MODEL, context_window: 128_000, max_output_tokens: 16_384 });
    expect(info.config_fields?.map((f) => f.id)).toEqual(['api_key', 'base_url', 'default_model']);
  });
});

describe('usage', () => {
  it('cache reads and reasoning tokens are reported; cost prices cached tokens at the cached rate', async () => {
    server.enqueue(
      reply.sse([chunk({ content: 'x' }), chunk({}, 'stop'), usageChunk(1_000_000, 0, 400_000), DONE]),
    );
    const response = await make().complete(REQUEST);
    // gpt-4o-mini: 600k * 0.15 + 400k * 0.075 per million
    expect(response.usage).toMatchObject({
      input_tokens: 1_000_000,
      cache_read_tokens: 400_000,
      cost_usd: '0.12',
    });
    expect(provider.costUsd).toBe('0.12');
    expect(recorder.getEvents('llm:response')[0]![1].usage).toMatchObject({
      cache_read_tokens: 400_000,
      cost_usd: '0.12',
    });
  });
});
