import { describe, expect, it } from 'vitest';
import { blockToolCalls, type ContentBlock, responseText, responseToolCalls } from './messages.js';

describe('responseText', () => {
  it('joins text blocks with a blank line and never includes thinking or tool calls', () => {
    expect(
      responseText([
        { type: 'thinking', thinking: 'secret plan' },
        { type: 'text', text: 'first' },
        { type: 'tool_call', id: 'c', name: 'bash', input: {} },
        { type: 'text', text: 'second' },
      ]),
    ).toBe('first\n\nsecond');
  });

  it('passes a string through and gives "" for nothing', () => {
    expect(responseText('already text')).toBe('already text');
    expect(responseText(undefined)).toBe('');
    expect(responseText([])).toBe('');
    expect(responseText([{ type: 'redacted_thinking', data: 'x' }])).toBe('');
  });

  it('skips null and malformed blocks instead of throwing (odd messages from callers)', () => {
    const odd = [null, { type: 'text', text: 'kept' }, { type: 'text' }] as unknown as ContentBlock[];
    expect(responseText(odd)).toBe('kept');
  });
});

describe('responseToolCalls and blockToolCalls', () => {
  const blocks: ContentBlock[] = [
    { type: 'text', text: 'let me look' },
    { type: 'tool_call', id: 'c1', name: 'read_file', input: { file_path: 'a' } },
    { type: 'tool_call', id: 'c2', name: 'grep', input: {} },
  ];

  it('turns tool_call blocks into ToolCalls, in order; none or no content gives []', () => {
    expect(blockToolCalls(blocks)).toEqual([
      { id: 'c1', name: 'read_file', arguments: { file_path: 'a' } },
      { id: 'c2', name: 'grep', arguments: {} },
    ]);
    expect(blockToolCalls([{ type: 'text', text: 'x' }])).toEqual([]);
    expect(blockToolCalls(undefined)).toEqual([]);
  });

  it('prefers response.tool_calls; falls back to the blocks when it is missing or empty', () => {
    const given = [{ id: 'x', name: 'bash', arguments: { command: 'ls' } }];
    expect(responseToolCalls({ content: blocks, tool_calls: given })).toBe(given);
    expect(responseToolCalls({ content: blocks, tool_calls: [] }).map((c) => c.id)).toEqual(['c1', 'c2']);
    expect(responseToolCalls({ content: blocks }).map((c) => c.id)).toEqual(['c1', 'c2']);
  });
});
