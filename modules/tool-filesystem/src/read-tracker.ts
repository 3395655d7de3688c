/**
 * What this session has read, for `require_read_before_edit`: per real path,
 * the size, mtime and SHA-256 of the bytes the model last saw (through
 * read_file, or written itself through write_file / edit_file).
 *
 * The session's own writes are recorded as they happen (under the file's
 * lock, after the rename), so an edit that follows another edit of this
 * session is never stale. A read that was already under way when the session
 * wrote the file saw older bytes than the write recorded: it is not recorded
 * (the write's record is newer). Anything else that changes the file (another
 * process, another session) makes the next edit stale.
 */
import { createHash } from 'node:crypto';

export interface ReadRecord {
  size: number;
  mtimeMs: number;
  sha256: string;
  /** False when read_file stopped at max_read_bytes (the hash covers a prefix only). */
  complete: boolean;
}

/** SHA-256 of some bytes, hex. */
export function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export class ReadTracker {
  readonly #records = new Map<string, ReadRecord>();
  /** Per real path, the number of the session's last write of it (counted over all paths). */
  readonly #writes = new Map<string, number>();
  #lastWrite = 0;

  /** Call before a read opens `real`; pass the result to `recordRead`. */
  readStarted(real: string): number {
    return this.#writes.get(real) ?? 0;
  }

  /** What a read that began at `started` saw; ignored if the session wrote the file since. */
  recordRead(real: string, started: number, record: ReadRecord): void {
    if ((this.#writes.get(real) ?? 0) !== started) return;
    this.#records.set(real, record);
  }

  /** What the session itself just wrote to `real` (call it under the file's lock). */
  recordWrite(real: string, record: ReadRecord): void {
    this.#writes.set(real, ++this.#lastWrite);
    this.#records.set(real, record);
  }

  get(real: string): ReadRecord | undefined {
    return this.#records.get(real);
  }

  /**
   * Why an edit of `real` must be refused, or undefined when the model's view
   * is current. Content decides: a file whose size and hash match what was
   * read is current even if its mtime moved (`touch`); mtime and size are the
   * cheap first check.
   */
  staleReason(real: string, now: { size: number; mtimeMs: number; bytes: Uint8Array }): string | undefined {
    const seen = this.#records.get(real);
    if (seen === undefined) return 'has not been read in this session';
    if (!seen.complete) return 'was only read in part (it is larger than max_read_bytes)';
    if (seen.size !== now.size) return 'has changed on disk since it was read (its size changed)';
    if (seen.sha256 !== sha256(now.bytes)) return 'has changed on disk since it was read';
    seen.mtimeMs = now.mtimeMs; // same content, maybe a newer mtime (touch): still current
    return undefined;
  }
}
