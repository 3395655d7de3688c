#!/usr/bin/env node
/**
 * `pnpm amplifier <args>` in a clone: the built CLI (packages/cli/dist/bin.js),
 * run in the directory pnpm was started from (pnpm runs root scripts in the
 * repository root and passes the original one as INIT_CWD), and telling the
 * CLI how to suggest itself in its hints: `pnpm amplifier ...`, or
 * `npx -y pnpm@<version> amplifier ...` when no pnpm is on PATH (the README's
 * setup fetches pnpm with npx).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const bin = join(root, 'packages', 'cli', 'dist', 'bin.js');
if (!existsSync(bin)) {
  console.error(`The CLI is not built (${bin} is missing): run \`pnpm build\` (or \`pnpm demo\`) first.`);
  process.exit(1);
}
// biome-ignore lint/suspicious/noUndeclaredEnvVars: set by pnpm when it runs this script; not a turbo task input
const started = process.env.INIT_CWD;
if (started) process.chdir(started);
/**
 * Whether a program `name` is on the user's PATH: not counting the folders
 * pnpm and npx put on it only while they run a script (node_modules/.bin,
 * npx's cache), which the user's shell does not have.
 */
function onPath(name) {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    if (dir === '' || /[\\/](node_modules|_npx)([\\/]|$)/.test(dir)) return false;
    try {
      return statSync(join(dir, name)).isFile();
    } catch {
      return false;
    }
  });
}
const pinned = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager ?? 'pnpm';
process.env.AMPLIFIER_COMMAND ??= onPath('pnpm') ? 'pnpm amplifier' : `npx -y ${pinned} amplifier`;
process.argv.splice(1, 1, bin);
await import(pathToFileURL(bin).href);
