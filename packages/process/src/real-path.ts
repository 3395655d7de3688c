/**
 * Paths as the OS will resolve them, for whoever checks a path before it is
 * used (tool-filesystem's sandbox, tool-web's save paths, hooks-approval's
 * path rules): `~` expanded, and the real path also of a file that does not
 * exist yet, so that a check and the later open agree on where it lands.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Symlinks followed in one path before it counts as a loop (Linux's MAXSYMLINKS). */
const MAX_SYMLINKS = 40;

/** `~` and `~/x` become the home directory; `~user` and everything else stay as written. */
export function expandHome(value: string): string {
  if (value === '~') return os.homedir();
  if (value.startsWith('~/')) return path.join(os.homedir(), value.slice(2));
  return value;
}

/**
 * The real path of the absolute path `abs` as the OS would resolve it
 * (physical `..`, every symlink followed), also when it does not exist yet:
 * the existing part is resolved (a dangling symlink is followed to where it
 * would create a file) and the missing rest appended. Throws the OS error
 * (`ENOTDIR`, `ELOOP`, `EACCES`, ...) when it cannot be resolved.
 */
export async function realPath(abs: string): Promise<string> {
  try {
    return await fsp.realpath(abs);
  } catch (error) {
    if (errnoOf(error) !== 'ENOENT') throw error;
  }
  return resolveMissing(abs);
}

/** `realPath` without waiting: for checks that run inside synchronous code (a rule matcher). */
export function realPathSync(abs: string): string {
  try {
    return fs.realpathSync.native(abs);
  } catch (error) {
    if (errnoOf(error) !== 'ENOENT') throw error;
  }
  return resolveMissing(abs);
}

/** Walk `abs` component by component (only reached for a path whose end does not exist: a few `lstat`s). */
function resolveMissing(abs: string): string {
  const pending = abs.split('/').reverse(); // components still to walk, next one last
  let current = '/';
  let links = 0;
  while (pending.length > 0) {
    const part = pending.pop()!;
    if (part === '' || part === '.') continue;
    if (part === '..') {
      current = path.dirname(current);
      continue;
    }
    const next = path.join(current, part);
    const stat = fs.lstatSync(next, { throwIfNoEntry: false });
    if (stat === undefined) {
      // Nothing exists from here on, so the rest holds no symlinks: normalize it lexically.
      const rest = [part, ...pending.reverse()];
      const candidate = path.resolve(current, ...rest);
      // A `..` in the rest may climb back into existing directories: walk again from there.
      return rest.includes('..') ? resolveMissing(candidate) : candidate;
    }
    if (stat.isSymbolicLink()) {
      if (++links > MAX_SYMLINKS) throw Object.assign(new Error(`symlink loop: ${abs}`), { code: 'ELOOP' });
      const target = fs.readlinkSync(next);
      if (target.startsWith('/')) current = '/';
      pending.push(...target.split('/').reverse());
      continue;
    }
    if (!stat.isDirectory() && pending.some((p) => p !== '' && p !== '.')) {
      throw Object.assign(new Error(`not a directory: ${next}`), { code: 'ENOTDIR' });
    }
    current = next;
  }
  return current;
}

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}
