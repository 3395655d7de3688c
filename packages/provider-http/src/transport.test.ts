import { LLMError, MAX_DEPTH_MARKER, setOwn } from '@amplifier/core';
import { boundedValue, nestedValue } from '@amplifier/testing';
import fc from 'fast-check';
import { Pool } from 'undici';
import { describe, expect, it } from 'vitest';
import { fetchTransport } from './__fixtures__/fetch-transport.js';
import { FakeLlmServer, reply } from './testing/fake-llm-server.js';
import { transportConformance } from './testing/index.js';
import {
  abortError,
  header,
  ProviderHttpClient,
  poolTransport,
  readErrorBody,
  readText,
  refusedByLocalServer,
  retriesAllowed,
  retryAfterSeconds,
  type Transport,
  transportError,
} from './transport.js';

const context = { provider: 'test', model: 'm' };

transportConformance({ create: fetchTransport });

// poolTransport over a real undici Pool (what provider-openai and provider-anthropic use) against a
// real local server: timeouts, abort, refused and dropped connections, early stops and close come
// out as the right LLMErrors.
describe('poolTransport (undici Pool)', () => {
  transportConformance({
    create: (baseUrl) => poolTransport(new Pool(baseUrl.origin, { connections: 2, pipelining: 1 })),
  });
});

/** A body that yields these chunks, then fails with `error` when given. */
async function* bodyOf(chunks: string[], error?: Error): AsyncGenerator<Uint8Array> {
  for (const chunk of chunks) yield Buffer.from(chunk);
  if (error) throw error;
}

describe('transportError', () => {
  const coded = (code: string, message = code) => Object.assign(new Error(message), { code });

  it.each([
    ['UND_ERR_HEADERS_TIMEOUT', false, 'timeout', 'for the response'],
    ['UND_ERR_BODY_TIMEOUT', true, 'timeout', 'between two chunks'],
    ['UND_ERR_CONNECT_TIMEOUT', false, 'timeout', 'for the response'],
    ['UND_ERR_DESTROYED', false, 'configuration', 'was closed'],
    ['UND_ERR_CLOSED_CLIENT', true, 'configuration', 'was closed'],
    ['ECONNRESET', true, 'stream', 'lost mid-response'],
    ['ECONNREFUSED', false, 'network', 'could not reach'],
    ['EAI_AGAIN', false, 'network', 'could not reach'],
    ['UND_ERR_SOMETHING_NEW', false, 'network', 'could not reach'],
    ['EWEIRD', false, 'unknown', 'request failed'],
  ])('%s (mid-stream %s) -> %s', (code, midStream, kind, text) => {
    const error = transportError(coded(code), context, undefined, midStream);
    expect(error).toMatchObject({ kind, provider: 'test', model: 'm' });
    expect(error.message).toContain(text);
    expect((error as { cause?: unknown }).cause).toBeDefined();
  });

  it('finds the code on a cause (fetch wraps the socket error) and maps a TimeoutError', () => {
    const wrapped = new TypeError('fetch failed', { cause: coded('ECONNREFUSED') });
    expect(transportError(wrapped, context, undefined, false).kind).toBe('network');
    const timeout = new DOMException('The operation timed out.', 'TimeoutError');
    expect(transportError(timeout, context, undefined, true).kind).toBe('timeout');
  });

  it('refusedByLocalServer: a refused connection to a loopback base_url only', () => {
    const refused = transportError(coded('ECONNREFUSED'), context, undefined, false);
    for (const url of [
      'http://localhost:11434/v1',
      'http://127.0.0.1:9',
      'http://[::1]:8080',
      'http://0.0.0.0:1',
    ]) {
      expect(refusedByLocalServer(refused, new URL(url))).toBe(true);
    }
    expect(refusedByLocalServer(refused, new URL('https://api.example.com/v1'))).toBe(false);
    expect(refusedByLocalServer(refused, undefined)).toBe(false);
    const reset = transportError(coded('ECONNRESET'), context, undefined, false);
    expect(refusedByLocalServer(reset, new URL('http://localhost:1'))).toBe(false);
  });

  it('retriesAllowed: none for a host name that does not resolve, one for a refused local server, else all', () => {
    const notFound = transportError(coded('ENOTFOUND'), context, undefined, false);
    expect(notFound.kind).toBe('network');
    expect(notFound.message).toContain('its host name does not resolve');
    expect(notFound.message).toContain("check base_url and this machine's DNS or network");
    const remote = new URL('https://api.example.com/v1');
    expect(retriesAllowed(notFound, remote, 5)).toBe(0);
    const wrapped = transportError(
      new TypeError('fetch failed', { cause: coded('ENOTFOUND') }),
      context,
      undefined,
      false,
    );
    expect(retriesAllowed(wrapped, remote, 5)).toBe(0);
    // A resolver that is only slow or unreachable for now is worth waiting for.
    expect(retriesAllowed(transportError(coded('EAI_AGAIN'), context, undefined, false), remote, 5)).toBe(5);
    const refused = transportError(coded('ECONNREFUSED'), context, undefined, false);
    expect(retriesAllowed(refused, new URL('http://127.0.0.1:9'), 5)).toBe(1);
    expect(retriesAllowed(refused, new URL('http://127.0.0.1:9'), 0)).toBe(0);
    expect(retriesAllowed(refused, remote, 5)).toBe(5);
  });

  it('an aborted signal wins over any code; an LLMError passes through', () => {
    const controller = new AbortController();
    controller.abort('stop');
    const error = transportError(coded('ECONNRESET'), context, controller.signal, true);
    expect(error).toMatchObject({ kind: 'abort', retryable: false });
    expect((error as { cause?: unknown }).cause).toBe('stop');
    const own = abortError(context, 'x');
    expect(transportError(own, context, undefined, false)).toBe(own);
  });
});

describe('bodies', () => {
  it('readText joins chunks, splits UTF-8 safely, and stops at the limit', async () => {
    const bytes = Buffer.from('héllo wörld');
    const chunks = [...bytes].map((b) => Buffer.from([b]).toString('latin1'));
    const split = (async function* () {
      for (const c of chunks) yield Buffer.from(c, 'latin1');
    })();
    expect(await readText(split, context, undefined)).toBe('héllo wörld');
    expect(await readText(bodyOf(['abc', 'def', 'ghi']), context, undefined, 5)).toBe('abcde');
  });

  it('readText: stopping at the limit releases the body', async () => {
    let released = false;
    const body = (async function* () {
      try {
        yield Buffer.from('0123456789');
        yield Buffer.from('never read');
      } finally {
        released = true;
      }
    })();
    expect(await readText(body, context, undefined, 4)).toBe('0123');
    expect(released).toBe(true);
  });

  it('a failure while reading is a stream error; readErrorBody never throws', async () => {
    const failing = () => bodyOf(['par'], Object.assign(new Error('reset'), { code: 'ECONNRESET' }));
    await expect(readText(failing(), context, undefined)).rejects.toMatchObject({ kind: 'stream' });
    expect(await readErrorBody(failing())).toBe('');
    expect(await readErrorBody(bodyOf(['{"error":', '"x"}']))).toBe('{"error":"x"}');
  });
});

describe('headers', () => {
  it('header takes the first of repeated values', () => {
    expect(header({ a: ['1', '2'], b: '3' }, 'a')).toBe('1');
    expect(header({ b: '3' }, 'b')).toBe('3');
    expect(header({}, 'c')).toBeUndefined();
  });

  it('Retry-After: seconds, retry-after-ms, an HTTP date; unreadable is undefined', () => {
    expect(retryAfterSeconds({ 'retry-after': '7' })).toBe(7);
    expect(retryAfterSeconds({ 'retry-after': '1.5' })).toBe(1.5);
    expect(retryAfterSeconds({ 'retry-after-ms': '250', 'retry-after': '9' })).toBe(0.25);
    expect(retryAfterSeconds({ 'x-ms-retry-after-ms': '1500', 'retry-after': '9' })).toBe(1.5);
    expect(retryAfterSeconds({ 'retry-after-ms': '20', 'x-ms-retry-after-ms': '1500' })).toBe(0.02);
    expect(retryAfterSeconds({ 'x-ms-retry-after-ms': 'soon', 'retry-after': '9' })).toBe(9);
    const now = Date.parse('Wed, 21 Oct 2026 07:28:00 GMT');
    expect(retryAfterSeconds({ 'retry-after': 'Wed, 21 Oct 2026 07:28:30 GMT' }, now)).toBe(30);
    expect(retryAfterSeconds({ 'retry-after': 'Wed, 21 Oct 2026 07:27:00 GMT' }, now)).toBe(0);
    expect(retryAfterSeconds({ 'retry-after': 'soon' })).toBeUndefined();
    expect(retryAfterSeconds({ 'retry-after': ' ' })).toBeUndefined();
    expect(retryAfterSeconds({})).toBeUndefined();
  });
});

describe('ProviderHttpClient', () => {
  it('an already-aborted signal fails before anything is sent', async () => {
    const server = await FakeLlmServer.start();
    const client = new ProviderHttpClient(new URL(server.url), {}, fetchTransport(new URL(server.url)));
    try {
      const error = await client
        .send('GET', '/x', { timeoutMs: 1000, context, signal: AbortSignal.abort('no') })
        .catch((e: unknown) => e);
      expect(LLMError.is(error) && error.kind).toBe('abort');
      expect(server.requests).toHaveLength(0);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('GET sends no body and no content-type; close is idempotent', async () => {
    const server = await FakeLlmServer.start();
    server.enqueue(reply.json(200, []));
    let closes = 0;
    const inner = fetchTransport(new URL(server.url));
    const transport: Transport = {
      request: (request) => inner.request(request),
      close: async () => {
        closes++;
      },
    };
    const client = new ProviderHttpClient(new URL(`${server.url}/v1/`), { accept: 'x' }, transport);
    const response = await client.send('GET', '/models', { timeoutMs: 5000, context });
    await readText(response.body, context, undefined);
    expect(server.requests[0]).toMatchObject({ method: 'GET', url: '/v1/models', body: undefined });
    expect(server.requests[0]!.headers['content-type']).toBeUndefined();
    await Promise.all([client.close(), client.close()]);
    expect(closes).toBe(1);
    await server.close();
  });
});

/** A transport that keeps the bodies it is given and answers 200 with nothing. */
function capturing(): { transport: Transport; bodies: (string | undefined)[] } {
  const bodies: (string | undefined)[] = [];
  return {
    bodies,
    transport: {
      async request(request) {
        bodies.push(request.body);
        return { status: 200, headers: {}, body: bodyOf([]) };
      },
      async close() {},
    },
  };
}

describe('deep request bodies (tool-call arguments from a model can nest 100,000 deep)', () => {
  const leaf = fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
  );
  const shallow = fc.oneof(
    leaf,
    fc.array(leaf, { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 5 }), leaf, { maxKeys: 4 }),
  );
  const body = fc
    .record({
      depth: fc.integer({ min: 0, max: 800 }),
      kinds: fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
      key: fc.string({ maxLength: 6 }),
      siblings: fc.array(shallow, { maxLength: 3 }),
      wide: fc.array(shallow, { maxLength: 60 }),
    })
    .map(({ depth, kinds, key, siblings, wide }) => {
      let inner: unknown = 'leaf';
      for (let i = 0; i < depth; i++) {
        if (kinds[i % kinds.length]) {
          inner = [...siblings, inner];
        } else {
          const record: Record<string, unknown> = {};
          for (const [k, sibling] of siblings.entries()) setOwn(record, `s${k}`, sibling);
          setOwn(record, key, inner);
          inner = record;
        }
      }
      return { model: 'm', messages: [{ role: 'user', content: wide }], input: inner };
    });

  it('are sent as JSON: exactly when JSON.stringify can write them, else bounded at MAX_DATA_DEPTH with the marker; send never throws', async () => {
    const { transport, bodies } = capturing();
    const client = new ProviderHttpClient(new URL('http://127.0.0.1:1/v1'), {}, transport);
    await fc.assert(
      fc.asyncProperty(body, async (value) => {
        await client.send('POST', '/chat', { body: value, timeoutMs: 1000, context });
        const sent = JSON.parse(bodies.at(-1)!);
        let exact: string | undefined;
        try {
          exact = JSON.stringify(value);
        } catch {
          exact = undefined;
        }
        expect(sent).toEqual(JSON.parse(exact ?? JSON.stringify(boundedValue(value))));
        // (As JSON: -0 is written 0.)
        expect(sent.messages).toEqual(JSON.parse(JSON.stringify(value.messages)));
      }),
      { numRuns: 80 },
    );
  });

  it('100,000 levels reach a real server as bounded JSON', async () => {
    const server = await FakeLlmServer.start();
    server.enqueue(reply.json(200, { ok: true }));
    const client = new ProviderHttpClient(new URL(server.url), {}, fetchTransport(new URL(server.url)));
    try {
      const response = await client.send('POST', '/v1/x', {
        body: { input: nestedValue(100_000) },
        timeoutMs: 5000,
        context,
      });
      await readText(response.body, context, undefined);
      const sent = server.requests[0]!.body;
      expect(sent).toEqual(boundedValue({ input: nestedValue(100_000) }));
      expect(JSON.stringify(sent)).toContain(JSON.stringify(MAX_DEPTH_MARKER));
    } finally {
      await client.close();
      await server.close();
    }
  });
});
