import { MAX_DATA_DEPTH, MAX_DEPTH_MARKER } from '@amplifier/core';
import { depthOf, nestedValue } from '@amplifier/testing';
import { describe, expect, it } from 'vitest';
import { responseEvents } from './response-events.js';

describe('responseEvents', () => {
  it('a finished response as the events a stream would have yielded, blocks indexed, calls whole', () => {
    const response = {
      content: [
        { type: 'thinking' as const, thinking: 'hmm' },
        { type: 'text' as const, text: 'Hi' },
      ],
      tool_calls: [{ id: 'c1', name: 'read', arguments: { path: 'a' } }],
    };
    expect(responseEvents(response, 'm-1')).toEqual([
      { type: 'message.start', model: 'm-1' },
      { type: 'thinking.delta', index: 0, text: 'hmm' },
      { type: 'text.delta', index: 1, text: 'Hi' },
      { type: 'tool_call.start', id: 'c1', name: 'read' },
      { type: 'tool_call.delta', id: 'c1', arguments_fragment: '{"path":"a"}' },
      { type: 'tool_call.end', id: 'c1', name: 'read', arguments: { path: 'a' } },
      { type: 'message.end', response },
    ]);
    expect(responseEvents({ content: [] })).toEqual([
      { type: 'message.start' },
      { type: 'message.end', response: { content: [] } },
    ]);
  });

  it('writes deep call input bounded (never a throw)', () => {
    const input = { q: nestedValue(100_000) };
    const events = responseEvents(
      { content: [], tool_calls: [{ id: 't1', name: 'echo', arguments: input }] },
      'm',
    );
    const fragment = events.find((e) => e.type === 'tool_call.delta') as { arguments_fragment: string };
    expect(fragment.arguments_fragment).toContain(JSON.stringify(MAX_DEPTH_MARKER));
    expect(depthOf(JSON.parse(fragment.arguments_fragment))).toBe(MAX_DATA_DEPTH);
  });
});
