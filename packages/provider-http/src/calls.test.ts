/**
 * The call lifecycle against an in-memory wire: each `open` takes the next
 * scripted outcome (an error to throw, or a response whose stream events or
 * whole body the wire hands back). The HTTP side is tested per provider.
 */

import { createLLMError, LLMError } from '@amplifier/core';
import { waitFor } from '@amplifier/test-fixtures';
import { EventRecorder, RecordingLogger } from '@amplifier/testing';
import { describe, expect, it } from 'vitest';
import { REQUEST, RESPONSE, setup, textEvents, unavailable } from './__fixtures__/scripted-wire.js';
import { ProviderCalls } from './calls.js';
import { CostMeter } from './cost.js';

describe('complete()', () => {
  it('llm:request from what the wire built, llm:response with usage, cost and duration', async () => {
    const { runner, recorder, calls } = setup([{ events: textEvents() }], { raw: true });
    const response = await runner.complete({ ...REQUEST, reasoning_effort: 'high' }, {}, false);
    expect(response.usage?.cost_usd).toBe('2');
    expect(recorder.names()).toEqual(['llm:request', 'llm:response']);
    const request = recorder.getEvents('llm:request')[0]![1];
    expect(request).toMatchObject({
      provider: 'fake',
      model: 'default-model',
      message_count: 1,
      has_instructions: false,
      has_system: false,
      reasoning_enabled: true,
      thinking_enabled: true,
      thinking_budget: null,
      background_mode: false,
      stream: false,
      tool_count: 0,
    });
    expect((request.raw as Record<string, unknown>).api_key).not.toBe('sk-secret');
    expect(Object.keys(request).slice(0, 5)).toEqual([
      'provider',
      'model',
      'message_count',
      'has_instructions',
      'has_system',
    ]);
    expect(recorder.getEvents('llm:response')[0]![1]).toMatchObject({
      provider: 'fake',
      model: 'default-model',
      status: 'ok',
      usage: { input_tokens: 1_000_000, output_tokens: 0, cost_usd: '2' },
      finish_reason: 'stop',
      continuation_count: 0,
      duration_ms: expect.any(Number),
      raw: { content: [{ type: 'text', text: 'Hello!' }] },
    });
    expect(calls[0]!.timeoutMs).toBe(30_000);
  });

  it('a request may set its model and timeout (seconds); rate limits the wire saw reach llm:response', async () => {
    const { runner, recorder, calls } = setup([{ events: textEvents() }]);
    const opened = runner.complete({ ...REQUEST, model: 'other', timeout: 2 }, {}, false);
    await opened;
    expect(calls[0]!.context).toEqual({ provider: 'fake', model: 'other' });
    expect(calls[0]!.timeoutMs).toBe(2000);
    expect(recorder.getEvents('llm:response')[0]![1].usage).not.toHaveProperty('cost_usd');
  });

  it('streaming: block events while it streams, then the aggregate', async () => {
    const { runner, recorder } = setup([{ events: textEvents() }]);
    const response = await runner.complete(REQUEST, {}, true);
    expect(response.content).toEqual([{ type: 'text', text: 'Hello!' }]);
    expect(recorder.names()).toEqual([
      'llm:request',
      'llm:stream_block_start',
      'llm:stream_block_delta',
      'llm:stream_block_delta',
      'llm:stream_block_end',
      'llm:response',
    ]);
  });

  it('streaming: every stream event of the call shares one request_id; metadata.stream false streams nothing', async () => {
    const { runner, recorder } = setup([{ events: textEvents() }, { events: textEvents() }]);
    await runner.complete(REQUEST, {}, true);
    const ids = new Set(
      recorder
        .getEvents()
        .filter(([name]) => name.startsWith('llm:stream_'))
        .map(([, data]) => data.request_id),
    );
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(recorder.getEvents('llm:stream_block_delta').map(([, d]) => d)).toEqual([
      { request_id: [...ids][0], block_index: 0, block_type: 'text', sequence: 0, text: 'Hel' },
      { request_id: [...ids][0], block_index: 0, block_type: 'text', sequence: 1, text: 'lo!' },
    ]);
    recorder.clear();
    const response = await runner.complete({ ...REQUEST, metadata: { stream: false } }, {}, true);
    expect(response.content).toEqual([{ type: 'text', text: 'Hello!' }]);
    expect(recorder.names()).toEqual(['llm:request', 'llm:response']);
    expect(recorder.getEvents('llm:request')[0]![1].stream).toBe(false);
  });

  it('a stream that fails after a delta is not retried: llm:stream_aborted, then the error', async () => {
    const failed = { events: textEvents().slice(0, 2), fail: createLLMError('stream', 'lost') };
    const { runner, recorder } = setup([failed, { events: textEvents() }]);
    const error = await runner.complete(REQUEST, {}, true).catch((e: unknown) => e);
    expect(LLMError.is(error) && error.kind).toBe('stream');
    expect(recorder.getEvents('provider:retry')).toHaveLength(0);
    expect(recorder.names().slice(-2)).toEqual(['llm:stream_aborted', 'llm:response']);
    const [, aborted] = recorder.getEvents('llm:stream_aborted')[0]!;
    expect(aborted).toEqual({
      request_id: recorder.getEvents('llm:stream_block_start')[0]![1].request_id,
      error: { type: 'StreamError', msg: 'lost' },
    });
  });

  it('signal aborted after a delta: llm:stream_aborted names the abort error the call rejects with', async () => {
    const recorder = new EventRecorder();
    const controller = new AbortController();
    const hooks = {
      async emit(event: string, data: Record<string, unknown>) {
        await recorder.emit(event, data);
        if (event === 'llm:stream_block_delta') controller.abort(new Error('ctrl-c'));
      },
    };
    const { runner } = setup([{ events: textEvents().slice(0, 2), hang: true }], {}, hooks);
    const error = await runner
      .complete(REQUEST, { signal: controller.signal }, true)
      .catch((e: unknown) => e);
    expect(LLMError.is(error) && error.kind).toBe('abort');
    expect(recorder.names().slice(-2)).toEqual(['llm:stream_aborted', 'llm:response']);
    expect(recorder.getEvents('llm:stream_aborted')[0]![1].error).toEqual({
      type: 'AbortError',
      msg: (error as Error).message,
    });
  });

  it('retryable errors are retried with provider:retry; a stream that fails before any stream event too', async () => {
    const failed = { events: textEvents().slice(0, 1), fail: createLLMError('stream', 'lost') };
    const { runner, recorder, logger } = setup([unavailable(), failed, { events: textEvents() }]);
    await runner.complete(REQUEST, {}, true);
    const retries = recorder.getEvents('provider:retry').map(([, data]) => data);
    expect(retries).toEqual([
      expect.objectContaining({
        provider: 'fake',
        model: 'default-model',
        attempt: 1,
        max_retries: 2,
        error_kind: 'unavailable',
        error_type: 'ProviderUnavailableError',
        status_code: 503,
      }),
      expect.objectContaining({ attempt: 2, error_kind: 'stream', status_code: null }),
    ]);
    expect(recorder.names()).not.toContain('llm:stream_aborted');
    expect(recorder.getEvents('llm:response')).toHaveLength(1);
    expect(logger.records.some((r) => r.level === 'info' && r.message.startsWith('provider-fake: '))).toBe(
      true,
    );
  });

  it('after a Retry-After the jitter only adds: the wait is never shorter than asked', async () => {
    const limited = () => createLLMError('rate_limit', 'slow down', { retry_after: 0.02 });
    const { runner, recorder } = setup([limited(), limited(), { events: textEvents() }], { jitter: 0.5 });
    await runner.complete(REQUEST, {}, false);
    for (const [, data] of recorder.getEvents('provider:retry')) {
      expect(data.delay as number).toBeGreaterThanOrEqual(0.02);
      expect(data.retry_after).toBe(0.02);
    }
  });

  it('a rate-limited call emits provider:throttle with the wait and where it came from; other retries do not', async () => {
    const limited = createLLMError('rate_limit', 'slow down', {
      retry_after: 0.02,
      retry_after_source: 'retry-after-ms',
    });
    const unsaid = createLLMError('rate_limit', 'slow down');
    const { runner, recorder } = setup([unavailable(), limited, unsaid, { events: textEvents() }], {
      maxRetries: 3,
    });
    await runner.complete(REQUEST, {}, false);
    expect(recorder.getEvents('provider:retry')).toHaveLength(3);
    const throttles = recorder.getEvents('provider:throttle').map(([, data]) => data);
    expect(throttles).toEqual([
      expect.objectContaining({
        provider: 'fake',
        model: 'default-model',
        attempt: 2,
        retry_after: 0.02,
        source: 'retry-after-ms',
      }),
      expect.objectContaining({ attempt: 3, source: 'backoff' }),
    ]);
    expect(throttles[0]!.delay as number).toBeGreaterThanOrEqual(0.02);
    expect(throttles[1]).not.toHaveProperty('retry_after');
  });

  it('bounded by max_retries; the last error is thrown and llm:response reports it once', async () => {
    const { runner, recorder } = setup([unavailable(), unavailable(), unavailable(), unavailable()]);
    const error = await runner.complete(REQUEST, {}, false).catch((e: unknown) => e);
    expect(LLMError.is(error) && error.kind).toBe('unavailable');
    expect(recorder.getEvents('provider:retry')).toHaveLength(2);
    expect(recorder.getEvents('llm:response').map(([, d]) => d)).toEqual([
      expect.objectContaining({
        status: 'error',
        error: 'busy',
        error_kind: 'unavailable',
        status_code: 503,
      }),
    ]);
  });

  it('a non-retryable error is thrown at once; a plain Error is reported without a kind', async () => {
    const { runner, recorder } = setup([createLLMError('authentication', 'bad key'), new Error('bug')]);
    await expect(runner.complete(REQUEST, {}, false)).rejects.toMatchObject({ kind: 'authentication' });
    await expect(runner.complete(REQUEST, {}, false)).rejects.toThrow('bug');
    expect(recorder.getEvents('provider:retry')).toHaveLength(0);
    const [, second] = recorder.getEvents('llm:response')[1]!;
    expect(second).toMatchObject({ status: 'error', error: 'bug' });
    expect(second).not.toHaveProperty('error_kind');
  });

  it('signal: already aborted fails before llm:request; aborted during a retry wait ends it', async () => {
    const { runner, recorder } = setup([unavailable()], { minRetryDelayMs: 60_000 });
    await expect(runner.complete(REQUEST, { signal: AbortSignal.abort() }, false)).rejects.toMatchObject({
      kind: 'abort',
    });
    expect(recorder.names()).toEqual([]);
    const controller = new AbortController();
    const pending = runner.complete(REQUEST, { signal: controller.signal }, false);
    expect(await waitFor(() => recorder.getEvents('provider:retry').length > 0, { timeoutMs: 30_000 })).toBe(
      true,
    );
    controller.abort(new Error('ctrl-c'));
    await expect(pending).rejects.toMatchObject({ kind: 'abort', retryable: false });
  });

  it('missing tool results: the wire gets repaired messages; provider:tool_sequence_repaired and a warning', async () => {
    const { runner, recorder, logger, built } = setup([{ events: textEvents() }]);
    await runner.complete(
      {
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: '', tool_calls: [{ id: 'c1', tool: 'read', arguments: {} }] },
          { role: 'user', content: 'and?' },
        ],
      },
      {},
      false,
    );
    expect(recorder.names()[0]).toBe('provider:tool_sequence_repaired');
    expect(recorder.getEvents('provider:tool_sequence_repaired')[0]![1]).toMatchObject({
      provider: 'fake',
      repair_count: 1,
    });
    expect(JSON.stringify(built[0])).toContain('"tool_call_id":"c1"');
    expect(logger.problemsSince().join('\n')).toMatch(/^provider-fake: 1 tool call\(s\) had no result/);
  });

  it('a hook that throws is logged at debug level and never fails the call', async () => {
    const logger = new RecordingLogger();
    const broken = new ProviderCalls({
      provider: 'fake',
      module: 'provider-fake',
      hooks: {
        emit: async () => {
          throw new Error('hook bug');
        },
      },
      logger,
      config: {
        model: 'm',
        timeoutMs: 1000,
        maxRetries: 0,
        minRetryDelayMs: 1,
        maxRetryDelayMs: 1,
        jitter: 0,
        raw: false,
      },
      costs: new CostMeter({}),
      wire: {
        build: (_r, messages) => ({
          body: {},
          messageCount: messages.length,
          hasInstructions: false,
          thinking: { enabled: false, budget: null },
        }),
        open: async () => RESPONSE,
        read: async (_call, response) => response,
        events: async function* () {},
      },
    });
    expect((await broken.complete(REQUEST, {}, false)).content).toEqual(RESPONSE.content);
    expect(logger.records.filter((r) => r.level === 'debug').map((r) => r.message)).toContain(
      'provider-fake: emitting llm:request failed: hook bug',
    );
  });
});
