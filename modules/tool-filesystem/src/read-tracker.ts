/**
 * What this session has read, for `require_read_before_edit`: per real path,
 * the size, mtime and SHA-256 of the bytes the model last saw (through
 * read_file, or written itself through write_file / edit_file).
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

  record(real: string, record: ReadRecord): void {
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
