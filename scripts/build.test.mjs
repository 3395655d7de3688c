/**
 * The first build a newcomer runs (issue 44, item 2): scripts/build.mjs shows a line per package
 * and the failure's own lines, turbo's telemetry notice never shows, pnpm is told what to do with
 * the install scripts it would otherwise ask about, and the workspace bins link before a build.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildStatus } from './build.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dirs = [];
after(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** What buildStatus shows for `lines` of turbo output and exit `code`, one second per line. */
function shown(lines, code) {
  const out = [];
  let t = 0;
  const status = buildStatus(
    (text) => out.push(text),
    () => t,
  );
  for (const line of lines) {
    t += 1000;
    status.line(line);
  }
  status.end(code);
  return out;
}

/** Turbo's stream output (`--output-logs=new-only`) for a build of core (built) and schema (cached). */
const TURBO = [
  '',
  '   • turbo 2.11.11',
  '   • Packages in scope: @amplifier/core, @amplifier/schema',
  '   • Running build in 2 packages',
  '   • Remote caching disabled',
  '',
  '@amplifier/schema:build: cache hit, suppressing logs 4e00d913b954d5e5',
  '@amplifier/core:build: cache miss, executing d80ad76fd298c84a',
  '@amplifier/core:build: ',
  '@amplifier/core:build: > @amplifier/core@0.1.0 build /repo/packages/core',
  '@amplifier/core:build: > tsc -p tsconfig.build.json',
  '@amplifier/core:build: ',
];

test('a successful build: one line per package built as it starts, then the count and the time', () => {
  const out = shown(
    [
      ...TURBO,
      '',
      ' Tasks:    2 successful, 2 total',
      'Cached:    1 cached, 2 total',
      '  Time:    48.272s ',
      '',
    ],
    0,
  );
  assert.deepEqual(out, [
    "build: 2 packages (a line as each starts; unchanged ones come from turbo's cache)",
    '  0:08 building @amplifier/core',
    'build: done in 0:17 (2 successful, 2 total; 1 built, 1 from the cache)',
  ]);
});

test("a failed build shows the failed package's own lines (not pnpm's echo), then says it failed", () => {
  const out = shown(
    [
      ...TURBO,
      "@amplifier/core:build: src/index.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
      '@amplifier/core:build:  ELIFECYCLE  Command failed with exit code 2.',
      '@amplifier/core:build: ERROR: command finished with error: command exited (2)',
      ' Tasks:    1 successful, 2 total',
      '  x Internal errors encountered: command exited (2)',
    ],
    2,
  );
  assert.equal(out[1], '  0:08 building @amplifier/core');
  assert.deepEqual(out.slice(2), [
    "@amplifier/core: src/index.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
    '@amplifier/core:  ELIFECYCLE  Command failed with exit code 2.',
    '@amplifier/core: ERROR: command finished with error: command exited (2)',
    '  x Internal errors encountered: command exited (2)',
    'build: failed (turbo exit code 2) after 0:17: the lines above are what failed',
  ]);
  assert.ok(!out.some((l) => l.includes('> tsc')), out.join('\n'));
});

test('run for real: turbo telemetry is off (no notice on a first run), a turbo error is shown with the exit code', () => {
  // A HOME turbo has never seen: its first run would print the telemetry notice.
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'amp-build-home-'));
  dirs.push(home);
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') };
  delete env.TURBO_TELEMETRY_DISABLED;
  delete env.DO_NOT_TRACK;
  const result = spawnSync(process.execPath, ['scripts/build.mjs', '--filter=@amplifier/no-such-package'], {
    cwd: root,
    env,
    encoding: 'utf8',
  });
  const output = result.stdout + result.stderr;
  assert.equal(result.status, 1, output);
  assert.doesNotMatch(output, /telemetry/i);
  assert.match(output, /No package found with name '@amplifier\/no-such-package'/);
  assert.match(output, /build: failed \(turbo exit code 1\)/);
});

test('the root scripts the README runs build through scripts/build.mjs', () => {
  const scripts = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts;
  for (const name of ['build', 'demo', 'bench']) {
    assert.match(scripts[name], /^node scripts\/build\.mjs\b/, `${name}: ${scripts[name]}`);
  }
});

test("pnpm is told about @scarf/scarf's install script (no 'Ignored build scripts' box), and nothing is in both lists", () => {
  const text = fs.readFileSync(path.join(root, 'pnpm-workspace.yaml'), 'utf8');
  // A top-level list of names (the root has no YAML parser: the file's lists are one name a line).
  const list = (key) =>
    (new RegExp(`^${key}:\\n((?:  - .*\\n)+)`, 'm').exec(text)?.[1] ?? '')
      .split('\n')
      .filter(Boolean)
      .map((line) => line.replace(/^ {2}- /, '').replace(/^(['"])(.*)\1$/, '$2'));
  assert.ok(list('ignoredBuiltDependencies').includes('@scarf/scarf'), text);
  const built = new Set(list('onlyBuiltDependencies'));
  assert.ok(built.has('esbuild'), text);
  assert.deepEqual(
    list('ignoredBuiltDependencies').filter((name) => built.has(name)),
    [],
  );
});

test('every bin of a workspace package is a committed file (pnpm links it at install, before any build)', () => {
  const folders = ['packages', 'modules', 'examples'].flatMap((top) =>
    fs.readdirSync(path.join(root, top)).map((name) => path.join(root, top, name)),
  );
  let bins = 0;
  for (const dir of [...folders, path.join(root, 'bench')]) {
    const file = path.join(dir, 'package.json');
    if (!fs.existsSync(file)) continue;
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
    const entries = typeof pkg.bin === 'string' ? { [pkg.name]: pkg.bin } : (pkg.bin ?? {});
    for (const [name, target] of Object.entries(entries)) {
      bins += 1;
      assert.doesNotMatch(target, /(^|\/)dist\//, `${pkg.name} bin ${name} points into dist/: ${target}`);
      assert.ok(fs.existsSync(path.join(dir, target)), `${pkg.name} bin ${name}: ${target} is missing`);
    }
  }
  assert.ok(bins >= 2, `found ${bins} bins`);
});
