/** `ProviderCalls.stream()` against the in-memory wire of `__fixtures__/scripted-wire.ts`. */

import { createLLMError, LLMError } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { REQUEST, setup, textEvents, unavailable } from './__fixtures__/scripted-wire.js';

describe('stream()', () => {
  it('yields the events; llm:response once message.end is reached', async () => {
    const { runner, recorder } = setup([unavailable(), { events: textEvents() }]);
    const seen: string[] = [];
    for await (const event of runner.stream(REQUEST, {})) {
      seen.push(event.type);
      if (event.type === 'message.end') expect(recorder.names()).toContain('llm:response');
    }
    expect(seen).toEqual(['message.start', 'text.delta', 'text.delta', 'message.end']);
    expect(recorder.getEvents('provider:retry')).toHaveLength(1);
    expect(recorder.getEvents('llm:request')[0]![1].stream).toBe(true);
  });

  it('a failure after the first event is not retried: llm:stream_aborted, then llm:response error', async () => {
    const failed = { events: textEvents().slice(0, 2), fail: createLLMError('stream', 'lost') };
    const { runner, recorder } = setup([failed, { events: textEvents() }]);
    const seen: string[] = [];
    const error = await (async () => {
      for await (const event of runner.stream(REQUEST, {})) seen.push(event.type);
    })().catch((e: unknown) => e);
    expect(LLMError.is(error) && error.kind).toBe('stream');
    expect(seen).toEqual(['message.start', 'text.delta']);
    expect(recorder.names().slice(-2)).toEqual(['llm:stream_aborted', 'llm:response']);
    expect(recorder.getEvents('llm:response')[0]![1]).toMatchObject({
      status: 'error',
      error_kind: 'stream',
    });
  });

  it('a consumer that stops reading: llm:stream_aborted and an abort in llm:response', async () => {
    const { runner, recorder } = setup([{ events: textEvents().slice(0, 2), hang: true }]);
    for await (const event of runner.stream(REQUEST, {})) {
      if (event.type === 'text.delta') break;
    }
    expect(recorder.getEvents('llm:stream_aborted')[0]![1]).toMatchObject({
      error: { type: 'AbortError', msg: 'fake: request aborted' },
    });
    expect(recorder.getEvents('llm:response')[0]![1]).toMatchObject({ status: 'error', error_kind: 'abort' });
  });

  it('metadata.stream false: the events are yielded, no llm:stream_* event is emitted', async () => {
    const { runner, recorder } = setup([{ events: textEvents() }]);
    const seen: string[] = [];
    for await (const event of runner.stream({ ...REQUEST, metadata: { stream: false } }, {}))
      seen.push(event.type);
    expect(seen).toEqual(['message.start', 'text.delta', 'text.delta', 'message.end']);
    expect(recorder.names()).toEqual(['llm:request', 'llm:response']);
  });

  it('when it never starts, llm:response reports the error', async () => {
    const { runner, recorder } = setup([createLLMError('not_found', 'no such model', { status_code: 404 })]);
    await expect(
      (async () => {
        for await (const _ of runner.stream(REQUEST, {}));
      })(),
    ).rejects.toMatchObject({ kind: 'not_found' });
    expect(recorder.getEvents('llm:response')[0]![1]).toMatchObject({ status: 'error', status_code: 404 });
  });
});
