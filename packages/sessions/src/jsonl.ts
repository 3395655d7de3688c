/**
 * Reading JSONL files back (event logs, transcripts) the way a crash leaves
 * them: line by line with bounded memory, skipping with a note what is not a
 * whole record: a torn last line (the writer was killed mid-write), a torn
 * line in the middle (a later writer went on on a fresh line), NUL padding,
 * a line too long to hold. Blank lines are skipped silently. Everything else
 * is returned, in order.
 */
import fs from 'node:fs';

/** Why a line was skipped. Plain data: it may be printed or written as JSON. */
export interface JsonlNote {
  file: string;
  /** 1-based line number in `file`. */
  line: number;
  /**
   * `torn_last_line`: the file ends in a line without its newline that is
   * not a whole record (the writer stopped mid-write, or is still writing).
   * `invalid_line`: a line that is not a record (a torn record that a later
   * writer continued after, on a fresh line, or foreign text).
   * `line_too_long`: longer than `max_line_bytes`; not read.
   */
  kind: 'torn_last_line' | 'invalid_line' | 'line_too_long';
  /** Bytes on the line (without the newline). */
  bytes: number;
  /** One sentence for people: what was found and what was done. */
  message: string;
}

/** How a JSONL reader tells records from other lines, and where it reports what it skipped. */
export interface JsonlOptions<T> {
  /** Which parsed values are records (others are skipped with a note); default: any JSON object. */
  accept?: (value: unknown) => value is T;
  /** What a record is called in notes ("log record", "message"). Default "record". */
  what?: string;
  /** Called once per skipped line. */
  onNote?: (note: JsonlNote) => void;
  /** Longer lines are skipped (with a note) without being held in memory. Default 256 MiB. */
  maxLineBytes?: number;
}

/** Lines longer than this (256 MiB) are skipped with a note unless `maxLineBytes` says otherwise. */
export const DEFAULT_MAX_LINE_BYTES: number = 256 * 1024 * 1024;

const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Splits bytes into lines (on `\n` only: a record never holds a raw line
 * break) and turns each into a record or a note. Feed it chunks with
 * `push`, then call `end`; both return the records completed so far.
 */
export class JsonlParser<T = Record<string, unknown>> {
  readonly file: string;
  readonly #accept: (value: unknown) => value is T;
  readonly #what: string;
  readonly #onNote: (note: JsonlNote) => void;
  readonly #maxLineBytes: number;
  #parts: Buffer[] = [];
  #partBytes = 0;
  /** The current line passed `maxLineBytes`: its bytes are counted, not kept. */
  #overflow = false;
  #line = 0;

  constructor(file: string, options: JsonlOptions<T> = {}) {
    this.file = file;
    this.#accept = options.accept ?? (isObject as (value: unknown) => value is T);
    this.#what = options.what ?? 'record';
    this.#onNote = options.onNote ?? (() => {});
    this.#maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  }

  push(chunk: Buffer): T[] {
    const out: T[] = [];
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      this.#add(chunk.subarray(start, end));
      this.#finishLine(true, out);
      start = end + 1;
    }
    if (start < chunk.length) this.#add(chunk.subarray(start));
    return out;
  }

  /** The file ended: a last line without a newline is a record only if it is whole. */
  end(): T[] {
    const out: T[] = [];
    if (this.#partBytes > 0 || this.#overflow) this.#finishLine(false, out);
    return out;
  }

  #add(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.#partBytes += bytes.length;
    if (this.#overflow) return;
    if (this.#partBytes > this.#maxLineBytes) {
      this.#overflow = true;
      this.#parts = [];
      return;
    }
    // Copied: the stream may reuse its buffer.
    this.#parts.push(Buffer.from(bytes));
  }

  #finishLine(complete: boolean, out: T[]): void {
    this.#line++;
    const bytes = this.#partBytes;
    const overflow = this.#overflow;
    const text = overflow ? '' : Buffer.concat(this.#parts, bytes).toString('utf8');
    this.#parts = [];
    this.#partBytes = 0;
    this.#overflow = false;
    if (overflow) {
      this.#note(
        'line_too_long',
        bytes,
        `is ${bytes} bytes, over the ${this.#maxLineBytes}-byte limit; skipped`,
      );
      return;
    }
    if (text.trim() === '') return;
    let value: unknown;
    let parsed = true;
    try {
      value = JSON.parse(text);
    } catch {
      parsed = false;
    }
    if (parsed && this.#accept(value)) {
      out.push(value);
      return;
    }
    if (!complete && !parsed) {
      this.#note(
        'torn_last_line',
        bytes,
        `is cut off (${bytes} bytes, no newline): the writer stopped mid-${this.#what} (killed or crashed) or is still writing it; skipped`,
      );
    } else if (!parsed) {
      this.#note(
        'invalid_line',
        bytes,
        `is not valid JSON (${bytes} bytes): a ${this.#what} cut off by a crash, after which writing went on on the next line; skipped`,
      );
    } else {
      this.#note('invalid_line', bytes, `is JSON but not a ${this.#what}; skipped`);
    }
  }

  #note(kind: JsonlNote['kind'], bytes: number, what: string): void {
    this.#onNote({
      file: this.file,
      line: this.#line,
      kind,
      bytes,
      message: `${this.file} line ${this.#line} ${what}`,
    });
  }
}

/** Each record of a JSONL file, in order, read in chunks (a big file is never held at once). A missing file has none. */
export async function* readJsonl<T = Record<string, unknown>>(
  file: string,
  options: JsonlOptions<T> = {},
): AsyncGenerator<T, void, undefined> {
  const parser = new JsonlParser<T>(file, options);
  try {
    for await (const chunk of fs.createReadStream(file, { highWaterMark: CHUNK_BYTES })) {
      yield* parser.push(chunk as Buffer);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  yield* parser.end();
}

/** `readJsonl`, synchronously: every record of the file (a missing file has none). */
export function readJsonlSync<T = Record<string, unknown>>(file: string, options: JsonlOptions<T> = {}): T[] {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const parser = new JsonlParser<T>(file, options);
  const records: T[] = [];
  try {
    const buffer = Buffer.alloc(CHUNK_BYTES);
    for (let n = fs.readSync(fd, buffer); n > 0; n = fs.readSync(fd, buffer)) {
      for (const record of parser.push(buffer.subarray(0, n))) records.push(record);
    }
  } finally {
    fs.closeSync(fd);
  }
  for (const record of parser.end()) records.push(record);
  return records;
}
