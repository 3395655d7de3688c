/**
 * An MCP `tools/call` result as a ToolResult: the content blocks joined as
 * text (images and audio as a placeholder with type and size, never base64),
 * `structuredContent` kept, `isError` as a failed result, all capped at
 * `max_content_size` characters with a notice. The output keeps Amplifier's
 * shape: `{ content, mcp_server, mcp_tool, content_size_chars,
 * content_truncated, structured_content }`.
 */
import type { ToolResult } from '@amplifier/core';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

type Block = CallToolResult['content'][number];

export interface McpToolOutput {
  content: string;
  mcp_server: string;
  mcp_tool: string;
  content_size_chars: number;
  content_truncated: boolean;
  structured_content?: unknown;
}

function sizeOf(base64: string): string {
  const bytes =
    Math.floor((base64.length * 3) / 4) - (base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0);
  return bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 * 1024
      ? `${(bytes / 1024).toFixed(1)} KB`
      : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** One content block as text. */
export function blockText(block: Block): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return `[image ${block.mimeType}, ${sizeOf(block.data)}]`;
    case 'audio':
      return `[audio ${block.mimeType}, ${sizeOf(block.data)}]`;
    case 'resource_link': {
      const parts = [`[resource link ${block.name}: ${block.uri}`];
      if (block.mimeType) parts.push(` (${block.mimeType})`);
      if (block.description) parts.push(` ${block.description}`);
      return `${parts.join('')}]`;
    }
    case 'resource': {
      const resource = block.resource;
      if ('text' in resource && typeof resource.text === 'string')
        return `[resource ${resource.uri}]\n${resource.text}`;
      const blob = 'blob' in resource && typeof resource.blob === 'string' ? resource.blob : '';
      return `[resource ${resource.uri}${resource.mimeType ? ` ${resource.mimeType}` : ''}, ${sizeOf(blob)} binary]`;
    }
    default:
      return `[${(block as { type: string }).type} content]`;
  }
}

/** `content` cut at `max` characters with a notice of the total and the shown size. */
export function capContent(
  content: string,
  max: number,
): { content: string; content_size_chars: number; content_truncated: boolean } {
  const total = content.length;
  if (total <= max) return { content, content_size_chars: total, content_truncated: false };
  return {
    content: `${content.slice(0, max)}\n[content truncated: ${total} chars, ${max} shown]`,
    content_size_chars: total,
    content_truncated: true,
  };
}

/** The ToolResult of a call result. */
export function toToolResult(
  result: CallToolResult,
  context: { server: string; tool: string; maxContentSize: number },
): ToolResult {
  const blocks = Array.isArray(result.content) ? result.content : [];
  let content = blocks.map(blockText).join('\n');
  const structured = result.structuredContent;
  let structuredJson: string | undefined;
  if (structured !== undefined) structuredJson = JSON.stringify(structured);
  if (content === '' && structuredJson !== undefined) content = structuredJson;
  const capped = capContent(content, context.maxContentSize);
  const output: McpToolOutput = {
    content: capped.content,
    mcp_server: context.server,
    mcp_tool: context.tool,
    content_size_chars: capped.content_size_chars,
    content_truncated: capped.content_truncated,
  };
  if (
    structured !== undefined &&
    structuredJson !== undefined &&
    structuredJson.length <= context.maxContentSize
  ) {
    output.structured_content = structured;
  }
  if (result.isError === true) {
    return {
      success: false,
      output,
      error: {
        message: capped.content || `MCP tool '${context.tool}' reported an error`,
        type: 'mcp_tool_error',
      },
    };
  }
  return { success: true, output };
}
