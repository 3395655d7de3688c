/**
 * The log reader API: the records of an `events.jsonl` (and, on request, of
 * its rotated files, oldest first), streamed, with a note for every line a
 * crash left behind instead of a failure.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type JsonlNote, readJsonl } from './jsonl.js';

/** One record as hooks-logging writes it (`ts`, `lvl`, `schema`, `event`, promoted keys, `data`). */
export interface LogRecord {
  event: string;
  [key: string]: unknown;
}

/** How `readEventLog` reads. */
export interface ReadEventLogOptions {
  /** Called once per skipped line (torn, invalid, too long). */
  onNote?: (note: JsonlNote) => void;
  /** Read the rotated files (`events.<n>.jsonl`, highest n = oldest) before the file itself. Default false. */
  rotated?: boolean;
  /** Longer lines are skipped with a note. Default 256 MiB. */
  maxLineBytes?: number;
}

/** What `loadEventLog` gives. */
export interface EventLog {
  records: LogRecord[];
  notes: JsonlNote[];
}

/** True for a JSON object with a string `event`: a log record (ours, Python Amplifier's); anything else on a line is skipped by the readers. */
export function isLogRecord(value: unknown): value is LogRecord {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as { event?: unknown }).event === 'string'
  );
}

/** The files of a log, oldest first: `events.<n>.jsonl` down to `events.1.jsonl`, then `file` itself. */
export function eventLogFiles(file: string): string[] {
  const { dir, name, ext } = path.parse(file);
  const prefix = `${name}.`;
  const number = (entry: string): number => {
    if (!entry.startsWith(prefix) || !entry.endsWith(ext)) return 0;
    const digits = entry.slice(prefix.length, entry.length - ext.length);
    return /^[1-9]\d*$/.test(digits) ? Number(digits) : 0;
  };
  let entries: string[];
  try {
    entries = fs.readdirSync(dir);
  } catch {
    return [file];
  }
  const rotated = entries
    .map((entry) => ({ entry, n: number(entry) }))
    .filter(({ n }) => n > 0)
    .sort((a, b) => b.n - a.n)
    .map(({ entry }) => path.join(dir, entry));
  return [...rotated, file];
}

/**
 * Each record of the event log at `file`, in order, read line by line: a
 * torn or invalid line is skipped and reported through `onNote`, never
 * thrown. A missing file has no records; other read errors are thrown.
 */
export async function* readEventLog(
  file: string,
  options: ReadEventLogOptions = {},
): AsyncGenerator<LogRecord, void, undefined> {
  const files = options.rotated ? eventLogFiles(file) : [file];
  for (const one of files) {
    yield* readJsonl<LogRecord>(one, {
      accept: isLogRecord,
      what: 'log record',
      ...(options.onNote && { onNote: options.onNote }),
      ...(options.maxLineBytes !== undefined && { maxLineBytes: options.maxLineBytes }),
    });
  }
}

/** Every record of the event log and the notes about skipped lines, in memory (for small logs and tests). */
export async function loadEventLog(
  file: string,
  options: Omit<ReadEventLogOptions, 'onNote'> = {},
): Promise<EventLog> {
  const notes: JsonlNote[] = [];
  const records: LogRecord[] = [];
  for await (const record of readEventLog(file, { ...options, onNote: (note) => notes.push(note) })) {
    records.push(record);
  }
  return { records, notes };
}
