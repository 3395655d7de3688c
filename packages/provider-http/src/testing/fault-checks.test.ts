import { HookRegistry } from '@amplifier/core';
import { expect, it } from 'vitest';
import { recordStreamEvents, transcript, unansweredToolCalls } from './fault-checks.js';

it('recordStreamEvents: the four events in order, request_id as its ordinal, session fields left out; stop() ends it', async () => {
  const hooks = new HookRegistry();
  const log = recordStreamEvents(hooks);
  await hooks.emit('llm:stream_block_start', {
    request_id: 'r1',
    block_index: 0,
    block_type: 'text',
    session_id: 's',
  });
  await hooks.emit('llm:stream_block_delta', {
    request_id: 'r1',
    block_index: 0,
    block_type: 'text',
    sequence: 0,
    text: 'a',
  });
  await hooks.emit('llm:stream_aborted', { request_id: 'r2', error: { type: 'Error', msg: 'x' } });
  await hooks.emit('llm:request', { provider: 'p', model: 'm', message_count: 1 });
  log.stop();
  await hooks.emit('llm:stream_block_end', { request_id: 'r1', block_index: 0, block_type: 'text' });
  expect(log.events()).toEqual([
    ['block_start', { request: 0, block_index: 0, block_type: 'text' }],
    ['block_delta', { request: 0, block_index: 0, block_type: 'text', sequence: 0, text: 'a' }],
    ['aborted', { request: 1, error: { type: 'Error', msg: 'x' } }],
  ]);
});

it('transcript and unansweredToolCalls: tool_calls fields and tool_call blocks, answered or not', () => {
  const messages = [
    { role: 'user', content: 'q', metadata: { timestamp: 't' } },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_call', id: 'c1', name: 'lookup', input: {} },
      ],
      tool_calls: [{ id: 'c2' }],
    },
    { role: 'tool', content: '{}', tool_call_id: 'c1' },
  ];
  expect(transcript(messages)).toEqual([
    { role: 'user', text: 'q' },
    { role: 'assistant', text: 'Let me look.', calls: ['c2', 'c1'] },
    { role: 'tool', text: '{}', result_of: 'c1' },
  ]);
  expect(unansweredToolCalls(messages)).toEqual(['c2']);
});
