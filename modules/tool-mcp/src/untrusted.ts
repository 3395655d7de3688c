/**
 * Text from an MCP server (descriptions, titles) is untrusted: control, bidi
 * and Unicode tag characters are stripped (hidden orders), and descriptions
 * are capped. A hash of each tool's definition detects changes after first
 * use (rug pulls).
 */
import { createHash } from 'node:crypto';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';

export const MAX_DESCRIPTION = 2048;

// C0/C1 controls except \t \n, bidi controls, zero-width characters, Unicode tags.
const HIDDEN =
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF]|\uDB40[\uDC00-\uDC7F]/g;

export function cleanText(text: string, max: number = MAX_DESCRIPTION): string {
  const clean = text.replace(HIDDEN, '');
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

/** A hash of what the model and the approval rules see of a tool. */
export function definitionHash(tool: McpTool): string {
  const { name, description, inputSchema, annotations } = tool;
  return createHash('sha256')
    .update(
      JSON.stringify({ name, description: description ?? '', inputSchema, annotations: annotations ?? null }),
    )
    .digest('hex');
}
