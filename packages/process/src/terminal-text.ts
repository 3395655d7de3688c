/**
 * Untrusted text on its way to a terminal: an MCP server's tool names,
 * descriptions and server names, a tool name or argument the model sends
 * back, a project's config names. A terminal obeys what it receives, so
 * escape sequences (`ESC]0;title BEL` retitles the window, `ESC[2J` clears
 * it, OSC 52 writes the clipboard, OSC 8 hides a link), carriage returns
 * (overwrite the line), C0/C1 controls and bidi overrides (`U+202E` reverses
 * what follows) are removed before the text is printed. The one helper for
 * this: tool-mcp uses it at the door, the CLI where it prints.
 */

/**
 * A whole escape sequence, ESC (7-bit) or C1 (8-bit) introduced:
 * - OSC, DCS, SOS, PM, APC: up to the string terminator (BEL, ESC \ or ST)
 *   or, when unterminated, to the end of the text (a terminal would swallow it too);
 * - CSI: parameters, intermediates and the final byte;
 * - any other ESC + one character (`ESC c` resets the terminal, `ESC 7`, charset selections).
 */
const SEQUENCE_SOURCE = [
  '(?:\\u001B[\\]PX^_]|[\\u0090\\u0098\\u009D\\u009E\\u009F])[^\\u0007\\u001B\\u009C]*(?:\\u0007|\\u001B\\\\|\\u009C|$)',
  '(?:\\u001B\\[|\\u009B)[\\u0030-\\u003F]*[\\u0020-\\u002F]*[\\u0040-\\u007E]?',
  '\\u001B[\\u0020-\\u002F]*[\\u0030-\\u007E]?',
].join('|');

/**
 * Single characters that control or disguise: C0 except tab and LF, DEL, C1,
 * soft hyphen, the Arabic letter mark, bidi embeddings, overrides and
 * isolates, zero-width characters, line and paragraph separators, invisible
 * operators, the BOM, interlinear annotations, Unicode tags, and lone
 * surrogates (a terminal renders them as garbage).
 */
const CHARACTER_SOURCE =
  '[\\u0000-\\u0008\\u000B-\\u001F\\u007F-\\u009F\\u00AD\\u061C\\u180E\\u200B-\\u200F\\u2028-\\u202E\\u2060-\\u206F\\uFEFF\\uFFF9-\\uFFFB]|\\uDB40[\\uDC00-\\uDC7F]|[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]';

const UNSAFE = new RegExp(`${SEQUENCE_SOURCE}|${CHARACTER_SOURCE}`);
const UNSAFE_G = new RegExp(`${SEQUENCE_SOURCE}|${CHARACTER_SOURCE}`, 'g');

/** How `terminalSafe` treats layout and length. */
export interface TerminalSafeOptions {
  /**
   * Keep line feeds and tabs (a description shown as a paragraph). Default
   * false: a name or a one-line summary, where a line feed becomes a space
   * (it could fake a line of the CLI's own output) and a tab a space.
   */
  multiline?: boolean;
  /** The most characters kept (then `…`); default unlimited. */
  max?: number;
}

/**
 * `text` with every terminal escape sequence and every control, bidi and
 * invisible formatting character removed; CR is removed too (it moves the
 * cursor back over what was printed). Printable text, emoji and other
 * scripts are kept as they are. Non-strings are turned into text first.
 */
export function terminalSafe(text: unknown, options: TerminalSafeOptions = {}): string {
  let clean = typeof text === 'string' ? text : String(text);
  // Fast path: most names have nothing to strip.
  if (UNSAFE.test(clean)) clean = clean.replace(UNSAFE_G, '');
  if (!options.multiline && /[\t\n]/.test(clean)) clean = clean.replace(/[\t\n]+/g, ' ');
  const max = options.max;
  if (max !== undefined && clean.length > max) {
    // Never cut a surrogate pair in two.
    const end = /[\uD800-\uDBFF]/.test(clean.charAt(max - 1)) ? max - 1 : max;
    clean = `${clean.slice(0, Math.max(0, end))}…`;
  }
  return clean;
}

// Characters JSON.stringify leaves raw that a terminal acts on or that disguise text.
const JSON_UNSAFE =
  /[\u007F-\u009F\u00AD\u061C\u180E\u200B-\u200F\u2028-\u202E\u2060-\u206F\uFEFF\uFFF9-\uFFFB]/;
const JSON_UNSAFE_G = new RegExp(JSON_UNSAFE.source, 'g');

/**
 * JSON text (from `JSON.stringify`, which escapes C0 controls but leaves DEL,
 * C1 controls such as the 8-bit CSI, bidi and zero-width characters raw) with
 * those characters written as `\uXXXX` escapes: the same data, safe to print.
 * Only valid on JSON text (outside strings JSON holds nothing but ASCII).
 */
export function terminalSafeJson(json: string): string {
  // Fast path: most lines (every streamed delta with --json) have nothing to escape.
  if (!JSON_UNSAFE.test(json)) return json;
  return json.replace(JSON_UNSAFE_G, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
