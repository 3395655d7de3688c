/**
 * Checks for the transport an HTTP provider plugs into `ProviderHttpClient`
 * (`@amplifier/provider-http`), against a real `FakeLlmServer`: requests
 * arrive as sent, and timeouts, aborts, refused and dropped connections and
 * early stops come out as the right LLMErrors with the connection released.
 */

import assert from 'node:assert/strict';
import type { LLMError } from '@amplifier/core';
import { sseEvents } from '../sse.js';
import { ProviderHttpClient, type RequestContext, readText, type Transport } from '../transport.js';
import { FakeLlmServer, llmErrorOf, reply } from './fake-llm-server.js';

/** A transport factory under test. */
export interface TransportUnderTest {
  /** A transport bound to `baseUrl`'s origin (each check closes it). */
  create(baseUrl: URL): Transport;
}

/** One named check of a transport. */
export interface TransportCheck {
  readonly name: string;
  run(subject: TransportUnderTest): Promise<void>;
}

const context: RequestContext = { provider: 'fake', model: 'm' };

/** Start a server, build a client on `path` under it, run, then close both. */
async function withServer(
  subject: TransportUnderTest,
  run: (server: FakeLlmServer, client: ProviderHttpClient) => Promise<void>,
  options: { path?: string; headers?: Record<string, string> } = {},
): Promise<void> {
  const server = await FakeLlmServer.start();
  const client = new ProviderHttpClient(
    new URL(`${server.url}${options.path ?? ''}`),
    options.headers ?? {},
    subject.create(new URL(server.url)),
  );
  try {
    await run(server, client);
  } finally {
    await client.close();
    await server.close();
  }
}

async function failure(promise: Promise<unknown>, what: string): Promise<LLMError> {
  try {
    return await llmErrorOf(promise);
  } catch (error) {
    assert.fail(`${what}: ${(error as Error).message}`);
  }
}

function expectKind(error: LLMError, kind: string, retryable: boolean): void {
  assert.ok(
    error.kind === kind && error.retryable === retryable,
    `expected a ${kind} error (retryable ${retryable}), got ${error.kind} (retryable ${error.retryable}): ${error.message}`,
  );
}

/** Every transport check, in order. */
export const transportChecks: readonly TransportCheck[] = [
  {
    name: 'sends JSON with the client headers under the base path; the body reads back',
    run: (subject) =>
      withServer(
        subject,
        async (server, client) => {
          server.enqueue(reply.json(200, { ok: true }));
          const response = await client.send('POST', '/chat', { body: { a: 1 }, timeoutMs: 10_000, context });
          assert.ok(response.status === 200, `status ${response.status}, expected 200`);
          const text = await readText(response.body, context, undefined);
          assert.ok(text === '{"ok":true}', `body read back as ${JSON.stringify(text)}`);
          const sent = server.requests[0];
          assert.ok(
            sent?.method === 'POST' && sent.url === '/api/v1/chat' && sent.body?.a === 1,
            `the server got ${JSON.stringify(sent && { method: sent.method, url: sent.url, body: sent.body })}`,
          );
          assert.ok(
            sent.headers.authorization === 'Bearer k' && sent.headers['content-type'] === 'application/json',
            `headers sent: ${JSON.stringify(sent.headers)}`,
          );
        },
        { path: '/api/v1', headers: { authorization: 'Bearer k' } },
      ),
  },
  {
    name: 'no response within the timeout is a retryable timeout error',
    run: (subject) =>
      withServer(subject, async (server, client) => {
        server.enqueue(reply.hang().handler);
        const error = await failure(client.send('GET', '/models', { timeoutMs: 200, context }), 'GET');
        expectKind(error, 'timeout', true);
      }),
  },
  {
    name: 'signal aborts the request: an abort error, and the server sees the connection close',
    run: (subject) =>
      withServer(subject, async (server, client) => {
        const never = reply.hang();
        server.enqueue(never.handler);
        const controller = new AbortController();
        const arrived = server.nextRequest();
        const pending = client.send('GET', '/x', { timeoutMs: 60_000, context, signal: controller.signal });
        await arrived;
        controller.abort(new Error('user pressed ctrl-c'));
        expectKind(await failure(pending, 'GET'), 'abort', false);
        await never.closed;
      }),
  },
  {
    name: 'a refused connection is a retryable network error',
    async run(subject) {
      const server = await FakeLlmServer.start();
      const url = new URL(server.url);
      await server.close();
      const client = new ProviderHttpClient(url, {}, subject.create(url));
      try {
        const error = await failure(client.send('GET', '/models', { timeoutMs: 10_000, context }), 'GET');
        expectKind(error, 'network', true);
      } finally {
        await client.close();
      }
    },
  },
  {
    name: 'a connection dropped mid-stream: the events so far, then a retryable stream error',
    run: (subject) =>
      withServer(subject, async (server, client) => {
        server.enqueue(reply.sseThenDrop(['data: {"a":1}\n\n', 'data: {"b"']));
        const response = await client.send('POST', '/x', { body: {}, timeoutMs: 10_000, context });
        const seen: string[] = [];
        const error = await failure(
          (async () => {
            for await (const message of sseEvents(response.body, context, undefined)) seen.push(message.data);
          })(),
          'reading the stream',
        );
        assert.ok(
          seen.length === 1 && seen[0] === '{"a":1}',
          `events before the drop: ${JSON.stringify(seen)}`,
        );
        expectKind(error, 'stream', true);
      }),
  },
  {
    name: 'a stream that stalls longer than the timeout is a timeout error',
    run: (subject) =>
      withServer(subject, async (server, client) => {
        const slow = reply.sseThenHang(['data: {"a":1}\n\n']);
        server.enqueue(slow.handler);
        const response = await client.send('POST', '/x', { body: {}, timeoutMs: 300, context });
        const error = await failure(
          (async () => {
            for await (const _ of sseEvents(response.body, context, undefined));
          })(),
          'reading the stream',
        );
        expectKind(error, 'timeout', true);
        await slow.closed;
      }),
  },
  {
    name: 'a consumer that stops reading early releases the connection',
    run: (subject) =>
      withServer(subject, async (server, client) => {
        const slow = reply.sseThenHang(['data: {"a":1}\n\n']);
        server.enqueue(slow.handler);
        const response = await client.send('POST', '/x', { body: {}, timeoutMs: 60_000, context });
        for await (const _ of sseEvents(response.body, context, undefined)) break;
        await slow.closed;
      }),
  },
  {
    name: 'after close, requests fail with a configuration error instead of hanging',
    run: (subject) =>
      withServer(subject, async (_server, client) => {
        await client.close();
        const error = await failure(client.send('GET', '/models', { timeoutMs: 10_000, context }), 'GET');
        expectKind(error, 'configuration', false);
      }),
  },
];
