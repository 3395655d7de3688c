/**
 * `read_file`: numbered lines (`cat -n` style), offset/limit, long lines cut,
 * directory listings. Files are streamed: only the requested lines are kept,
 * and reading stops at `max_read_bytes`.
 */
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import type fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { EventKey, EventPayload, ToolResult } from '@amplifier/core';
import type { ToolContext } from './config.js';
import { withLockedPath } from './file-lock.js';
import { type DirRef, openChildDir } from './path-walk.js';
import { openRegularFile, type ResolvedPath } from './sandbox.js';
import { DEFAULT_LINE_LIMIT, MAX_LINE_CHARS } from './tool-definitions.js';
import { errnoOf, fail, ok, sandboxFailure } from './tool-result.js';

const TRUNCATED_MARK = '... [truncated]';
/** A NUL byte in this many first bytes makes a file binary (as grep and ripgrep decide). */
export const BINARY_SNIFF_BYTES = 8192;
const CHUNK_BYTES = 1024 * 1024;

/** Format one line the `cat -n` way. */
export function numberLine(lineNumber: number, text: string): string {
  return `${String(lineNumber).padStart(6)}\t${text}`;
}

/** Cut a line longer than MAX_LINE_CHARS. */
export function cutLine(text: string): string {
  return text.length > MAX_LINE_CHARS ? text.slice(0, MAX_LINE_CHARS) + TRUNCATED_MARK : text;
}

/** Index of a NUL byte in the first BINARY_SNIFF_BYTES of `data`, or -1. */
export function binaryOffset(data: Uint8Array): number {
  return data.subarray(0, BINARY_SNIFF_BYTES).indexOf(0);
}

export interface LineWindow {
  /** The kept lines, already cut. */
  lines: string[];
  totalLines: number;
  bytesRead: number;
  /** Reading stopped at `maxBytes` before the end of the file. */
  truncated: boolean;
  sha256: string;
}

export type ScanFailure = { binaryAt: number } | { decodeError: true };

/**
 * Stream a file and keep lines `[start, start + limit)` (0-based). Lines end
 * at `\n`, `\r\n` or `\r`, as universal newlines do. Memory stays bounded by
 * the window, whatever the file's size or line length.
 */
export async function scanLines(
  handle: fsp.FileHandle,
  maxBytes: number,
  start: number,
  limit: number,
): Promise<LineWindow | ScanFailure> {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, maxBytes));
  const lines: string[] = [];
  const end = start + limit;
  const terminator = /\r\n?|\n/g;
  let lineIndex = 0;
  let current = '';
  let hasText = false;
  let afterCR = false;
  let bytesRead = 0;
  let eof = false;
  let carry: Buffer | undefined; // the bytes of a character cut by the end of a chunk

  const take = (text: string): void => {
    let pos = 0;
    if (afterCR && text.charCodeAt(0) === 10) pos = 1;
    afterCR = false;
    const anyCR = text.includes('\r'); // without one, indexOf is much faster than a regex
    for (;;) {
      let stop: number;
      let next: number;
      if (anyCR) {
        terminator.lastIndex = pos;
        const match = terminator.exec(text);
        stop = match === null ? -1 : match.index;
        next = match === null ? -1 : stop + match[0].length;
        if (match?.[0] === '\r' && next === text.length) afterCR = true;
      } else {
        stop = text.indexOf('\n', pos);
        next = stop + 1;
      }
      const lineEnd = stop === -1 ? text.length : stop;
      if (lineEnd > pos) {
        hasText = true;
        if (lineIndex >= start && lineIndex < end && current.length <= MAX_LINE_CHARS) {
          current += text.slice(pos, Math.min(lineEnd, pos + MAX_LINE_CHARS + 1 - current.length));
        }
      }
      if (stop === -1) return;
      if (lineIndex >= start && lineIndex < end) lines.push(cutLine(current));
      lineIndex++;
      current = '';
      hasText = false;
      pos = next;
    }
  };

  while (bytesRead < maxBytes) {
    const want = Math.min(buffer.length, maxBytes - bytesRead);
    const { bytesRead: n } = await handle.read(buffer, 0, want, bytesRead);
    if (n === 0) {
      eof = true;
      break;
    }
    const chunk = buffer.subarray(0, n);
    if (bytesRead === 0) {
      const nul = binaryOffset(chunk);
      if (nul >= 0) return { binaryAt: nul };
    }
    hash.update(chunk);
    const data = carry === undefined ? chunk : Buffer.concat([carry, chunk]);
    const whole = completeLength(data);
    carry = whole < data.length ? Buffer.from(data.subarray(whole)) : undefined;
    const part = data.subarray(0, whole);
    if (!isUtf8(part)) return { decodeError: true };
    let text = part.toString('utf8');
    if (bytesRead === 0 && text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a BOM is not content
    bytesRead += n;
    take(text);
  }
  if (!eof) {
    // Exactly at the cap: is there more?
    const { bytesRead: more } = await handle.read(buffer, 0, 1, bytesRead);
    eof = more === 0;
  }
  if (eof && carry !== undefined) return { decodeError: true }; // the file ends inside a character
  if (hasText) {
    if (lineIndex >= start && lineIndex < end) lines.push(cutLine(current));
    lineIndex++;
  }
  return { lines, totalLines: lineIndex, bytesRead, truncated: !eof, sha256: hash.digest('hex') };
}

/** Length of the prefix of `data` that ends on a character boundary (at most 3 bytes shorter). */
function completeLength(data: Uint8Array): number {
  const n = data.length;
  for (let i = n - 1; i >= 0 && i >= n - 4; i--) {
    const byte = data[i]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: keep looking for the lead byte
    const size = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return i + size <= n ? n : i;
  }
  return n; // no lead byte in the last 4: invalid, and isUtf8 will say so
}

/** `"  DIR  name"` / `"  FILE name"` lines, directories first, then by name. */
async function listDirectory(ctx: ToolContext, resolved: ResolvedPath, given: string): Promise<ToolResult> {
  let entries: fs.Dirent[];
  let dir: DirRef | undefined;
  try {
    const walked = await ctx.sandbox.locate(resolved, ['read'], given);
    try {
      dir = await openChildDir(walked.dir, walked.name, walked.stat);
    } finally {
      await walked.dir.close();
    }
    if (dir === undefined) {
      return fail(`Cannot read ${given}: it changed while being opened`, { type: 'PathChanged' });
    }
    entries = await fsp.readdir(dir.path, { withFileTypes: true }).catch((error: unknown) => {
      throw dir!.explain(error);
    });
  } catch (error) {
    const refused = sandboxFailure(error);
    if (refused !== undefined) return refused;
    return fail(`Error listing directory: ${(error as Error).message}`, {
      type: errnoOf(error) ?? 'OSError',
    });
  } finally {
    await dir?.close();
  }
  const visible = entries.filter((e) => !ctx.sandbox.isDenied(path.join(resolved.real, e.name)));
  visible.sort((a, b) => {
    const dirA = a.isDirectory() ? 0 : 1;
    const dirB = b.isDirectory() ? 0 : 1;
    if (dirA !== dirB) return dirA - dirB;
    return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  });
  const rows = visible.map(
    (e) => `  ${e.isDirectory() ? 'DIR ' : e.isSymbolicLink() ? 'LINK' : 'FILE'} ${e.name}`,
  );
  return ok({
    file_path: resolved.display,
    content: `Directory: ${resolved.display}\n\n${rows.join('\n')}`,
    is_directory: true,
    entry_count: visible.length,
  });
}

function intArg(value: unknown, name: string): number | string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) return `${name} must be an integer`;
  return value;
}

export async function readFile(ctx: ToolContext, input: Record<string, unknown>): Promise<ToolResult> {
  const given = input.file_path;
  if (typeof given !== 'string' || given === '') return fail('file_path is required');
  const offsetArg = intArg(input.offset, 'offset');
  const limitArg = intArg(input.limit, 'limit');
  if (typeof offsetArg === 'string') return fail(offsetArg);
  if (typeof limitArg === 'string') return fail(limitArg);
  if (limitArg !== undefined && limitArg < 1) return fail('limit must be at least 1');
  const offset = Math.max(1, offsetArg ?? 1);
  const limit = limitArg ?? DEFAULT_LINE_LIMIT;

  let first: ResolvedPath;
  try {
    first = await ctx.sandbox.resolve(given, 'read');
  } catch (error) {
    return sandboxFailure(error) ?? fail(`Error reading file: ${(error as Error).message}`);
  }
  if (first.stat === undefined) return fail(`Path not found: ${given}`, { type: 'FileNotFoundError' });
  if (first.stat.isDirectory()) return listDirectory(ctx, first, given);

  const maxBytes = ctx.config.max_read_bytes;
  let handle: fsp.FileHandle | undefined;
  try {
    // Opened under the file's lock: never in the middle of this module's own replace of the file.
    const { resolved, opened, started } = await withLockedPath(
      first,
      () => ctx.sandbox.resolve(given, 'read'),
      given,
      async (current) => {
        const walked = await ctx.sandbox.locate(current, ['read'], given);
        try {
          return {
            resolved: current,
            started: ctx.tracker.readStarted(current.real),
            opened: await openRegularFile(walked, given),
          };
        } finally {
          await walked.dir.close();
        }
      },
    );
    handle = opened.handle;
    const scan = await scanLines(handle, maxBytes, offset - 1, limit);
    if ('binaryAt' in scan) {
      return fail(
        `Cannot read binary file: ${given} (${opened.stat.size} bytes, NUL byte at offset ${scan.binaryAt}); read_file returns text only`,
        { type: 'BinaryFile', size: opened.stat.size },
      );
    }
    if ('decodeError' in scan) {
      return fail(`Cannot read file: ${given} (not a text file or encoding issue)`, {
        type: 'UnicodeDecodeError',
      });
    }
    ctx.tracker.recordRead(resolved.real, started, {
      size: opened.stat.size,
      mtimeMs: opened.stat.mtimeMs,
      sha256: scan.sha256,
      complete: !scan.truncated && scan.bytesRead === opened.stat.size,
    });
    await emit(ctx, 'artifact:read', { path: resolved.display, bytes: scan.bytesRead });

    const output: Record<string, unknown> = {
      file_path: resolved.display,
      content: scan.lines.map((text, i) => numberLine(offset + i, text)).join('\n'),
      total_lines: scan.totalLines,
      lines_read: scan.lines.length,
      offset,
    };
    const warnings: string[] = [];
    if (scan.totalLines === 0 && !scan.truncated) warnings.push('File exists but has empty contents');
    else if (offset > scan.totalLines) {
      warnings.push(`offset ${offset} is past the end of the file (${scan.totalLines} lines)`);
    }
    if (scan.truncated) {
      output.truncated = true;
      output.bytes_read = scan.bytesRead;
      output.file_size = opened.stat.size;
      warnings.push(
        `Reading stopped at max_read_bytes (${scan.bytesRead} of ${opened.stat.size} bytes); lines past that point were not read and total_lines counts only the lines read`,
      );
    }
    if (warnings.length > 0) output.warning = warnings.join('. ');
    return ok(output);
  } catch (error) {
    return (
      sandboxFailure(error) ?? fail(`Error reading file: ${(error as Error).message}`, { type: 'OSError' })
    );
  } finally {
    await handle?.close();
  }
}

/** Emit an event; a failing hook never fails the tool (the registry logs it). */
export async function emit<E extends EventKey>(
  ctx: ToolContext,
  event: E,
  data: EventPayload<E>,
): Promise<void> {
  try {
    await ctx.coordinator.hooks.emit(event, data);
  } catch {
    // The registry already logs handler errors; nothing else to do here.
  }
}
