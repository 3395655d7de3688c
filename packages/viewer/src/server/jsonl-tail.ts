/**
 * Follows a JSONL file from a byte offset: `read()` returns the whole
 * records written since the last call (a line still being written waits in
 * the parser until its newline arrives). A file that shrank (rewritten,
 * rotated) is read again from its start.
 */
import fs from 'node:fs';
import type { JsonlParser } from '@amplifier/sessions';

const CHUNK = 256 * 1024;

export class JsonlTail<T> {
  readonly file: string;
  offset: number;
  readonly #make: () => JsonlParser<T>;
  #parser: JsonlParser<T>;

  constructor(file: string, offset: number, makeParser: () => JsonlParser<T>) {
    this.file = file;
    this.offset = offset;
    this.#make = makeParser;
    this.#parser = makeParser();
  }

  /** The records appended since the last read; [] when nothing changed or the file is gone. */
  read(): T[] {
    let fd: number;
    try {
      fd = fs.openSync(this.file, 'r');
    } catch {
      return [];
    }
    const out: T[] = [];
    try {
      const { size } = fs.fstatSync(fd);
      if (size < this.offset) {
        this.offset = 0;
        this.#parser = this.#make();
      }
      const buffer = Buffer.alloc(CHUNK);
      while (this.offset < size) {
        const n = fs.readSync(fd, buffer, 0, Math.min(CHUNK, size - this.offset), this.offset);
        if (n === 0) break;
        this.offset += n;
        for (const record of this.#parser.push(buffer.subarray(0, n))) out.push(record);
      }
    } finally {
      fs.closeSync(fd);
    }
    return out;
  }
}
