/**
 * A JSONL file read up to where it ends now, for a page that will tail it
 * afterwards: the whole records, the byte offset just after the last whole
 * line (where the tail goes on), and a note for every line skipped. Lines
 * are parsed by hooks-logging's `JsonlParser` (torn and invalid lines are
 * notes, never errors); past `maxRecords` the rest is counted, not kept.
 */
import fs from 'node:fs';
import { type JsonlNote, JsonlParser } from '@amplifier/sessions';

export interface JsonlSnapshot<T> {
  records: T[];
  /** Bytes read through the last newline: the tail starts here. */
  offset: number;
  notes: JsonlNote[];
  /** Records past `maxRecords`, not kept. */
  dropped: number;
  /** The file does not exist. */
  missing: boolean;
}

export interface SnapshotOptions<T> {
  accept?: (value: unknown) => value is T;
  what?: string;
  maxRecords?: number;
  maxLineBytes?: number;
}

const CHUNK = 256 * 1024;

export async function readJsonlSnapshot<T>(
  file: string,
  options: SnapshotOptions<T> = {},
): Promise<JsonlSnapshot<T>> {
  const notes: JsonlNote[] = [];
  const out: JsonlSnapshot<T> = { records: [], offset: 0, notes, dropped: 0, missing: false };
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ...out, missing: true };
    throw error;
  }
  const parser = new JsonlParser<T>(file, {
    ...(options.accept && { accept: options.accept }),
    what: options.what ?? 'record',
    maxLineBytes: options.maxLineBytes ?? 16 * 1024 * 1024,
    onNote: (note) => notes.push(note),
  });
  const max = options.maxRecords ?? Number.POSITIVE_INFINITY;
  try {
    const { size } = await handle.stat();
    const buffer = Buffer.alloc(CHUNK);
    let position = 0;
    while (position < size) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK, size - position), position);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      const newline = chunk.lastIndexOf(0x0a);
      if (newline !== -1) out.offset = position + newline + 1;
      position += bytesRead;
      for (const record of parser.push(chunk)) {
        if (out.records.length < max) out.records.push(record);
        else out.dropped++;
      }
    }
    if (out.offset < size) {
      // The file ends in a line without its newline: still being written, or cut by a crash.
      notes.push({
        file,
        // Blank lines are not counted: the number is the record's, close to the file's line.
        line: out.records.length + out.dropped + notes.length + 1,
        kind: 'torn_last_line',
        bytes: size - out.offset,
        message: `${file} ends in an incomplete line (${size - out.offset} bytes, no newline): still being written, or cut off by a crash; it is shown once it is complete`,
      });
    }
  } finally {
    await handle.close();
  }
  return out;
}
