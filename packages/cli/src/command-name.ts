/**
 * How the user starts this CLI, for the commands it suggests ("continue it
 * with: amplifier continue"): what works in this install, not always `amplifier`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The entry point of this CLI (dist/bin.js next to this file once built). */
const BIN = fileURLToPath(new URL('./bin.js', import.meta.url));

/**
 * `AMPLIFIER_COMMAND` when a launcher says how it was started (the clone's
 * `pnpm amplifier` script sets `pnpm amplifier`, or `npx -y pnpm@<version>
 * amplifier` without pnpm on PATH); for an installed package (under
 * node_modules), `amplifier` when that name on PATH is this CLI (a global
 * install), else `npx amplifier` (a project's dependency: npm links the bin
 * into node_modules/.bin, which is not on PATH); else, run from a source
 * checkout, `node <path to bin.js>` relative to `cwd`.
 */
export function commandName(
  env: NodeJS.ProcessEnv = process.env,
  bin: string = BIN,
  cwd: string = process.cwd(),
): string {
  const launcher = env.AMPLIFIER_COMMAND?.trim();
  if (launcher) return launcher;
  if (bin.split(path.sep).includes('node_modules'))
    return onPath('amplifier', bin, env) ? 'amplifier' : 'npx amplifier';
  const relative = path.relative(cwd, bin);
  const shown = relative.startsWith('..') || path.isAbsolute(relative) ? bin : relative;
  return `node ${/\s/.test(shown) ? JSON.stringify(shown) : shown}`;
}

/** Whether `name` on `env.PATH` is the program `bin` (a link to it, as npm makes). */
function onPath(name: string, bin: string, env: NodeJS.ProcessEnv): boolean {
  let target: string;
  try {
    target = fs.realpathSync(bin);
  } catch {
    return false;
  }
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    try {
      if (fs.realpathSync(path.join(dir, name)) === target) return true;
    } catch {
      // Not there: the next folder.
    }
  }
  return false;
}
