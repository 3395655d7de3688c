/**
 * Race-free path resolution: a path is walked component by component from a
 * held directory descriptor, and the kernel is never asked to follow a
 * symlink. Node has no `openat`, so on Linux each step opens
 * `/proc/self/fd/<dirfd>/<name>` with `O_NOFOLLOW` (the magic link names the
 * held directory itself, whatever happens to its path meanwhile). A symlink
 * met on the way is read with `readlink` and its target walked the same way,
 * by this code; so the real path this walk returns is the path of the object
 * it actually holds, and checking that path checks what gets read or written.
 *
 * Without `/proc/self/fd` (macOS, BSD) the held directory is named by its
 * real path instead: intermediate components are then resolved by the kernel
 * again and a concurrent swap can still race them; the last component stays
 * protected by `O_NOFOLLOW` and the identity checks (see the README).
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

const MAX_SYMLINKS = 40;
/** How often one component is looked at again when it changes between `lstat` and `open`. */
const MAX_RETRIES = 20;
const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = fs.constants;
export const DIR_FLAGS: number = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;

function detectProcFd(): boolean {
  if (process.platform !== 'linux') return false;
  let fd: number | undefined;
  try {
    fd = fs.openSync('/', DIR_FLAGS);
    return fs.statSync(`/proc/self/fd/${fd}/.`).ino === fs.statSync('/').ino;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

let procFd: boolean | undefined;

/** True when held directories are named through `/proc/self/fd` (Linux with /proc mounted). */
export function hasProcFd(): boolean {
  procFd ??= detectProcFd();
  return procFd;
}

/** Tests only: force the fallback (`false`) or re-detect (`undefined`). */
export function setProcFdForTests(value: boolean | undefined): void {
  procFd = value === undefined ? undefined : value && detectProcFd();
}

/** A held directory: its descriptor, its real path, and the path to name children through. */
export class DirRef {
  readonly handle: fsp.FileHandle;
  readonly real: string;
  readonly #proc: boolean;

  constructor(handle: fsp.FileHandle, real: string, proc: boolean = hasProcFd()) {
    this.handle = handle;
    this.real = real;
    this.#proc = proc;
  }

  /** The path of the directory itself: `/proc/self/fd/<fd>`, or its real path in the fallback. */
  get path(): string {
    return this.#proc ? `/proc/self/fd/${this.handle.fd}` : this.real;
  }

  /** The path of the entry `name` of this directory (`.`: the directory itself, not through a symlink). */
  child(name: string): string {
    return `${this.path === '/' ? '' : this.path}/${name}`;
  }

  close(): Promise<void> {
    return this.handle.close().catch(() => undefined);
  }

  /** `error` with this directory's `/proc/self/fd/<fd>` replaced by its real path (for messages). */
  explain(error: unknown): unknown {
    const found = error as (NodeJS.ErrnoException & { dest?: string }) | null;
    if (!this.#proc || typeof found?.message !== 'string') return error;
    const procPath = this.path;
    found.message = found.message.replaceAll(procPath, this.real === '/' ? '' : this.real);
    if (typeof found.path === 'string') found.path = found.path.replace(procPath, this.real);
    if (typeof found.dest === 'string') found.dest = found.dest.replace(procPath, this.real);
    return error;
  }
}

function osError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${message}`), { code });
}

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

/** Open `/` as the start of a walk. */
export async function openRoot(): Promise<DirRef> {
  return new DirRef(await fsp.open('/', DIR_FLAGS), '/');
}

/**
 * Open the directory `name` of `dir` without following a symlink, and check
 * it is the directory `expected` described (when given). Returns undefined
 * when the entry changed (now a symlink, a file, another inode).
 */
export async function openChildDir(
  dir: DirRef,
  name: string,
  expected?: fs.Stats,
): Promise<DirRef | undefined> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(dir.child(name), DIR_FLAGS);
  } catch (error) {
    const code = errno(error);
    if (code === 'ELOOP' || code === 'ENOTDIR' || code === 'ENOENT') return undefined;
    throw error;
  }
  if (expected !== undefined) {
    const stat = await handle.stat();
    if (stat.ino !== expected.ino || stat.dev !== expected.dev) {
      await handle.close();
      return undefined;
    }
  }
  return new DirRef(handle, name === '.' ? dir.real : path.join(dir.real, name));
}

/** Where a walk ended: the held parent directory and the last component in it. */
export interface Walked {
  /** The directory holding the target, open; the caller closes it (`close`). */
  dir: DirRef;
  /** The target's name in `dir` (`.` when the target is `/`). Never a symlink when `stat` is set. */
  name: string;
  /** The real path of the target: `dir.real` + `name`, with the missing rest appended. */
  real: string;
  /** `lstat` of the target (never a symlink); undefined when it does not exist. */
  stat: fs.Stats | undefined;
  /** The target does not exist and neither does a parent of it (only without `create`). */
  missingParent: boolean;
}

export interface WalkOptions {
  /**
   * Create missing parent directories (mode 0777 & ~umask). Called with the
   * real path of each directory before it is created: throw to refuse.
   */
  create?: (real: string) => void;
}

/**
 * Walk the absolute path `abs` from `/`, one component at a time, never
 * letting the kernel follow a symlink: `..` goes to the held directory's
 * parent, a symlink is read and its target walked the same way (at most 40
 * links: ELOOP), a file used as a directory is ENOTDIR. The last component
 * is looked at with `lstat` only; a symlink there is followed too, so a
 * dangling link ends where it would create a file. Throws the OS error.
 */
export async function walkPath(abs: string, options: WalkOptions = {}): Promise<Walked> {
  if (!path.isAbsolute(abs)) throw new TypeError(`walkPath needs an absolute path: ${abs}`);
  const pending = abs.split('/').reverse(); // next component last
  let dir = await openRoot();
  let links = 0;
  let retries = 0;
  try {
    for (;;) {
      let part = pending.pop();
      while (part === '' || part === '.') part = pending.pop();
      if (part === undefined) {
        // The walk ended on a directory (`/`, `x/`, `x/.`): its parent holds it under its name.
        if (dir.real === '/') return done(dir, '.', '/');
        const parent = await openChildDir(dir, '..');
        if (parent === undefined) throw osError('ENOENT', `${dir.real} disappeared`);
        const name = path.basename(dir.real);
        const walked = await done(parent, name, dir.real, true);
        await dir.close();
        dir = parent;
        return walked;
      }
      if (part === '..') {
        if (dir.real === '/') continue;
        const parent = await openChildDir(dir, '..');
        if (parent === undefined) throw osError('ENOENT', `${dir.real} disappeared`);
        await dir.close();
        dir = new DirRef(parent.handle, path.dirname(dir.real));
        continue;
      }
      const last = pending.every((p) => p === '' || p === '.');
      const child = dir.child(part);
      if (!last) {
        // The common case first: a real directory opens with O_DIRECTORY | O_NOFOLLOW, nothing else
        // can; anything else (a symlink, a file, nothing) is looked at with lstat below.
        const next = await openChildDir(dir, part);
        if (next !== undefined) {
          await dir.close();
          dir = next;
          continue;
        }
      }
      let stat: fs.Stats | undefined;
      try {
        stat = await fsp.lstat(child);
      } catch (error) {
        if (errno(error) !== 'ENOENT') throw error;
      }
      if (stat === undefined) {
        if (last) return done(dir, part, path.join(dir.real, part));
        const rest = [part, ...[...pending].reverse()];
        if (rest.includes('..')) {
          // Nothing exists from here on: `..` in the rest is lexical, and may climb back.
          const normalized = path.posix.normalize(rest.join('/')).split('/');
          pending.length = 0;
          pending.push(...normalized.reverse());
          continue;
        }
        if (options.create === undefined) {
          const real = path.join(dir.real, ...rest);
          return { dir, name: part, real, stat: undefined, missingParent: true };
        }
        options.create(path.join(dir.real, part));
        try {
          await fsp.mkdir(child);
        } catch (error) {
          if (errno(error) !== 'EEXIST') throw error;
          if (++retries > MAX_RETRIES) throw osError('EAGAIN', `${child} keeps changing`);
        }
        pending.push(part); // look at what is there now
        continue;
      }
      if (stat.isSymbolicLink()) {
        if (++links > MAX_SYMLINKS) throw osError('ELOOP', `too many symbolic links in ${abs}`);
        let target: string;
        try {
          target = await fsp.readlink(child);
        } catch (error) {
          // Gone or no longer a link since the lstat: look at it again.
          if (errno(error) !== 'ENOENT' && errno(error) !== 'EINVAL') throw error;
          if (++retries > MAX_RETRIES) throw osError('EAGAIN', `${child} keeps changing`);
          pending.push(part);
          continue;
        }
        pending.push(...target.split('/').reverse());
        if (target.startsWith('/')) {
          await dir.close();
          dir = await openRoot();
        }
        continue;
      }
      if (last) return done(dir, part, path.join(dir.real, part), false, stat);
      if (!stat.isDirectory()) throw osError('ENOTDIR', `not a directory: ${path.join(dir.real, part)}`);
      // A directory now, not when it was opened: swapped meanwhile, look at it again.
      if (++retries > MAX_RETRIES) throw osError('EAGAIN', `${child} keeps changing`);
      pending.push(part);
    }
  } catch (error) {
    const explained = dir.explain(error);
    await dir.close();
    throw explained;
  }
}

async function done(
  dir: DirRef,
  name: string,
  real: string,
  isDir = false,
  known?: fs.Stats,
): Promise<Walked> {
  let stat = known;
  if (stat === undefined) {
    try {
      stat = await fsp.lstat(dir.child(name));
    } catch (error) {
      if (errno(error) !== 'ENOENT') throw error;
    }
  }
  if (isDir && stat !== undefined && !stat.isDirectory()) throw osError('EAGAIN', `${real} changed`);
  return { dir, name, real, stat, missingParent: false };
}

/**
 * Open the directory `rel` (components separated by `/`, no `..`) below the
 * held directory `base`, one component at a time, following no symlink at
 * all: what walkers use, so they never leave the directory they were given.
 * Returns undefined when a component is missing, not a directory, or a
 * symlink. `rel` '' opens `base` again.
 */
export async function openBeneath(base: DirRef, rel: string): Promise<DirRef | undefined> {
  const parts = rel.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) return undefined;
  let dir = await openChildDir(base, '.');
  for (const part of parts) {
    if (dir === undefined) return undefined;
    const next = await openChildDir(dir, part);
    await dir.close();
    dir = next;
  }
  return dir;
}

/**
 * The directories below a held base one walker call visits, each opened once
 * from its (held) parent with `O_NOFOLLOW` and kept open until `close`, up to
 * `max` of them; past that, a directory is opened from the base down for one
 * use and closed again. Never follows a symlink.
 */
export class HeldTree {
  readonly #base: DirRef;
  readonly #open = new Map<string, Promise<DirRef | undefined>>();
  readonly #max: number;

  constructor(base: DirRef, max = 256) {
    this.#base = base;
    this.#max = max;
  }

  /** Run `fn` on the held directory `rel` (relative to the base, no `..`); undefined when there is none. */
  async use<T>(rel: string, fn: (dir: DirRef) => Promise<T>): Promise<T | undefined> {
    const parts = rel.split('/').filter((p) => p !== '' && p !== '.');
    if (parts.includes('..')) return undefined;
    const key = parts.join('/');
    if (key === '') return fn(this.#base);
    const held = this.#held(key);
    if (held !== undefined) {
      const dir = await held;
      return dir === undefined ? undefined : fn(dir);
    }
    const dir = await openBeneath(this.#base, key);
    if (dir === undefined) return undefined;
    try {
      return await fn(dir);
    } finally {
      await dir.close();
    }
  }

  #held(key: string): Promise<DirRef | undefined> | undefined {
    const found = this.#open.get(key);
    if (found !== undefined) return found;
    if (this.#open.size >= this.#max) return undefined;
    const slash = key.lastIndexOf('/');
    const parent = slash === -1 ? Promise.resolve(this.#base) : this.#held(key.slice(0, slash));
    if (parent === undefined) return undefined;
    const opened = parent.then((dir) =>
      dir === undefined ? undefined : openChildDir(dir, key.slice(slash + 1)),
    );
    this.#open.set(key, opened);
    return opened;
  }

  /** Close every directory kept open (not the base). */
  async close(): Promise<void> {
    const all = [...this.#open.values()];
    this.#open.clear();
    for (const opened of all) await (await opened.catch(() => undefined))?.close();
  }
}
