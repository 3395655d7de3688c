import type { StreamEvent } from '@amplifier/core';
import { createLLMError } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { BlockEvents } from './block-events.js';

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
