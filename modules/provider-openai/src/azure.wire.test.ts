/**
 * Azure OpenAI's wire, replayed by a local FakeLlmServer: the recorded
 * stream (a first chunk without choices that carries `prompt_filter_results`,
 * per-chunk `content_filter_results`, usage in a last chunk without choices,
 * no `data: [DONE]`) and the recorded completion with its filter results
 * (`__fixtures__/recorded/azure-*`, unchanged copies of the shared real-world
 * fixtures); then the faults: a prompt blocked by the content filter (400),
 * a completion cut by it (`finish_reason: "content_filter"`), a 429 with
 * `x-ms-retry-after-ms`, a stream cut before its end.
 */
import { readFileSync } from 'node:fs';
import { type ChatRequest, LLMError, type StreamEvent } from '@amplifier/core';
import { FakeLlmServer, llmErrorOf, reply } from '@amplifier/provider-http/testing';
import { EventRecorder } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AzureOpenAIConfig, resolveAzureConfig } from './azure.js';
import { AzureOpenAIProvider } from './azure-provider.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`./__fixtures__/recorded/${name}`, import.meta.url), 'utf8');
const STREAM = fixture('azure-chat-stream-prompt-filter-results.sse');
const COMPLETION = JSON.parse(fixture('azure-chat-completion-filter-results.json'));
const REQUEST: ChatRequest = { messages: [{ role: 'user', content: 'What is the capital of Denmark?' }] };

/** A prompt blocked by Azure's filter (the documented body; variants below). */
const BLOCKED = {
  error: {
    message:
      "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.",
    type: null,
    param: 'prompt',
    code: 'content_filter',
    status: 400,
    innererror: {
      code: 'ResponsibleAIPolicyViolation',
      content_filter_result: {
        hate: { filtered: false, severity: 'safe' },
        jailbreak: { filtered: true, detected: true },
        self_harm: { filtered: false, severity: 'safe' },
        sexual: { filtered: false, severity: 'safe' },
        violence: { filtered: true, severity: 'medium' },
      },
    },
  },
};

let server: FakeLlmServer;
let provider: AzureOpenAIProvider;
let recorder: EventRecorder;

function make(config: AzureOpenAIConfig = {}): AzureOpenAIProvider {
  recorder = new EventRecorder();
  provider = new AzureOpenAIProvider(
    resolveAzureConfig(
      {
        azure_endpoint: server.url,
        api_key: 'az-key',
        default_model: 'gpt-5-nano',
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
  for await (const event of iterable) out.push(event);
  return out;
}

describe('recorded answers (AZ3, AZ4)', () => {
  it('the stream: chunks without choices add nothing, the filter results and the usage are kept, EOF ends it', async () => {
    server.enqueue(reply.sse([STREAM]));
    const response = await make().complete(REQUEST);
    expect(response.content).toEqual([{ type: 'text', text: 'Capital of Denmark.' }]);
    expect(response.finish_reason).toBe('stop');
    expect(response.usage).toMatchObject({ input_tokens: 15, output_tokens: 78, reasoning_tokens: 64 });
    expect(response.metadata).toMatchObject({
      'openai:response_id': 'chatcmpl-CYPS1lijGoK8gd9lYzY3r9Sx50nbt',
      'openai:model': 'gpt-5-nano-2025-08-07',
      'azure:prompt_filter_results': [
        { prompt_index: 0, content_filter_results: { jailbreak: { filtered: false, detected: false } } },
      ],
      'azure:content_filter_results': {
        hate: { filtered: false, severity: 'safe' },
        violence: { filtered: false, severity: 'safe' },
      },
    });
    const deltas = recorder.events.filter(([name]) => name === 'llm:stream_block_delta');
    expect(deltas.map(([, data]) => data.text).join('')).toBe('Capital of Denmark.');
  });

  it('the stream split at every 7 bytes gives the same events through stream()', async () => {
    const pieces = STREAM.match(/[\s\S]{1,7}/g) ?? [];
    server.enqueue(reply.sse(pieces));
    const events = await collect(make().stream(REQUEST));
    expect(events[0]).toEqual({ type: 'message.start' });
    expect(events.filter((e) => e.type === 'text.delta').map((e) => (e as { text: string }).text)).toEqual([
      'Capital',
      ' of',
      ' Denmark',
      '.',
    ]);
    const end = events.at(-1);
    expect(
      end?.type === 'message.end' && end.response.metadata?.['azure:prompt_filter_results'],
    ).toHaveLength(1);
  });

  it('the completion: prompt and completion filter results (protected material too) in metadata, usage and cost', async () => {
    server.enqueue(reply.json(200, COMPLETION));
    const response = await make({ use_streaming: false, default_model: 'gpt-4o' }).complete(REQUEST);
    expect(response.content).toEqual([{ type: 'text', text: 'The capital of France is **Paris**.' }]);
    expect(response.metadata?.['azure:content_filter_results']).toEqual(
      COMPLETION.choices[0].content_filter_results,
    );
    expect(response.metadata?.['azure:prompt_filter_results']).toEqual(COMPLETION.prompt_filter_results);
    expect(response.usage).toMatchObject({ input_tokens: 14, output_tokens: 9, total_tokens: 23 });
    expect(typeof response.usage?.cost_usd).toBe('string');
    expect(server.requests[0]!.body.stream).toBeUndefined();
  });

  it('PTU deployments report no per-token cost (AZ9)', async () => {
    server.enqueue(reply.json(200, COMPLETION));
    const response = await make({
      use_streaming: false,
      default_model: 'gpt-4o',
      deployment_type: 'PTU',
    }).complete(REQUEST);
    expect(response.usage?.cost_usd).toBeUndefined();
    expect(provider.costUsd).toBeNull();
  });
});

describe('content filter (AZ5, AZ6)', () => {
  it('a blocked prompt is a content_filter error naming the categories that fired, never retried', async () => {
    server.fallback(reply.json(400, BLOCKED));
    const error = await llmErrorOf(make({ max_retries: 3 }).complete(REQUEST));
    expect(error.kind).toBe('content_filter');
    expect(error.retryable).toBe(false);
    expect(error.status_code).toBe(400);
    expect(error.message).toContain("triggering Azure OpenAI's content management policy");
    expect(error.message).toContain(
      '[content filter: jailbreak (detected, filtered), violence (medium, filtered)]',
    );
    expect(error.message).not.toContain('hate');
    expect(server.requests).toHaveLength(1);
    const response = recorder.events.find(([name]) => name === 'llm:response')?.[1];
    expect(response).toMatchObject({ status: 'error', error_kind: 'content_filter' });
  });

  it('the variants: inner_error with content_filter_results, and only the inner code naming the policy', async () => {
    const inner = BLOCKED.error.innererror;
    server.enqueue(
      reply.json(400, {
        error: {
          ...BLOCKED.error,
          innererror: undefined,
          inner_error: {
            code: inner.code,
            content_filter_results: { sexual: { filtered: true, severity: 'high' } },
          },
        },
      }),
    );
    const first = await llmErrorOf(make({ max_retries: 3 }).complete(REQUEST));
    expect(first.kind).toBe('content_filter');
    expect(first.message).toContain('[content filter: sexual (high, filtered)]');
    server.enqueue(
      reply.json(400, {
        error: {
          message: 'filtered',
          innererror: { code: 'ResponsibleAIPolicyViolation', content_filter_result: 'odd' },
        },
      }),
    );
    const second = await llmErrorOf(provider.complete(REQUEST));
    expect(second.kind).toBe('content_filter');
    expect(second.message).toBe('azure-openai (HTTP 400): filtered');
    expect(server.requests).toHaveLength(2);
  });

  it('an error payload inside the stream is classified the same way', async () => {
    const messages = STREAM.split(/(?<=\n\n)/);
    server.enqueue(reply.sse([messages[0]!, `data: ${JSON.stringify(BLOCKED)}\n\n`]));
    const error = await llmErrorOf(make({ max_retries: 3 }).complete(REQUEST));
    expect(error.kind).toBe('content_filter');
    expect(error.message).toContain(
      '[content filter: jailbreak (detected, filtered), violence (medium, filtered)]',
    );
    expect(server.requests).toHaveLength(1);
  });

  it('hostile error bodies never crash the classifier', async () => {
    for (const body of [
      '{"error":{"innererror":null}}',
      '{"error":{"innererror":{"content_filter_result":[1,2]}}}',
      '{"error":{"inner_error":{"content_filter_results":{"hate":null,"x":{"filtered":"yes"}}}}}',
      '{"error":"content_filter"}',
      '[]',
      'not json',
    ]) {
      server.enqueue(reply.raw(400, body));
      const error = await llmErrorOf(make({ max_retries: 0 }).complete(REQUEST));
      expect(LLMError.is(error)).toBe(true);
      expect(error.kind).toBe('invalid_request');
      await provider.close();
    }
  });

  it('finish_reason content_filter: the finish reason, and the category that fired in metadata', async () => {
    const cut = STREAM.replace(
      '"content_filter_results":{},"delta":{},"finish_reason":"stop"',
      '"content_filter_results":{"violence":{"filtered":true,"severity":"high"}},"delta":{},"finish_reason":"content_filter"',
    );
    expect(cut).not.toBe(STREAM);
    server.enqueue(reply.sse([cut]));
    const response = await make().complete(REQUEST);
    expect(response.finish_reason).toBe('content_filter');
    expect(response.metadata?.['azure:content_filter_results']).toMatchObject({
      violence: { filtered: true, severity: 'high' },
      hate: { filtered: false, severity: 'safe' },
    });
    const done = recorder.events.find(([name]) => name === 'llm:response')?.[1];
    expect(done).toMatchObject({ status: 'ok', finish_reason: 'content_filter' });
  });
});

describe('faults', () => {
  it('429 with x-ms-retry-after-ms: waits what Azure asked, then retries (AZ7)', async () => {
    server.enqueue(
      reply.json(
        429,
        {
          error: {
            code: '429',
            message: 'Requests to the ChatCompletions_Create Operation have exceeded token rate limit.',
          },
        },
        { 'x-ms-retry-after-ms': '30', 'retry-after': '1' },
      ),
    );
    server.enqueue(reply.sse([STREAM]));
    const response = await make().complete(REQUEST);
    expect(response.content).toEqual([{ type: 'text', text: 'Capital of Denmark.' }]);
    const retry = recorder.events.find(([name]) => name === 'provider:retry')?.[1];
    expect(retry).toMatchObject({ error_kind: 'rate_limit', status_code: 429, retry_after: 0.03 });
    expect(retry?.delay).toBeGreaterThanOrEqual(0.03);
    expect(server.requests).toHaveLength(2);
  });

  it('a 429 asking for longer than max_retry_delay fails at once', async () => {
    server.fallback(
      reply.json(429, { error: { code: '429', message: 'slow down' } }, { 'x-ms-retry-after-ms': '90000' }),
    );
    const error = await llmErrorOf(make({ max_retry_delay: 60 }).complete(REQUEST));
    expect(error).toMatchObject({ kind: 'rate_limit', retryable: false, retry_after: 90 });
    expect(server.requests).toHaveLength(1);
  });

  it('a stream cut before its finish_reason (and without [DONE]): a stream error, aborted after its deltas', async () => {
    const messages = STREAM.split(/(?<=\n\n)/);
    server.fallback(reply.sseThenDrop(messages.slice(0, 4)));
    const error = await llmErrorOf(make({ max_retries: 2 }).complete(REQUEST));
    expect(error.kind).toBe('stream');
    const names = recorder.events.map(([name]) => name);
    expect(names).toContain('llm:stream_block_delta');
    expect(names.indexOf('llm:stream_aborted')).toBeGreaterThan(names.lastIndexOf('llm:stream_block_delta'));
    // Text was shown: the call is not retried.
    expect(server.requests).toHaveLength(1);
  });

  it('a stream that ends cleanly but early (no finish_reason, no [DONE]) is an error too', async () => {
    const messages = STREAM.split(/(?<=\n\n)/);
    server.enqueue(reply.sse(messages.slice(0, 1)));
    const error = await llmErrorOf(make({ max_retries: 0 }).complete(REQUEST));
    expect(error.kind).toBe('stream');
    expect(error.message).toContain('the stream ended before the response was complete');
  });
});
