/**
 * Markdown of finished answers (issue 44, item 9): the renderer, when it is
 * used (a terminal with colours only), and the REPL under a pseudo-terminal:
 * the streamed raw answer is redrawn rendered; with NO_COLOR it stays plain.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CliProcess, cliEnv, removeTempDirs, tempDir, writeMockPlan } from './__fixtures__/cli.js';
import { rowsOf } from './display.js';
import { markdownRenderer, rendersMarkdown } from './markdown.js';

afterEach(removeTempDirs);

const ANSWER = '# Findings\n\nThe loader is **fast** and `small`.\n\n- one\n- two\n';

describe('markdownRenderer', () => {
  it('styles headings, bold and code, and keeps the words', async () => {
    const render = await markdownRenderer(80);
    const out = render(ANSWER);
    expect(out).toMatch(/\x1b\[[\d;]*m/);
    expect(out).not.toContain('**fast**');
    for (const word of ['Findings', 'fast', 'small', 'one', 'two']) expect(out).toContain(word);
    expect(out.endsWith('\n')).toBe(true);
  });

  it("escape sequences in the model's text never reach the terminal (only the renderer's styles)", async () => {
    const render = await markdownRenderer(80);
    const hostile = [
      'title \x1b]0;pwned\x07 here',
      'clear \x1b[2J\x1b[H screen',
      'link \x1b]8;;http://evil.example\x1b\\click\x1b]8;;\x1b\\',
    ];
    for (const text of hostile) {
      const out = render(text);
      expect(out).not.toContain('\x1b]');
      expect(out).not.toContain('\x1b[2J');
      expect(out).not.toContain('\x1b[H');
    }
  });
});

describe('rendersMarkdown', () => {
  it('only on a terminal with colours', () => {
    expect(rendersMarkdown({ isTTY: true }, { TERM: 'xterm' })).toBe(true);
    expect(rendersMarkdown({ isTTY: false }, { TERM: 'xterm', FORCE_COLOR: '1' })).toBe(false);
    expect(rendersMarkdown({ isTTY: true }, { TERM: 'xterm', NO_COLOR: '1' })).toBe(false);
    expect(rendersMarkdown({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
  });
});

describe('rowsOf', () => {
  it('counts wrapped rows; escape sequences take no cells, wide characters two', () => {
    expect(rowsOf('abc', 10)).toBe(1);
    expect(rowsOf('abc\n', 10)).toBe(1);
    expect(rowsOf('a\n\nb', 10)).toBe(3);
    expect(rowsOf('x'.repeat(25), 10)).toBe(3);
    expect(rowsOf(`\x1b[1m${'x'.repeat(10)}\x1b[22m`, 10)).toBe(1);
    expect(rowsOf('界'.repeat(6), 10)).toBe(2);
  });
});

describe('the REPL on a pseudo-terminal', () => {
  /** One turn answered with ANSWER; stdout as the terminal received it. */
  async function oneTurn(env: Record<string, string | undefined>): Promise<string> {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, [ANSWER], { tools: [] });
    const cli = new CliProcess(['run', '--plan', plan], {
      cwd,
      env: cliEnv(home, { CI: undefined, TERM: 'xterm', ...env }),
      tty: true,
    });
    await cli.waitFor('stdout', /›/);
    cli.write('report\r');
    await cli.waitFor('stdout', /two[\s\S]*›/);
    cli.write('/exit\r');
    const exit = await cli.done();
    expect(exit.code, exit.stdout).toBe(0);
    return exit.stdout;
  }

  it('the finished answer is drawn again, rendered, over the raw text that streamed', async () => {
    const out = await oneTurn({ NO_COLOR: undefined, FORCE_COLOR: undefined });
    const redraw = out.lastIndexOf('\x1b[J');
    expect(redraw).toBeGreaterThan(-1);
    const after = out.slice(redraw);
    expect(after).not.toContain('**fast**');
    expect(after).toMatch(/\x1b\[1m[^\n]*fast/);
    expect(after).toContain('two');
  });

  it('with NO_COLOR the answer stays plain text (no redraw)', async () => {
    const out = await oneTurn({ NO_COLOR: '1' });
    expect(out).toContain('**fast**');
    expect(out).not.toContain('\x1b[J');
  });
});
