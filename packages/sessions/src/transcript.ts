/**
 * `transcript.jsonl`: one message per line (`{role, content, ...}`),
 * appended as the turn goes with one write per message, so a crash leaves at
 * most a torn last line; read back line by line, skipping with a note what
 * is not a whole message. System and developer messages are not stored (the
 * session rebuilds them).
 */
import fs from 'node:fs';
import { stringifyJson } from '@amplifier/core';
import { type JsonlNote, readJsonlSync } from './jsonl.js';

/** A transcript line: a JSON object with a string `role` (ours and Python Amplifier's). */
export interface TranscriptMessage {
  role: string;
  [key: string]: unknown;
}

/** True for a JSON object with a string `role`. */
export function isTranscriptMessage(value: unknown): value is TranscriptMessage {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as { role?: unknown }).role === 'string'
  );
}

/** True for the messages a transcript does not keep (`system`, `developer`). */
export function isUnstoredRole(role: string): boolean {
  return role === 'system' || role === 'developer';
}

/**
 * Every whole message of the transcript at `file`, in order, and a note per
 * skipped line (a torn last line, a torn line a later run appended after,
 * a line that is not a message). A missing file has none; other read errors
 * are thrown.
 */
export function readTranscript<M extends { role: string } = TranscriptMessage>(
  file: string,
): { messages: M[]; notes: JsonlNote[] } {
  const notes: JsonlNote[] = [];
  const messages = readJsonlSync<M>(file, {
    accept: isTranscriptMessage as (value: unknown) => value is M,
    what: 'message',
    onNote: (note) => notes.push(note),
  });
  return { messages, notes };
}

/** The transcript's text for `messages` (system and developer left out): for writing it whole. */
export function transcriptText<M extends { role: string }>(messages: readonly M[]): string {
  let text = '';
  for (const message of messages) if (!isUnstoredRole(message.role)) text += `${stringifyJson(message)}\n`;
  return text;
}

/**
 * Appends messages to one transcript file. The file is opened on the first
 * append; if an earlier writer left it ending mid-line (a crash), the first
 * append starts on a fresh line, so every new message parses.
 */
export class TranscriptAppender {
  readonly file: string;
  #fd: number | undefined;

  constructor(file: string) {
    this.file = file;
  }

  /** Write `message` as one line with one write call (system and developer messages are skipped). */
  append<M extends { role: string }>(message: M): void {
    if (isUnstoredRole(message.role)) return;
    if (this.#fd === undefined) {
      this.#fd = fs.openSync(this.file, 'a+');
      const { size } = fs.fstatSync(this.#fd);
      if (size > 0) {
        const last = Buffer.alloc(1);
        fs.readSync(this.#fd, last, 0, 1, size - 1);
        if (last[0] !== 0x0a) fs.writeSync(this.#fd, '\n');
      }
    }
    fs.writeSync(this.#fd, `${stringifyJson(message)}\n`);
  }

  /** Close the file (a later append opens it again). */
  close(): void {
    if (this.#fd !== undefined) {
      fs.closeSync(this.#fd);
      this.#fd = undefined;
    }
  }
}
