/**
 * Fault cases through the real `@ai-sdk/openai-compatible` package against a
 * local FakeLlmServer: a 429 with Retry-After retried by the kit (the package
 * itself never retries), a wait longer than max_retry_delay not retried, an
 * error chunk mid-stream (llm:stream_aborted after deltas, never retried),
 * malformed and empty tool-call input, and what `transportConformance` checks
 * for a kit transport, here through the package's fetch: a timeout, an abort,
 * a refused connection, a connection dropped before any delta.
 */
import { readFileSync } from 'node:fs';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { ChatRequest, EventSink } from '@amplifier/core';
import { FakeLlmServer, llmErrorOf, reply, sseEvent } from '@amplifier/provider-http/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AiSdkConfig, createAiSdkProvider } from './index.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`./__fixtures__/recorded/${name}`, import.meta.url), 'utf8');
const textStream = fixture('openai-stream-text.sse');
const messages = textStream.split(/(?<=\n\n)/);

const REQUEST: ChatRequest = { messages: [{ role: 'user', content: 'Say hello.' }] };

let server: FakeLlmServer;
let events: [string, Record<string, unknown>][];
const hooks: EventSink = {
  emit: async (event, data) => {
    events.push([event, structuredClone(data) as Record<string, unknown>]);
  },
};
beforeEach(async () => {
  server = await FakeLlmServer.start();
  events = [];
});
afterEach(() => server.close());

function provider(config: AiSdkConfig = {}, url = `${server.url}/v1`) {
  const model = createOpenAICompatible({ name: 'replay', baseURL: url, apiKey: 'sk-test' }).chatModel(
    'gpt-4o',
  );
  return createAiSdkProvider(model, { min_retry_delay: 0.001, retry_jitter: false, ...config }, { hooks });
}
const named = (name: string) => events.filter(([n]) => n === name).map(([, d]) => d);

describe('HTTP errors (APICallError)', () => {
  it('retries a 429 after the wait its retry-after-ms names, then streams the answer', async () => {
    server.enqueue(
      reply.json(429, JSON.parse(fixture('openai-error-429-tokens.json')), { 'retry-after-ms': '40' }),
      reply.sse([textStream]),
    );
    const response = await provider().complete(REQUEST);
    expect(server.requests).toHaveLength(2);
    const retries = named('provider:retry');
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ attempt: 1, error_kind: 'rate_limit', retry_after: 0.04 });
    expect(retries[0]!.delay).toBeGreaterThanOrEqual(0.04);
    expect(response.content[0]).toMatchObject({ type: 'text' });
  });

  it('does not retry a 429 whose Retry-After is longer than max_retry_delay, and says why', async () => {
    server.enqueue(
      reply.json(429, JSON.parse(fixture('openai-error-429-tokens.json')), { 'retry-after': '120' }),
    );
    const error = await llmErrorOf(provider({ max_retry_delay: 5 }).complete(REQUEST));
    expect(server.requests).toHaveLength(1);
    expect(error).toMatchObject({ kind: 'rate_limit', retryable: false, status_code: 429 });
    expect(error.message).toContain('longer than max_retry_delay');
  });

  it('a 400 is not retried (isRetryable false) and is classified by its body', async () => {
    server.enqueue(reply.json(400, JSON.parse(fixture('openai-error-400-context-length.json'))));
    const error = await llmErrorOf(provider().complete(REQUEST));
    expect(server.requests).toHaveLength(1);
    expect(error).toMatchObject({ kind: 'context_length', retryable: false, status_code: 400 });
  });

  it('a 503 is retried as the package says (isRetryable) and the final failure names the status', async () => {
    server.enqueue(
      reply.json(503, { error: { message: 'upstream down' } }),
      reply.json(503, { error: { message: 'upstream down' } }),
    );
    const error = await llmErrorOf(provider({ max_retries: 1 }).complete(REQUEST));
    expect(server.requests).toHaveLength(2);
    expect(error).toMatchObject({ kind: 'unavailable', status_code: 503 });
    expect(error.message).toContain('upstream down');
  });
});

describe('an error part mid-stream', () => {
  it('ends the call after the deltas with llm:stream_aborted; later parts and the finish are ignored; no retry', async () => {
    const error = {
      error: { message: 'The server had an error while processing your request.', type: 'server_error' },
    };
    server.enqueue(reply.sse([...messages.slice(0, 4), sseEvent(error), ...messages.slice(4)]));
    const failure = await llmErrorOf(provider().complete(REQUEST));
    expect(server.requests).toHaveLength(1);
    expect(failure.kind).toBe('stream');
    expect(failure.message).toContain('The server had an error');
    const aborted = named('llm:stream_aborted');
    expect(aborted).toHaveLength(1);
    expect(aborted[0]!.error).toMatchObject({ msg: failure.message });
    const order = events.map(([n]) => n).filter((n) => n.startsWith('llm:stream_'));
    expect(order.at(-1)).toBe('llm:stream_aborted');
    const deltas = named('llm:stream_block_delta')
      .map((d) => d.text)
      .join('');
    // Only what came before the error part was streamed.
    expect(deltas.length).toBeGreaterThan(0);
    expect(named('llm:response')[0]).toMatchObject({ status: 'error' });
  });

  it('the connection of a stream that goes on after its error part is released', async () => {
    const held = reply.sseThenHang([...messages.slice(0, 3), sseEvent({ error: { message: 'boom' } })]);
    server.enqueue(held.handler);
    const failure = await llmErrorOf(provider().complete(REQUEST));
    expect(failure.message).toContain('boom');
    await held.closed;
  });

  it('an error part before any delta is a retryable stream failure: retried, then it succeeds', async () => {
    server.enqueue(
      reply.sse([sseEvent({ error: { message: 'overloaded, try again' } })]),
      reply.sse([textStream]),
    );
    const response = await provider().complete(REQUEST);
    expect(server.requests).toHaveLength(2);
    expect(named('llm:stream_aborted')).toHaveLength(0);
    expect(response.content.length).toBeGreaterThan(0);
  });
});

describe('tool-call input', () => {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    sseEvent({
      id: 'c1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'gpt-4o',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });

  it('malformed JSON input: the call is kept with invalid_arguments (never made-up arguments), its block started and ended', async () => {
    server.enqueue(
      reply.sse([
        chunk({
          role: 'assistant',
          tool_calls: [
            { index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city": "Edin' } }] }),
        chunk({}, 'tool_calls'),
        'data: [DONE]\n\n',
      ]),
    );
    const response = await provider().complete({
      ...REQUEST,
      tools: [
        { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
      ],
    });
    expect(response.tool_calls).toHaveLength(1);
    const call = response.tool_calls![0]!;
    expect(call).toMatchObject({ id: 'call_1', name: 'get_weather', arguments: {} });
    expect(call.invalid_arguments).toMatchObject({ raw: '{"city": "Edin', problem: 'invalid_json' });
    expect(response.finish_reason).toBe('tool_calls');
    const starts = named('llm:stream_block_start');
    expect(starts).toEqual([expect.objectContaining({ block_type: 'tool_use', name: 'get_weather' })]);
    expect(named('llm:stream_block_end')).toHaveLength(1);
    expect(named('llm:stream_block_delta')).toHaveLength(0);
  });

  it('empty arguments ("") are {} (recorded non-streamed answer with two calls)', async () => {
    server.enqueue(reply.json(200, JSON.parse(fixture('openai-node-empty-arguments.json'))));
    const response = await provider({ use_streaming: false }).complete(REQUEST);
    expect(response.tool_calls).toEqual([
      { id: 'first-call', name: 'firstTool', arguments: {} },
      { id: 'second-call', name: 'secondTool', arguments: {} },
    ]);
  });
});

describe('the connection, through the package fetch (what transportConformance checks for a kit transport)', () => {
  it('no answer within timeout: a timeout error; the connection is released', async () => {
    const held = reply.hang();
    server.enqueue(held.handler);
    const error = await llmErrorOf(provider({ timeout: 0.2, max_retries: 0 }).complete(REQUEST));
    expect(error.kind).toBe('timeout');
    expect(error.message).toContain('for the response');
    await held.closed;
  });

  it('a stream that stalls after its first deltas: timeout between two parts, llm:stream_aborted', async () => {
    const held = reply.sseThenHang(messages.slice(0, 3));
    server.enqueue(held.handler);
    const error = await llmErrorOf(provider({ timeout: 0.3, max_retries: 0 }).complete(REQUEST));
    expect(error.kind).toBe('timeout');
    expect(error.message).toContain('between two parts');
    expect(named('llm:stream_aborted')).toHaveLength(1);
    await held.closed;
  });

  it("the caller's abort: an abort error at once, not retried; the connection is released", async () => {
    const held = reply.hang();
    server.enqueue(held.handler);
    const controller = new AbortController();
    const pending = provider().complete(REQUEST, { signal: controller.signal });
    await server.nextRequest();
    controller.abort();
    const error = await llmErrorOf(pending);
    expect(error.kind).toBe('abort');
    expect(server.requests).toHaveLength(1);
    await held.closed;
  });

  it('a refused connection: a network error', async () => {
    const closed = await FakeLlmServer.start();
    const url = `${closed.url}/v1`;
    await closed.close();
    const error = await llmErrorOf(provider({ max_retries: 0 }, url).complete(REQUEST));
    expect(error.kind).toBe('network');
  });

  it('a connection dropped before any delta is retried; the retry succeeds', async () => {
    server.enqueue(reply.sseThenDrop([]), reply.sse([textStream]));
    const response = await provider().complete(REQUEST);
    expect(server.requests).toHaveLength(2);
    expect(response.content.length).toBeGreaterThan(0);
  });

  it('close() aborts a call in flight', async () => {
    const held = reply.hang();
    server.enqueue(held.handler);
    const bridge = provider({ max_retries: 0 });
    const pending = bridge.complete(REQUEST);
    await server.nextRequest();
    await bridge.close();
    await expect(pending).rejects.toThrow();
    await held.closed;
  });
});
