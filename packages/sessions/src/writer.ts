/**
 * One writer per log file: a bounded queue of whole lines or captured events
 * (serialised by `format` when their batch is written, off the emitting call),
 * drained in batches (one `write()` per batch) by a single async loop, with rotation at a size
 * bound and a torn-tail repair before appending, so every record starts on a
 * fresh line. Write errors are reported once and never thrown; records that
 * could not be written are counted and the count is logged when writing works
 * again.
 */
import { type FileHandle, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { CapturedEvent } from './capture.js';
import { LOG_SCHEMA } from './record.js';

/** A queued entry: a whole line, or an event whose line `format` makes in the batch. */
export type QueuedEntry = string | CapturedEvent;

/** The bounds of a `LogWriter`'s queue and file, and where it reports problems. */
export interface WriterOptions {
  maxRecords: number;
  maxBytes: number;
  fullWaitMs: number;
  maxFileBytes: number | null;
  maxFiles: number;
  /** Called once per failure streak with a human-readable problem. */
  onError: (message: string) => void;
  /** Called when the file, on first open, ends in a line cut off by an earlier writer (a crash). */
  onNote?: (message: string) => void;
  /** The line of a captured event (undefined: not written, e.g. below the level); needed to push events. */
  format?: (event: CapturedEvent) => string | undefined;
}

const sizeOf = (entry: QueuedEntry): number => (typeof entry === 'string' ? entry.length : entry.bytes);

/**
 * The writer of one log file (see the file's comment): `push` queues a line or a captured event
 * without waiting on disk (unless the queue is full), `flush` and `close` write what is queued.
 */
export class LogWriter {
  readonly file: string;
  readonly #options: WriterOptions;
  #queue: QueuedEntry[] = [];
  #queuedBytes = 0;
  #handle: FileHandle | undefined;
  #size = 0;
  /** The file may end in a partial line: start the next write with a newline. */
  #needsNewline = false;
  #draining: Promise<void> | undefined;
  #waiters: (() => void)[] = [];
  #failing = false;
  #closed = false;
  /** The file was opened before (a later open finds the writer's own torn tail, if any). */
  #opened = false;
  /** Records accepted by `push` but never written (queue full or write failed). */
  dropped = 0;
  #droppedReported = 0;
  #lastError = '';
  /** Lines written so far (including the writer's own `logging:dropped` records). */
  written = 0;

  constructor(file: string, options: WriterOptions) {
    this.file = file;
    this.#options = options;
  }

  /**
   * Queue one line, or one captured event (its line is made when its batch is
   * written). Returns undefined when it was queued at once; when the
   * queue is full, a promise that settles once the line is queued, or dropped
   * after `fullWaitMs`.
   */
  push(line: QueuedEntry): Promise<void> | undefined {
    if (this.#closed) {
      this.dropped++;
      return undefined;
    }
    if (this.#hasRoom(line)) {
      this.#enqueue(line);
      return undefined;
    }
    if (this.#options.fullWaitMs <= 0) {
      this.dropped++;
      return undefined;
    }
    return this.#waitForRoom(line);
  }

  #hasRoom(line: QueuedEntry): boolean {
    if (this.#queue.length === 0) return true;
    return (
      this.#queue.length < this.#options.maxRecords &&
      this.#queuedBytes + sizeOf(line) <= this.#options.maxBytes
    );
  }

  #enqueue(line: QueuedEntry): void {
    this.#queue.push(line);
    this.#queuedBytes += sizeOf(line);
    if (this.#draining === undefined) {
      this.#draining = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.#drain());
    }
  }

  async #waitForRoom(line: QueuedEntry): Promise<void> {
    const deadline = Date.now() + this.#options.fullWaitMs;
    while (!this.#hasRoom(line)) {
      const remaining = deadline - Date.now();
      if (remaining <= 0 || this.#closed) {
        this.dropped++;
        return;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    this.#enqueue(line);
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue;
        this.#queue = [];
        this.#queuedBytes = 0;
        const waiters = this.#waiters;
        this.#waiters = [];
        for (const wake of waiters) wake();
        await this.#writeBatch(this.#lines(batch));
      }
    } finally {
      this.#draining = undefined;
    }
  }

  /** The lines of a batch: captured events serialised (and redacted) here, in order. */
  #lines(batch: QueuedEntry[]): string[] {
    const lines: string[] = [];
    for (const entry of batch) {
      if (typeof entry === 'string') {
        lines.push(entry);
        continue;
      }
      try {
        const line = this.#options.format?.(entry);
        if (line !== undefined) lines.push(line);
      } catch (error) {
        // `buildRecord` never throws; should a formatter fail, the record is counted, not lost silently.
        this.dropped++;
        this.#lastError = (error as Error)?.message ?? String(error);
      }
    }
    return lines;
  }

  async #writeBatch(records: string[]): Promise<void> {
    let lines = records;
    let report = 0;
    let done = 0;
    try {
      await this.#ensureOpen();
      if (this.dropped > this.#droppedReported) {
        report = this.dropped - this.#droppedReported;
        lines = [droppedRecord(report, this.#lastError), ...records];
      }
      // Rotation happens only between records; a record is never split across files.
      while (done < lines.length) {
        const room =
          this.#options.maxFileBytes === null
            ? Number.POSITIVE_INFINITY
            : this.#options.maxFileBytes - this.#size;
        let end = lines.length;
        // A UTF-16 unit is at most 3 bytes of UTF-8: when the rest fits even so, no line is measured.
        if (charsFrom(lines, done) * 3 > room) {
          end = done;
          let bytes = 0;
          while (end < lines.length) {
            const next = Buffer.byteLength(lines[end] as string);
            if (end > done && bytes + next > room) break;
            bytes += next;
            end++;
          }
          if (bytes > room && this.#size > 0) {
            await this.#rotate();
            continue;
          }
        }
        await this.#write((done === 0 && end === lines.length ? lines : lines.slice(done, end)).join(''));
        this.written += end - done;
        done = end;
      }
      this.#droppedReported += report;
      this.#failing = false;
    } catch (error) {
      // Lines of this batch that did not make it (the drop notice, if it was among them, is re-sent later).
      const notWritten = lines.length - done;
      this.dropped += report > 0 && done === 0 ? notWritten - 1 : notWritten;
      if (report > 0 && done > 0) this.#droppedReported += report;
      this.#needsNewline = true;
      this.#lastError = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      if (!this.#failing) {
        this.#failing = true;
        this.#options.onError(
          `hooks-logging: cannot write ${this.file}: ${(error as Error).message}. Events are not being logged; they are counted and the count is written when writing works again.`,
        );
      }
      await this.#closeHandle();
    }
  }

  async #write(text: string): Promise<void> {
    const handle = this.#handle as FileHandle;
    const data = this.#needsNewline ? `\n${text}` : text;
    const buffer = Buffer.from(data);
    // Mark the tail unsafe until the whole buffer is down: a failure in between leaves a partial line.
    this.#needsNewline = true;
    let offset = 0;
    while (offset < buffer.length) {
      const { bytesWritten } = await handle.write(buffer, offset, buffer.length - offset);
      offset += bytesWritten;
      this.#size += bytesWritten;
    }
    this.#needsNewline = false;
  }

  async #ensureOpen(): Promise<void> {
    if (this.#handle !== undefined) return;
    await mkdir(path.dirname(this.file), { recursive: true });
    const handle = await open(this.file, 'a+');
    try {
      const { size } = await handle.stat();
      this.#size = size;
      if (size > 0) {
        const last = Buffer.alloc(1);
        await handle.read(last, 0, 1, size - 1);
        this.#needsNewline = last[0] !== 0x0a;
        if (this.#needsNewline && !this.#opened) {
          this.#options.onNote?.(
            `hooks-logging: ${this.file} ends in a record cut off by an earlier writer (a crash or kill); logging goes on on a fresh line and readers skip the cut-off line.`,
          );
        }
      } else {
        this.#needsNewline = false;
      }
    } catch (error) {
      await handle.close().catch(() => {});
      throw error;
    }
    this.#handle = handle;
    this.#opened = true;
  }

  async #rotate(): Promise<void> {
    await this.#closeHandle();
    const { dir, name, ext } = path.parse(this.file);
    const numbered = (n: number): string => path.join(dir, `${name}.${n}${ext}`);
    if (this.#options.maxFiles <= 1) {
      await rm(this.file, { force: true });
    } else {
      await rm(numbered(this.#options.maxFiles - 1), { force: true });
      for (let n = this.#options.maxFiles - 2; n >= 1; n--) {
        if (await exists(numbered(n))) await rename(numbered(n), numbered(n + 1));
      }
      await rename(this.file, numbered(1));
    }
    await this.#ensureOpen();
  }

  async #closeHandle(): Promise<void> {
    const handle = this.#handle;
    this.#handle = undefined;
    await handle?.close().catch(() => {});
  }

  /** Resolves when everything queued so far has been written (or failed). */
  async flush(): Promise<void> {
    while (this.#draining !== undefined || this.#queue.length > 0) {
      if (this.#draining === undefined) this.#draining = this.#drain();
      await this.#draining;
    }
  }

  /** Flush, write the drop count if any, and close. Further pushes are counted as dropped. */
  async close(): Promise<void> {
    await this.flush();
    this.#closed = true;
    for (const wake of this.#waiters.splice(0)) wake();
    if (this.dropped > this.#droppedReported && !this.#failing) {
      await this.#writeBatch([]);
    }
    await this.#closeHandle();
  }
}

/** UTF-16 units in `lines` from index `start` on. */
function charsFrom(lines: readonly string[], start: number): number {
  let chars = 0;
  for (let i = start; i < lines.length; i++) chars += (lines[i] as string).length;
  return chars;
}

function droppedRecord(count: number, reason: string): string {
  const record = {
    ts: new Date().toISOString(),
    lvl: 'WARN',
    schema: LOG_SCHEMA,
    event: 'logging:dropped',
    data: { dropped: count, ...(reason && { reason }) },
  };
  return `${JSON.stringify(record)}\n`;
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}
