/**
 * HttpLlmProvider and HttpWire with a toy API against a real local server:
 * POST /v1/chat answers `{"text", "usage"}` as JSON, or SSE `{"delta"}`
 * messages ending with `{"done": true, "usage"}`; errors are `{"error": {...}}`.
 */

import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import type { ChatResponse, StreamEvent } from '@amplifier/core';
import { createLLMError } from '@amplifier/core';
import { EventRecorder, RecordingLogger } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fetchTransport } from './__fixtures__/fetch-transport.js';
import { type ResolvedProviderConfig, resolveProviderConfig } from './config.js';
import { CostMeter } from './cost.js';
import { streamPayloadError } from './errors.js';
import { HttpLlmProvider, type HttpProviderSpec, providerParts } from './http-provider.js';
import { ModelCatalog } from './models.js';
import { FakeLlmServer, reply, sseEvent } from './testing/fake-llm-server.js';

type Json = Record<string, unknown>;

const STYLE = {
  kinds: { slow_down: 'rate_limit' as const },
  rateLimits: {
    resources: ['requests'],
    header: (resource: string, field: string) => `x-ratelimit-${field}-${resource}`,
    resetSeconds: (value: string) => Number(value),
  },
};

function usageOf(value: unknown) {
  const usage = (value ?? {}) as { in?: number; out?: number };
  return {
    input_tokens: usage.in ?? 0,
    output_tokens: usage.out ?? 0,
    total_tokens: (usage.in ?? 0) + (usage.out ?? 0),
  };
}

function spec(config: ResolvedProviderConfig): HttpProviderSpec {
  return {
    name: 'toy',
    module: 'provider-toy',
    info: {
      display_name: 'Toy',
      credential_env_vars: ['TOY_KEY'],
      capabilities: ['streaming'],
      config_fields: [],
    },
    auth: config.apiKey === undefined ? {} : { authorization: `Bearer ${config.apiKey}` },
    transport: fetchTransport(config.baseUrl),
    catalog: new ModelCatalog({
      defaultModel: config.model,
      overrides: config.models,
      builtin: { toy: { context_window: 1000, max_output_tokens: 100 } },
      unknown: { context_window: 10, max_output_tokens: 5 },
      capabilities: ['streaming'],
      serverLimits: (entry) => (typeof entry.ctx === 'number' ? { context_window: entry.ctx } : {}),
      listBuiltin: false,
    }),
    costs: new CostMeter(config.prices, { toy: { input: 1, output: 2 } }),
    listing: 'GET /v1/models',
    async listModels(getJson) {
      const data = (await getJson('/models')).data;
      if (!Array.isArray(data)) throw new Error('no data');
      return data as Json[];
    },
    api: {
      path: '/chat',
      errors: STYLE,
      baseUrlExample: 'http://localhost:1/v1',
      maxRetryDelayMs: config.maxRetryDelayMs,
      build: (_request, messages, { model, stream }) => ({
        body: { model, stream, messages },
        // A request may name its own endpoint (Gemini: the model and the method are in the path).
        ...(model === 'routed' && { path: `/routed/${stream ? 'stream' : 'once'}` }),
        messageCount: messages.length,
        hasInstructions: false,
        thinking: { enabled: false, budget: null },
      }),
      parse(payload, context): ChatResponse {
        if (payload.error !== undefined) throw streamPayloadError(STYLE, payload, context);
        return { content: [{ type: 'text', text: String(payload.text) }], usage: usageOf(payload.usage) };
      },
      async *streamEvents(messages, context) {
        let text = '';
        yield { type: 'message.start' };
        for await (const message of messages) {
          const data = JSON.parse(message.data) as Json;
          if (data.error !== undefined) throw streamPayloadError(STYLE, data, context);
          if (data.done === true) {
            const response: ChatResponse = { content: [{ type: 'text', text }], usage: usageOf(data.usage) };
            yield { type: 'message.end', response };
            return;
          }
          text += String(data.delta);
          yield { type: 'text.delta', text: String(data.delta) };
        }
        throw createLLMError('stream', 'cut off', context);
      },
      responseEvents: (response) => [{ type: 'message.start' }, { type: 'message.end', response }],
    },
  };
}

class ToyProvider extends HttpLlmProvider {
  constructor(
    config: ResolvedProviderConfig,
    options: ConstructorParameters<typeof HttpLlmProvider>[2] = {},
  ) {
    super(config, spec(config), options);
  }
}

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const listener = createServer();
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const { port } = listener.address() as AddressInfo;
  await new Promise<void>((resolve) => listener.close(() => resolve()));
  return port;
}

let server: FakeLlmServer;
let provider: ToyProvider;
let recorder: EventRecorder;
let logger: RecordingLogger;

function make(config: Json = {}): ToyProvider {
  recorder = new EventRecorder();
  logger = new RecordingLogger();
  const resolved = resolveProviderConfig(
    { api_key: 'k', base_url: `${server.url}/v1`, default_model: 'toy', min_retry_delay: 0.001, ...config },
    {
      module: 'provider-toy',
      apiKeyEnv: 'TOY_KEY',
      baseUrlEnv: 'TOY_URL',
      baseUrl: 'https://toy.example',
      model: 'toy',
      baseUrlHint: '',
    },
    {},
  );
  provider = new ToyProvider(resolved, { hooks: recorder, logger });
  return provider;
}

const REQUEST = { messages: [{ role: 'user' as const, content: 'hi' }] };
const stream = (...deltas: string[]) =>
  reply.sse([
    ...deltas.map((delta) => sseEvent({ delta })),
    sseEvent({ done: true, usage: { in: 3, out: 4 } }),
  ]);

beforeEach(async () => {
  server = await FakeLlmServer.start();
});
afterEach(async () => {
  await provider?.close();
  await server.close();
});

describe('HttpLlmProvider', () => {
  it('streams a completion: headers (auth over config headers), body, events, cost, llm:response', async () => {
    server.enqueue(stream('Hel', 'lo'));
    const response = await make({ headers: { Authorization: 'nope', 'X-Extra': '1' } }).complete(REQUEST);
    expect(response.content).toEqual([{ type: 'text', text: 'Hello' }]);
    expect(response.usage?.cost_usd).toBe('0.000011');
    expect(provider.costUsd).toBe('0.000011');
    expect(server.requests[0]).toMatchObject({
      method: 'POST',
      url: '/v1/chat',
      headers: { authorization: 'Bearer k', 'x-extra': '1', accept: 'application/json' },
      body: { model: 'toy', stream: true, messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(recorder.names()).toContain('llm:stream_block_delta');
    expect(recorder.getEvents('llm:response')[0]![1]).toMatchObject({ status: 'ok', provider: 'toy' });
  });

  it('non-streamed, and a JSON answer to a stream request', async () => {
    server.enqueue(reply.json(200, { text: 'whole', usage: { in: 1, out: 1 } }));
    expect((await make({ use_streaming: false }).complete(REQUEST)).content).toEqual([
      { type: 'text', text: 'whole' },
    ]);
    server.enqueue(reply.json(200, { text: 'json', usage: {} }));
    const events: StreamEvent[] = [];
    for await (const event of provider.stream(REQUEST)) events.push(event);
    expect(events.map((e) => e.type)).toEqual(['message.start', 'message.end']);
  });

  it('an error response: mapped by the API style, retried with provider:retry; rate limits reach llm:response', async () => {
    server.enqueue(
      reply.json(429, { error: { message: 'wait', code: 'slow_down' } }, { 'retry-after': '0.01' }),
      reply.json(200, { text: 'ok', usage: {} }, { 'x-ratelimit-remaining-requests': '9' }),
    );
    await make({ use_streaming: false }).complete(REQUEST);
    expect(recorder.getEvents('provider:retry')[0]![1]).toMatchObject({
      error_kind: 'rate_limit',
      status_code: 429,
      retry_after: 0.01,
    });
    expect(recorder.getEvents('llm:response')[0]![1]).toMatchObject({
      rate_limits: { requests_remaining: 9 },
    });
  });

  it('a 429 without Retry-After waits for the exhausted limit to reset; an error payload in a stream is mapped', async () => {
    server.enqueue(
      reply.json(429, {}, { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '0.01' }),
      // Before any delta: retried (after one, the call ends with llm:stream_aborted instead).
      reply.sse([sseEvent({ error: { message: 'busy', code: 'slow_down' } })]),
      stream('b'),
    );
    await make().complete(REQUEST);
    expect(recorder.getEvents('provider:retry').map(([, d]) => [d.error_kind, d.retry_after])).toEqual([
      ['rate_limit', 0.01],
      ['rate_limit', undefined],
    ]);
  });

  it('a refused connection to a local base_url is retried once at most, the retry naming the cause', async () => {
    const port = await closedPort();
    const pending = make({ base_url: `http://127.0.0.1:${port}/v1`, max_retries: 5 }).complete(REQUEST);
    await expect(pending).rejects.toMatchObject({ kind: 'network' });
    const retries = recorder.getEvents('provider:retry').map(([, data]) => data);
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({
      attempt: 1,
      max_retries: 1,
      error: expect.stringContaining('could not reach the server'),
      cause: `connect ECONNREFUSED 127.0.0.1:${port}`,
    });
  });

  it('a body that is not JSON: a non-retryable error that points at base_url', async () => {
    server.enqueue(reply.raw(200, '<!DOCTYPE html>', 'text/html'));
    await expect(make({ use_streaming: false }).complete(REQUEST)).rejects.toMatchObject({
      kind: 'unknown',
      retryable: false,
      message: expect.stringMatching(
        /is base_url \(http:\/\/127\.0\.0\.1:\d+\/v1\) the API root, e\.g\. http:\/\/localhost:1\/v1\?$/,
      ),
    });
  });

  it('getInfo, getModelInfo, parseToolCalls', () => {
    make({ models: { toy: { max_output_tokens: 50 } } });
    expect(provider.getInfo()).toEqual({
      id: 'toy',
      display_name: 'Toy',
      credential_env_vars: ['TOY_KEY'],
      capabilities: ['streaming'],
      config_fields: [],
      defaults: {
        model: 'toy',
        max_tokens: 50,
        temperature: null,
        timeout: 600,
        context_window: 1000,
        max_output_tokens: 50,
        base_url: `${server.url}/v1`,
      },
    });
    const call = { id: 'c1', name: 'read', arguments: { a: 1 } };
    expect(provider.parseToolCalls({ content: [], tool_calls: [call] })).toEqual([call]);
    expect(
      provider.parseToolCalls({ content: [{ type: 'tool_call', id: 'c1', name: 'read', input: { a: 1 } }] }),
    ).toEqual([call]);
  });

  it('listModels reads the listing once it works; a failure falls back to the table and is logged', async () => {
    server.enqueue(
      reply.json(404, { error: { message: 'no listing' } }),
      reply.json(200, { data: [{ id: 'big', ctx: 99 }] }),
    );
    make();
    expect((await provider.listModels()).map((m) => m.id)).toEqual(['toy']);
    expect(logger.records.map((r) => r.message)).toContain(
      'provider-toy: GET /v1/models failed, using the model table: toy (HTTP 404): no listing',
    );
    expect(await provider.listModels()).toEqual([expect.objectContaining({ id: 'big', context_window: 99 })]);
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /v1/models', 'GET /v1/models']);
  });

  it('close: later calls fail with a configuration error', async () => {
    await make().close();
    await expect(provider.complete(REQUEST)).rejects.toMatchObject({ kind: 'configuration' });
  });
});

describe('an endpoint per request (WireRequest.path)', () => {
  it('the path build() names is used for that call; other calls keep HttpApi.path', async () => {
    server.enqueue(
      reply.json(200, { text: 'a', usage: { in: 1, out: 1 } }),
      stream('b'),
      reply.json(200, { text: 'c', usage: { in: 1, out: 1 } }),
    );
    const toy = make({ use_streaming: true });
    await toy.complete({ ...REQUEST, model: 'routed', metadata: { stream: false } });
    await toy.complete({ ...REQUEST, model: 'routed' });
    await toy.complete({ ...REQUEST, metadata: { stream: false } });
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/routed/once', '/v1/routed/stream', '/v1/chat']);
  });
});

describe('providerParts: what every HTTP provider builds from its settings', () => {
  it('one pool on the base URL origin, the catalog over the built-in table, config prices over built-in ones', async () => {
    const pools: { origin: string; options: { connections: number; pipelining: number }; closed: boolean }[] =
      [];
    class RecordingPool {
      destroyed = false;
      constructor(origin: string, options: { connections: number; pipelining: number }) {
        pools.push({ origin, options, closed: false });
      }
      async request(): Promise<never> {
        throw new Error('not used');
      }
      async destroy(): Promise<void> {
        this.destroyed = true;
        pools.at(-1)!.closed = true;
      }
    }
    const config = resolveProviderConfig(
      {
        base_url: 'http://127.0.0.1:9/v1',
        max_concurrent_requests: 3,
        default_model: 'toy-2',
        models: { 'toy-2': { context_window: 77 } },
        prices: { toy: { input: 5, output: 5 } },
      },
      {
        module: 'provider-toy',
        apiKeyEnv: 'K',
        baseUrlEnv: 'U',
        baseUrl: 'http://x',
        model: 'toy',
        baseUrlHint: '',
      },
      {},
    );
    const parts = providerParts(config, {
      Pool: RecordingPool,
      models: {
        builtin: { toy: { context_window: 1000, max_output_tokens: 100 } },
        unknown: { context_window: 10, max_output_tokens: 5 },
        capabilities: ['streaming'],
        serverLimits: () => ({}),
      },
      prices: { toy: { input: 1, output: 2 } },
    });
    expect(pools).toEqual([
      { origin: 'http://127.0.0.1:9', options: { connections: 3, pipelining: 1 }, closed: false },
    ]);
    expect(parts.catalog.info().context_window).toBe(77);
    expect(parts.catalog.info('toy-2024-01-01').max_output_tokens).toBe(100);
    const listed = await parts.catalog.list(
      () => Promise.reject(new Error('down')),
      () => {},
    );
    expect(listed.map((m) => m.id)).toEqual(['toy-2', 'toy']);
    parts.costs.charge('toy', { input_tokens: 1_000_000, output_tokens: 0, total_tokens: 1_000_000 });
    expect(parts.costs.totalUsd).toBe('5');
    await parts.transport.close();
    expect(pools[0]!.closed).toBe(true);
  });
});
