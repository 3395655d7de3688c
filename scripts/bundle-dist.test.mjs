/**
 * scripts/bundle-dist.mjs on small packages written the way tsc writes them
 * (dist/*.js with their maps and declarations), run as the build runs it:
 * in the package's folder, after tsc.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./bundle-dist.mjs', import.meta.url));
const dirs = [];
after(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A package folder with `files` (path → text) and `exports`; each dist/*.js gets a tsc-style map. */
function makePackage(exports, files) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'amp-bundle-dist-'));
  dirs.push(root);
  fs.writeFileSync(
    path.join(root, 'package.json'),
    JSON.stringify({ name: 'fixture-pkg', type: 'module', exports }),
  );
  for (const [file, text] of Object.entries(files)) {
    const full = path.join(root, file);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    if (file.startsWith('dist/') && file.endsWith('.js')) {
      const base = path.basename(file);
      const source = path.relative(path.dirname(full), path.join(root, 'src', `${file.slice(5, -3)}.ts`));
      const lines = text.split('\n').length;
      const map = { version: 3, file: base, sources: [source], names: [], mappings: 'AAAA;'.repeat(lines) };
      fs.writeFileSync(`${full}.map`, JSON.stringify(map));
      fs.writeFileSync(full, `${text}\n//# sourceMappingURL=${base}.map`);
    } else fs.writeFileSync(full, text);
  }
  return root;
}

function bundle(root) {
  return spawnSync(process.execPath, [SCRIPT], { cwd: root, encoding: 'utf8' });
}

function jsFiles(root) {
  return fs
    .readdirSync(path.join(root, 'dist'), { recursive: true })
    .filter((f) => f.endsWith('.js'))
    .sort();
}

test('two entries share one instance of what both import; an import() stays a chunk of its own; tsc files go, declarations stay', async () => {
  const root = makePackage(
    { '.': { types: './dist/index.d.ts', default: './dist/index.js' }, './extra': './dist/extra/index.js' },
    {
      'dist/index.js':
        "export { counter, bump } from './state.js';\nexport const later = () => import('./lazy.js');",
      'dist/state.js':
        'export const counter = { n: 0 };\nexport function bump() { counter.n++; return counter.n; }',
      'dist/lazy.js': "export const value = 'lazy';",
      'dist/extra/index.js': "export { counter as sameCounter } from '../state.js';",
      'dist/index.d.ts': 'export declare const later: () => Promise<unknown>;',
    },
  );
  const run = bundle(root);
  assert.equal(run.status, 0, run.stderr);
  const files = jsFiles(root);
  assert.ok(files.includes('index.js') && files.includes(path.join('extra', 'index.js')), files.join(' '));
  assert.ok(
    !files.includes('state.js') && !files.includes('lazy.js'),
    `tsc's files left: ${files.join(' ')}`,
  );
  assert.ok(
    files.some((f) => /^lazy-[\w-]+\.js$/.test(f)),
    `no lazy chunk: ${files.join(' ')}`,
  );
  assert.ok(fs.existsSync(path.join(root, 'dist', 'index.d.ts')));
  assert.ok(!fs.existsSync(path.join(root, 'dist', 'state.js.map')));

  const main = await import(pathToFileURL(path.join(root, 'dist', 'index.js')).href);
  const extra = await import(pathToFileURL(path.join(root, 'dist', 'extra', 'index.js')).href);
  main.bump();
  assert.equal(extra.sameCounter, main.counter);
  assert.equal(extra.sameCounter.n, 1);
  assert.equal((await main.later()).value, 'lazy');

  // The bundles' maps reach the TypeScript sources through tsc's maps.
  const sources = files.flatMap((file) => {
    const map = JSON.parse(fs.readFileSync(path.join(root, 'dist', `${file}.map`), 'utf8'));
    return map.sources.map((source) =>
      path.relative(root, path.resolve(path.dirname(path.join(root, 'dist', file)), source)),
    );
  });
  for (const module of ['index', 'state', 'lazy', 'extra/index']) {
    assert.ok(sources.includes(`src/${module}.ts`), `${module}: ${sources.join(' ')}`);
  }
});

test('packages and builtins stay imports', () => {
  const root = makePackage('./dist/index.js', {
    'dist/index.js':
      "import path from 'node:path';\nimport { thing } from 'some-dependency';\nexport const both = [path.sep, thing];",
  });
  const run = bundle(root);
  assert.equal(run.status, 0, run.stderr);
  const text = fs.readFileSync(path.join(root, 'dist', 'index.js'), 'utf8');
  assert.match(text, /from "node:path"/);
  assert.match(text, /from "some-dependency"/);
});

test('a module that reads import.meta for a relative path and would move to another folder fails the build, with the reason', () => {
  const root = makePackage('./dist/index.js', {
    'dist/index.js': "export { file } from './inner/where.js';",
    'dist/inner/where.js': "export const file = new URL('./data.json', import.meta.url).href;",
  });
  const before = fs.readFileSync(path.join(root, 'dist/index.js'), 'utf8');
  const run = bundle(root);
  assert.notEqual(run.status, 0);
  assert.match(run.stderr, /dist\/inner\/where\.js uses import\.meta and would move to dist\//);
  // Refused before anything is written: tsc's output is left as it was.
  assert.deepEqual(jsFiles(root), ['index.js', 'inner/where.js']);
  assert.equal(fs.readFileSync(path.join(root, 'dist/index.js'), 'utf8'), before);
});

test('createRequire(import.meta.url) that loads packages only may move; a relative require may not', () => {
  const packagesOnly = makePackage('./dist/index.js', {
    'dist/index.js': "export { load } from './inner/req.js';",
    'dist/inner/req.js':
      "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\nexport const load = () => require('some-package');",
  });
  const ok = bundle(packagesOnly);
  assert.equal(ok.status, 0, ok.stderr);

  const relative = makePackage('./dist/index.js', {
    'dist/index.js': "export { load } from './inner/req.js';",
    'dist/inner/req.js':
      "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\nexport const load = () => require('../package.json');",
  });
  const refused = bundle(relative);
  assert.notEqual(refused.status, 0);
  assert.match(refused.stderr, /uses import\.meta/);
});

test('an exports target tsc did not write is an error that names it', () => {
  const root = makePackage('./dist/missing.js', { 'dist/index.js': 'export const x = 1;' });
  const run = bundle(root);
  assert.notEqual(run.status, 0);
  assert.match(run.stderr, /exports names \.\/dist\/missing\.js, which tsc did not write/);
});
