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
 * Then cheap checks that keep every doc honest (no commands run): links between docs point at
 * files and headings of the repository, no doc cites the DESIGN.md that lives outside it,
 * DESIGN-NOTES.md stays at most 400 lines, a README section that gives measured figures names the
 * command that measures them, every `pnpm <script>` the root docs name is a root script,
 * every `--only <group>` names a bench group, and every `js` block parses as an ES module.
 *
 *   node --test scripts/readme.test.mjs
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
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

/** The repository's docs: the root ones, docs/, bench/ and every package's README. */
function docFiles() {
  const files = [
    'README.md',
    'DESIGN-NOTES.md',
    'CONTRIBUTING.md',
    'RELEASING.md',
    'bench/README.md',
    'bench/LOG.md',
  ];
  files.push(
    ...readdirSync(join(root, 'docs'))
      .filter((n) => n.endsWith('.md'))
      .map((n) => `docs/${n}`),
  );
  for (const folder of ['packages', 'modules', 'examples']) {
    for (const name of readdirSync(join(root, folder))) {
      if (existsSync(join(root, folder, name, 'README.md'))) files.push(`${folder}/${name}/README.md`);
    }
  }
  return files.filter((f) => existsSync(join(root, f)));
}

/** The text of a Markdown file without its fenced code blocks (examples, not prose). */
function prose(file) {
  return readFileSync(join(root, file), 'utf8').replace(/^\s*```[^\n]*\n[\s\S]*?^\s*```\s*$/gm, '');
}

/** GitHub's anchors of a Markdown file's headings (`## Build, tooling and docs` → `build-tooling-and-docs`). */
function headingAnchors(file) {
  const anchors = new Set();
  for (const match of prose(file).matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = match[1]
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    let anchor = base;
    for (let i = 1; anchors.has(anchor); i++) anchor = `${base}-${i}`;
    anchors.add(anchor);
  }
  return anchors;
}

/** A measured figure: "measured on/in…", a median, or a time in µs or ns. */
const MEASURED = /\b(Measured|measured (on|in|at|as root|20\d\d))\b|\bmedians?\b|\d[\d.,]*\s?(µs|ns)\b/;
/** A command a reader can run, in backticks. */
const COMMAND = /`(pnpm|node|npx|npm|time|strace) [^`]+`/;

describe('the docs', () => {
  const files = docFiles();

  it('link only to files and headings that exist in the repository', () => {
    const broken = [];
    for (const file of files) {
      for (const [, target] of prose(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
        const [path, anchor] = target.split('#');
        const resolved = path ? resolve(dirname(join(root, file)), path) : join(root, file);
        if (!existsSync(resolved)) broken.push(`${file}: ${target} (no such file)`);
        else if (
          anchor &&
          resolved.endsWith('.md') &&
          !headingAnchors(relative(root, resolved)).has(anchor)
        ) {
          broken.push(`${file}: ${target} (no such heading)`);
        }
      }
    }
    assert.deepEqual(broken, [], 'fix or remove these links');
  });

  it('cite no DESIGN.md (it is not in the repository: cite DESIGN-NOTES.md or docs/trust.md)', () => {
    const citing = files.filter((file) => /\bDESIGN\.md\b/.test(readFileSync(join(root, file), 'utf8')));
    assert.deepEqual(citing, []);
  });

  it('keep DESIGN-NOTES.md at most 400 lines (history goes to bench/LOG.md or the git log)', () => {
    const lines = readFileSync(join(root, 'DESIGN-NOTES.md'), 'utf8').trimEnd().split('\n').length;
    assert.ok(lines <= 400, `DESIGN-NOTES.md has ${lines} lines`);
  });

  it('name the command that measures each figure of a README section', () => {
    const unnamed = [];
    for (const file of files.filter((f) => f.endsWith('README.md') && f !== 'bench/README.md')) {
      for (const section of prose(file).split(/\n(?=## )/)) {
        const figure = section.split('\n').find((line) => MEASURED.test(line));
        if (figure !== undefined && !COMMAND.test(section)) {
          unnamed.push(`${file}, "${section.split('\n')[0]}": ${figure.trim().slice(0, 100)}`);
        }
      }
    }
    assert.deepEqual(
      unnamed,
      [],
      'name the command (`pnpm bench -- --only <group>`) or move the figures to bench/LOG.md',
    );
  });

  it('name only root scripts as `pnpm <script>`', () => {
    const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts;
    const builtins = new Set(['install', 'add', 'exec', 'run', 'publish', 'dlx', 'link', 'why', 'list']);
    const missing = [];
    for (const file of ['README.md', 'CONTRIBUTING.md', 'RELEASING.md']) {
      const text = readFileSync(join(root, file), 'utf8');
      // Code only: inline code spans and the lines of fenced blocks, not prose ("pnpm is fetched").
      const code = [
        ...[...text.matchAll(/```[^\n]*\n([\s\S]*?)```/g)].map((m) => m[1]),
        ...[...text.replace(/```[\s\S]*?```/g, '').matchAll(/`([^`\n]+)`/g)].map((m) => m[1]),
      ];
      for (const piece of code) {
        for (const [, name] of piece.matchAll(/(?:^|\s)pnpm(?:@[\d.]+)? ([a-z][\w:-]*)/gm)) {
          if (!builtins.has(name) && !(name in scripts)) missing.push(`${file}: pnpm ${name}`);
        }
      }
    }
    assert.deepEqual(missing, []);
  });

  it('name only bench groups after --only', () => {
    const source = readFileSync(join(root, 'bench', 'src', 'run.ts'), 'utf8');
    const groups = new Set();
    for (const [, name, aliases] of source.matchAll(
      /^\s+([\w-]+): \{ file: '[^']+', aliases: \[([^\]]*)\]/gm,
    )) {
      groups.add(name);
      for (const [, alias] of aliases.matchAll(/'([^']+)'/g)) groups.add(alias);
    }
    assert.ok(groups.has('peers'), 'the bench group table was read');
    const unknown = [];
    for (const file of files) {
      for (const [, list] of readFileSync(join(root, file), 'utf8').matchAll(/--only[ =]([\w,-]+)/g)) {
        for (const name of list.split(',')) if (!groups.has(name)) unknown.push(`${file}: --only ${name}`);
      }
    }
    assert.deepEqual(unknown, []);
  });

  it('show JavaScript that parses as an ES module on the Node running the tests (js and mjs blocks)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'readme-js-'));
    const failed = [];
    try {
      let n = 0;
      for (const file of files) {
        const text = readFileSync(join(root, file), 'utf8');
        for (const [, code] of text.matchAll(/^```(?:js|mjs|javascript)\n([\s\S]*?)^```/gm)) {
          const script = join(dir, `block-${n++}.mjs`);
          writeFileSync(script, code);
          const check = spawnSync(process.execPath, ['--check', script], { encoding: 'utf8' });
          if (check.status !== 0) {
            const error = check.stderr.split('\n').find((line) => /Error/.test(line)) ?? check.stderr.trim();
            failed.push(`${file}: ${error}\n${code.split('\n').slice(0, 3).join('\n')}`);
          }
        }
      }
      assert.ok(n > 0, 'the docs have js blocks to check');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    assert.deepEqual(failed, []);
  });
});
