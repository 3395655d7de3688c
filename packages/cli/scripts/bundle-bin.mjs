/**
 * After `tsc`: bundles the `amplifier` command (dist/bin.js) so that a one-shot
 * `amplifier run` loads five of the CLI's files (the entry, the run chunk and
 * three small ones) instead of eighteen, and none of commander's (start-up
 * time: Node resolves, reads and links each module file apart).
 *
 * - dist/bin.js stays the entry, still turning the compile cache on before
 *   anything else is imported;
 * - the CLI's files a one-shot `run` imports statically (main.js,
 *   commands/run.js and what they import) become one chunk, `bin.run.js`;
 * - what the commands import on use (`import()`) stays lazy, in chunks of
 *   its own (`bin.<name>.js`);
 * - commander and picocolors (small, CommonJS: eight files and the CommonJS
 *   loader on every start) are bundled in too, their licences written to
 *   dist/bin.licenses.txt; every other package stays an import: modules the
 *   loader mounts must share the CLI's kernel, and the rest loads on use.
 *
 * Chunks are written next to bin.js, so `import.meta.url` resolves the same
 * paths as in the unbundled files (the package folder, `bin.js`). The rest of
 * dist/ (the library entry index.js, its files and the .d.ts) is tsc's output,
 * untouched.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const require = createRequire(import.meta.url);

/** The packages bundled into the command (their licences go with it). */
const BUNDLED = ['commander', 'picocolors'];

/** The CLI files `start` imports statically, with `start` (tsc's output: one import per line). */
function staticClosure(starts) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = fs.readFileSync(file, 'utf8');
    for (const [, spec] of text.matchAll(
      /^(?:import|export)\b[^'"]*?(?:from\s*)?['"](\.{1,2}\/[^'"]+)['"];?$/gm,
    )) {
      visit(path.resolve(path.dirname(file), spec));
    }
  };
  for (const start of starts) visit(path.join(dist, start));
  return seen;
}

const runPath = staticClosure(['main.js', 'commands/run.js']);
runPath.delete(path.join(dist, 'bin.js'));

const bundle = await rolldown({
  input: { bin: path.join(dist, 'bin.js') },
  platform: 'node',
  external: (id) =>
    !id.startsWith('.') && !path.isAbsolute(id) && !BUNDLED.some((p) => id === p || id.startsWith(`${p}/`)),
  // package.json says "sideEffects": false for consumers of the library; main.js runs on import.
  treeshake: false,
  logLevel: 'warn',
});
try {
  // Every chunk is named bin.*: only tsc's bin.js (and its map) is replaced.
  await bundle.write({
    dir: dist,
    format: 'esm',
    sourcemap: true,
    entryFileNames: '[name].js',
    chunkFileNames: 'bin.[name]-[hash].js',
    codeSplitting: { groups: [{ name: 'run', test: (id) => runPath.has(path.normalize(id)) }] },
  });
} finally {
  await bundle.close();
}

const licences = BUNDLED.map((name) => {
  // The package's folder: up from its entry file (commander exports no ./package.json).
  let dir = path.dirname(require.resolve(name));
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  const { version } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  return `${name}@${version}\n\n${fs.readFileSync(path.join(dir, 'LICENSE'), 'utf8').trim()}\n`;
});
fs.writeFileSync(
  path.join(dist, 'bin.licenses.txt'),
  `Packages bundled into the amplifier command (dist/bin*.js):\n\n${licences.join('\n')}`,
);
