import { AssertionError } from 'node:assert';
import http from 'node:http';
import { AmplifierSession, createLLMError, silentLogger } from '@amplifier/core';
import { inProcessLoader, MockContextManager, MockProvider, ScriptedOrchestrator } from '@amplifier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeLlmServer, llmErrorOf, reply, splitBytes, sseEvent } from './fake-llm-server.js';
import { transportChecks } from './transport-checks.js';

let server: FakeLlmServer;
afterEach(() => server?.close());

/** A request with node:http: status, headers and the body chunks as they arrived. */
function request(
  path: string,
  options: { method?: string; body?: string } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; chunks: Buffer[]; error?: Error }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${server.url}${path}`, { method: options.method ?? 'GET' }, (res) => {
      const chunks: Buffer[] = [];
      const done = (error?: Error) =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, chunks, ...(error && { error }) });
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done());
      res.on('error', done);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('FakeLlmServer', () => {
  it('answers in queue order, then the fallback, else 599; records requests with JSON bodies', async () => {
    server = await FakeLlmServer.start();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    server.enqueue(
      reply.json(429, { error: 'slow' }, { 'retry-after': '2' }),
      reply.raw(200, '<html>', 'text/html'),
    );
    const next = server.nextRequest();
    const first = await request('/v1/x?y=1', { method: 'POST', body: '{"a":1}' });
    expect(await next).toMatchObject({ method: 'POST', url: '/v1/x?y=1', body: { a: 1 } });
    expect(first.status).toBe(429);
    expect(first.headers['retry-after']).toBe('2');
    expect(Buffer.concat(first.chunks).toString()).toBe('{"error":"slow"}');
    const second = await request('/', { method: 'POST', body: 'not json' });
    expect([second.status, second.headers['content-type'], Buffer.concat(second.chunks).toString()]).toEqual([
      200,
      'text/html',
      '<html>',
    ]);
    expect(server.requests[1]!.body).toBe('not json');
    expect((await request('/')).status).toBe(599);
    expect(server.requests[2]!.body).toBeUndefined();
    server.fallback(reply.json(200, 'plain'));
    expect(Buffer.concat((await request('/')).chunks).toString()).toBe('plain');
  });

  it('sse writes each piece on its own (bytes from splitBytes too), with SSE headers', async () => {
    server = await FakeLlmServer.start();
    const text = `${sseEvent({ a: 1 }, 'ping')}${sseEvent('é')}`;
    expect(text).toBe('event: ping\ndata: {"a":1}\n\ndata: é\n\n');
    const pieces = splitBytes(text, 5);
    expect(Buffer.concat(pieces).toString()).toBe(text);
    expect(pieces.every((p) => p.length <= 5)).toBe(true);
    server.enqueue(reply.sse(pieces, { 'x-extra': '1' }));
    const response = await request('/');
    expect(response.headers['content-type']).toBe('text/event-stream');
    expect(response.headers['x-extra']).toBe('1');
    expect(Buffer.concat(response.chunks).toString()).toBe(text);
    expect(response.chunks.length).toBeGreaterThan(1);
  });

  it('sseThenDrop cuts the connection; hang and sseThenHang resolve `closed` when the client leaves', async () => {
    server = await FakeLlmServer.start();
    server.enqueue(reply.sseThenDrop(['data: 1\n\n']));
    const dropped = await request('/');
    expect(Buffer.concat(dropped.chunks).toString()).toBe('data: 1\n\n');
    expect(dropped.error).toBeDefined();
    for (const held of [reply.hang(), reply.sseThenHang(['data: 1\n\n'])]) {
      server.enqueue(held.handler);
      const req = http.request(`${server.url}/`);
      req.on('error', () => {});
      req.end();
      await server.nextRequest();
      req.destroy();
      await held.closed;
    }
  });
});

describe('llmErrorOf', () => {
  it('gives the LLMError a promise rejects with; anything else fails', async () => {
    const error = createLLMError('timeout', 'slow');
    expect(await llmErrorOf(Promise.reject(error))).toBe(error);
    await expect(llmErrorOf(Promise.resolve('fine'))).rejects.toThrow('expected an LLMError, got undefined');
    await expect(llmErrorOf(Promise.reject(new Error('plain')))).rejects.toThrow(
      'expected an LLMError, got Error: plain',
    );
  });
});

describe('transport checks', () => {
  it('fail with an AssertionError that names what was sent, for a transport that loses the headers', async () => {
    const check = transportChecks[0]!;
    const careless = {
      create: (baseUrl: URL) => ({
        async request(r: { method: string; path: string; body?: string }) {
          const response = await fetch(new URL(r.path, baseUrl), {
            method: r.method,
            ...(r.body !== undefined && { body: r.body }),
          });
          return { status: response.status, headers: {}, body: response.body! };
        },
        close: async () => {},
      }),
    };
    await expect(check.run(careless)).rejects.toBeInstanceOf(AssertionError);
    await expect(check.run(careless)).rejects.toThrow('headers sent:');
  });
});

describe('inProcessLoader', () => {
  it('runs a real session from in-process modules, each with its config; an unknown id fails to load', async () => {
    const session = new AmplifierSession(
      {
        session: { orchestrator: { module: 'loop', config: { answer: 'configured' } }, context: 'ctx' },
        providers: [{ module: 'prov' }, { module: 'missing' }],
      },
      {
        logger: silentLogger,
        loader: inProcessLoader({
          loop: (c, config) => c.mount('orchestrator', new ScriptedOrchestrator([String(config.answer)])),
          ctx: (c) => c.mount('context', new MockContextManager()),
          prov: (c) => c.mount('providers', new MockProvider(), { name: 'mock' }),
        }),
      },
    );
    await using _ = session;
    expect(await session.execute('go')).toBe('configured');
    expect(session.failures.map((f) => [f.module, String(f.error)])).toEqual([
      ['missing', expect.stringContaining("no module 'missing'")],
    ]);
  });
});
