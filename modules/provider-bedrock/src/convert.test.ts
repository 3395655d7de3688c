/**
 * Reading Bedrock answers that are odd or hostile (pure, no server): tool
 * input that is not JSON or not an object, deltas for blocks that never
 * started, events of unknown kinds, a Converse answer without a message,
 * usage fields that are not numbers.
 */
import { LLMError, type StreamEvent } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { fromConverseOutput, StreamReader, toUsage } from './convert.js';

const context = { provider: 'bedrock', model: 'm' };

function read(events: Record<string, unknown>[]): { emitted: StreamEvent[]; reader: StreamReader } {
  const reader = new StreamReader(context);
  const emitted: StreamEvent[] = [];
  for (const event of events) emitted.push(...reader.push(event));
  return { emitted, reader };
}

describe('stream reader', () => {
  it('tool input that is not JSON, or not an object, becomes invalid_arguments on the call, never a crash', () => {
    const { reader } = read([
      { contentBlockStart: { contentBlockIndex: 0, start: { toolUse: { toolUseId: 't1', name: 'a' } } } },
      { contentBlockDelta: { contentBlockIndex: 0, delta: { toolUse: { input: '{"path": ' } } } },
      { contentBlockStop: { contentBlockIndex: 0 } },
      { contentBlockStart: { contentBlockIndex: 1, start: { toolUse: { toolUseId: 't2', name: 'b' } } } },
      { contentBlockDelta: { contentBlockIndex: 1, delta: { toolUse: { input: '[1, 2]' } } } },
      { contentBlockStop: { contentBlockIndex: 1 } },
      { contentBlockStart: { contentBlockIndex: 2, start: { toolUse: { toolUseId: 't3', name: 'c' } } } },
      { contentBlockStop: { contentBlockIndex: 2 } },
      { messageStop: { stopReason: 'tool_use' } },
    ]);
    const calls = reader.response().tool_calls!;
    expect(calls.map((c) => [c.id, c.arguments, c.invalid_arguments?.problem])).toEqual([
      ['t1', {}, 'invalid_json'],
      ['t2', {}, 'not_object'],
      ['t3', {}, undefined],
    ]);
  });

  it('tool deltas for a block that never started, unknown events and non-string fields are ignored', () => {
    const { emitted, reader } = read([
      { messageStart: { role: 'assistant' } },
      { contentBlockDelta: { contentBlockIndex: 4, delta: { toolUse: { input: '{}' } } } },
      { somethingNew: { x: 1 } },
      { contentBlockDelta: { contentBlockIndex: 0, delta: { text: 42 } } },
      { contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'ok' } } },
      { contentBlockStop: { contentBlockIndex: 9 } },
      { messageStop: { stopReason: 'end_turn' } },
      { metadata: { usage: { inputTokens: 'many', outputTokens: -3 } } },
    ]);
    expect(emitted.map((e) => e.type)).toEqual(['message.start', 'text.delta']);
    expect(reader.finished).toBe(true);
    expect(reader.response()).toMatchObject({
      content: [{ type: 'text', text: 'ok' }],
      finish_reason: 'stop',
      usage: { input_tokens: 0, output_tokens: 0 },
    });
  });

  it('blocks come out in contentBlockIndex order even when the wire interleaves them', () => {
    const { reader } = read([
      { contentBlockDelta: { contentBlockIndex: 1, delta: { text: 'second' } } },
      { contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { text: 'first' } } } },
      { messageStop: { stopReason: 'end_turn' } },
    ]);
    expect(reader.response().content.map((b) => b.type)).toEqual(['thinking', 'text']);
  });
});

describe('Converse answers', () => {
  it('an answer without output.message is a clear, non-retryable error naming what came', () => {
    let error: unknown;
    try {
      fromConverseOutput({ foo: 1 }, context);
    } catch (e) {
      error = e;
    }
    expect(LLMError.is(error)).toBe(true);
    expect((error as LLMError).retryable).toBe(false);
    expect((error as LLMError).message).toContain('no output.message.content (got keys foo)');
  });

  it('unknown blocks (citations, documents) are skipped; a toolUse input that is a string is parsed', () => {
    const response = fromConverseOutput(
      {
        output: {
          message: {
            content: [
              { citationsContent: { content: [] } },
              { text: 'a' },
              { toolUse: { toolUseId: 't', name: 'n', input: '{"k":1}' } },
              null,
              'junk',
            ],
          },
        },
        stopReason: 'guardrail_intervened',
      },
      context,
    );
    expect(response.content).toEqual([{ type: 'text', text: 'a' }]);
    expect(response.tool_calls).toEqual([{ id: 't', name: 'n', arguments: { k: 1 } }]);
    expect(response.finish_reason).toBe('content_filter');
    expect(response.metadata?.['bedrock:stop_reason']).toBe('guardrail_intervened');
  });

  it('usage: cache writes are reported apart and not added to the input', () => {
    expect(toUsage({ inputTokens: 10, outputTokens: 5, cacheWriteInputTokens: 1000 })).toEqual({
      input_tokens: 10,
      output_tokens: 5,
      total_tokens: 1015,
      cache_write_tokens: 1000,
    });
    expect(toUsage(null)).toBeUndefined();
  });
});
