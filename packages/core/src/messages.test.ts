import { describe, expect, it } from 'vitest';
import { type ContentBlock, responseText } from './messages.js';

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
