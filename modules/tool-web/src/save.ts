/**
 * The write-path policy of `save_to_file`: the same rules tool-filesystem
 * applies (allowed and denied write paths, deny beats allow, compared on real
 * paths so symlinks and `..` cannot leave the allowed directories), and an
 * atomic write (a fresh temp file opened O_EXCL|O_NOFOLLOW in the checked
 * directory, renamed over the target).
 */
import { randomBytes } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import { expandHome, realPath } from '@amplifier/process/paths';

/** Where save_to_file may and may not write. */
export interface WritePolicy {
  workingDir: string;
  /** Directories (as configured; `~` expanded and resolved when checked). */
  allowed: readonly string[];
  denied: readonly string[];
}

function isInside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
}

/** Why `real` may not be written, or null. `shown` is the path used in messages. */
async function refusal(policy: WritePolicy, real: string, shown: string): Promise<string | null> {
  for (const entry of policy.denied) {
    if (isInside(await realPath(path.resolve(policy.workingDir, expandHome(entry))), real)) {
      return `Access denied: ${shown} is within denied directories`;
    }
  }
  for (const entry of policy.allowed) {
    if (isInside(await realPath(path.resolve(policy.workingDir, expandHome(entry))), real)) return null;
  }
  return `Access denied: ${shown} is not within allowed write paths`;
}

/** A checked target: the path as given (joined) and the real path to write. */
export interface SaveTarget {
  shown: string;
  real: string;
}

/**
 * Resolve `filePath` (`~` expanded, relative to the working dir) and check it
 * against the policy on its real path. Returns the target or an error message.
 */
export async function checkSavePath(policy: WritePolicy, filePath: string): Promise<SaveTarget | string> {
  const shown = path.resolve(policy.workingDir, expandHome(filePath));
  const real = await realPath(shown);
  const stat = await fs.stat(real).catch(() => undefined);
  if (stat?.isDirectory()) return `Cannot write to directory: ${shown}`;
  const denied = await refusal(policy, real, shown);
  return denied ?? { shown, real };
}

/** An open save: write text to it, then `commit()` (rename into place) or `abort()`. */
export interface SaveFile {
  write(text: string): Promise<void>;
  /** Bytes written so far. */
  readonly bytes: number;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/**
 * Create the parent directories, re-check the parent's real path (a symlink
 * may have appeared), and open a temp file next to the target.
 */
export async function openSave(policy: WritePolicy, target: SaveTarget): Promise<SaveFile> {
  const dir = path.dirname(target.real);
  await fs.mkdir(dir, { recursive: true });
  const realDir = await fs.realpath(dir);
  const final = path.join(realDir, path.basename(target.real));
  const denied = await refusal(policy, final, target.shown);
  if (denied !== null) throw new Error(denied);
  const temp = path.join(realDir, `.${path.basename(final)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await fs.open(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o666,
  );
  let bytes = 0;
  let closed = false;
  const close = async (): Promise<void> => {
    if (!closed) {
      closed = true;
      await handle.close();
    }
  };
  return {
    async write(text) {
      const buffer = Buffer.from(text, 'utf8');
      await handle.write(buffer);
      bytes += buffer.length;
    },
    get bytes() {
      return bytes;
    },
    async commit() {
      await close();
      await fs.rename(temp, final);
    },
    async abort() {
      await close().catch(() => {});
      await fs.rm(temp, { force: true });
    },
  };
}
