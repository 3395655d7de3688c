/**
 * The mapping itself, with scripted models of the spec (objects with
 * `doStream` / `doGenerate` that hand back the parts the `@ai-sdk/*` packages
 * produce: OpenAI Responses reasoning with its encrypted content on
 * `reasoning-end`, Google's thought signature on `tool-call`, provider-executed
 * calls) where no recorded Chat Completions stream has those parts; plus a
 * V4 model (a real package's model declaring `v4`) and the spec check.
 */
import { readFileSync } from 'node:fs';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { ChatRequest, ChatResponse, EventSink, Logger, Message } from '@amplifier/core';
import { FakeLlmServer, llmErrorOf, reply } from '@amplifier/provider-http/testing';
import { describe, expect, it } from 'vitest';
import {
  type AiSdkModel,
  CALLS_KEY,
  checkModel,
  createAiSdkProvider,
  METADATA_FIELD,
  PROVIDER_PARTS_KEY,
  RESPONSE_ID_KEY,
  type StreamPart,
  toUsage,
} from './index.js';

// A real LanguageModelV3 is an AiSdkModel (checked by tsc).
const asModel = (model: LanguageModelV3): AiSdkModel => model;

type Parts = { type: string; [key: string]: unknown }[];

/** A spec model that streams `parts` (or generates `content`) and records the options of each call. */
function scripted(script: { parts?: Parts; content?: Parts; version?: string; id?: string }) {
  const calls: Record<string, unknown>[] = [];
  const finish = {
    type: 'finish',
    usage: { inputTokens: { total: 10 }, outputTokens: { total: 5 } },
    finishReason: { unified: 'stop', raw: 'stop' },
  };
  const model: AiSdkModel = {
    specificationVersion: script.version ?? 'v3',
    provider: 'scripted.chat',
    modelId: script.id ?? 'scripted-1',
    async doStream(options: Record<string, unknown>) {
      calls.push(options);
      const parts = [...(script.parts ?? []), finish] as StreamPart[];
      return {
        stream: new ReadableStream<StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
    async doGenerate(options: Record<string, unknown>) {
      calls.push(options);
      return {
        content: script.content ?? [],
        usage: finish.usage,
        finishReason: finish.finishReason,
        warnings: [],
      };
    },
  };
  return { model, calls };
}

function recorder() {
  const events: [string, Record<string, unknown>][] = [];
  const hooks: EventSink = {
    emit: async (event, data) => {
      events.push([event, structuredClone(data) as Record<string, unknown>]);
    },
  };
  const stream = () =>
    events
      .filter(([n]) => n.startsWith('llm:stream_'))
      .map(
        ([n, d]) =>
          [n.slice('llm:stream_'.length), d.block_index, d.block_type, d.text ?? d.name ?? ''] as const,
      );
  return { events, hooks, stream };
}

const REQUEST: ChatRequest = { messages: [{ role: 'user', content: 'Weather in Paris?' }] };

/** The assistant message an orchestrator stores for a response (loop-basic copies content, calls and metadata). */
function assistantOf(response: ChatResponse): Message {
  return {
    role: 'assistant',
    content: response.content,
    tool_calls: (response.tool_calls ?? []).map((c) => ({ id: c.id, tool: c.name, arguments: c.arguments })),
    ...(response.metadata && { metadata: response.metadata }),
  };
}

describe('SDK1: spec versions', () => {
  it('refuses v2 and v1 models with the versions it speaks and what to do', () => {
    for (const version of ['v2', 'v1', undefined]) {
      expect(() =>
        checkModel({ specificationVersion: version, doStream() {}, doGenerate() {} }, 'the model'),
      ).toThrow(/speaks v3 and v4.*upgrade the package/);
    }
  });

  it('refuses what is not a model, saying what it got', () => {
    expect(() => checkModel('mistral-large', 'the model')).toThrow(/not an AI SDK language model.*string/);
    expect(() => checkModel({ modelId: 'x' }, 'the model')).toThrow(/an object with keys modelId/);
    expect(() => createAiSdkProvider(null as unknown as AiSdkModel)).toThrow(/got null/);
  });

  it('streams through a v4 model (a real package model declaring v4: same calls and parts)', async () => {
    const server = await FakeLlmServer.start();
    try {
      const text = readFileSync(
        new URL('./__fixtures__/recorded/openai-stream-text.sse', import.meta.url),
        'utf8',
      );
      server.enqueue(reply.sse([text]));
      const v3 = createOpenAICompatible({
        name: 'replay',
        baseURL: `${server.url}/v1`,
        apiKey: 'k',
      }).chatModel('gpt-4o');
      const v4 = Object.create(asModel(v3), { specificationVersion: { value: 'v4' } }) as AiSdkModel;
      const response = await createAiSdkProvider(v4).complete(REQUEST);
      expect(response.content[0]).toMatchObject({ type: 'text' });
      expect(response.usage?.output_tokens).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });
});

describe('SDK3/SDK4/SDK9: stream parts to block events and the response', () => {
  it('string ids get dense block indexes, empty deltas are skipped, a tool-call without tool-input-start gets a start and an end', async () => {
    const { model } = scripted({
      parts: [
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', id: 'resp_1', modelId: 'scripted-1-2026' },
        { type: 'reasoning-start', id: 'rs_9:0' },
        { type: 'reasoning-delta', id: 'rs_9:0', delta: '' },
        { type: 'reasoning-delta', id: 'rs_9:0', delta: 'Think' },
        { type: 'reasoning-delta', id: 'rs_9:0', delta: 'ing.' },
        { type: 'reasoning-end', id: 'rs_9:0' },
        { type: 'text-start', id: 'msg_abc' },
        { type: 'text-delta', id: 'msg_abc', delta: '' },
        { type: 'text-delta', id: 'msg_abc', delta: 'Checking.' },
        { type: 'text-end', id: 'msg_abc' },
        { type: 'tool-call', toolCallId: 'fc_1', toolName: 'weather', input: '{"city":"Paris"}' },
        { type: 'tool-input-start', id: 'fc_2', toolName: 'time' },
        { type: 'tool-input-delta', id: 'fc_2', delta: '{}' },
        { type: 'tool-input-end', id: 'fc_2' },
        { type: 'tool-call', toolCallId: 'fc_2', toolName: 'time', input: '' },
        { type: 'raw', rawValue: {} },
        { type: 'custom', kind: 'x' },
      ],
    });
    const { hooks, stream } = recorder();
    const response = await createAiSdkProvider(model, {}, { hooks }).complete(REQUEST);
    expect(stream()).toEqual([
      ['block_start', 0, 'thinking', ''],
      ['block_delta', 0, 'thinking', 'Think'],
      ['block_delta', 0, 'thinking', 'ing.'],
      ['block_end', 0, 'thinking', ''],
      ['block_start', 1, 'text', ''],
      ['block_delta', 1, 'text', 'Checking.'],
      ['block_end', 1, 'text', ''],
      ['block_start', 2, 'tool_use', 'weather'],
      ['block_end', 2, 'tool_use', ''],
      ['block_start', 3, 'tool_use', 'time'],
      ['block_end', 3, 'tool_use', ''],
    ]);
    expect(response.content).toEqual([
      { type: 'thinking', thinking: 'Thinking.' },
      { type: 'text', text: 'Checking.' },
    ]);
    expect(response.tool_calls).toEqual([
      { id: 'fc_1', name: 'weather', arguments: { city: 'Paris' } },
      { id: 'fc_2', name: 'time', arguments: {} },
    ]);
    expect(response.metadata).toMatchObject({
      [RESPONSE_ID_KEY]: 'resp_1',
      'ai_sdk:model_id': 'scripted-1-2026',
    });
  });

  it('provider-executed calls and their results are kept as data, never returned as calls', async () => {
    const { model } = scripted({
      parts: [
        { type: 'tool-input-start', id: 'ws_1', toolName: 'web_search', providerExecuted: true },
        { type: 'tool-input-end', id: 'ws_1' },
        {
          type: 'tool-call',
          toolCallId: 'ws_1',
          toolName: 'web_search',
          input: '{"q":"x"}',
          providerExecuted: true,
        },
        { type: 'tool-result', toolCallId: 'ws_1', toolName: 'web_search', result: { hits: 1 } },
        { type: 'source', sourceType: 'url', id: 's1', url: 'https://example.com' },
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Found it.' },
        { type: 'text-end', id: 't' },
      ],
    });
    const { hooks, stream } = recorder();
    const response = await createAiSdkProvider(model, {}, { hooks }).complete(REQUEST);
    expect(response.tool_calls).toBeUndefined();
    expect(stream().filter(([, , type]) => type === 'tool_use')).toEqual([]);
    const kept = response.metadata?.[PROVIDER_PARTS_KEY] as Record<string, unknown>[];
    expect(kept.map((p) => p.type)).toEqual(['tool-call', 'tool-result', 'source']);
  });

  it('stream-start warnings are logged once per provider', async () => {
    const warnings: string[] = [];
    const logger: Logger = { debug() {}, info() {}, error() {}, warn: (m) => warnings.push(m) };
    const { model } = scripted({
      parts: [{ type: 'stream-start', warnings: [{ type: 'unsupported', feature: 'topK' }] }],
    });
    const bridge = createAiSdkProvider(model, {}, { logger });
    await bridge.complete(REQUEST);
    await bridge.complete(REQUEST);
    expect(warnings).toEqual([
      'provider-ai-sdk: scripted.chat warns: {"type":"unsupported","feature":"topK"}',
    ]);
  });

  it('a stream that ends without a finish part is a stream error', async () => {
    const model = {
      specificationVersion: 'v3',
      provider: 'p',
      modelId: 'm',
      doGenerate: async () => ({ content: [], usage: {}, finishReason: 'stop' }),
      doStream: async () => ({
        stream: new ReadableStream<StreamPart>({
          start(c) {
            c.enqueue({ type: 'text-delta', id: '0', delta: 'Hi' });
            c.close();
          },
        }),
      }),
    } as unknown as AiSdkModel;
    const error = await llmErrorOf(createAiSdkProvider(model, { max_retries: 0 }).complete(REQUEST));
    expect(error.kind).toBe('stream');
    expect(error.message).toContain('without a finish part');
  });
});

describe('SDK5: providerMetadata round trip', () => {
  it('reasoning metadata from reasoning-end, text and call metadata are replayed as providerOptions next turn', async () => {
    const encrypted = { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'gAAAA-final' } };
    const { model, calls } = scripted({
      parts: [
        {
          type: 'reasoning-start',
          id: 'rs_1:0',
          providerMetadata: { openai: { itemId: 'rs_1', reasoningEncryptedContent: null } },
        },
        { type: 'reasoning-delta', id: 'rs_1:0', delta: 'Plan.' },
        { type: 'reasoning-end', id: 'rs_1:0', providerMetadata: encrypted },
        { type: 'text-start', id: 'msg_1', providerMetadata: { google: { thoughtSignature: 'sig-text' } } },
        { type: 'text-delta', id: 'msg_1', delta: 'Let me look.' },
        { type: 'text-end', id: 'msg_1' },
        {
          type: 'tool-call',
          toolCallId: 'call_1',
          toolName: 'weather',
          input: '{"city":"Paris"}',
          providerMetadata: { google: { thoughtSignature: 'sig-call' } },
        },
      ],
    });
    const bridge = createAiSdkProvider(model);
    const first = await bridge.complete(REQUEST);
    expect(first.content[0]).toEqual({ type: 'thinking', thinking: 'Plan.', [METADATA_FIELD]: encrypted });
    expect(first.metadata?.[CALLS_KEY]).toEqual({
      call_1: { [METADATA_FIELD]: { google: { thoughtSignature: 'sig-call' } } },
    });
    // The history survives JSON (a session store) unchanged.
    const history: Message[] = JSON.parse(
      JSON.stringify([
        ...REQUEST.messages,
        assistantOf(first),
        { role: 'tool', tool_call_id: 'call_1', content: '18°C' },
      ]),
    );
    await bridge.complete({ messages: history });
    const prompt = calls[1]!.prompt as Record<string, unknown>[];
    expect(prompt).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Plan.', providerOptions: encrypted },
          {
            type: 'text',
            text: 'Let me look.',
            providerOptions: { google: { thoughtSignature: 'sig-text' } },
          },
          {
            type: 'tool-call',
            toolCallId: 'call_1',
            toolName: 'weather',
            input: { city: 'Paris' },
            providerOptions: { google: { thoughtSignature: 'sig-call' } },
          },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call_1',
            toolName: 'weather',
            output: { type: 'text', value: '18°C' },
          },
        ],
      },
    ]);
  });

  it("another provider's reasoning and metadata are not replayed (only its text and calls)", async () => {
    const { model, calls } = scripted({});
    const history: Message[] = [
      { role: 'user', content: 'Hi' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'secret plan', signature: 'anthropic-sig' },
          { type: 'text', text: 'Hello.', [METADATA_FIELD]: { anthropic: { x: 1 } } } as never,
        ],
        metadata: { 'ai_sdk:provider': 'anthropic.messages' },
      },
      { role: 'user', content: 'And?' },
    ];
    await createAiSdkProvider(model).complete({ messages: history });
    const prompt = calls[0]!.prompt as { role: string; content: unknown }[];
    expect(prompt[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] });
  });
});

describe('hostile parts and metadata', () => {
  it('odd values in parts give a response or an LLMError, never a crash; __proto__ keys stay data', async () => {
    const { model, calls } = scripted({
      parts: [
        { type: 'text-delta', id: 5, delta: 42 },
        {
          type: 'tool-call',
          toolCallId: '__proto__',
          toolName: 't',
          input: { a: 1 },
          providerMetadata: JSON.parse('{"__proto__":{"polluted":true}}'),
        },
        { type: 'tool-call', toolCallId: 'c2', toolName: 't', input: '[1,2]' },
        { type: 'reasoning-end', id: 'never-started', providerMetadata: 'not an object' },
        { type: 'source', ...JSON.parse('{"__proto__":{"polluted":true}}') },
      ],
    });
    const bridge = createAiSdkProvider(model);
    const response = await bridge.complete(REQUEST);
    expect(response.content).toEqual([{ type: 'text', text: '42' }]);
    expect(response.tool_calls?.[0]).toEqual({ id: '__proto__', name: 't', arguments: { a: 1 } });
    expect(response.tool_calls?.[1]).toMatchObject({
      id: 'c2',
      arguments: {},
      invalid_arguments: { problem: 'not_object' },
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const calls_ = response.metadata?.[CALLS_KEY] as Record<string, unknown>;
    expect(Object.getPrototypeOf(calls_)).toBe(Object.prototype);
    expect(Object.keys(calls_)).toEqual(['__proto__']);
    // Replayed next turn as providerOptions, still plain data.
    await bridge.complete({ messages: [REQUEST.messages[0]!, assistantOf(response)] });
    const prompt = calls[1]!.prompt as {
      role: string;
      content: { toolCallId?: string; providerOptions?: object }[];
    }[];
    const options = prompt[1]!.content.find((p) => p.toolCallId === '__proto__')!.providerOptions!;
    expect(Object.getPrototypeOf(options)).toBe(Object.prototype);
    expect(Object.keys(options)).toEqual(['__proto__']);
  });

  it('a part that is not an object, and garbage usage, end as a stream error / zeros, not a crash', async () => {
    const nullPart = scripted({ parts: [null as unknown as { type: string }] });
    const error = await llmErrorOf(createAiSdkProvider(nullPart.model, { max_retries: 0 }).complete(REQUEST));
    expect(error.kind).toBe('stream');
    expect(
      toUsage({
        inputTokens: { total: -5, cacheWrite: Number.NaN },
        outputTokens: { total: 'x' as unknown as number },
      }),
    ).toEqual({
      input_tokens: 0,
      output_tokens: 0,
      total_tokens: 0,
    });
    expect(toUsage(undefined)).toBeUndefined();
  });
});

describe('SDK2: call options', () => {
  it('sends the converted prompt, tools, tool choice, limits, format, providerOptions, headers and an abort signal', async () => {
    const { model, calls } = scripted({});
    const bridge = createAiSdkProvider(model, {
      max_tokens: 512,
      temperature: 0.3,
      provider_options: { mistral: { safePrompt: true } },
      headers: { 'X-Trace': 't1' },
    });
    await bridge.complete({
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          ],
        },
      ],
      tools: [{ name: 'weather', description: 'Weather', parameters: { type: 'object', properties: {} } }],
      tool_choice: { type: 'tool', name: 'weather' },
      stop: ['END'],
      top_p: 0.9,
      response_format: { type: 'json_schema', schema: { type: 'object' }, name: 'answer' },
    });
    const options = calls[0]!;
    expect(options).toMatchObject({
      prompt: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'file', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
          ],
        },
      ],
      tools: [
        {
          type: 'function',
          name: 'weather',
          description: 'Weather',
          inputSchema: { type: 'object', properties: {} },
        },
      ],
      toolChoice: { type: 'tool', toolName: 'weather' },
      maxOutputTokens: 512,
      temperature: 0.3,
      topP: 0.9,
      stopSequences: ['END'],
      responseFormat: { type: 'json', schema: { type: 'object' }, name: 'answer' },
      providerOptions: { mistral: { safePrompt: true } },
      headers: { 'x-trace': 't1' },
    });
    expect(options.abortSignal).toBeInstanceOf(AbortSignal);
  });

  it('system text after the conversation began stays in place as user text (a system message between turns is refused by several packages)', async () => {
    const { model, calls } = scripted({});
    await createAiSdkProvider(model).complete({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: 'Use metric units.' },
        { role: 'user', content: 'Weather?' },
        { role: 'system', content: 'The user is in Oslo.' },
      ],
    });
    expect(calls[0]!.prompt).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'system', content: 'Use metric units.' },
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
      {
        role: 'user',
        content: [{ type: 'text', text: '<system-reminder>\nThe user is in Oslo.\n</system-reminder>' }],
      },
    ]);
  });

  it('reasoning_effort is V4 `reasoning` on a v4 model, nothing on a v3 one', async () => {
    const v4 = scripted({ version: 'v4' });
    await createAiSdkProvider(v4.model).complete({ ...REQUEST, reasoning_effort: 'high' });
    await createAiSdkProvider(v4.model).complete({ ...REQUEST, reasoning_effort: 'extreme' });
    expect(v4.calls.map((c) => c.reasoning)).toEqual(['high', undefined]);
    const v3 = scripted({});
    await createAiSdkProvider(v3.model).complete({ ...REQUEST, reasoning_effort: 'high' });
    expect(v3.calls[0]).not.toHaveProperty('reasoning');
  });

  it('uses doGenerate without streaming, with the same mapping', async () => {
    const { model, calls } = scripted({
      content: [
        { type: 'reasoning', text: 'Hm.' },
        { type: 'text', text: 'Sunny.' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: '{"city":"Oslo"}' },
      ],
    });
    const { hooks, stream } = recorder();
    const response = await createAiSdkProvider(model, { use_streaming: false }, { hooks }).complete(REQUEST);
    expect(calls).toHaveLength(1);
    expect(stream()).toEqual([]);
    expect(response.content).toEqual([
      { type: 'thinking', thinking: 'Hm.' },
      { type: 'text', text: 'Sunny.' },
    ]);
    expect(response.tool_calls).toEqual([{ id: 'c1', name: 'weather', arguments: { city: 'Oslo' } }]);
  });

  it('a request naming another model: refused with one model object, served with a model function', async () => {
    const one = scripted({ id: 'a' });
    const error = await llmErrorOf(createAiSdkProvider(one.model).complete({ ...REQUEST, model: 'b' }));
    expect(error.kind).toBe('invalid_request');
    expect(error.message).toContain('pass a function from model id to model');
    const made: string[] = [];
    const bridge = createAiSdkProvider(
      (id) => {
        made.push(id);
        return scripted({ id }).model;
      },
      { default_model: 'a' },
    );
    await bridge.complete({ ...REQUEST, model: 'b' });
    await bridge.complete({ ...REQUEST, model: 'b' });
    expect(made).toEqual(['b']);
    // A model function that makes no model: a configuration error naming what it got.
    const v2 = { specificationVersion: 'v2', doStream() {}, doGenerate() {} };
    const broken = createAiSdkProvider(() => v2 as unknown as AiSdkModel, {
      default_model: 'a',
    });
    const failure = await llmErrorOf(broken.complete(REQUEST));
    expect(failure.kind).toBe('configuration');
    expect(failure.message).toContain('spec "v2"');
  });

  it('the package has no runtime dependency on ai or @ai-sdk/*', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    const runtime = Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies });
    expect(runtime.filter((name) => name === 'ai' || name.startsWith('@ai-sdk/'))).toEqual([]);
  });
});

describe('SDK8: usage and finish reason', () => {
  it('maps nested usage: input less cache writes, cache read/write apart, output incl. reasoning', () => {
    expect(
      toUsage({
        inputTokens: { total: 100, noCache: 20, cacheRead: 70, cacheWrite: 10 },
        outputTokens: { total: 50, text: 30, reasoning: 20 },
      }),
    ).toEqual({
      input_tokens: 90,
      output_tokens: 50,
      total_tokens: 140,
      cache_read_tokens: 70,
      cache_write_tokens: 10,
      reasoning_tokens: 20,
    });
    expect(toUsage({ inputTokens: { total: undefined }, outputTokens: { total: undefined } })).toEqual({
      input_tokens: 0,
      output_tokens: 0,
      total_tokens: 0,
    });
  });

  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['content-filter', 'content_filter'],
    ['tool-calls', 'tool_calls'],
    ['error', 'error'],
    ['other', 'other'],
  ])('finish reason %s is %s', async (unified, expected) => {
    const model = {
      ...scripted({}).model,
      doGenerate: async () => ({
        content: [{ type: 'text', text: 'x' }],
        usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } },
        finishReason: { unified, raw: 'raw' },
      }),
    };
    const response = await createAiSdkProvider(model, { use_streaming: false }).complete(REQUEST);
    expect(response.finish_reason).toBe(expected);
  });

  it('usage of a real recorded stream (Chat Completions usage chunk) reaches llm:response', async () => {
    const server = await FakeLlmServer.start();
    try {
      const text = readFileSync(
        new URL('./__fixtures__/recorded/openai-stream-finish-length.sse', import.meta.url),
        'utf8',
      );
      server.enqueue(reply.sse([text]));
      const { hooks, events } = recorder();
      const model = createOpenAICompatible({
        name: 'replay',
        baseURL: `${server.url}/v1`,
        apiKey: 'k',
      }).chatModel('gpt-4o');
      const response = await createAiSdkProvider(model, {}, { hooks }).complete(REQUEST);
      expect(response.finish_reason).toBe('length');
      expect(response.usage).toEqual({ input_tokens: 79, output_tokens: 1, total_tokens: 80 });
      const logged = events.find(([n]) => n === 'llm:response')![1];
      expect(logged.usage).toEqual({ input_tokens: 79, output_tokens: 1 });
    } finally {
      await server.close();
    }
  });
});
