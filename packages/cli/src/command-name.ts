/**
 * How the user starts this CLI, for the commands it suggests ("continue it
 * with: amplifier continue"): what works in this install, not always `amplifier`.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The entry point of this CLI (dist/bin.js next to this file once built). */
const BIN = fileURLToPath(new URL('./bin.js', import.meta.url));

/**
 * `AMPLIFIER_COMMAND` when a launcher says how it was started (the clone's
 * `pnpm amplifier` script sets `pnpm amplifier`); else `amplifier` for an
 * installed package (under node_modules, where npm links the bin); else, run
 * from a source checkout, `node <path to bin.js>` relative to `cwd`.
 */
export function commandName(
  env: NodeJS.ProcessEnv = process.env,
  bin: string = BIN,
  cwd: string = process.cwd(),
): string {
  const launcher = env.AMPLIFIER_COMMAND?.trim();
  if (launcher) return launcher;
  if (bin.split(path.sep).includes('node_modules')) return 'amplifier';
  const relative = path.relative(cwd, bin);
  const shown = relative.startsWith('..') || path.isAbsolute(relative) ? bin : relative;
  return `node ${/\s/.test(shown) ? JSON.stringify(shown) : shown}`;
}
