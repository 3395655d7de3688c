#!/usr/bin/env node
/**
 * `pnpm amplifier <args>` in a clone: the built CLI (packages/cli/dist/bin.js),
 * run in the directory pnpm was started from (pnpm runs root scripts in the
 * repository root and passes the original one as INIT_CWD), and telling the
 * CLI to suggest `pnpm amplifier ...` in its hints.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
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
process.env.AMPLIFIER_COMMAND ??= 'pnpm amplifier';
process.argv.splice(1, 1, bin);
await import(pathToFileURL(bin).href);
