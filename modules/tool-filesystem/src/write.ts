/**
 * `write_file`, and the atomic write both it and `edit_file` use: a temp file
 * in the same directory (created exclusively, never through a symlink),
 * fsync, rename over the target. The old content stays until the rename, a
 * hardlinked target is replaced rather than modified, and the mode is kept.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { ToolResult } from '@amplifier/core';
import type { ToolContext } from './config.js';
import { withLockedPath } from './file-lock.js';
import type { DirRef } from './path-walk.js';
import { emit } from './read.js';
import { sha256 } from './read-tracker.js';
import { describeType, type ResolvedPath } from './sandbox.js';
import { errnoOf, fail, ok, sandboxFailure } from './tool-result.js';

/**
 * Replace the entry `name` of the held directory `dir` with `data`
 * atomically: the temp file and the rename are both relative to the held
 * directory (`/proc/self/fd/<fd>/...`), and `rename` replaces a symlink at the
 * destination rather than following it. `previous` is the target's `lstat`
 * when it exists: its permission bits (and, when allowed, owner) are kept,
 * and a file the process may not write is refused (EACCES) rather than replaced.
 */
export async function writeAtomic(
  dir: DirRef,
  name: string,
  data: Uint8Array,
  previous?: fs.Stats,
): Promise<fs.Stats> {
  try {
    return await replaceEntry(dir, name, data, previous);
  } catch (error) {
    throw dir.explain(error);
  }
}

/** writeAtomic's steps; returns the `fstat` of the written file. */
async function replaceEntry(
  dir: DirRef,
  name: string,
  data: Uint8Array,
  previous?: fs.Stats,
): Promise<fs.Stats> {
  const target = dir.child(name);
  // Replacing by rename only needs a writable directory; still honour a read-only file.
  if (previous !== undefined) await fsp.access(target, fs.constants.W_OK);
  const tmp = dir.child(`.${name.slice(0, 64)}.${randomBytes(6).toString('hex')}.tmp`);
  const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
  const handle = await fsp.open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, previous ? 0o600 : 0o666);
  let renamed = false;
  let written: fs.Stats;
  try {
    try {
      await handle.writeFile(data);
      if (previous !== undefined) {
        await handle.chmod(previous.mode & 0o7777);
        if (previous.uid !== process.getuid?.() || previous.gid !== process.getgid?.()) {
          await handle.chown(previous.uid, previous.gid).catch(() => undefined);
        }
      }
      await handle.sync();
      written = await handle.stat();
    } finally {
      await handle.close();
    }
    await fsp.rename(tmp, target);
    renamed = true;
  } finally {
    if (!renamed) await fsp.unlink(tmp).catch(() => undefined);
  }
  // fsync the directory so the rename survives a power cut (best effort: not every filesystem allows it).
  await dir.handle.sync().catch(() => undefined);
  return written;
}

/** The OS-error failure of write_file and edit_file (the reference's wording and fields). */
export function osFailure(prefix: string, error: unknown): ToolResult {
  const code = errnoOf(error);
  if (code === undefined) return fail(`${prefix.replace('OS error', 'Error')}: ${(error as Error).message}`);
  const errno = (error as NodeJS.ErrnoException).errno;
  return fail(`${prefix}: ${(error as Error).message}`, {
    type: 'OSError',
    errno: typeof errno === 'number' ? Math.abs(errno) : undefined,
    code,
  });
}

export async function writeFile(ctx: ToolContext, input: Record<string, unknown>): Promise<ToolResult> {
  const given = input.file_path;
  if (typeof given !== 'string' || given === '') return fail('file_path is required');
  const content = input.content ?? '';
  if (typeof content !== 'string') return fail('content must be a string');

  const resolveTarget = (): Promise<ResolvedPath> => ctx.sandbox.resolve(given, 'write');
  let first: ResolvedPath;
  try {
    first = await resolveTarget();
  } catch (error) {
    return sandboxFailure(error) ?? fail(`Error writing file: ${(error as Error).message}`);
  }
  const refused = notWritable(first.stat, given);
  if (refused !== undefined) return refused;
  const data = Buffer.from(content, 'utf8');
  try {
    // Under the lock the path is resolved again, then walked race-free (missing parents made on
    // the way): mode and owner are kept from what is there now.
    const written = await withLockedPath(first, resolveTarget, given, async (current) => {
      const walked = await ctx.sandbox.locate(current, ['write'], given, true);
      try {
        const refusedNow = notWritable(walked.stat, given);
        if (refusedNow !== undefined) return refusedNow;
        const after = await writeAtomic(walked.dir, walked.name, data, walked.stat);
        ctx.tracker.recordWrite(current.real, {
          size: after.size,
          mtimeMs: after.mtimeMs,
          sha256: sha256(data),
          complete: true,
        });
        return current.display;
      } finally {
        await walked.dir.close();
      }
    });
    if (typeof written !== 'string') return written;
    // Outside the lock: a hook that writes this file again must not wait for itself.
    await emit(ctx, 'artifact:write', { path: written, bytes: data.length });
    return ok({ file_path: written, bytes: data.length });
  } catch (error) {
    return sandboxFailure(error) ?? osFailure('OS error writing file', error);
  }
}

/** Why write_file must not replace what `stat` describes (a directory, a FIFO, ...), else undefined. */
function notWritable(stat: fs.Stats | undefined, given: string): ToolResult | undefined {
  if (stat?.isDirectory()) return fail(`Cannot write to directory: ${given}`, { type: 'IsADirectoryError' });
  if (stat !== undefined && !stat.isFile()) {
    return fail(`Cannot write ${given}: it is ${describeType(stat)}; only regular files can be written`, {
      type: 'NotARegularFile',
    });
  }
  return undefined;
}
