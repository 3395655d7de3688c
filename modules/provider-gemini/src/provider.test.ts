/**
 * GeminiProvider against real recorded Gemini answers (`__fixtures__/recorded/`:
 * unchanged copies of /work/shared/realworld-fixtures/wire/gemini-*, sources in
 * that README) replayed by a local FakeLlmServer, plus fault cases the
 * recordings do not hold: a 429 with RetryInfo, a per-day quota, a dropped
 * stream, an in-stream error, a blocked prompt.
 */
import { readFileSync } from 'node:fs';
import { type ChatRequest, checkData, type Message, toMessageToolCall } from '@amplifier/core';
import {
  FakeLlmServer,
  llmErrorOf,
  reply,
  splitBytes,
  sseEvent,
  streamingContractProblems,
} from '@amplifier/provider-http/testing';
import { EventRecorder } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type GeminiConfig, resolveConfig } from './config.js';
import { CALLS_KEY, MODEL_KEY } from './convert.js';
import { GeminiProvider } from './provider.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`./__fixtures__/recorded/${name}`, import.meta.url), 'utf8');
const json = (name: string): Record<string, unknown> => JSON.parse(fixture(name));

const REQUEST: ChatRequest = { messages: [{ role: 'user', content: 'What is the capital of France?' }] };
const TOOLS = [
  {
    name: 'get_capital',
    description: 'The capital of a country',
    parameters: { type: 'object', properties: { country: { type: 'string' } }, required: ['country'] },
  },
];

let server: FakeLlmServer;
let provider: GeminiProvider;
let recorder: EventRecorder;

function make(config: GeminiConfig = {}): GeminiProvider {
  recorder = new EventRecorder();
  provider = new GeminiProvider(
    resolveConfig(
      {
        api_key: 'gm-test-key',
        base_url: server.url,
        default_model: 'gemini-2.5-pro',
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

describe('the Gemini API wire', () => {
  it('non-streamed: generateContent under /v1beta, x-goog-api-key, systemInstruction, generationConfig', async () => {
    server.enqueue(reply.json(200, json('gemini-usage-cached-content.json')));
    const response = await make({ use_streaming: false, max_tokens: 100 }).complete({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Capital of France?' },
      ],
    });
    const sent = server.requests[0]!;
    expect(sent.method).toBe('POST');
    expect(sent.url).toBe('/v1beta/models/gemini-2.5-pro:generateContent');
    expect(sent.headers['x-goog-api-key']).toBe('gm-test-key');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }] });
    expect(sent.body.contents).toEqual([{ role: 'user', parts: [{ text: 'Capital of France?' }] }]);
    expect(sent.body.generationConfig).toMatchObject({
      maxOutputTokens: 100,
      temperature: 0.7,
      thinkingConfig: { includeThoughts: true },
    });
    expect(checkData('chat-response', response)).toEqual([]);
    expect(response.content).toEqual([{ type: 'text', text: 'Paris.' }]);
    expect(response.finish_reason).toBe('stop');
  });

  it('cached usage: input = prompt (cached included), cache_read = cachedContentTokenCount, output = candidates + thoughts, priced', async () => {
    server.enqueue(reply.json(200, json('gemini-usage-cached-content.json')));
    const response = await make({ use_streaming: false, default_model: 'gemini-2.5-flash' }).complete(
      REQUEST,
    );
    // 3520 prompt of which 3512 cached; 2 candidates + 42 thoughts.
    // Cost: (8 * 0.30 + 3512 * 0.03 + 44 * 2.50) per million = 0.0000024 + 0.00010536 + 0.00011
    expect(response.usage).toEqual({
      input_tokens: 3520,
      output_tokens: 44,
      total_tokens: 3564,
      cache_read_tokens: 3512,
      reasoning_tokens: 42,
      cost_usd: '0.00021776',
    });
    expect(provider.costUsd).toBe('0.00021776');
  });

  it('streamed text (CRLF-separated SSE, split anywhere): streamGenerateContent?alt=sse, deltas join to the text, last usage counts', async () => {
    server.enqueue(reply.sse(splitBytes(fixture('gemini-stream-text.sse'), 17)));
    const response = await make({ default_model: 'gemini-2.0-flash' }).complete(REQUEST);
    expect(server.requests[0]!.url).toBe('/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse');
    // gemini-2.0-flash does not think: no thinkingConfig is sent.
    expect(server.requests[0]!.body.generationConfig.thinkingConfig).toBeUndefined();
    expect(response.content).toEqual([{ type: 'text', text: 'The capital of France is Paris.\n' }]);
    // The last chunk's usage (promptTokenCount 15 -> 13).
    expect(response.usage).toMatchObject({ input_tokens: 13, output_tokens: 8, total_tokens: 21 });
    expect(response.metadata).toMatchObject({
      [MODEL_KEY]: 'gemini-2.0-flash-exp',
      'gemini:response_id': 'w1peaMz6INOvnvgPgYfPiQY',
      'gemini:finish_reason': 'STOP',
    });
    const events = recorder.events.map(([name, data]) => [name, data] as const);
    expect(streamingContractProblems(events, 'ok')).toEqual([]);
    const deltas = recorder.events.filter(([n]) => n === 'llm:stream_block_delta').map(([, d]) => d.text);
    expect(deltas).toEqual(['The', ' capital of France', ' is Paris.\n']);
  });

  it('non-streamed function call: a stable generated id, arguments, signature kept in metadata, finish tool_calls', async () => {
    server.enqueue(reply.json(200, json('gemini-function-call.json')));
    const response = await make({ use_streaming: false }).complete({ ...REQUEST, tools: TOOLS });
    const sent = server.requests[0]!.body;
    expect(sent.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: 'get_capital',
            description: 'The capital of a country',
            parameters: {
              type: 'object',
              properties: { country: { type: 'string' } },
              required: ['country'],
            },
          },
        ],
      },
    ]);
    const [call] = response.tool_calls!;
    expect(call!.id).toMatch(/^gemini_call_[0-9a-f]{12}$/);
    expect(call).toMatchObject({ name: 'get_capital', arguments: { country: 'France' } });
    expect(response.finish_reason).toBe('tool_calls');
    const signature = fixture('gemini-function-call.json').match(/"thoughtSignature": "([^"]+)"/)?.[1];
    expect(signature).toMatch(/^CpYEAXLI/);
    expect(response.metadata?.[CALLS_KEY]).toEqual({ [call!.id]: { signature } });
    expect(response.usage).toMatchObject({ input_tokens: 57, output_tokens: 139, reasoning_tokens: 124 });
    expect(provider.parseToolCalls(response)).toEqual([call]);
  });

  it('streamed function call: tool_use block start (named) and end, no deltas, the empty finish chunk opens nothing', async () => {
    server.enqueue(reply.sse(splitBytes(fixture('gemini-stream-function-call.sse'), 61)));
    const response = await make({ default_model: 'gemini-3-pro-preview' }).complete({
      ...REQUEST,
      tools: TOOLS,
    });
    expect(response.content).toEqual([]);
    expect(response.tool_calls).toEqual([
      { id: expect.stringMatching(/^gemini_call_/), name: 'get_country', arguments: {} },
    ]);
    const names = recorder.events
      .filter(([n]) => n.startsWith('llm:stream_'))
      .map(([n, d]) => `${n}:${d.block_type}`);
    expect(names).toEqual(['llm:stream_block_start:tool_use', 'llm:stream_block_end:tool_use']);
    expect(recorder.events.find(([n]) => n === 'llm:stream_block_start')?.[1].name).toBe('get_country');
    const id = response.tool_calls![0]!.id;
    const calls = response.metadata?.[CALLS_KEY] as Record<string, { signature?: string }>;
    expect(calls[id]?.signature).toMatch(/^EpwICpkI/);
  });

  it('streamed thinking: thought parts as one thinking block, then the answer text carrying the thoughtSignature', async () => {
    server.enqueue(reply.sse(splitBytes(fixture('gemini-stream-thinking.sse'), 200)));
    const response = await make().complete(REQUEST);
    expect(response.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    const thinking = response.content[0] as { thinking: string; signature?: string };
    expect(thinking.thinking.startsWith('**Clarifying User Goals**')).toBe(true);
    expect(thinking.signature).toBeUndefined();
    const text = response.content[1] as { text: string; signature?: string };
    expect(text.signature).toMatch(/.{40,}/);
    expect(response.usage?.reasoning_tokens).toBeGreaterThan(0);
    const started = recorder.events
      .filter(([n]) => n === 'llm:stream_block_start')
      .map(([, d]) => d.block_type);
    expect(started).toEqual(['thinking', 'text']);
    expect(streamingContractProblems(recorder.events, 'ok')).toEqual([]);
  });

  it('thinking + thought signature round trip across a tool call: each signature goes back on the part that carried it', async () => {
    // Turn 1: a thought part, a text part signed, and two parallel calls, only the first signed (as Gemini does).
    const turn1 = {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { text: 'Thinking about capitals.', thought: true, thoughtSignature: 'SIG-THOUGHT' },
              { text: 'Let me look both up.', thoughtSignature: 'SIG-TEXT' },
              {
                functionCall: { name: 'get_capital', args: { country: 'France' } },
                thoughtSignature: 'SIG-CALL-1',
              },
              { functionCall: { name: 'get_capital', args: { country: 'Spain' } } },
            ],
          },
          finishReason: 'STOP',
        },
      ],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 20, thoughtsTokenCount: 5 },
      modelVersion: 'gemini-2.5-pro',
      responseId: 'resp-1',
    };
    server.enqueue(reply.sse([sseEvent(turn1)]), reply.json(200, json('gemini-usage-cached-content.json')));
    make();
    const first = await provider.complete({ ...REQUEST, tools: TOOLS });
    const [france, spain] = first.tool_calls!;
    expect(france!.id).not.toBe(spain!.id);
    // What an orchestrator stores (loop-basic's assistantMessage: content, tool_calls, metadata).
    const history: Message[] = [
      ...REQUEST.messages,
      {
        role: 'assistant',
        content: first.content,
        tool_calls: first.tool_calls!.map(toMessageToolCall),
        metadata: JSON.parse(JSON.stringify(first.metadata)),
      },
      // Results arrive out of order: they go back in call order, in one user content.
      { role: 'tool', tool_call_id: spain!.id, content: 'Madrid' },
      { role: 'tool', tool_call_id: france!.id, content: 'Paris' },
    ];
    await provider.complete({ messages: JSON.parse(JSON.stringify(history)), tools: TOOLS });
    const sent = server.requests[1]!.body;
    expect(sent.contents).toEqual([
      { role: 'user', parts: [{ text: 'What is the capital of France?' }] },
      {
        role: 'model',
        parts: [
          { text: 'Thinking about capitals.', thought: true, thoughtSignature: 'SIG-THOUGHT' },
          { text: 'Let me look both up.', thoughtSignature: 'SIG-TEXT' },
          {
            functionCall: { name: 'get_capital', args: { country: 'France' } },
            thoughtSignature: 'SIG-CALL-1',
          },
          { functionCall: { name: 'get_capital', args: { country: 'Spain' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_capital', response: { result: 'Paris' } } },
          { functionResponse: { name: 'get_capital', response: { result: 'Madrid' } } },
        ],
      },
    ]);
  });

  it('wire call ids (Gemini 3) go back on functionCall and functionResponse', async () => {
    const answer = {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              {
                functionCall: { id: 'fc-7', name: 'get_capital', args: { country: 'Peru' } },
                thoughtSignature: 'S',
              },
            ],
          },
          finishReason: 'STOP',
        },
      ],
      modelVersion: 'gemini-3-pro-preview',
    };
    server.enqueue(reply.json(200, answer), reply.json(200, json('gemini-usage-cached-content.json')));
    make({ use_streaming: false, default_model: 'gemini-3-pro-preview' });
    const first = await provider.complete({ ...REQUEST, tools: TOOLS });
    expect(first.tool_calls![0]!.id).toBe('fc-7');
    await provider.complete({
      tools: TOOLS,
      messages: [
        ...REQUEST.messages,
        {
          role: 'assistant',
          content: first.content,
          tool_calls: first.tool_calls!.map(toMessageToolCall),
          metadata: first.metadata!,
        },
        { role: 'tool', tool_call_id: 'fc-7', content: 'Lima' },
      ],
    });
    const [, model, user] = server.requests[1]!.body.contents;
    expect(model.parts).toEqual([
      { functionCall: { name: 'get_capital', args: { country: 'Peru' }, id: 'fc-7' }, thoughtSignature: 'S' },
    ]);
    expect(user.parts).toEqual([
      { functionResponse: { name: 'get_capital', response: { result: 'Lima' }, id: 'fc-7' } },
    ]);
    // Gemini 3 gets thinkingLevel, never a budget, when effort is asked for.
    await provider.complete({ ...REQUEST, reasoning_effort: 'low' }).catch(() => {});
    expect(server.requests[2]!.body.generationConfig.thinkingConfig).toEqual({
      thinkingLevel: 'low',
      includeThoughts: true,
    });
  });
});

describe('errors', () => {
  it('the recorded 400 INVALID_ARGUMENT: an invalid_request error quoting the status, not retried', async () => {
    server.enqueue(reply.json(400, json('gemini-error-400-invalid-argument.json')));
    const error = await llmErrorOf(make({ use_streaming: false }).complete(REQUEST));
    expect(error.kind).toBe('invalid_request');
    expect(error.retryable).toBe(false);
    expect(error.status_code).toBe(400);
    expect(error.message).toContain('gemini (HTTP 400 INVALID_ARGUMENT): Cannot fetch content');
    expect(server.requests).toHaveLength(1);
  });

  it('the recorded SAFETY finish: a content_filter error naming the blocked category, not retried', async () => {
    server.enqueue(reply.json(200, json('gemini-finish-reason-safety.json')));
    const error = await llmErrorOf(make({ use_streaming: false }).complete(REQUEST));
    expect(error.kind).toBe('content_filter');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('finishReason SAFETY');
    expect(error.message).toContain('HARM_CATEGORY_HATE_SPEECH (LOW)');
    expect(error.message).toContain('safety_settings');
    expect(server.requests).toHaveLength(1);
  });

  it.each(['RECITATION', 'PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII'])(
    'finishReason %s mid-stream after text: llm:stream_aborted, content_filter',
    async (reason) => {
      server.enqueue(
        reply.sse([
          sseEvent({ candidates: [{ content: { role: 'model', parts: [{ text: 'Once upon' }] } }] }),
          sseEvent({
            candidates: [{ content: { role: 'model', parts: [{ text: ' a time' }] }, finishReason: reason }],
          }),
        ]),
      );
      const error = await llmErrorOf(make().complete(REQUEST));
      expect(error.kind).toBe('content_filter');
      expect(error.message).toContain(`finishReason ${reason}`);
      expect(streamingContractProblems(recorder.events, 'failed')).toEqual([]);
      expect(recorder.events.filter(([n]) => n === 'llm:stream_aborted')).toHaveLength(1);
      expect(server.requests).toHaveLength(1);
    },
  );

  it('a blocked prompt (promptFeedback.blockReason, no candidates): content_filter, streamed or not', async () => {
    const blocked = {
      promptFeedback: {
        blockReason: 'PROHIBITED_CONTENT',
        safetyRatings: [{ category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true }],
      },
      usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 },
    };
    server.enqueue(reply.json(200, blocked), reply.sse([sseEvent(blocked)]));
    const plain = await llmErrorOf(make({ use_streaming: false }).complete(REQUEST));
    expect(plain.kind).toBe('content_filter');
    expect(plain.message).toContain(
      'the prompt was blocked by Gemini (blockReason PROHIBITED_CONTENT; blocked categories: HARM_CATEGORY_DANGEROUS_CONTENT (HIGH))',
    );
    await provider.close();
    const streamed = await llmErrorOf(make().complete(REQUEST));
    expect(streamed.kind).toBe('content_filter');
    expect(recorder.events.some(([n]) => n === 'llm:stream_aborted')).toBe(false);
  });

  it('429 RESOURCE_EXHAUSTED with RetryInfo: retried after retryDelay (provider:retry says so), then succeeds', async () => {
    const quota = {
      error: {
        code: 429,
        message: 'You exceeded your current quota. Please retry in 1.73s.',
        status: 'RESOURCE_EXHAUSTED',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
            violations: [
              {
                quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
                quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
                quotaValue: '10',
              },
            ],
          },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '0.02s' },
        ],
      },
    };
    server.enqueue(
      reply.json(429, quota, { 'retry-after': '30' }),
      reply.json(200, json('gemini-usage-cached-content.json')),
    );
    const response = await make({ use_streaming: false, max_retry_delay: 5 }).complete(REQUEST);
    expect(response.content).toEqual([{ type: 'text', text: 'Paris.' }]);
    const retry = recorder.events.find(([n]) => n === 'provider:retry')?.[1];
    // RetryInfo (0.02 s) wins over the message (1.73 s) and Retry-After (30 s); jitter only adds.
    expect(retry?.delay).toBeGreaterThanOrEqual(0.02);
    expect(retry?.delay).toBeLessThan(1);
    expect(String(retry?.error)).toContain('RESOURCE_EXHAUSTED');
  });

  it('429 whose delay is only in the message ("Please retry in 47.4s"), over max_retry_delay: not retried, says so', async () => {
    server.enqueue(
      reply.json(429, {
        error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'Quota exceeded. Please retry in 47.4s.' },
      }),
    );
    const error = await llmErrorOf(make({ use_streaming: false, max_retry_delay: 10 }).complete(REQUEST));
    expect(error.kind).toBe('rate_limit');
    expect(error.retry_after).toBe(47.4);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('longer than max_retry_delay');
    expect(server.requests).toHaveLength(1);
  });

  it('429 on a per-day quota: quota_exceeded, not retried', async () => {
    server.enqueue(
      reply.json(429, [
        {
          error: {
            code: 429,
            status: 'RESOURCE_EXHAUSTED',
            message: 'Quota exceeded for metric generate_content_free_tier_requests.',
            details: [
              {
                '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
                violations: [{ quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier' }],
              },
              { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '3s' },
            ],
          },
        },
      ]),
    );
    const error = await llmErrorOf(make({ use_streaming: false }).complete(REQUEST));
    expect(error.kind).toBe('quota_exceeded');
    expect(error.retryable).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it('a prompt over the token limit is context_length', async () => {
    server.enqueue(
      reply.json(400, {
        error: {
          code: 400,
          status: 'INVALID_ARGUMENT',
          message: 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
        },
      }),
    );
    const error = await llmErrorOf(make({ use_streaming: false }).complete(REQUEST));
    expect(error.kind).toBe('context_length');
  });

  it('a dropped stream after a delta: a stream error, llm:stream_aborted, not retried', async () => {
    const messages = fixture('gemini-stream-text.sse').split(/(?<=\r\n\r\n)/);
    server.enqueue(reply.sseThenDrop(messages.slice(0, 2)));
    const error = await llmErrorOf(make().complete(REQUEST));
    expect(error.kind).toBe('stream');
    expect(recorder.events.filter(([n]) => n === 'llm:stream_aborted')).toHaveLength(1);
    expect(streamingContractProblems(recorder.events, 'failed')).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('a stream that ends cleanly without a finishReason is cut off: a stream error, not an answer', async () => {
    const messages = fixture('gemini-stream-text.sse').split(/(?<=\r\n\r\n)/);
    server.enqueue(reply.sse(messages.slice(0, 2)));
    const error = await llmErrorOf(make().complete(REQUEST));
    expect(error.kind).toBe('stream');
    expect(error.message).toContain('before Gemini sent a finishReason');
  });

  it('an in-stream error payload after a delta: classified (unavailable), llm:stream_aborted, not retried', async () => {
    server.enqueue(
      reply.sse([
        sseEvent({ candidates: [{ content: { role: 'model', parts: [{ text: 'Hel' }] } }] }),
        sseEvent({
          error: {
            code: 503,
            message: 'The model is overloaded. Please try again later.',
            status: 'UNAVAILABLE',
          },
        }),
      ]),
    );
    const error = await llmErrorOf(make().complete(REQUEST));
    expect(error.kind).toBe('unavailable');
    expect(error.message).toContain('UNAVAILABLE: The model is overloaded');
    expect(recorder.events.filter(([n]) => n === 'llm:stream_aborted')).toHaveLength(1);
    expect(server.requests).toHaveLength(1);
  });

  it('an in-stream error before any delta is retried transparently', async () => {
    server.enqueue(
      reply.sse([
        sseEvent({ error: { code: 500, message: 'Internal error encountered.', status: 'INTERNAL' } }),
      ]),
      reply.sse(splitBytes(fixture('gemini-stream-text.sse'), 61)),
    );
    const response = await make().complete(REQUEST);
    expect(response.content).toEqual([{ type: 'text', text: 'The capital of France is Paris.\n' }]);
    expect(server.requests).toHaveLength(2);
    expect(recorder.events.some(([n]) => n === 'llm:stream_aborted')).toBe(false);
  });

  it('MALFORMED_FUNCTION_CALL is an invalid_tool_call error', async () => {
    server.enqueue(
      reply.json(200, {
        candidates: [
          {
            content: {},
            finishReason: 'MALFORMED_FUNCTION_CALL',
            finishMessage: 'Malformed function call: print(',
          },
        ],
      }),
    );
    const error = await llmErrorOf(make({ use_streaming: false, max_retries: 0 }).complete(REQUEST));
    expect(error.kind).toBe('invalid_tool_call');
    expect(error.message).toContain('Malformed function call');
  });
});

describe('models', () => {
  it('listModels pages through GET /models, ids without the models/ prefix, limits from the listing', async () => {
    server.enqueue(
      reply.json(200, {
        models: [
          {
            name: 'models/gemini-2.5-flash',
            displayName: 'Gemini 2.5 Flash',
            inputTokenLimit: 1048576,
            outputTokenLimit: 65536,
            supportedGenerationMethods: ['generateContent', 'countTokens'],
            thinking: true,
          },
          { name: 'models/embedding-001', supportedGenerationMethods: ['embedContent'] },
        ],
        nextPageToken: 'p2',
      }),
      reply.json(200, {
        models: [
          {
            name: 'models/gemini-2.0-flash',
            outputTokenLimit: 8192,
            supportedGenerationMethods: ['generateContent'],
          },
        ],
      }),
    );
    const models = await make().listModels();
    expect(models.map((m) => m.id)).toEqual(['gemini-2.5-flash', 'gemini-2.0-flash']);
    expect(models[0]).toMatchObject({
      display_name: 'Gemini 2.5 Flash',
      context_window: 1048576,
      max_output_tokens: 65536,
    });
    expect(server.requests.map((r) => r.url)).toEqual([
      '/v1beta/models?pageSize=1000',
      '/v1beta/models?pageSize=1000&pageToken=p2',
    ]);
  });
});
