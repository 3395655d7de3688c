/**
 * Markdown of finished answers on a terminal (the REPL): marked with
 * marked-terminal, imported on first use only (a one-shot run never loads
 * them). Plain text when stdout is not a terminal, under NO_COLOR or
 * TERM=dumb. The text is made terminal-safe before it is rendered: the
 * renderer's own styles are the only escape sequences written.
 */
import { terminalSafe } from '@amplifier/process/terminal';
import pc from 'picocolors';
import { type MarkdownRenderer, useColor } from './display.js';

export type { MarkdownRenderer } from './display.js';

/** Whether answers are rendered as Markdown on `stream`: a terminal with colours. */
export function rendersMarkdown(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && useColor(stream, env);
}

/** A renderer for a terminal `width` columns wide (lazy-imports marked and marked-terminal). */
export async function markdownRenderer(width: number): Promise<MarkdownRenderer> {
  const [{ Marked }, { markedTerminal }] = await Promise.all([import('marked'), import('marked-terminal')]);
  // Styles from picocolors, always on: this renderer is only made when colours are wanted, and
  // chalk (marked-terminal's default) decides by itself from the process's stdout.
  const c = pc.createColors(true);
  const marked = new Marked(
    markedTerminal({
      width: Math.max(20, width - 2),
      reflowText: true,
      tab: 2,
      firstHeading: (s) => c.magenta(c.underline(c.bold(s))),
      heading: (s) => c.green(c.bold(s)),
      strong: c.bold,
      em: c.italic,
      codespan: c.yellow,
      code: c.yellow,
      del: (s) => c.dim(c.strikethrough(s)),
      blockquote: (s) => c.gray(c.italic(s)),
      link: c.blue,
      href: (s) => c.blue(c.underline(s)),
      html: c.gray,
      hr: c.dim,
    }),
  );
  return (text) => {
    const rendered = marked.parse(terminalSafe(text, { multiline: true }), { async: false });
    return `${rendered.replace(/\s+$/, '')}\n`;
  };
}
