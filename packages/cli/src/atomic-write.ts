/**
 * Replace a file's content in one step (temp file in the same folder, then
 * rename): a reader sees the old content or the new one, never a part. The
 * file's mode is kept; the temp file is removed when writing fails.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';

export function writeAtomic(file: string, text: string): void {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const mode = fs.statSync(file, { throwIfNoEntry: false })?.mode;
  try {
    fs.writeFileSync(temp, text, mode === undefined ? undefined : { mode: mode & 0o7777 });
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}
