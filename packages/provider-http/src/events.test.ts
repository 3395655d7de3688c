import type { StreamEvent } from '@amplifier/core';
import { createLLMError } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import {
  BlockEvents,
  llmErrorPayload,
  llmRequestPayload,
  llmResponsePayload,
  providerRetryPayload,
  usagePayload,
} from './events.js';

const context = { provider: 'p', model: 'm' };

describe('payloads', () => {
  it('usage: gross input, output; cache, reasoning and cost only when present and non-zero', () => {
    expect(usagePayload(undefined)).toEqual({ input_tokens: 0, output_tokens: 0 });
    expect(
      usagePayload({
        input_tokens: 10,
        output_tokens: 5,
        total_tokens: 15,
        cache_read_tokens: 0,
        cache_write_tokens: 3,
        reasoning_tokens: 2,
        cost_usd: '0',
      }),
    ).toEqual({
      input_tokens: 10,
      output_tokens: 5,
      cache_write_tokens: 3,
      reasoning_tokens: 2,
      cost_usd: '0',
    });
  });

  it('llm:request: the reference fields, API extras after has_instructions, raw redacted', () => {
    const payload = llmRequestPayload(context, {
      messageCount: 2,
      hasInstructions: true,
      thinking: { enabled: true, budget: 4096 },
      stream: false,
      toolCount: 3,
      extra: { has_system: true },
      raw: { model: 'm', api_key: 'sk-live-123' },
    });
    expect(payload).toEqual({
      provider: 'p',
      model: 'm',
      message_count: 2,
      has_instructions: true,
      has_system: true,
      reasoning_enabled: true,
      thinking_enabled: true,
      thinking_budget: 4096,
      background_mode: false,
      stream: false,
      tool_count: 3,
      raw: { model: 'm', api_key: expect.not.stringContaining('sk-live') },
    });
    expect(Object.keys(payload).indexOf('has_system')).toBe(4);
    const plain = llmRequestPayload(context, {
      messageCount: 0,
      hasInstructions: false,
      thinking: { enabled: false, budget: null },
      stream: true,
      toolCount: 0,
    });
    expect(plain).not.toHaveProperty('raw');
  });

  it('llm:response ok and error; provider:retry', () => {
    const response = { content: [], usage: { input_tokens: 1, output_tokens: 2, total_tokens: 3 } };
    expect(llmResponsePayload(context, response, { durationMs: 12.6 })).toEqual({
      provider: 'p',
      model: 'm',
      usage: { input_tokens: 1, output_tokens: 2 },
      status: 'ok',
      duration_ms: 13,
      continuation_count: 0,
    });
    expect(
      llmResponsePayload(
        context,
        { ...response, finish_reason: 'stop' },
        {
          durationMs: 1,
          rateLimits: { requests_remaining: 9 },
          raw: true,
        },
      ),
    ).toMatchObject({ finish_reason: 'stop', rate_limits: { requests_remaining: 9 }, raw: response });
    const error = createLLMError('rate_limit', 'slow down', { status_code: 429, retry_after: 2 });
    expect(llmErrorPayload(context, error, 5)).toEqual({
      provider: 'p',
      model: 'm',
      status: 'error',
      duration_ms: 5,
      error: 'slow down',
      error_kind: 'rate_limit',
      status_code: 429,
    });
    expect(providerRetryPayload(context, 1, 5, 2500, error)).toEqual({
      provider: 'p',
      model: 'm',
      attempt: 1,
      max_retries: 5,
      delay: 2.5,
      error_type: 'RateLimitError',
      error_kind: 'rate_limit',
      status_code: 429,
      retry_after: 2,
    });
  });
});

describe('BlockEvents', () => {
  const ID = '00000000-0000-4000-8000-000000000000';
  const record = () => {
    const emitted: [string, Record<string, unknown>][] = [];
    const blocks = new BlockEvents(async (event, data) => void emitted.push([event, data]), ID);
    const short = () =>
      emitted.map(([event, data]) =>
        `${event.slice(4)} ${data.block_index ?? ''} ${data.block_type ?? ''}${data.sequence === undefined ? '' : ` #${data.sequence}`}`.trim(),
      );
    return { emitted, blocks, short };
  };

  it('the contract: one index space, per-block sequence, no tool-input deltas, no empty deltas', async () => {
    const { emitted, blocks, short } = record();
    const events: StreamEvent[] = [
      { type: 'message.start' },
      { type: 'thinking.delta', text: 'hmm' },
      { type: 'text.delta', text: '' },
      { type: 'text.delta', text: 'a' },
      { type: 'text.delta', text: 'b' },
      { type: 'tool_call.start', id: 'c1', name: 'read' },
      { type: 'tool_call.delta', id: 'c1', arguments_fragment: '{}' },
      { type: 'tool_call.end', id: 'c1', name: 'read', arguments: {} },
      { type: 'message.end', response: { content: [] } },
    ];
    for (const event of events) await blocks.on(event);
    expect(short()).toEqual([
      'stream_block_start 0 thinking',
      'stream_block_delta 0 thinking #0',
      'stream_block_end 0 thinking',
      'stream_block_start 1 text',
      'stream_block_delta 1 text #0',
      'stream_block_delta 1 text #1',
      'stream_block_end 1 text',
      'stream_block_start 2 tool_use',
      'stream_block_end 2 tool_use',
    ]);
    expect(emitted[5]![1]).toEqual({
      request_id: ID,
      block_index: 1,
      block_type: 'text',
      sequence: 1,
      text: 'b',
    });
    expect(emitted[7]![1]).toEqual({ request_id: ID, block_index: 2, block_type: 'tool_use', name: 'read' });
    expect(emitted[8]![1]).toEqual({ request_id: ID, block_index: 2, block_type: 'tool_use' });
    expect(blocks.deltas).toBe(3);
  });

  it('chunk wires: a new block at each change of kind, of wire index, or tool call; end() closes the last', async () => {
    const { blocks, short } = record();
    const events: StreamEvent[] = [
      { type: 'text.delta', index: 0, text: 'x' },
      { type: 'text.delta', index: 1, text: 'y' },
      { type: 'tool_call.start', id: 'c1', name: 'a' },
      { type: 'tool_call.start', id: 'c2', name: '' },
      { type: 'tool_call.end', id: 'c1', name: 'a', arguments: {} },
    ];
    for (const event of events) await blocks.on(event);
    await blocks.end();
    expect(short()).toEqual([
      'stream_block_start 0 text',
      'stream_block_delta 0 text #0',
      'stream_block_end 0 text',
      'stream_block_start 1 text',
      'stream_block_delta 1 text #0',
      'stream_block_end 1 text',
      'stream_block_start 2 tool_use',
      'stream_block_end 2 tool_use',
      'stream_block_start 3 tool_use',
      'stream_block_end 3 tool_use',
    ]);
  });

  it('llm:stream_aborted only after a delta, with the error class name and message', async () => {
    const quiet = record();
    await quiet.blocks.on({ type: 'tool_call.start', id: 'c1', name: 'a' });
    await quiet.blocks.aborted(createLLMError('stream', 'lost'));
    expect(quiet.short()).toEqual(['stream_block_start 0 tool_use']);
    const { emitted, blocks } = record();
    await blocks.on({ type: 'text.delta', text: 'x' });
    await blocks.aborted(createLLMError('stream', 'lost'));
    expect(emitted.at(-1)).toEqual([
      'llm:stream_aborted',
      { request_id: ID, error: { type: 'StreamError', msg: 'lost' } },
    ]);
  });
});
