/** The one export of marked-terminal the CLI uses (the package ships no types; @types/marked-terminal pins marked < 12). */
declare module 'marked-terminal' {
  import type { MarkedExtension } from 'marked';

  /** Layout options, and a style function per element (text in, styled text out). */
  export interface TerminalRendererOptions {
    width?: number;
    reflowText?: boolean;
    tab?: number;
    [style: string]: number | boolean | ((text: string) => string) | undefined;
  }

  /** marked's extension that renders Markdown for a terminal (ANSI styles, reflowed to `width`). */
  export function markedTerminal(options?: TerminalRendererOptions): MarkedExtension;
}
