#!/usr/bin/env node
/**
 * After `tsc`, in a package's folder: bundles the JavaScript of dist/ so that
 * importing the package loads one file per entry point (plus the chunks that
 * entries share or that load on use), not one file per source file. Node
 * resolves, reads, compiles and links every module file apart; a one-shot
 * `amplifier run` of six modules loaded about a hundred of ours before this.
 *
 * - Entries: every `./dist/**.js` target in the package's `exports`. Each
 *   stays where `exports` points; what two entries share goes into one shared
 *   chunk, so a module has one instance (class identity, module state).
 * - What an entry imports on use (`import('./x.js')`) stays lazy: a chunk of
 *   its own, named after the module it starts at (`x-<hash>.js`).
 * - Packages (`@amplifier/*`, dependencies) and Node's builtins stay imports.
 * - Nothing is removed or rewritten: no tree-shaking, no minifying. Module
 *   order and top-level code run as in tsc's output.
 * - Source maps chain through tsc's: a bundle's map points at src/*.ts.
 * - tsc's .js files that went into a bundle are deleted (and their maps); the
 *   declarations (.d.ts) stay as tsc wrote them.
 * - A module that would move to another folder and reads `import.meta` fails
 *   the build (a path relative to it would silently change), unless its only
 *   use is `createRequire(import.meta.url)` for packages (no relative
 *   `require`): package resolution is the same from any folder of the package.
 *
 * Usage (package.json): "build": "... && tsc -p tsconfig.build.json && node ../../scripts/bundle-dist.mjs"
 */
import fs from 'node:fs';
import path from 'node:path';
import { rolldown } from 'rolldown';

const root = process.cwd();
const dist = path.join(root, 'dist');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

/** Every string target of an `exports` value (conditions nested at any depth). */
function targets(value) {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap(targets);
}

const input = {};
for (const target of targets(pkg.exports ?? {})) {
  if (!target.startsWith('./dist/') || !target.endsWith('.js')) continue;
  const name = target.slice('./dist/'.length, -'.js'.length);
  if (!fs.existsSync(path.join(root, target))) {
    throw new Error(`${pkg.name}: exports names ${target}, which tsc did not write`);
  }
  input[name] = path.join(root, target);
}
if (Object.keys(input).length === 0) throw new Error(`${pkg.name}: no ./dist/*.js entry in exports`);

/** Whether code reads its own location: `import.meta` beyond a `createRequire` that loads packages only. */
function dependsOnFolder(code) {
  const rest = code.replaceAll('createRequire(import.meta.url)', '');
  if (rest.includes('import.meta')) return true;
  return rest !== code && /\brequire\(\s*['"`]\./.test(code);
}

/** tsc's files that read their own location (see `dependsOnFolder`), noted as they are loaded. */
const folderBound = new Set();

/** tsc's code with tsc's map, so that the bundle's map reaches the TypeScript sources. */
const withTscMaps = {
  name: 'tsc-source-maps',
  load(id) {
    if (!id.startsWith(dist) || !id.endsWith('.js')) return null;
    const code = fs.readFileSync(id, 'utf8');
    if (dependsOnFolder(code)) folderBound.add(id);
    const mapFile = `${id}.map`;
    if (!fs.existsSync(mapFile)) return { code };
    const map = JSON.parse(fs.readFileSync(mapFile, 'utf8'));
    // tsc's sources are relative to the map's folder; the bundler wants them absolute.
    map.sources = map.sources.map((source) => path.resolve(path.dirname(id), map.sourceRoot ?? '', source));
    delete map.sourceRoot;
    return { code: code.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n'), map };
  },
};

const bundle = await rolldown({
  input,
  platform: 'node',
  external: (id) => !id.startsWith('.') && !path.isAbsolute(id),
  treeshake: false,
  plugins: [withTscMaps],
  logLevel: 'warn',
});
// Generated in memory first: a bundle the guard below refuses leaves tsc's output as it was.
let output;
try {
  ({ output } = await bundle.generate({
    format: 'esm',
    sourcemap: true,
    entryFileNames: '[name].js',
    chunkFileNames: '[name]-[hash].js',
  }));
} finally {
  await bundle.close();
}

const written = new Set(output.map((item) => path.join(dist, item.fileName)));
/** tsc's files that went into a bundle (not overwritten by one): removed once the bundles are written. */
const bundled = [];
for (const chunk of output) {
  if (chunk.type !== 'chunk') continue;
  const chunkDir = path.dirname(path.join(dist, chunk.fileName));
  for (const id of chunk.moduleIds) {
    if (!id.startsWith(dist) || written.has(id)) continue;
    if (folderBound.has(id) && path.dirname(id) !== chunkDir) {
      throw new Error(
        `${pkg.name}: ${path.relative(root, id)} uses import.meta and would move to ${path.relative(root, chunkDir)}/ in ${chunk.fileName}; keep it in that folder or give it an entry of its own`,
      );
    }
    bundled.push(id);
  }
}
for (const item of output) {
  const file = path.join(dist, item.fileName);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, item.type === 'chunk' ? item.code : item.source);
}
for (const id of bundled) {
  fs.rmSync(id, { force: true });
  fs.rmSync(`${id}.map`, { force: true });
}
