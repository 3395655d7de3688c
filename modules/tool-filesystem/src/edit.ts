/**
 * `edit_file`: exact string replacement, unique unless `replace_all`. When
 * nothing matches, the error shows the closest lines so the model can correct
 * itself. CRLF files stay CRLF, a BOM stays, the write is atomic.
 */
import fsp from 'node:fs/promises';
import type { ToolResult } from '@amplifier/core';
import type { ToolContext } from './config.js';
import { withLockedPath } from './file-lock.js';
import type { Walked } from './path-walk.js';
import { BINARY_SNIFF_BYTES, binaryOffset, emit, numberLine } from './read.js';
import { sha256 } from './read-tracker.js';
import { openRegularFile, type ResolvedPath } from './sandbox.js';
import { fail, ok, sandboxFailure } from './tool-result.js';
import { osFailure, writeAtomic } from './write.js';

/** Count non-overlapping occurrences of `needle` (not empty). */
export function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) count++;
  return count;
}

const NEWLINE = /\r\n|\r|\n/;
const hasBareLf = (text: string): boolean => /(?<!\r)\n/.test(text);
const toCrlf = (text: string): string => text.replace(/(?<!\r)\n/g, '\r\n');

function bigrams(text: string): Set<string> {
  const set = new Set<string>();
  for (let i = 0; i < text.length - 1; i++) set.add(text.slice(i, i + 2));
  return set;
}

/** Dice similarity of two lines over character bigrams (whitespace-trimmed), 0..1. */
function similarity(a: string, b: string, bA = bigrams(a.trim())): number {
  const x = a.trim();
  const y = b.trim();
  if (x === y) return 1;
  if (x.length < 2 || y.length < 2) return 0;
  const bB = bigrams(y);
  let shared = 0;
  for (const g of bB) if (bA.has(g)) shared++;
  return (2 * shared) / (bA.size + bB.size);
}

export interface ClosestMatch {
  start_line: number;
  end_line: number;
  similarity: number;
  /** The lines, numbered like read_file. */
  content: string;
  whitespace_only: boolean;
}

/** The window of the file most similar to `needle`, line by line, or undefined when nothing is close. */
export function closestMatch(text: string, needle: string): ClosestMatch | undefined {
  const lines = text.split(NEWLINE);
  const wanted = needle.split(NEWLINE);
  if (wanted.length > 1 && wanted[wanted.length - 1] === '') wanted.pop();
  // Anchor on the most distinctive (longest) line of old_string, then score whole windows around it.
  let anchor = 0;
  for (let k = 1; k < wanted.length; k++)
    if (wanted[k]!.trim().length > wanted[anchor]!.trim().length) anchor = k;
  const anchorGrams = bigrams(wanted[anchor]!.trim());
  const scored: [number, number][] = [];
  for (let i = 0; i < lines.length; i++)
    scored.push([similarity(wanted[anchor]!, lines[i]!, anchorGrams), i]);
  scored.sort((p, q) => q[0] - p[0] || p[1] - q[1]);
  let best: { start: number; score: number } | undefined;
  for (const [, line] of scored.slice(0, 5)) {
    const start = Math.max(0, line - anchor);
    let total = 0;
    for (let k = 0; k < wanted.length; k++) total += similarity(wanted[k]!, lines[start + k] ?? '');
    const score = total / wanted.length;
    if (best === undefined || score > best.score) best = { start, score };
  }
  if (best === undefined || best.score < 0.4) return undefined;
  const end = Math.min(lines.length, best.start + wanted.length);
  const window = lines.slice(best.start, end);
  const squash = (s: string): string => s.trim().replace(/\s+/g, ' ');
  return {
    start_line: best.start + 1,
    end_line: end,
    similarity: Math.round(best.score * 100) / 100,
    content: window
      .slice(0, 30)
      .map((l, k) => numberLine(best.start + 1 + k, l.length > 300 ? `${l.slice(0, 300)}...` : l))
      .join('\n'),
    whitespace_only:
      window.length === wanted.length && window.every((l, k) => squash(l) === squash(wanted[k]!)),
  };
}

function notFound(given: string, text: string, oldString: string): ToolResult {
  let message = `old_string not found in file: ${given}`;
  const hints: string[] = [];
  const nonEmpty = oldString.split(NEWLINE).filter((l) => l.trim() !== '');
  if (nonEmpty.length > 0 && nonEmpty.every((l) => /^\s*\d+\t/.test(l))) {
    hints.push('old_string seems to include the line-number prefixes of read_file output; remove them.');
  }
  const closest = closestMatch(text, oldString);
  if (closest !== undefined) {
    const range =
      closest.start_line === closest.end_line
        ? `line ${closest.start_line}`
        : `lines ${closest.start_line}-${closest.end_line}`;
    message += `\nThe closest match is at ${range} (${Math.round(closest.similarity * 100)}% similar${closest.whitespace_only ? ', differs only in whitespace' : ''}):\n${closest.content}`;
  } else {
    hints.push('No similar lines were found; read the file again to see its current content.');
  }
  hints.push('Copy the text exactly as it is in the file (indentation, whitespace and line breaks matter).');
  message += `\n${hints.join('\n')}`;
  return fail(message, {
    type: 'NoMatch',
    old_string: oldString,
    ...(closest ? { closest_match: closest } : {}),
  });
}

async function readAll(handle: fsp.FileHandle, max: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const buffer = Buffer.allocUnsafe(Math.min(1024 * 1024, max + 1 - total) || 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, total);
    if (bytesRead === 0) return Buffer.concat(chunks, total);
    total += bytesRead;
    if (total > max) return undefined;
    chunks.push(buffer.subarray(0, bytesRead));
  }
}

export async function editFile(ctx: ToolContext, input: Record<string, unknown>): Promise<ToolResult> {
  const given = input.file_path;
  const oldArg = input.old_string;
  const newArg = input.new_string;
  if (typeof given !== 'string' || given === '') return fail('file_path is required');
  if (typeof oldArg !== 'string' || oldArg === '') return fail('old_string is required');
  // A missing new_string is refused rather than taken as "delete": an empty string deletes.
  if (typeof newArg !== 'string') return fail('new_string is required (use "" to delete old_string)');
  if (oldArg === newArg) return fail('old_string and new_string must be different (no changes to make)');
  const replaceAll = input.replace_all === true;

  // Edits write the file and read it: both checks, on every resolve.
  const resolveTarget = async (): Promise<ResolvedPath> => {
    const resolved = await ctx.sandbox.resolve(given, 'write');
    ctx.sandbox.check(resolved.real, 'read', given, resolved.display);
    return resolved;
  };
  let first: ResolvedPath;
  try {
    first = await resolveTarget();
  } catch (error) {
    return sandboxFailure(error) ?? fail(`Error modifying file: ${(error as Error).message}`);
  }
  if (first.stat === undefined) return fail(`File not found: ${given}`, { type: 'FileNotFoundError' });
  if (first.stat.isDirectory()) return fail(`Cannot edit directory: ${given}`, { type: 'IsADirectoryError' });

  try {
    // Under the lock the path is resolved again: the edit reads the file as the edits before it left it.
    const outcome = await withLockedPath(first, resolveTarget, given, (current) =>
      replaceInFile(ctx, current, given, oldArg, newArg, replaceAll),
    );
    if (!('written' in outcome)) return outcome;
    // Outside the lock: a hook that edits this file again must not wait for itself.
    await emit(ctx, 'artifact:write', {
      path: outcome.written.file_path,
      bytes: outcome.written.bytes_written,
    });
    return ok(outcome.written);
  } catch (error) {
    return sandboxFailure(error) ?? osFailure('OS error modifying file', error);
  }
}

/** The output of a successful edit. */
interface EditOutput {
  file_path: string;
  replacements_made: number;
  bytes_written: number;
}

/** Under the file's lock: read, check, replace, write. The failure, or what was written. */
async function replaceInFile(
  ctx: ToolContext,
  resolved: ResolvedPath,
  given: string,
  oldArg: string,
  newArg: string,
  replaceAll: boolean,
): Promise<ToolResult | { written: EditOutput }> {
  if (resolved.stat === undefined) return fail(`File not found: ${given}`, { type: 'FileNotFoundError' });
  if (resolved.stat.isDirectory()) {
    return fail(`Cannot edit directory: ${given}`, { type: 'IsADirectoryError' });
  }
  const walked = await ctx.sandbox.locate(resolved, ['write', 'read'], given);
  try {
    return await editLocated(ctx, resolved, walked, given, oldArg, newArg, replaceAll);
  } finally {
    await walked.dir.close();
  }
}

/** The edit itself, on the target held by `walked` (read and written relative to its directory). */
async function editLocated(
  ctx: ToolContext,
  resolved: ResolvedPath,
  walked: Walked,
  given: string,
  oldArg: string,
  newArg: string,
  replaceAll: boolean,
): Promise<ToolResult | { written: EditOutput }> {
  const max = ctx.config.max_read_bytes;
  const { handle, stat } = await openRegularFile(walked, given);
  let bytes: Buffer | undefined;
  let binary = false;
  try {
    if (stat.size > max) {
      const probe = Buffer.alloc(BINARY_SNIFF_BYTES);
      const { bytesRead } = await handle.read(probe, 0, probe.length, 0);
      binary = binaryOffset(probe.subarray(0, bytesRead)) >= 0;
    } else bytes = await readAll(handle, max);
  } finally {
    await handle.close();
  }
  if (binary || (bytes !== undefined && binaryOffset(bytes) >= 0)) {
    return fail(`Cannot edit binary file: ${given}`, { type: 'BinaryFile' });
  }
  if (bytes === undefined) {
    return fail(`File is too large to edit: ${given} (${stat.size} bytes; max_read_bytes is ${max})`, {
      type: 'FileTooLarge',
    });
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return fail(`Cannot read file: ${given} (not a text file or encoding issue)`, {
      type: 'UnicodeDecodeError',
    });
  }
  if (ctx.config.require_read_before_edit) {
    const stale = ctx.tracker.staleReason(resolved.real, {
      size: bytes.length,
      mtimeMs: stat.mtimeMs,
      bytes,
    });
    if (stale !== undefined) {
      return fail(`File ${stale}: ${given}. Read it again with read_file, then retry the edit.`, {
        type: 'StaleRead',
      });
    }
  }

  let oldString = oldArg;
  let newString = newArg;
  // A CRLF file stays CRLF: the model's "\n" means the file's "\r\n".
  if (text.includes('\r\n')) {
    const pureCrlf = !hasBareLf(text);
    if (hasBareLf(oldString) && (pureCrlf || !text.includes(oldString))) oldString = toCrlf(oldString);
    if (pureCrlf || oldString !== oldArg) newString = toCrlf(newString);
  }

  const count = countOccurrences(text, oldString);
  if (count === 0) return notFound(given, text, oldArg);
  if (count > 1 && !replaceAll) {
    return fail(
      `old_string appears ${count} times in file. Either provide more context to make it unique or set replace_all=true`,
      { type: 'AmbiguousMatch', occurrences: count, old_string: oldArg },
    );
  }
  let updated: string;
  if (replaceAll) updated = text.split(oldString).join(newString);
  else {
    const at = text.indexOf(oldString);
    updated = text.slice(0, at) + newString + text.slice(at + oldString.length);
  }
  const data = Buffer.from(updated, 'utf8');
  // Another process may have written the file since it was read above (it does not take our lock).
  const current = await fsp.lstat(walked.dir.child(walked.name)).catch(() => undefined);
  if (
    current === undefined ||
    current.ino !== stat.ino ||
    current.size !== stat.size ||
    current.mtimeMs !== stat.mtimeMs
  ) {
    return fail(
      `File changed on disk while it was being edited: ${given}. Read it again with read_file, then retry the edit.`,
      { type: 'StaleRead' },
    );
  }
  const after = await writeAtomic(walked.dir, walked.name, data, stat);
  ctx.tracker.recordWrite(resolved.real, {
    size: after.size,
    mtimeMs: after.mtimeMs,
    sha256: sha256(data),
    complete: true,
  });
  return {
    written: {
      file_path: resolved.display,
      replacements_made: replaceAll ? count : 1,
      bytes_written: data.length,
    },
  };
}
