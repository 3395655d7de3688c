/**
 * Issue 44 (1): on a terminal the demo's narration ("Looking around the
 * project.", streamed to stdout without a newline) must survive the spinner,
 * which redraws its line from column 1 (`ESC[1G ESC[0K`). Run under a real
 * pseudo-terminal (util-linux `script`); what a terminal would show is
 * rebuilt from the bytes by `visibleLines`.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { skipUnless } from '@amplifier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cliEnv, removeTempDirs, tempDir } from './__fixtures__/cli.js';

afterEach(removeTempDirs);

const NO_SCRIPT = skipUnless(
  spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0,
  'util-linux `script` on PATH',
);

/**
 * The lines a terminal shows for `output`: carriage return and `ESC[1G` move
 * to column 1, `ESC[0K`/`ESC[K` erase to the end of the line, other escape
 * sequences draw nothing, other characters overwrite at the cursor.
 */
function visibleLines(output: string): string[] {
  const lines: string[] = [];
  let line: string[] = [];
  let column = 0;
  for (let i = 0; i < output.length; i++) {
    const char = output[i] as string;
    if (char === '\n') {
      lines.push(line.join('').trimEnd());
      line = [];
      column = 0;
    } else if (char === '\r') {
      column = 0;
    } else if (char === '\x1b') {
      const csi = /^\x1b\[([?\d;]*)([A-Za-z])/.exec(output.slice(i, i + 16));
      if (csi === null) continue;
      i += csi[0].length - 1;
      if (csi[2] === 'G') column = Math.max(0, Number(csi[1] || '1') - 1);
      else if (csi[2] === 'K' && (csi[1] === '' || csi[1] === '0')) line = line.slice(0, column);
    } else {
      line[column] = char;
      column++;
    }
  }
  if (line.length > 0) lines.push(line.join('').trimEnd());
  return lines;
}

describe('visibleLines', () => {
  it('applies what a terminal does with column moves and erases', () => {
    expect(visibleLines('abc\x1b[1G\x1b[0Kxy\nkeep\r\nnext\x1b[?25l ok\n')).toEqual([
      'xy',
      'keep',
      'next ok',
    ]);
  });
});

/** The demo's turn under a pseudo-terminal (stdout and stderr both the terminal), as the terminal shows it. */
function demoOnTerminal(extra: Record<string, string | undefined>): { raw: string; shown: string[] } {
  const home = tempDir();
  const cwd = tempDir();
  fs.writeFileSync(path.join(cwd, 'README.md'), '# Tiny project\n');
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} run "What is this project?"`;
  const tty = spawnSync('script', ['-qec', command, '/dev/null'], {
    cwd,
    env: cliEnv(home, extra),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  expect(tty.status, tty.stderr).toBe(0);
  return { raw: tty.stdout, shown: visibleLines(tty.stdout) };
}

describe('the offline demo on a terminal', () => {
  it.skipIf(NO_SCRIPT)('keeps the narration before each tool on lines of its own, with the spinner', () => {
    const { raw, shown } = demoOnTerminal({ CI: undefined, TERM: 'xterm-256color' });
    // The spinner really drew on this terminal (else the test would prove nothing).
    expect(raw).toContain('\x1b[1G\x1b[0K');
    for (const narration of ['Looking around the project.', 'Reading README.md.']) {
      expect(shown).toContain(narration);
    }
    expect(shown.some((line) => /✓ glob/.test(line))).toBe(true);
  });

  it.skipIf(NO_SCRIPT)('and without one (CI=true): the tool line is not glued to the narration', () => {
    const { raw, shown } = demoOnTerminal({ CI: 'true' });
    expect(raw).not.toContain('\x1b[1G\x1b[0K');
    for (const narration of ['Looking around the project.', 'Reading README.md.']) {
      expect(shown).toContain(narration);
    }
    expect(shown.some((line) => /→ glob/.test(line))).toBe(true);
  });
});
