/**
 * The loader under plain Node, outside vitest's module runner (which cannot
 * import a file whose path contains `#`, and resolves modules its own way):
 * core's sources are transpiled to JavaScript in a temp dir and a child `node`
 * process builds real trees and loads real modules through them.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir } from './__fixtures__/trees.js';

const coreDir = path.resolve(fileURLToPath(import.meta.url), '..', '..', '..');
let work: string;

/** Transpile `entries` and every relative import they reach into `outDir` (same layout, `.js`). */
function transpileGraph(entries: readonly string[], outDir: string): void {
  const pending = [...entries];
  const done = new Set<string>();
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (done.has(file)) continue;
    done.add(file);
    const source = readFileSync(file, 'utf8');
    const { outputText } = ts.transpileModule(source, {
      fileName: file,
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        verbatimModuleSyntax: true,
      },
    });
    const out = path.join(outDir, path.relative(coreDir, file)).replace(/\.ts$/, '.js');
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, outputText);
    for (const match of outputText.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)\.js'/g)) {
      pending.push(path.resolve(path.dirname(file), `${match[1]}.ts`));
    }
  }
}

beforeAll(() => {
  work = makeTempDir('amp-native-');
  const out = path.join(work, 'core');
  transpileGraph(
    [path.join(coreDir, 'src', 'index.ts'), path.join(coreDir, 'src', 'loader', '__fixtures__', 'trees.ts')],
    out,
  );
  copyFileSync(path.join(coreDir, 'package.json'), path.join(out, 'package.json'));
  cpSync(path.join(coreDir, 'schemas'), path.join(out, 'schemas'), { recursive: true });
  symlinkSync(path.join(coreDir, 'node_modules'), path.join(out, 'node_modules'), 'dir');
});
afterAll(() => removeDir(work));

const SCENARIO = String.raw`
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { AmplifierSession, Coordinator, ModuleLoader } from './core/src/index.js';
import * as trees from './core/src/loader/__fixtures__/trees.js';
import * as kit from './core/node_modules/@amplifier/test-fixtures/dist/index.js';

const quiet = { debug() {}, info() {}, warn(m) { process.stderr.write('warn: ' + m + '\n'); }, error() {} };
const out = {};
const url = (...p) => pathToFileURL(path.join(...p)).href;
async function attempt(name, fn) {
  try { out[name] = await fn(); } catch (error) { out[name] = { error: String(error && error.message || error) }; }
}
const root = process.argv[2];

await attempt('session', async () => {
  const project = path.join(root, 'proj #1 100% sure');
  const plan = trees.writeSessionProject(project);
  const session = new AmplifierSession(plan, { baseDir: project, logger: quiet, workingDir: project });
  try {
    const answer = await session.execute('go');
    return { answer, failures: session.failures.length, mounts: trees.fixtureLog().mounts.map((m) => m.url),
      expectedTool: url(project, 'node_modules', 'acme-echo-tool', 'index.js') };
  } finally {
    await session.cleanup();
  }
});

await attempt('oddPaths', async () => {
  const results = [];
  for (const name of ['hash#dir', 'pct%41dir', 'space dir', 'all # of 100%']) {
    const id = 'odd-' + results.length;
    const dir = trees.writePackage(path.join(root, 'odd', name), { name: 'odd', id });
    const loaded = await new ModuleLoader({ baseDir: root, searchPaths: [], logger: quiet }).load(id, {}, { source: dir });
    await loaded.mount(new Coordinator({ logger: quiet }));
    results.push({ expected: url(dir, 'index.js'), got: trees.fixtureLog().mounts.at(-1).url });
  }
  return results;
});

await attempt('pnpmSibling', async () => {
  const project = path.join(root, 'pnpm #proj');
  kit.writeProject(project, { 'acme-tools': '1.0.0' });
  trees.installPnpm(project, [
    { name: 'acme-tools', id: 'with-dep', dependencies: { 'acme-helper': '1.0.0' },
      files: { 'index.js': trees.moduleSource('with-dep', "import { helper } from 'acme-helper';\nexport const helped = helper();\nlog.events.push('helped:' + helped);\n") } },
    { name: 'acme-helper', amplifier: null, files: { 'index.js': "export function helper() { return 'store sibling'; }\n" } },
  ], { direct: ['acme-tools'] });
  const loaded = await new ModuleLoader({ baseDir: project, searchPaths: [], logger: quiet }).load('with-dep');
  return { path: loaded.path, expected: kit.pnpmStoreDir(project, 'acme-tools'), events: trees.fixtureLog().events.filter((e) => e.startsWith('helped:')) };
});

await attempt('syntaxError', async () => {
  const project = path.join(root, 'broken #1');
  kit.writeProject(project);
  trees.installNpm(project, [{ name: '@amplifier/broken', files: { 'index.js': 'export const = 1;\n' } }]);
  await new ModuleLoader({ baseDir: project, searchPaths: [], logger: quiet }).load('broken');
  return 'loaded?!';
});

await attempt('commonjs', async () => {
  const project = path.join(root, 'cjs');
  kit.writeProject(project);
  trees.installNpm(project, [{ name: '@amplifier/cjs-tool', packageJson: { type: 'commonjs' },
    files: { 'index.js': "exports.mount = async (coordinator, config) => { coordinator.registerCapability('cjs', config); };\n" } }]);
  const loaded = await new ModuleLoader({ baseDir: project, searchPaths: [], logger: quiet }).load('cjs-tool', { c: 1 });
  const coordinator = new Coordinator({ logger: quiet });
  await loaded.mount(coordinator);
  return coordinator.getCapability('cjs');
});

await attempt('importedOnce', async () => {
  const project = path.join(root, 'once');
  kit.writeProject(project);
  const [dir] = trees.installNpm(project, [{ name: '@amplifier/once' }]);
  for (const config of [{ a: 1 }, { a: 2 }]) {
    const loader = new ModuleLoader({ baseDir: project, searchPaths: [], logger: quiet });
    await (await loader.load('once', config)).mount(new Coordinator({ logger: quiet }));
    await (await loader.load('once', { ...config, again: true })).mount(new Coordinator({ logger: quiet }));
  }
  const file = url(dir, 'index.js');
  return { imports: trees.fixtureLog().imports[file], configs: trees.fixtureLog().mounts.filter((m) => m.url === file).map((m) => m.config) };
});

process.stdout.write(JSON.stringify(out));
`;

describe('under plain Node (child process, transpiled core)', () => {
  let result: Record<string, unknown>;
  let stderr: string;

  beforeAll(async () => {
    const script = path.join(work, 'scenario.mjs');
    writeFileSync(script, SCENARIO);
    const trees = path.join(work, 'trees');
    mkdirSync(trees);
    const run = await promisify(execFile)(process.execPath, [script, trees], {
      cwd: work,
      env: { ...process.env, AMPLIFIER_MODULES: '' },
      timeout: 60_000,
    });
    stderr = run.stderr;
    result = JSON.parse(run.stdout) as Record<string, unknown>;
  });

  it('end to end: a session in a project whose path has "#", "%" and spaces runs a turn', () => {
    const session = result.session as {
      answer: string;
      failures: number;
      mounts: string[];
      expectedTool: string;
    };
    expect(session.answer).toBe('The tool said: echo: ping');
    expect(session.failures).toBe(0);
    expect(session.mounts).toContain(session.expectedTool);
    expect(session.expectedTool).toContain('%23');
    expect(stderr).toBe('');
  });

  it('imports by file URL: source paths containing "#", "%" and spaces work', () => {
    const odd = result.oddPaths as { expected: string; got: string }[];
    expect(odd).toHaveLength(4);
    for (const { expected, got } of odd) expect(got).toBe(expected);
  });

  it("pnpm: a module's own dependency resolves as a sibling in the virtual store, from the real path", () => {
    const pnpm = result.pnpmSibling as { path: string; expected: string; events: string[] };
    expect(pnpm.path).toBe(pnpm.expected);
    expect(pnpm.events).toEqual(['helped:store sibling']);
  });

  it('a syntax error in the entry is a ModuleLoadError naming the file', () => {
    const { error } = result.syntaxError as { error: string };
    expect(error).toContain("Module 'broken' failed to import from");
    expect(error).toContain(path.join('broken #1', 'node_modules', '@amplifier', 'broken', 'index.js'));
    expect(error).toMatch(/SyntaxError|Unexpected token/);
  });

  it('a CommonJS module (exports.mount) loads through import()', () => {
    expect(result.commonjs).toEqual({ c: 1 });
  });

  it('the entry file is imported once across loads and loaders, each load mounting with its own config', () => {
    expect(result.importedOnce).toEqual({
      imports: 1,
      configs: [{ a: 1 }, { a: 1, again: true }, { a: 2 }, { a: 2, again: true }],
    });
  });
});
