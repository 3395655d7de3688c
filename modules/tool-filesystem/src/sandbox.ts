/**
 * The one sandbox all five tools go through. A path the model gives is checked
 * as a string (no NUL or control characters), made absolute (`~`, working
 * dir), then resolved to its real path the way the kernel would open it (every
 * symlink and `..` of every existing ancestor), and that real path is compared
 * component-wise with the real allowed and denied roots. The tools then walk
 * that real path again without letting the kernel follow any symlink
 * (`locate`, path-walk.ts), check what they hold, and read and write only
 * relative to held directory descriptors.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AmplifierError, type CodesOf, defineErrors, type ErrorTable } from '@amplifier/core';
import { expandHome, realPath } from '@amplifier/process/paths';
import { type Walked, walkPath } from './path-walk.js';

export type Access = 'read' | 'write';

/** The `mention_resolver` capability: `@bundle:path` to a path, or nothing. */
export interface MentionResolver {
  resolve(mention: string): unknown;
}

export interface SandboxRoots {
  workingDir: string;
  /** `null`: anywhere. */
  allowedRead: readonly string[] | null;
  allowedWrite: readonly string[];
  /** Exact files writes may touch besides `allowedWrite`. */
  allowedWriteFiles: readonly string[];
  /** Every access must be inside one of these (the reference's `allowed_paths`); `null`: no bound. */
  bound: readonly string[] | null;
  /** Refused for reads and writes. */
  denied: readonly string[];
  /** Refused for writes only. */
  deniedWrite: readonly string[];
}

const rows = {
  FILESYSTEM_PATH_REFUSED: {
    name: 'SandboxError',
    description:
      'a path was refused or cannot be used (`type`: AccessDenied, InvalidPath, FileNotFoundError, PathChanged, an errno, ...)',
  },
} as const;

/** The code of this module, declared in core's error factory; the tools turn it into a failed result. */
export const FILESYSTEM_ERRORS: ErrorTable<typeof rows> = defineErrors(rows);

declare module '@amplifier/core' {
  interface DeclaredErrorCodes extends CodesOf<typeof FILESYSTEM_ERRORS> {}
}

/** A refusal or a path problem, worded for the model (code `FILESYSTEM_PATH_REFUSED`). `type` goes to `error.type`. */
export class SandboxError extends AmplifierError {
  declare readonly code: 'FILESYSTEM_PATH_REFUSED';
  readonly type: string;
  constructor(message: string, type = 'AccessDenied') {
    super('FILESYSTEM_PATH_REFUSED', message);
    this.type = type;
  }
}

export interface ResolvedPath {
  /** What the model sees: absolute and normalized, symlinks not resolved. */
  display: string;
  /** The real path: every existing component resolved. This is what gets opened. */
  real: string;
  /** `lstat` of `real`; undefined when nothing is there yet. */
  stat: fs.Stats | undefined;
}

// C0 and C1 controls, DEL, and the Unicode bidi controls that make a name display as another.
const UNSAFE_CHAR = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** An error message for a path string that must be refused before touching the disk, else undefined. */
export function checkPathString(value: string, field: string): string | undefined {
  const bad = UNSAFE_CHAR.exec(value);
  if (bad === null) return undefined;
  const code = bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
  return `Invalid ${field}: contains the control character U+${code} at position ${bad.index}; paths with NUL, control or bidi characters are refused`;
}

/** True when `target` is `root` or below it, compared by path components (both absolute, normalized). */
export function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

/** A clean message for the OS errors path resolution can meet. */
export function pathErrorMessage(error: unknown, shown: string): string {
  switch (errno(error)) {
    case 'ENOTDIR':
      return `Not a directory: a parent of ${shown} is a file`;
    case 'ELOOP':
      return `Too many levels of symbolic links: ${shown} (a symlink loop?)`;
    case 'ENAMETOOLONG':
      return `File name too long: ${shown.length > 200 ? `${shown.slice(0, 200)}...` : shown}`;
    case 'EACCES':
    case 'EPERM':
      return `Permission denied: ${shown}`;
    default:
      return `Cannot resolve ${shown}: ${(error as Error).message}`;
  }
}

/** Resolve a configured root: `~`, relative to the working dir, then its real path. */
export async function resolveRoot(entry: string, workingDir: string): Promise<string> {
  return realPath(path.resolve(workingDir, expandHome(entry)));
}

/** The allow and deny rules on real paths. */
export class Sandbox {
  readonly roots: SandboxRoots;
  /** Looked up on every call, so an app may register the capability after mount. */
  readonly #mentions: () => MentionResolver | undefined;

  constructor(roots: SandboxRoots, mentions: () => MentionResolver | undefined = () => undefined) {
    this.roots = roots;
    this.#mentions = mentions;
  }

  /**
   * Canonicalize every configured entry (done once, at mount). All of them are
   * resolved at once: each file-system call is a round trip through libuv's
   * thread pool, and six lists one after the other made the mount wait for
   * each list's slowest entry in turn.
   */
  static async create(
    config: {
      working_dir: string;
      allowed_read_paths: readonly string[] | null;
      allowed_write_paths: readonly string[];
      allowed_write_files?: readonly string[];
      allowed_paths?: readonly string[] | null;
      denied_paths: readonly string[];
      denied_write_paths: readonly string[];
    },
    mentions?: () => MentionResolver | undefined,
  ): Promise<Sandbox> {
    const wd = config.working_dir;
    const all = (list: readonly string[]): Promise<string[]> =>
      Promise.all(list.map((entry) => resolveRoot(entry, wd)));
    const [allowedRead, allowedWrite, allowedWriteFiles, bound, denied, deniedWrite] = await Promise.all([
      config.allowed_read_paths === null ? null : all(config.allowed_read_paths),
      all(config.allowed_write_paths),
      all(config.allowed_write_files ?? []),
      config.allowed_paths == null ? null : all(config.allowed_paths),
      all(config.denied_paths),
      all(config.denied_write_paths),
    ]);
    return new Sandbox(
      { workingDir: wd, allowedRead, allowedWrite, allowedWriteFiles, bound, denied, deniedWrite },
      mentions,
    );
  }

  /** The absolute, normalized path of a model-given path (no disk access). */
  absolute(given: string): string {
    return path.resolve(this.roots.workingDir, expandHome(given));
  }

  /** True when reads of this real path are refused by `denied_paths`. */
  isDenied(real: string): boolean {
    return this.roots.denied.some((root) => isInside(root, real));
  }

  /** Denied roots strictly below `dir` (walkers prune them). */
  deniedBelow(dir: string): string[] {
    return this.roots.denied.filter((root) => root !== dir && isInside(dir, root));
  }

  /**
   * Resolve a model-given path and check it for `access`. `given` is what the
   * model sent (used in the read refusal, as the reference does). Throws
   * SandboxError with a message for the model.
   */
  async resolve(given: string, access: Access, field = 'file_path'): Promise<ResolvedPath> {
    let bad = checkPathString(given, field);
    if (bad !== undefined) throw new SandboxError(bad, 'InvalidPath');
    let target = given;
    if (given.startsWith('@')) {
      target = await this.#resolveMention(given);
      bad = checkPathString(target, field);
      if (bad !== undefined) throw new SandboxError(bad, 'InvalidPath');
    }
    const expanded = expandHome(target);
    // Not normalized: `link/..` must mean what the OS makes of it, not what the string says.
    const abs = path.isAbsolute(expanded) ? expanded : `${this.roots.workingDir}/${expanded}`;
    const display = path.resolve(abs);
    let real: string;
    try {
      real = await realPath(abs);
    } catch (error) {
      // No oracle about what lies outside: a path that is outside even as written is just refused.
      this.check(display, access, access === 'read' ? given : display, display);
      throw new SandboxError(pathErrorMessage(error, given), errno(error) ?? 'OSError');
    }
    this.check(real, access, access === 'read' ? given : display, display);
    let stat: fs.Stats | undefined;
    try {
      stat = await fsp.lstat(real);
    } catch (error) {
      if (errno(error) !== 'ENOENT') throw new SandboxError(pathErrorMessage(error, given), 'OSError');
    }
    return { display, real, stat };
  }

  /**
   * Walk a checked path again, race-free (see path-walk.ts), and hold its
   * parent directory: the real path of what is actually held is checked for
   * every access in `accesses`, and must be the path `resolved` checked
   * (else the path changed in between: refused, nothing touched). With
   * `create`, missing parent directories of the target are made, only below
   * the held directories and only when they lead to the checked target.
   * The caller closes `dir` of the result.
   */
  async locate(
    resolved: ResolvedPath,
    accesses: readonly Access[],
    given: string,
    create = false,
  ): Promise<Walked> {
    const checkAll = (real: string): void => {
      for (const access of accesses)
        this.check(real, access, access === 'read' ? given : resolved.display, resolved.display);
    };
    const changed = (): SandboxError =>
      new SandboxError(
        `Cannot use ${given}: it changed while being opened; retry when it is stable`,
        'PathChanged',
      );
    let walked: Walked;
    try {
      walked = await walkPath(
        resolved.real,
        create
          ? {
              create: (real) => {
                if (!isInside(real, resolved.real)) throw changed();
              },
            }
          : {},
      );
    } catch (error) {
      if (error instanceof SandboxError) throw error;
      if (errno(error) === 'EAGAIN') throw changed();
      throw new SandboxError(pathErrorMessage(error, given), errno(error) ?? 'OSError');
    }
    try {
      checkAll(walked.real);
      if (walked.real !== resolved.real) throw changed();
    } catch (error) {
      await walked.dir.close();
      throw error;
    }
    return walked;
  }

  /** `@bundle:path` through the `mention_resolver` capability (the reference's messages). */
  async #resolveMention(mention: string): Promise<string> {
    const resolver = this.#mentions();
    if (typeof resolver?.resolve !== 'function') {
      throw new SandboxError(
        '@mention paths require mention_resolver capability (not available)',
        'MentionError',
      );
    }
    let found: unknown;
    try {
      found = await resolver.resolve(mention);
    } catch (error) {
      throw new SandboxError(
        `@mention could not be resolved: ${mention}: ${(error as Error).message}`,
        'MentionError',
      );
    }
    if (found instanceof URL) found = found.protocol === 'file:' ? fileURLToPath(found) : undefined;
    if (typeof found !== 'string' || found === '') {
      throw new SandboxError(`@mention not found: ${mention}`, 'FileNotFoundError');
    }
    return found;
  }

  /** Throw unless `real` may be accessed. `shown` names the path in the message. */
  check(real: string, access: Access, shown: string, display: string = shown): void {
    const via = real === display ? '' : ` (it resolves to ${real})`;
    const { denied, deniedWrite, allowedRead, allowedWrite, allowedWriteFiles, bound } = this.roots;
    if (denied.some((root) => isInside(root, real))) {
      throw new SandboxError(`Access denied: ${shown} is within denied directories${via}`);
    }
    if (bound !== null && !bound.some((root) => isInside(root, real))) {
      throw new SandboxError(`Access denied: ${shown} is not within allowed paths${via}`);
    }
    if (access === 'write') {
      if (deniedWrite.some((root) => isInside(root, real))) {
        throw new SandboxError(`Access denied: ${shown} is within denied directories${via}`);
      }
      if (!allowedWrite.some((root) => isInside(root, real)) && !allowedWriteFiles.includes(real)) {
        throw new SandboxError(`Access denied: ${shown} is not within allowed write paths${via}`);
      }
    } else if (allowedRead !== null && !allowedRead.some((root) => isInside(root, real))) {
      throw new SandboxError(`Access denied: ${shown} is not within allowed read paths${via}`);
    }
  }

  /**
   * The scheduling key of a path (`file:<real path>`), computed synchronously
   * from the path string: the real path of the file, else of its nearest
   * existing parent plus the rest, else the normalized path.
   */
  resourcePath(given: string): string {
    const abs = this.absolute(given);
    let dir = abs;
    const tail: string[] = [];
    for (;;) {
      try {
        return path.join(fs.realpathSync.native(dir), ...tail);
      } catch {
        const parent = path.dirname(dir);
        if (parent === dir) return abs;
        tail.unshift(path.basename(dir));
        dir = parent;
      }
    }
  }
}

/** What kind of file a stat describes, for messages ("a FIFO", "a socket"). */
export function describeType(stat: fs.Stats): string {
  if (stat.isFile()) return 'a regular file';
  if (stat.isDirectory()) return 'a directory';
  if (stat.isSymbolicLink()) return 'a symbolic link';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  return 'a special file';
}

/**
 * Open the target of a walk for reading: relative to its held directory,
 * without following a symlink and without blocking on a FIFO, and check that
 * the descriptor is the file the walk saw (same device and inode, still a
 * regular file).
 */
export async function openRegularFile(
  walked: Walked,
  shown: string,
): Promise<{ handle: fsp.FileHandle; stat: fs.Stats }> {
  const before = walked.stat;
  if (before === undefined) throw new SandboxError(`Path not found: ${shown}`, 'FileNotFoundError');
  if (!before.isFile()) {
    throw new SandboxError(
      `Cannot read ${shown}: it is ${describeType(before)}; only regular files can be read`,
      'NotARegularFile',
    );
  }
  const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(walked.dir.child(walked.name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    const code = errno(error);
    if (code === 'ENOENT') throw new SandboxError(`Path not found: ${shown}`, 'FileNotFoundError');
    if (code === 'ELOOP' || code === 'ENXIO') {
      throw new SandboxError(`Cannot read ${shown}: it changed while being opened`, 'NotARegularFile');
    }
    throw new SandboxError(pathErrorMessage(error, shown), code ?? 'OSError');
  }
  const stat = await handle.stat();
  if (!stat.isFile() || stat.ino !== before.ino || stat.dev !== before.dev) {
    await handle.close();
    throw new SandboxError(`Cannot read ${shown}: it changed while being opened`, 'NotARegularFile');
  }
  return { handle, stat };
}
