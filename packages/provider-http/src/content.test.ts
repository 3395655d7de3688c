import type { ContentBlock } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { toolBlocksText, toolResultText } from './content.js';

describe('tool results as text', () => {
  it('a string output as it is; anything else serialized as the kernel does', () => {
    expect(toolResultText('plain')).toBe('plain');
    expect(toolResultText({ answer: 42 })).toBe('{"answer":42}');
    expect(toolResultText(null)).toBe('Success'); // serializeToolOutput's text for a successful result without output
  });

  it('a tool message given as blocks: results and text, joined by blank lines; the rest (and nulls) skipped', () => {
    const blocks = [
      { type: 'tool_result', tool_call_id: 'c1', output: { ok: true } },
      null,
      { type: 'thinking', thinking: 'hidden' },
      { type: 'text', text: 'note' },
      { type: 'text', text: '' },
    ] as unknown as ContentBlock[];
    expect(toolBlocksText(blocks)).toBe('{"ok":true}\n\nnote');
  });
});
