/**
 * Failures, against a 127.0.0.1 server: HTTP errors typed by
 * `x-amzn-ErrorType` (throttling retried by the kit, the SDK's own retries
 * off; validation not retried), in-stream exception frames before and after
 * output, a dropped stream, a stream without messageStop, an abort, a
 * timeout and a refused connection.
 */
import { createServer } from 'node:net';
import type { EventKey } from '@amplifier/core';
import { FakeLlmServer, llmErrorOf, reply } from '@amplifier/provider-http/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isolateAwsEnv, recorded, testProvider } from './__fixtures__/env.js';
import { encodeStream, event, eventStreamReply, exception } from './__fixtures__/eventstream.js';
import { resolveConfig } from './config.js';
import { BedrockProvider } from './provider.js';

let restoreEnv: () => void;
beforeAll(() => {
  restoreEnv = isolateAwsEnv();
});
afterAll(() => restoreEnv());

let server: FakeLlmServer;
beforeEach(async () => {
  server = await FakeLlmServer.start();
});
afterEach(() => server.close());

const REQUEST = { messages: [{ role: 'user' as const, content: 'Hi' }] };
const STREAM = recorded('bedrock-converse-stream-tooluse.eventstream');
const VALIDATION = JSON.parse(recorded('bedrock-error-400-validation.json').toString('utf8'));
const errorType = (name: string) => ({
  'x-amzn-errortype': `${name}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
});

function recorder() {
  const events: [string, Record<string, unknown>][] = [];
  const hooks = {
    emit: async (name: EventKey, data: unknown) => {
      events.push([name, structuredClone(data) as Record<string, unknown>]);
    },
  };
  return { events, hooks, names: () => events.map(([n]) => n) };
}

const TEXT_START = [
  event('messageStart', { role: 'assistant' }),
  event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hello' } }),
  event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: ' there' } }),
];
const TEXT_END = [
  event('contentBlockStop', { contentBlockIndex: 0 }),
  event('messageStop', { stopReason: 'end_turn' }),
  event('metadata', {
    usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 },
    metrics: { latencyMs: 1 },
  }),
];

describe('HTTP errors', () => {
  it('ThrottlingException 429 is a rate-limit error retried by the kit with provider:retry; the SDK sends once per attempt', async () => {
    server.enqueue(
      reply.json(
        429,
        { message: 'Too many tokens, please wait before trying again.' },
        errorType('ThrottlingException'),
      ),
      eventStreamReply(STREAM),
    );
    const { hooks, events } = recorder();
    const provider = testProvider(server.url, { max_retries: 2 }, hooks);
    const response = await provider.complete(REQUEST);
    await provider.close();
    expect(response.finish_reason).toBe('tool_calls');
    expect(server.requests).toHaveLength(2);
    const retry = events.find(([n]) => n === 'provider:retry')?.[1];
    expect(retry).toMatchObject({ provider: 'bedrock', attempt: 1 });
    expect(String(retry?.error_type ?? retry?.error ?? JSON.stringify(retry))).toMatch(
      /RateLimit|rate_limit/,
    );
  });

  it('with max_retries 0 a throttled call fails after exactly one request (no hidden SDK retries)', async () => {
    server.fallback(reply.json(429, { message: 'Too many requests' }, errorType('ThrottlingException')));
    const provider = testProvider(server.url, { max_retries: 0 });
    const error = await llmErrorOf(provider.complete(REQUEST));
    await provider.close();
    expect(error.kind).toBe('rate_limit');
    expect(error.retryable).toBe(true);
    expect(error.status_code).toBe(429);
    expect(error.message).toContain('ThrottlingException');
    expect(server.requests).toHaveLength(1);
  });

  it('the recorded ValidationException 400 is an invalid request, not retried, with Bedrock message', async () => {
    server.fallback(reply.json(400, VALIDATION, errorType('ValidationException')));
    const provider = testProvider(server.url, { max_retries: 3 });
    const error = await llmErrorOf(provider.complete(REQUEST));
    await provider.close();
    expect(error.kind).toBe('invalid_request');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('The provided model identifier is invalid.');
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    ['ValidationException', 400, 'Input is too long for requested model.', 'context_length', false],
    [
      'ValidationException',
      400,
      'prompt is too long: 250000 tokens > 200000 maximum',
      'context_length',
      false,
    ],
    [
      'ServiceQuotaExceededException',
      400,
      'Your request rate is too high. Resubmit later.',
      'rate_limit',
      true,
    ],
    ['ModelNotReadyException', 429, 'Model is not ready', 'unavailable', true],
    ['AccessDeniedException', 403, "You don't have access to the model", 'access_denied', false],
    ['ResourceNotFoundException', 404, 'Model not found', 'not_found', false],
    ['ModelTimeoutException', 408, 'Model timed out', 'timeout', true],
    ['ModelErrorException', 424, 'The model failed', 'unavailable', true],
    ['InternalServerException', 500, 'Internal error', 'unavailable', true],
    ['ServiceUnavailableException', 503, 'Unavailable', 'unavailable', true],
    [
      'UnrecognizedClientException',
      403,
      'The security token included in the request is invalid.',
      'authentication',
      false,
    ],
  ])('%s %i (%s) is %s, retryable %s', async (type, status, message, kind, retryable) => {
    server.fallback(reply.json(status, { message }, errorType(type)));
    const provider = testProvider(server.url, { max_retries: 0 });
    const error = await llmErrorOf(provider.complete(REQUEST));
    await provider.close();
    expect([error.kind, error.retryable, error.status_code]).toEqual([kind, retryable, status]);
    expect(error.message).toContain(message);
  });

  it('an error without x-amzn-ErrorType (a proxy) is classified by its status', async () => {
    server.fallback(reply.raw(502, '<html>Bad gateway</html>', 'text/html'));
    const provider = testProvider(server.url, { max_retries: 0 });
    const error = await llmErrorOf(provider.complete(REQUEST));
    await provider.close();
    expect([error.kind, error.retryable, error.status_code]).toEqual(['unavailable', true, 502]);
  });
});

describe('in-stream failures', () => {
  it('an exception frame before any output is retried transparently (no llm:stream_aborted)', async () => {
    server.enqueue(
      eventStreamReply(
        encodeStream([
          event('messageStart', { role: 'assistant' }),
          exception('throttlingException', 'Slow down'),
        ]),
      ),
      eventStreamReply(encodeStream([...TEXT_START, ...TEXT_END])),
    );
    const { hooks, names } = recorder();
    const provider = testProvider(server.url, { max_retries: 2 }, hooks);
    const response = await provider.complete(REQUEST);
    await provider.close();
    expect(response.content).toEqual([{ type: 'text', text: 'Hello there' }]);
    expect(server.requests).toHaveLength(2);
    expect(names()).toContain('provider:retry');
    expect(names()).not.toContain('llm:stream_aborted');
  });

  it.each([
    ['internalServerException', 'unavailable'],
    ['modelStreamErrorException', 'stream'],
    ['serviceUnavailableException', 'unavailable'],
    ['throttlingException', 'rate_limit'],
    ['validationException', 'invalid_request'],
  ])('%s after output: llm:stream_aborted, then a %s error, not retried', async (type, kind) => {
    server.fallback(eventStreamReply(encodeStream([...TEXT_START, exception(type, `boom ${type}`)])));
    const { hooks, events } = recorder();
    const provider = testProvider(server.url, { max_retries: 3 }, hooks);
    const error = await llmErrorOf(provider.complete(REQUEST));
    await provider.close();
    expect(error.kind).toBe(kind);
    expect(error.message).toContain(`boom ${type}`);
    expect(server.requests).toHaveLength(1);
    const stream = events.filter(([n]) => n.startsWith('llm:stream_'));
    expect(stream.at(-1)).toEqual([
      'llm:stream_aborted',
      expect.objectContaining({ error: { type: error.name, msg: error.message } }),
    ]);
  });

  it('a connection dropped mid-stream is a stream error with llm:stream_aborted', async () => {
    server.fallback(eventStreamReply(encodeStream(TEXT_START), { drop: true }));
    const { hooks, names } = recorder();
    const provider = testProvider(server.url, { max_retries: 3 }, hooks);
    const error = await llmErrorOf(provider.complete(REQUEST));
    await provider.close();
    expect(error.kind).toBe('stream');
    expect(names()).toContain('llm:stream_aborted');
    expect(server.requests).toHaveLength(1);
  });

  it('the recorded stream cut in the middle of a frame is a stream error, not a half answer', async () => {
    server.fallback(eventStreamReply(STREAM.subarray(0, 1000), { drop: true }));
    const provider = testProvider(server.url, { max_retries: 0 });
    const error = await llmErrorOf(provider.complete(REQUEST));
    await provider.close();
    expect(error.kind).toBe('stream');
  });

  it('a stream that ends cleanly before messageStop is a stream error', async () => {
    server.fallback(eventStreamReply(encodeStream(TEXT_START)));
    const provider = testProvider(server.url, { max_retries: 0 });
    const error = await llmErrorOf(provider.complete(REQUEST));
    await provider.close();
    expect(error.kind).toBe('stream');
    expect(error.message).toContain('messageStop');
  });

  it('a stream request answered with JSON (a proxy) is a stream error that says the answer could not be read', async () => {
    server.fallback(reply.json(200, { message: 'hello' }));
    const provider = testProvider(server.url, { max_retries: 0 });
    const error = await llmErrorOf(provider.complete(REQUEST));
    await provider.close();
    expect(error.kind).toBe('stream');
    expect(error.message).toContain("could not be read as Bedrock's");
  });

  it('a frame with a bad CRC is refused (the SDK checks both CRCs)', async () => {
    const bytes = Buffer.from(encodeStream([...TEXT_START, ...TEXT_END]));
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0xff;
    server.fallback(eventStreamReply(bytes));
    const provider = testProvider(server.url, { max_retries: 0 });
    const error = await llmErrorOf(provider.complete(REQUEST));
    await provider.close();
    expect(error.kind).toBe('stream');
  });
});

describe('transport', () => {
  it('an abort mid-stream is an abort error', async () => {
    const controller = new AbortController();
    server.fallback((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
      res.write(encodeStream(TEXT_START), () => controller.abort(new Error('user stop')));
    });
    const provider = testProvider(server.url);
    const error = await llmErrorOf(provider.complete(REQUEST, { signal: controller.signal }));
    await provider.close();
    expect(error.kind).toBe('abort');
  });

  it('a server that never answers times out (config timeout)', async () => {
    const held = reply.hang();
    server.fallback(held.handler);
    const provider = testProvider(server.url, { timeout: 0.2, max_retries: 0 });
    const error = await llmErrorOf(provider.complete(REQUEST));
    await provider.close();
    expect(error.kind).toBe('timeout');
  });

  it('a stream that stalls after output times out between frames (config timeout), with llm:stream_aborted', async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    server.fallback((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
      res.write(encodeStream(TEXT_START));
      void released.then(() => res.destroy());
    });
    const { hooks, names } = recorder();
    const provider = testProvider(server.url, { timeout: 0.3, max_retries: 0 }, hooks);
    const error = await llmErrorOf(provider.complete(REQUEST));
    release();
    await provider.close();
    expect(error.kind).toBe('timeout');
    expect(names()).toContain('llm:stream_aborted');
  });

  it('a refused connection is a network error, retried at most once on this machine', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const { hooks, names } = recorder();
    const provider = testProvider(`http://127.0.0.1:${port}`, { max_retries: 5 }, hooks);
    const error = await llmErrorOf(provider.complete(REQUEST));
    await provider.close();
    expect(error.kind).toBe('network');
    expect(names().filter((n) => n === 'provider:retry')).toHaveLength(1);
  });

  it('no credentials anywhere (env, files; instance metadata off) is a configuration error that says what to set, not retried', async () => {
    const provider = new BedrockProvider(
      resolveConfig({ base_url: server.url, aws_region: 'us-east-1', max_retries: 3 }, {}),
    );
    const error = await llmErrorOf(provider.complete(REQUEST));
    await provider.close();
    expect(error.kind).toBe('configuration');
    expect(error.message).toContain('set AWS_BEARER_TOKEN_BEDROCK or AWS credentials');
    expect(server.requests).toHaveLength(0);
  });

  it('after close, a call fails with a configuration error', async () => {
    const provider = testProvider(server.url);
    await provider.close();
    const error = await llmErrorOf(provider.complete(REQUEST));
    expect(error.kind).toBe('configuration');
  });
});
