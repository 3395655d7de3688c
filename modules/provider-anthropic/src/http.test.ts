import { Readable } from 'node:stream';
import { LLMError } from '@amplifier/core';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeServer, hang, json, sseThenDrop } from './__fixtures__/fake-server.js';
import { HttpClient, type HttpResponse, readText, retryAfterSeconds, sseEvents } from './http.js';

const context = { provider: 'anthropic', model: 'm' };

/** A body that yields these buffers one by one. */
function bodyOf(chunks: Buffer[]): HttpResponse['body'] {
  return Readable.from(chunks) as unknown as HttpResponse['body'];
}

async function collect(chunks: Buffer[]) {
  const out = [];
  for await (const message of sseEvents(bodyOf(chunks), context, undefined)) out.push(message);
  return out;
}

describe('SSE parsing (eventsource-parser)', () => {
  const stream =
    ': comment line\r\n\r\n' +
    'event: message\r\ndata: {"a":1}\r\n\r\n' +
    ':keep-alive\n\n' +
    'data: first line\ndata: second line é ✓\n\n' +
    'data: [DONE]\n\n';

  it('robust SSE: split at every byte (inside CRLF and inside UTF-8 characters) gives the same events', async () => {
    const whole = await collect([Buffer.from(stream)]);
    const bytes = Buffer.from(stream);
    const split = await collect([...bytes].map((b) => Buffer.from([b])));
    expect(split).toEqual(whole);
    expect(whole.map((m) => m.data)).toEqual(['{"a":1}', 'first line\nsecond line é ✓', '[DONE]']);
    expect(whole[0]!.event).toBe('message');
  });

  it('robust SSE: comments and keep-alives produce no events; an event cut off at the end is dropped', async () => {
    const events = await collect([Buffer.from(':ping\n\n: keep-alive\n\ndata: {"x":1}\n\ndata: {"cut')]);
    expect(events.map((m) => m.data)).toEqual(['{"x":1}']);
  });
});

describe('retryAfterSeconds', () => {
  it('reads seconds, retry-after-ms and HTTP dates', () => {
    expect(retryAfterSeconds({ 'retry-after': '7' })).toBe(7);
    expect(retryAfterSeconds({ 'retry-after': '1.5' })).toBe(1.5);
    expect(retryAfterSeconds({ 'retry-after-ms': '250', 'retry-after': '9' })).toBe(0.25);
    const now = Date.parse('Wed, 21 Oct 2026 07:28:00 GMT');
    expect(retryAfterSeconds({ 'retry-after': 'Wed, 21 Oct 2026 07:28:30 GMT' }, now)).toBe(30);
    expect(retryAfterSeconds({ 'retry-after': 'Wed, 21 Oct 2026 07:27:00 GMT' }, now)).toBe(0);
    expect(retryAfterSeconds({ 'retry-after': 'soon' })).toBeUndefined();
    expect(retryAfterSeconds({})).toBeUndefined();
  });
});

describe('HttpClient over a real server', () => {
  let server: FakeServer;
  let client: HttpClient | undefined;
  afterEach(async () => {
    await client?.close();
    await server?.close();
  });

  it('sends JSON with the configured headers under the base path', async () => {
    server = await FakeServer.start();
    server.enqueue(json(200, { ok: true }));
    client = new HttpClient(new URL(`${server.url}/api/v1`), { authorization: 'Bearer k' }, 2);
    const response = await client.send('POST', '/chat/completions', {
      body: { a: 1 },
      timeoutMs: 5000,
      context,
    });
    expect(response.status).toBe(200);
    expect(JSON.parse(await readText(response.body, context, undefined))).toEqual({ ok: true });
    expect(server.requests[0]).toMatchObject({
      method: 'POST',
      url: '/api/v1/chat/completions',
      body: { a: 1 },
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
    });
  });

  it('request timeout: no response within the timeout is a retryable timeout error', async () => {
    server = await FakeServer.start();
    const never = hang();
    server.enqueue(never.handler);
    client = new HttpClient(new URL(server.url), {}, 1);
    const error = await client.send('GET', '/models', { timeoutMs: 200, context }).catch((e: unknown) => e);
    expect(LLMError.isLLMError(error) && error.kind).toBe('timeout');
    expect((error as LLMError).retryable).toBe(true);
  });

  it('signal aborts the request: an abort-kind LLMError, and the server sees the connection close', async () => {
    server = await FakeServer.start();
    const never = hang();
    server.enqueue(never.handler);
    client = new HttpClient(new URL(server.url), {}, 1);
    const controller = new AbortController();
    const arrived = server.nextRequest();
    const pending = client.send('GET', '/models', { timeoutMs: 60_000, context, signal: controller.signal });
    await arrived;
    controller.abort(new Error('user pressed ctrl-c'));
    const error = await pending.catch((e: unknown) => e);
    expect(LLMError.isLLMError(error) && error.kind).toBe('abort');
    expect((error as LLMError).retryable).toBe(false);
    await never.closed;
  });

  it('network failure: a refused connection is a retryable network error', async () => {
    server = await FakeServer.start();
    const url = server.url;
    await server.close();
    client = new HttpClient(new URL(url), {}, 1);
    const error = await client.send('GET', '/models', { timeoutMs: 5000, context }).catch((e: unknown) => e);
    expect(LLMError.isLLMError(error) && error.kind).toBe('network');
    expect((error as LLMError).retryable).toBe(true);
  });

  it('a connection dropped mid-stream is a stream error', async () => {
    server = await FakeServer.start();
    server.enqueue(sseThenDrop(['data: {"a":1}\n\n', 'data: {"b"']));
    client = new HttpClient(new URL(server.url), {}, 1);
    const response = await client.send('POST', '/x', { body: {}, timeoutMs: 5000, context });
    const seen: string[] = [];
    const error = await (async () => {
      for await (const message of sseEvents(response.body, context, undefined)) seen.push(message.data);
    })().catch((e: unknown) => e);
    expect(seen).toEqual(['{"a":1}']);
    expect(LLMError.isLLMError(error) && error.kind).toBe('stream');
  });

  it('after close, requests fail with a configuration error instead of hanging', async () => {
    server = await FakeServer.start();
    client = new HttpClient(new URL(server.url), {}, 1);
    await client.close();
    const error = await client.send('GET', '/models', { timeoutMs: 5000, context }).catch((e: unknown) => e);
    expect(LLMError.isLLMError(error) && error.kind).toBe('configuration');
  });
});
