/**
 * Text from an MCP server (tool names, descriptions, titles, its name in a
 * project's config) is untrusted: terminal escape sequences, control, bidi,
 * zero-width and Unicode tag characters are stripped (hidden orders, a
 * hijacked terminal) by core's `terminalSafe`, and descriptions are capped.
 * A hash of each tool's definition detects changes after first use (rug pulls).
 */
import { createHash } from 'node:crypto';
import type { Logger } from '@amplifier/core';
import { terminalSafe } from '@amplifier/process/terminal';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';

export const MAX_DESCRIPTION = 2048;

/** The most characters of a server's or tool's name written into a log line or a message. */
export const MAX_SHOWN_NAME = 128;

/** A description or other paragraph of server text: stripped (line feeds and tabs kept) and capped. */
export function cleanText(text: string, max: number = MAX_DESCRIPTION): string {
  return terminalSafe(text, { multiline: true, max });
}

/** A server's or tool's name as it may appear in a log line, a message or a listing: one line, stripped, capped. */
export function shownName(name: string): string {
  return terminalSafe(name, { max: MAX_SHOWN_NAME });
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

/**
 * `logger` with every message made terminal-safe (line feeds kept): what
 * tool-mcp logs quotes server names, tool names, stderr lines and errors,
 * all of them the server's text.
 */
export function safeLogger(logger: Logger): Logger {
  const clean = (message: string): string => terminalSafe(message, { multiline: true });
  return {
    debug: (message, ...details) => logger.debug(clean(message), ...details),
    info: (message, ...details) => logger.info(clean(message), ...details),
    warn: (message, ...details) => logger.warn(clean(message), ...details),
    error: (message, ...details) => logger.error(clean(message), ...details),
  };
}
