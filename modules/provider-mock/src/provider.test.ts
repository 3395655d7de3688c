import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  type ChatRequest,
  type ChatResponse,
  checkData,
  LLM_ERROR_KINDS,
  LLM_ERROR_RETRYABLE,
  LLMError,
  type LLMErrorKind,
  RateLimitError,
  type StreamEvent,
} from '@amplifier/core';
import { createTestCoordinator, EventRecorder } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMockProvider, DEFAULT_TEXT, mount, ScriptedProvider } from './index.js';

const request = (text = 'hello', extra: Partial<ChatRequest> = {}): ChatRequest => ({
  messages: [{ role: 'user', content: text }],
  ...extra,
});

/** Mount with `config` into a fresh coordinator; returns the provider and an event recorder. */
async function mounted(config: Record<string, unknown>, workingDir?: string) {
  const coordinator = createTestCoordinator({ bare: true });
  if (workingDir !== undefined) coordinator.registerCapability('session.working_dir', workingDir);
  const recorder = new EventRecorder();
  recorder.attach(coordinator.hooks, ['llm:request', 'llm:response']);
  await mount(coordinator, config);
  const provider = coordinator.get('providers', 'mock') as ScriptedProvider;
  return { coordinator, provider, recorder };
}

async function rejection(promise: Promise<unknown>): Promise<LLMError> {
  try {
    await promise;
  } catch (error) {
    expect(LLMError.is(error)).toBe(true);
    return error as LLMError;
  }
  throw new Error('expected a rejection');
}

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe('default mode (no script)', () => {
  it('answers every request with the fixed text, as a valid ChatResponse', async () => {
    const { provider } = await mounted({});
    expect(provider.name).toBe('mock');
    for (let i = 0; i < 3; i++) {
      const response = await provider.complete(request(`question ${i}`));
      expect(checkData('chat-response', response)).toEqual([]);
      expect(response.content).toEqual([{ type: 'text', text: DEFAULT_TEXT }]);
      expect(response.finish_reason).toBe('stop');
      expect(response.usage!.total_tokens).toBe(response.usage!.input_tokens + response.usage!.output_tokens);
    }
    expect(DEFAULT_TEXT).toBe('This is a mock response from provider-mock.');
    const custom = createMockProvider({ default_text: 'offline' });
    expect((await custom.complete(request())).content).toEqual([{ type: 'text', text: 'offline' }]);
  });
});

describe('inline script', () => {
  it('replays text, tool calls (given and generated ids), thinking with signature, usage and metadata', async () => {
    const { provider } = await mounted({
      script: [
        'plain text step',
        {
          thinking: { thinking: 'let me think', signature: 'sig-123' },
          text: 'Reading two files.',
          tool_calls: [
            { id: 'call_a', name: 'read_file', arguments: { path: 'a.txt' } },
            { name: 'read_file', arguments: { path: 'b.txt' } },
            { name: 'list' },
          ],
          usage: { input_tokens: 100, output_tokens: 7 },
          metadata: { 'mock:step': 2 },
        },
        {
          thinking: 'unsigned',
          content: [{ type: 'redacted_thinking', data: 'opaque' }],
          finish_reason: 'length',
        },
      ],
    });
    const first = await provider.complete(request());
    expect(first.content).toEqual([{ type: 'text', text: 'plain text step' }]);
    expect(first.tool_calls).toBeUndefined();

    const second = await provider.complete(request());
    expect(checkData('chat-response', second)).toEqual([]);
    expect(second.content).toEqual([
      { type: 'thinking', thinking: 'let me think', signature: 'sig-123' },
      { type: 'text', text: 'Reading two files.' },
    ]);
    expect(second.tool_calls).toEqual([
      { id: 'call_a', name: 'read_file', arguments: { path: 'a.txt' } },
      { id: 'call_mock_2_2', name: 'read_file', arguments: { path: 'b.txt' } },
      { id: 'call_mock_2_3', name: 'list', arguments: {} },
    ]);
    expect(provider.parseToolCalls(second)).toEqual(second.tool_calls);
    expect(second.usage).toEqual({ input_tokens: 100, output_tokens: 7, total_tokens: 107 });
    expect(second.finish_reason).toBe('tool_calls');
    expect(second.metadata).toEqual({ 'mock:step': 2 });

    const third = await provider.complete(request());
    expect(third.content).toEqual([
      { type: 'thinking', thinking: 'unsigned' },
      { type: 'redacted_thinking', data: 'opaque' },
    ]);
    expect(third.finish_reason).toBe('length');
  });

  it('hands out fresh objects: changing a response does not change the script', async () => {
    const provider = createMockProvider({
      script: [{ text: 'x', tool_calls: [{ name: 't', arguments: { n: 1 } }] }],
      loop: true,
    });
    const a = await provider.complete(request());
    a.tool_calls![0]!.arguments.n = 99;
    (a.content[0] as { text: string }).text = 'changed';
    const b = await provider.complete(request());
    expect(b.tool_calls![0]!.arguments).toEqual({ n: 1 });
    expect(b.content).toEqual([{ type: 'text', text: 'x' }]);
    expect(b.tool_calls![0]!.id).not.toBe(a.tool_calls![0]!.id); // generated ids stay unique across loops
  });

  it('parseToolCalls falls back to tool_call content blocks', () => {
    const provider = createMockProvider();
    const response: ChatResponse = {
      content: [{ type: 'tool_call', id: 'c1', name: 'grep', input: { pattern: 'x' } }],
    };
    expect(provider.parseToolCalls(response)).toEqual([
      { id: 'c1', name: 'grep', arguments: { pattern: 'x' } },
    ]);
    expect(provider.parseToolCalls({ content: [] })).toEqual([]);
  });

  it('records every request it receives', async () => {
    const provider = createMockProvider({ script: ['a', 'b'] });
    const req = request('first', { model: 'other-model', tools: [{ name: 't', parameters: {} }] });
    await provider.complete(req);
    req.messages.push({ role: 'user', content: 'added later' });
    await provider.complete(request('second'));
    expect(provider.requests).toHaveLength(2);
    expect(provider.requests[0]!.messages).toEqual([{ role: 'user', content: 'first' }]);
    expect(provider.requests[0]!.model).toBe('other-model');
    expect(provider.requests[1]!.messages[0]!.content).toBe('second');
    expect(provider.callCount).toBe(2);
  });
});

describe('script files', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'provider-mock-'));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads a YAML script relative to session.working_dir', async () => {
    fs.writeFileSync(
      path.join(dir, 'script.yaml'),
      [
        '- text: Let me look.',
        '  tool_calls:',
        '    - id: call_1',
        '      name: read_file',
        '      arguments: { path: README.md }',
        '- error: { kind: rate_limit, message: slow down, status_code: 429, retry_after: 3 }',
        '- Done reading.',
      ].join('\n'),
    );
    const { provider } = await mounted({ script_file: 'script.yaml' }, dir);
    const first = await provider.complete(request());
    expect(first.tool_calls).toEqual([{ id: 'call_1', name: 'read_file', arguments: { path: 'README.md' } }]);
    const error = await rejection(provider.complete(request()));
    expect(error).toMatchObject({
      kind: 'rate_limit',
      status_code: 429,
      retry_after: 3,
      message: 'slow down',
    });
    expect((await provider.complete(request())).content).toEqual([{ type: 'text', text: 'Done reading.' }]);
  });

  it('reads a JSON script, also as { script: [...] }, by absolute path', async () => {
    const file = path.join(dir, 'script.json');
    fs.writeFileSync(file, JSON.stringify({ script: [{ text: 'from json' }] }));
    const { provider } = await mounted({ script_file: file }, '/nonexistent-working-dir');
    expect((await provider.complete(request())).content).toEqual([{ type: 'text', text: 'from json' }]);
  });

  it('fails the mount clearly for a missing file, bad YAML, or a bad step (naming file and path)', async () => {
    await expect(mounted({ script_file: 'missing.yaml' }, dir)).rejects.toThrow(
      `provider-mock: cannot read script_file ${path.join(dir, 'missing.yaml')}`,
    );
    fs.writeFileSync(path.join(dir, 'bad.yaml'), '- text: [unclosed');
    await expect(mounted({ script_file: 'bad.yaml' }, dir)).rejects.toThrow(
      /script_file .*bad\.yaml is not valid/,
    );
    fs.writeFileSync(path.join(dir, 'wrong.yml'), '- text: ok\n- tool_calls:\n    - name: 42\n');
    await expect(mounted({ script_file: 'wrong.yml' }, dir)).rejects.toThrow(
      /invalid script in .*wrong\.yml:\n {2}- script\[1\]\.tool_calls\[0\]\.name must be string/,
    );
  });
});

describe('scripted errors', () => {
  const statusFor: Partial<Record<LLMErrorKind, number>> = {
    rate_limit: 429,
    quota_exceeded: 429,
    authentication: 401,
    access_denied: 403,
    not_found: 404,
    context_length: 413,
    invalid_request: 400,
    unavailable: 503,
  };

  it('throws core LLMErrors of every kind with status code, retry_after and the default retryable', async () => {
    const script = LLM_ERROR_KINDS.map((kind) => ({
      error: { kind, message: `${kind} happened`, ...(statusFor[kind] && { status_code: statusFor[kind] }) },
    }));
    const { provider, recorder } = await mounted({ script });
    for (const kind of LLM_ERROR_KINDS) {
      const error = await rejection(provider.complete(request()));
      expect(error.kind).toBe(kind);
      expect(error.message).toBe(`${kind} happened`);
      expect(error.status_code).toBe(statusFor[kind]);
      expect(error.retryable).toBe(LLM_ERROR_RETRYABLE[kind]);
      expect(error.provider).toBe('mock');
    }
    const errors = recorder.getEvents('llm:response').map(([, data]) => data);
    expect(errors).toHaveLength(LLM_ERROR_KINDS.length);
    expect(errors[0]).toMatchObject({ provider: 'mock', status: 'error', error_kind: LLM_ERROR_KINDS[0] });
  });

  it('builds the right subclass and honours retry_after and a retryable override', async () => {
    const provider = createMockProvider({
      script: [
        { error: { kind: 'rate_limit', status_code: 429, retry_after: 1.5 } },
        { error: { kind: 'unavailable', status_code: 529, retryable: false } },
      ],
    });
    const limited = await rejection(provider.complete(request()));
    expect(limited).toBeInstanceOf(RateLimitError);
    expect(limited.retry_after).toBe(1.5);
    expect(limited.message).toBe('provider-mock: scripted rate_limit error (step 1)');
    const overloaded = await rejection(provider.complete(request()));
    expect(overloaded).toMatchObject({ kind: 'unavailable', status_code: 529, retryable: false });
  });
});

describe('delays and abort', () => {
  it('a delayed step answers once its delay has passed', async () => {
    const provider = createMockProvider({ script: [{ text: 'after a pause', delay_ms: 5 }] });
    expect((await provider.complete(request())).content).toEqual([{ type: 'text', text: 'after a pause' }]);
  });

  it('aborting the signal during a delay rejects promptly with an abort LLMError', async () => {
    const coordinator = createTestCoordinator({ bare: true });
    const started = new Promise<void>((resolve) => {
      coordinator.hooks.register('llm:request', () => resolve());
    });
    await mount(coordinator, { script: [{ text: 'never', delay_ms: 600_000 }, 'next'] });
    const provider = coordinator.get('providers', 'mock')!;
    const controller = new AbortController();
    const pending = provider.complete(request(), { signal: controller.signal });
    await started; // the provider is now waiting in the scripted delay
    controller.abort(new Error('user pressed Ctrl+C'));
    const error = await rejection(pending);
    expect(error.kind).toBe('abort');
    expect(error.message).toBe('provider-mock: request aborted during the scripted delay');
    expect(error.retryable).toBe(false);
    expect((await provider.complete(request())).content).toEqual([{ type: 'text', text: 'next' }]);
  });

  it('an already-aborted signal rejects at once without consuming a step', async () => {
    const provider = createMockProvider({ script: ['only step'] });
    const controller = new AbortController();
    controller.abort();
    expect((await rejection(provider.complete(request(), { signal: controller.signal }))).kind).toBe('abort');
    expect(provider.callCount).toBe(0);
    expect((await provider.complete(request())).content).toEqual([{ type: 'text', text: 'only step' }]);
  });
});

describe('script exhaustion', () => {
  it('fails with a clear, non-retryable error naming the step count', async () => {
    const provider = createMockProvider({ script: ['one', 'two'] });
    await provider.complete(request());
    await provider.complete(request());
    const error = await rejection(provider.complete(request()));
    expect(error.message).toBe(
      'provider-mock: the script has 2 steps and was asked for step 3; add steps, or set repeat_last: true or loop: true',
    );
    expect(error.kind).toBe('configuration');
    expect(error.retryable).toBe(false);
  });

  it('repeat_last keeps answering with the last step; loop starts over', async () => {
    const repeat = createMockProvider({ script: ['one', 'two'], repeat_last: true });
    const loop = createMockProvider({ script: ['one', 'two'], loop: true });
    const texts = async (p: ScriptedProvider) => {
      const out: unknown[] = [];
      for (let i = 0; i < 5; i++) out.push((await p.complete(request())).content[0]);
      return out.map((b) => (b as { text: string }).text);
    };
    expect(await texts(repeat)).toEqual(['one', 'two', 'two', 'two', 'two']);
    expect(await texts(loop)).toEqual(['one', 'two', 'one', 'two', 'one']);
  });
});

describe('validation', () => {
  it.each([
    [{ script: ['ok', 'ok', { tool_calls: [{ name: 7 }] }] }, 'script[2].tool_calls[0].name must be string'],
    [
      { script: [{ text: 'x', error: { kind: 'timeout' } }] },
      'script[0] has both error and text: an error step only fails',
    ],
    [
      { script: [{ delay_ms: 5 }] },
      'script[0] needs at least one of text, thinking, tool_calls, content or error',
    ],
    [
      { script: [{ error: { kind: 'sleepy' } }] },
      'script[0].error.kind must be one of "unknown", "rate_limit"',
    ],
    [
      { script: [{ error: { kind: 'unavailable', status_code: 99 } }] },
      'script[0].error.status_code must be >= 100',
    ],
    [{ script: [] }, 'script must NOT have fewer than 1 items'],
    [{ script: ['a'], script_file: 'b.yaml' }, 'script_file cannot be combined with script: choose one'],
    [
      { script: ['a'], loop: true, repeat_last: true },
      'loop cannot be combined with repeat_last: choose one',
    ],
    [{ respond: 'not a function' }, 'respond must be a function'],
    [{ context_window: 0 }, 'context_window must be >= 1'],
  ])('rejects %j at mount: %s', async (config, message) => {
    const error = await mounted(config as Record<string, unknown>).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toContain('provider-mock: invalid config:');
    expect(error?.message).toContain(message);
  });

  it('warns about unknown config keys', async () => {
    const warnings: string[] = [];
    const coordinator = createTestCoordinator({
      bare: true,
      logger: { debug() {}, info() {}, error() {}, warn: (m: string) => warnings.push(m) },
    });
    await mount(coordinator, { responses: ['old style'], script: [{ text: 'x', colour: 'red' }] });
    const provider = coordinator.get('providers').get('mock')!;
    await mount(coordinator, { responses: ['again'] });
    expect(warnings).toEqual([
      "provider-mock: unknown config key 'responses' is ignored",
      "provider-mock: unknown config key 'script[0].colour' is ignored",
    ]);
    expect((await provider.complete({ messages: [{ role: 'user', content: 'hi' }] })).content).toEqual([
      { type: 'text', text: 'x' },
    ]);
  });
});

describe('rule mode', () => {
  it('answers through a respond function given in code (sync or async)', async () => {
    const seen: number[] = [];
    const provider = createMockProvider({
      respond: async (req, { call }) => {
        seen.push(call);
        const last = req.messages.at(-1)!.content as string;
        return last.includes('read')
          ? { content: [], tool_calls: [{ id: `c${call}`, name: 'read_file', arguments: { path: 'x' } }] }
          : { content: [{ type: 'text', text: `echo: ${last}` }] };
      },
    });
    expect((await provider.complete(request('please read x'))).tool_calls?.[0]?.name).toBe('read_file');
    expect((await provider.complete(request('hi'))).content).toEqual([{ type: 'text', text: 'echo: hi' }]);
    expect(seen).toEqual([1, 2]);
  });

  it('accepts config.respond through mount, and rejects an invalid response clearly', async () => {
    const { provider } = await mounted({ respond: () => ({ content: [{ type: 'text', text: 'ruled' }] }) });
    expect((await provider.complete(request())).content).toEqual([{ type: 'text', text: 'ruled' }]);
    const bad = createMockProvider({ respond: () => ({ content: 'not blocks' }) as unknown as ChatResponse });
    const error = await rejection(bad.complete(request()));
    expect(error.kind).toBe('configuration');
    expect(error.message).toContain('respond() returned an invalid ChatResponse');
  });

  it('abort rejects while respond() is still running', async () => {
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const provider = createMockProvider({
      respond: () => {
        entered();
        return new Promise<ChatResponse>(() => {}); // never answers
      },
    });
    const controller = new AbortController();
    const pending = provider.complete(request(), { signal: controller.signal });
    await inside;
    controller.abort();
    expect((await rejection(pending)).kind).toBe('abort');
  });
});

describe('info', () => {
  it('reports context_window and max_output_tokens defaults, overridable by config', async () => {
    const { provider } = await mounted({});
    expect(provider.getInfo()).toMatchObject({
      id: 'mock',
      display_name: 'Mock Provider',
      defaults: { model: 'mock-model', context_window: 200_000, max_output_tokens: 8192 },
    });
    expect(await provider.listModels()).toEqual([provider.getModelInfo()]);
    expect(provider.getModelInfo()).toMatchObject({
      id: 'mock-model',
      context_window: 200_000,
      max_output_tokens: 8192,
    });
    const custom = createMockProvider({
      model: 'tiny',
      context_window: 4096,
      max_output_tokens: 512,
      priority: 5,
    });
    expect(custom.getInfo().defaults).toMatchObject({
      model: 'tiny',
      context_window: 4096,
      max_output_tokens: 512,
    });
    expect(custom.getModelInfo()).toMatchObject({ id: 'tiny', context_window: 4096, max_output_tokens: 512 });
    expect(custom.priority).toBe(5);
  });
});

describe('events', () => {
  it('emits llm:request and llm:response with small payloads', async () => {
    const { provider, recorder } = await mounted({
      script: [{ text: 'hi', usage: { input_tokens: 3, output_tokens: 1, cache_read_tokens: 2 } }],
    });
    await provider.complete(request('x', { model: 'm2' }));
    expect(recorder.names()).toEqual(['llm:request', 'llm:response']);
    const [[, req], [, res]] = recorder.getEvents() as [
      [string, Record<string, unknown>],
      [string, Record<string, unknown>],
    ];
    expect(req).toMatchObject({
      provider: 'mock',
      model: 'm2',
      message_count: 1,
      session_id: 'test-session',
    });
    expect(res).toMatchObject({
      provider: 'mock',
      model: 'm2',
      status: 'ok',
      duration_ms: expect.any(Number),
      usage: { input_tokens: 3, output_tokens: 1, cache_read_tokens: 2 },
    });
    expect((res.usage as Record<string, unknown>).total_tokens).toBeUndefined();
  });

  it("llm:response carries a scripted price (usage.cost_usd), as the HTTP providers' does", async () => {
    const { provider, recorder } = await mounted({
      script: [{ text: 'a', usage: { cost_usd: '0.0125' } }, { text: 'b' }],
    });
    await provider.complete(request('x'));
    await provider.complete(request('y'));
    const usages = recorder.getEvents('llm:response').map(([, data]) => (data as { usage: object }).usage);
    expect(usages[0]).toMatchObject({ cost_usd: '0.0125' });
    expect(usages[1]).not.toHaveProperty('cost_usd');
  });
});

describe('stream', () => {
  it('yields deltas, tool call events and message.end with the same response as complete', async () => {
    const step = {
      thinking: 'hmm ok',
      text: 'Hello there, world',
      tool_calls: [{ id: 'c1', name: 'read_file', arguments: { path: 'a' } }],
    };
    const streamed = await collect(createMockProvider({ script: [step] }).stream(request()));
    const completed = await createMockProvider({ script: [step] }).complete(request());
    expect(streamed[0]).toEqual({ type: 'message.start', model: 'mock-model' });
    const text = streamed.filter((e) => e.type === 'text.delta').map((e) => (e as { text: string }).text);
    expect(text.length).toBeGreaterThan(1);
    expect(text.join('')).toBe('Hello there, world');
    const thinking = streamed
      .filter((e) => e.type === 'thinking.delta')
      .map((e) => (e as { text: string }).text);
    expect(thinking.join('')).toBe('hmm ok');
    expect(streamed.filter((e) => e.type.startsWith('tool_call.')).map((e) => e.type)).toEqual([
      'tool_call.start',
      'tool_call.delta',
      'tool_call.end',
    ]);
    expect(streamed.find((e) => e.type === 'tool_call.end')).toEqual({
      type: 'tool_call.end',
      id: 'c1',
      name: 'read_file',
      arguments: { path: 'a' },
    });
    expect(streamed.at(-1)).toEqual({ type: 'message.end', response: completed });
  });

  it('a scripted error rejects the stream; an abort mid-stream ends it with an abort error', async () => {
    const failing = createMockProvider({
      script: [{ error: { kind: 'stream', message: 'connection dropped' } }],
    });
    await expect(collect(failing.stream(request()))).rejects.toMatchObject({ kind: 'stream' });

    const provider = createMockProvider({ script: ['one two three four five'] });
    const controller = new AbortController();
    const seen: StreamEvent[] = [];
    const run = (async () => {
      for await (const event of provider.stream(request(), { signal: controller.signal })) {
        seen.push(event);
        if (event.type === 'text.delta') controller.abort();
      }
    })();
    expect((await rejection(run)).kind).toBe('abort');
    expect(seen.filter((e) => e.type === 'text.delta')).toHaveLength(1);
    expect(seen.some((e) => e.type === 'message.end')).toBe(false);
  });
});

describe('ScriptedProvider', () => {
  it('validates options given in code too', () => {
    expect(() => new ScriptedProvider({ script: [{ tool_calls: [{}] } as never] })).toThrow(
      'script[0].tool_calls[0].name is required',
    );
  });
});
