/**
 * Message content as text, for wire formats that want text where the
 * envelope has blocks: a tool's output, and a tool message given as blocks.
 */
import type { ContentBlock } from '@amplifier/core';
import { serializeToolOutput } from '@amplifier/core';

/** A tool result's output as the text an API gets: a string as it is, anything else as the kernel serializes it. */
export function toolResultText(output: unknown): string {
  return typeof output === 'string' ? output : serializeToolOutput({ success: true, output });
}

/** A tool message's blocks as text: its tool results and text blocks, joined by blank lines. */
export function toolBlocksText(blocks: readonly ContentBlock[]): string {
  return blocks
    .map((b) => (b?.type === 'tool_result' ? toolResultText(b.output) : b?.type === 'text' ? b.text : ''))
    .filter((t) => t !== '')
    .join('\n\n');
}
