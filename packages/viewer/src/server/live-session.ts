/**
 * The live view of one session: its `events.jsonl` and `transcript.jsonl`
 * followed from the offsets the page got with its snapshot, and its
 * metadata, each change pushed to the page as a server-sent event. Changes
 * are noticed with `fs.watch` on the folder, and by polling as a fallback
 * (some file systems do not report changes).
 */
import fs from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { isLogRecord, isTranscriptMessage, JsonlParser, SESSION_FILES } from '@amplifier/sessions';
import type { EventRecord } from '../model/records.js';
import type { LiveUpdate, SessionSummary } from '../model/summary.js';
import type { SessionFolder } from '../reader/session-folder.js';
import { trimValue } from '../reader/trim.js';
import { JsonlTail } from './jsonl-tail.js';

export interface LiveOptions {
  folder: SessionFolder;
  offsets: { events: number; transcript: number };
  summary: () => Promise<SessionSummary>;
  pollMs: number;
}

export function streamSession(response: ServerResponse, options: LiveOptions): () => void {
  const { folder } = options;
  const problems: string[] = [];
  const onNote = (note: { message: string; kind: string }): void => {
    if (note.kind !== 'torn_last_line') problems.push(note.message);
  };
  const events = new JsonlTail<EventRecord>(
    path.join(folder.dir, SESSION_FILES.events),
    options.offsets.events,
    () => new JsonlParser<EventRecord>('events.jsonl', { accept: isLogRecord, what: 'log record', onNote }),
  );
  const transcript = new JsonlTail<Record<string, unknown>>(
    path.join(folder.dir, SESSION_FILES.transcript),
    options.offsets.transcript,
    () =>
      new JsonlParser<Record<string, unknown>>('transcript.jsonl', {
        accept: isTranscriptMessage,
        what: 'message',
        onNote,
      }),
  );
  let lastStatus = '';
  let closed = false;
  let checking = false;
  let again = false;

  const send = (update: LiveUpdate): void => {
    if (!closed) response.write(`data: ${JSON.stringify(update)}\n\n`);
  };

  const check = async (): Promise<void> => {
    if (closed) return;
    if (checking) {
      again = true;
      return;
    }
    checking = true;
    try {
      do {
        again = false;
        const records = events.read();
        if (records.length > 0)
          send({ kind: 'events', records: records.map((r) => trimValue(r)), offset: events.offset });
        const messages = transcript.read();
        if (messages.length > 0) {
          send({ kind: 'messages', messages: messages.map((m) => trimValue(m)), offset: transcript.offset });
        }
        for (const text of problems.splice(0)) send({ kind: 'problem', text });
        // Cheap when nothing changed: the reader caches summaries by the files' size and time.
        const summary = await options.summary();
        const key = JSON.stringify([summary.status, summary.events, summary.updated]);
        if (key !== lastStatus) {
          lastStatus = key;
          send({ kind: 'summary', summary });
        }
      } while (again && !closed);
    } catch (error) {
      send({ kind: 'problem', text: `reading the session failed: ${(error as Error).message}` });
    } finally {
      checking = false;
    }
  };

  let watcher: fs.FSWatcher | undefined;
  try {
    watcher = fs.watch(folder.dir, () => void check());
    watcher.on('error', () => watcher?.close());
  } catch {
    watcher = undefined;
  }
  const timer = setInterval(() => void check(), options.pollMs);
  timer.unref();
  void check();
  return () => {
    closed = true;
    clearInterval(timer);
    watcher?.close();
  };
}
