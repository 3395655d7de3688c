/**
 * The README's commands, run as a newcomer would type them, so the README cannot drift.
 *
 * Every line of every `sh` block of README.md is a command. It runs from the repository root
 * with `sh -c`, offline: a temporary AMPLIFIER_HOME, no provider keys (so the CLI uses its
 * offline demo), stdin closed, no colours. `npx -y pnpm@10.34.9` is run as the repository's own
 * pnpm (the same version, a root dev dependency), so no download is needed. A line ending in
 * `# not run by the doc test: <why>` is reported as skipped with that reason. A `text` block that
 * follows a `sh` block is an excerpt of what its last command prints: each of its lines must
 * appear in the output, in order, `…` standing for anything.
 *
 *   node --test scripts/readme.test.mjs
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const NOT_RUN = /\s+# not run by the doc test: (.+)$/;
const NPX_PNPM = /npx -y pnpm@[\d.]+ /g;

/** The README's commands in order: `{ command, skip?, excerpt? }`. */
function readmeCommands(markdown) {
  const commands = [];
  let block; // 'sh' | 'text' | other fence | undefined
  let lines = [];
  let lastShCommand;
  for (const line of markdown.split('\n')) {
    const fence = /^\s*```(\w*)\s*$/.exec(line);
    if (fence && block === undefined) {
      block = fence[1] || 'plain';
      lines = [];
      continue;
    }
    if (fence) {
      if (block === 'sh') {
        for (const text of lines.map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'))) {
          const skip = NOT_RUN.exec(text);
          lastShCommand = { command: text.replace(NOT_RUN, ''), ...(skip && { skip: skip[1] }) };
          commands.push(lastShCommand);
        }
      } else if (block === 'text' && lastShCommand !== undefined && lastShCommand.excerpt === undefined) {
        lastShCommand.excerpt = lines.filter((l) => l.trim() !== '');
      }
      block = undefined;
      continue;
    }
    if (block !== undefined) lines.push(line);
  }
  return commands;
}

/** `…` matches anything; everything else literally. */
function linePattern(line) {
  const parts = line
    .trim()
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(parts.join('.*'));
}

const home = mkdtempSync(join(tmpdir(), 'readme-test-home-'));
after(() => rmSync(home, { recursive: true, force: true }));

const env = { ...process.env, AMPLIFIER_HOME: home, NO_COLOR: '1', CI: 'true' };
for (const key of [
  'ANTHROPIC_API_KEY',
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'FORCE_COLOR',
  'AMPLIFIER_COMMAND',
]) {
  delete env[key];
}
const pnpm = join(root, 'node_modules', '.bin', 'pnpm');

describe('README.md commands', () => {
  const commands = readmeCommands(readFileSync(join(root, 'README.md'), 'utf8'));

  it('has commands to run, and says why the others are not run', () => {
    assert.ok(commands.filter((c) => !c.skip).length >= 4, JSON.stringify(commands));
    assert.ok(
      commands.some((c) => c.excerpt !== undefined),
      'the demo excerpt follows its command',
    );
  });

  for (const { command, skip, excerpt } of commands) {
    it(command, { skip }, () => {
      // stderr joins stdout, so the excerpt's lines (the display on stderr, the answer on stdout) keep their order.
      const result = spawnSync('sh', ['-c', `(${command.replace(NPX_PNPM, `${pnpm} `)}) 2>&1`], {
        cwd: root,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        encoding: 'utf8',
        timeout: 600_000,
      });
      const output = result.stdout;
      assert.equal(result.status, 0, `${command} exited ${result.status ?? result.signal}\n${output}`);
      if (excerpt === undefined) return;
      const outputLines = output.split('\n');
      let at = 0;
      for (const line of excerpt) {
        const pattern = linePattern(line);
        const found = outputLines.findIndex((candidate, i) => i >= at && pattern.test(candidate));
        assert.notEqual(
          found,
          -1,
          `the README's excerpt line "${line}" is not in the output (in order):\n${output}`,
        );
        at = found + 1;
      }
    });
  }
});
