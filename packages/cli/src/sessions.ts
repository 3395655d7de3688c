/**
 * Sessions on disk, laid out as Amplifier's CLI does:
 * `<AMPLIFIER_HOME>/projects/<slug>/sessions/<id>/` with `transcript.jsonl`
 * (one message per line, appended as the turn goes), `metadata.json`
 * (written atomically) and `events.jsonl` (written by hooks-logging).
 * The format (paths, metadata keys ours and Python Amplifier's, torn-line
 * tolerant reading, the redaction of what metadata.json keeps of a prompt or
 * a config) is `@amplifier/sessions`'; this file is the CLI's store over it.
 * The transcript stays verbatim (resume replays it).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Message } from '@amplifier/core';
import {
  amplifierHome,
  displayStatus,
  type JsonlNote,
  projectSessionsDir,
  readSessionMetadata,
  readTranscript,
  SESSION_FILES,
  type SessionMetadata,
  TranscriptAppender,
  transcriptText,
} from '@amplifier/sessions';
import { writeAtomic } from './atomic-write.js';
import { CliError } from './errors.js';

export type { SessionMetadata } from '@amplifier/sessions';
export { amplifierHome, projectSlug, readSessionMetadata, storedData, storedText } from '@amplifier/sessions';

/** Milliseconds of an ISO time for ordering ('Z' and '+00:00' alike); 0 when unreadable. */
function timeOf(iso: string): number {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? 0 : ms;
}

/** A transcript read back: the messages, and the lines that were skipped (torn by a crash), with why. */
export interface Transcript {
  messages: Message[];
  skipped: number;
  notes: JsonlNote[];
}

/** The result given to a tool call that never got one (the process died mid-call). */
export const INTERRUPTED_RESULT =
  'Error: the session ended before this tool call finished (the process was interrupted); its result is unknown.';

/**
 * Give every tool call of an assistant message a result: a crash between the
 * call and its result leaves the call dangling, which most model APIs reject.
 */
export function repairToolCalls(messages: readonly Message[]): { messages: Message[]; repaired: number } {
  const out: Message[] = [];
  let repaired = 0;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    out.push(message);
    if (message.role !== 'assistant' || !message.tool_calls?.length) continue;
    const answered = new Set<string>();
    let j = i + 1;
    for (; j < messages.length && messages[j]!.role === 'tool'; j++) {
      answered.add(messages[j]!.tool_call_id ?? '');
      out.push(messages[j]!);
    }
    for (const call of message.tool_calls) {
      if (answered.has(call.id)) continue;
      out.push({ role: 'tool', tool_call_id: call.id, content: INTERRUPTED_RESULT });
      repaired++;
    }
    i = j - 1;
  }
  return { messages: out, repaired };
}

/** One session folder. */
export class SessionRecord {
  readonly dir: string;
  metadata: SessionMetadata;
  #transcript: TranscriptAppender | undefined;

  constructor(dir: string, metadata: SessionMetadata) {
    this.dir = dir;
    this.metadata = metadata;
  }

  get id(): string {
    return this.metadata.session_id;
  }

  get transcriptPath(): string {
    return path.join(this.dir, SESSION_FILES.transcript);
  }

  get eventsPath(): string {
    return path.join(this.dir, SESSION_FILES.events);
  }

  /** The status to show: a `running` session whose process is gone was interrupted (a crash or kill -9). */
  get displayStatus(): string {
    return displayStatus(this.metadata.status, this.metadata.pid);
  }

  /** Merge `patch` into the metadata, stamp `updated`, and write it atomically (temp file + rename). */
  saveMetadata(patch: Partial<SessionMetadata> = {}): void {
    const merged = { ...this.metadata, ...patch };
    // The reference's keys next to ours: Python Amplifier reads `working_dir` and `parent_id`.
    this.metadata = {
      ...merged,
      ...(merged.cwd === '' ? {} : { working_dir: merged.cwd }),
      parent_id: merged.parent_id ?? null,
      updated: new Date().toISOString(),
    };
    fs.mkdirSync(this.dir, { recursive: true });
    writeAtomic(path.join(this.dir, SESSION_FILES.metadata), `${JSON.stringify(this.metadata, null, 2)}\n`);
  }

  /**
   * Append one message as one line with one write call, so a crash leaves at
   * most a torn last line. System and developer messages are not stored.
   */
  appendMessage(message: Message): void {
    if (this.#transcript === undefined) {
      fs.mkdirSync(this.dir, { recursive: true });
      this.#transcript = new TranscriptAppender(this.transcriptPath);
    }
    this.#transcript.append(message);
  }

  /**
   * Read the transcript line by line. A line that is not a whole message (a
   * torn last line after a crash or `kill -9`, or a torn line a later run
   * appended after) is skipped with a note; every whole message is returned.
   */
  readTranscript(): Transcript {
    let read: { messages: Message[]; notes: JsonlNote[] };
    try {
      read = readTranscript<Message>(this.transcriptPath);
    } catch (error) {
      throw new CliError(
        `Cannot read the transcript ${this.transcriptPath}: ${(error as Error).message}. Check that the file is readable.`,
      );
    }
    return { messages: read.messages, skipped: read.notes.length, notes: read.notes };
  }

  /** Replace the transcript (atomically): `/clear`, and repairing a torn file on resume. */
  rewriteTranscript(messages: readonly Message[]): void {
    this.close();
    fs.mkdirSync(this.dir, { recursive: true });
    writeAtomic(this.transcriptPath, transcriptText(messages));
  }

  close(): void {
    this.#transcript?.close();
    this.#transcript = undefined;
  }
}

/** The sessions under one AMPLIFIER_HOME. */
export class SessionStore {
  readonly home: string;

  constructor(home: string = amplifierHome()) {
    this.home = home;
  }

  projectDir(cwd: string): string {
    return projectSessionsDir(this.home, cwd);
  }

  /** A new session folder with its first metadata written. */
  create(metadata: SessionMetadata): SessionRecord {
    const record = new SessionRecord(path.join(this.projectDir(metadata.cwd), metadata.session_id), metadata);
    record.saveMetadata();
    return record;
  }

  #read(dir: string): SessionRecord | undefined {
    try {
      const metadata = readSessionMetadata(
        JSON.parse(fs.readFileSync(path.join(dir, SESSION_FILES.metadata), 'utf8')),
        dir,
      );
      return metadata === undefined ? undefined : new SessionRecord(dir, metadata);
    } catch {
      return undefined;
    }
  }

  #dirs(sessionsDir: string): string[] {
    try {
      return fs.readdirSync(sessionsDir).map((name) => path.join(sessionsDir, name));
    } catch {
      return [];
    }
  }

  /** Sessions of the project at `cwd` (every project when `cwd` is undefined), newest first. */
  list(cwd?: string): SessionRecord[] {
    const sessionDirs =
      cwd !== undefined
        ? [this.projectDir(cwd)]
        : this.#dirs(path.join(this.home, 'projects')).map((p) => path.join(p, 'sessions'));
    const records = sessionDirs
      .flatMap((d) => this.#dirs(d))
      .map((d) => this.#read(d))
      .filter((r): r is SessionRecord => r !== undefined);
    return records.sort(
      (a, b) =>
        timeOf(b.metadata.updated) - timeOf(a.metadata.updated) ||
        timeOf(b.metadata.created) - timeOf(a.metadata.created),
    );
  }

  /** The most recently updated session of the project at `cwd`. */
  latest(cwd: string): SessionRecord | undefined {
    return this.list(cwd)[0];
  }

  /**
   * A session by id or unique id prefix: this project's first, then any
   * project's. Throws a CliError when none or several match.
   */
  find(idOrPrefix: string, cwd: string): SessionRecord {
    for (const scope of [cwd, undefined]) {
      const matches = this.list(scope).filter((r) => r.id.startsWith(idOrPrefix));
      const exact = matches.find((r) => r.id === idOrPrefix);
      if (exact) return exact;
      if (matches.length === 1) return matches[0]!;
      if (matches.length > 1) {
        throw new CliError(
          `Session id '${idOrPrefix}' is ambiguous: ${matches.map((m) => m.id).join(', ')}. Give more characters.`,
        );
      }
    }
    throw new CliError(
      `No session '${idOrPrefix}' under ${path.join(this.home, 'projects')}. List them with: amplifier session list --all`,
    );
  }

  /** Remove a session folder (transcript, metadata, events). */
  delete(record: SessionRecord): void {
    record.close();
    const root = path.join(this.home, 'projects');
    if (!path.resolve(record.dir).startsWith(root + path.sep)) {
      throw new CliError(`Refusing to delete ${record.dir}: not inside ${root}`);
    }
    fs.rmSync(record.dir, { recursive: true, force: true });
  }

  /**
   * Remove what a session that never started wrote (a run or `mcp serve`
   * whose modules failed to load: hooks-logging may have opened its event
   * log): the folder of `sessionId` under `cwd`'s project, only when it holds
   * no `metadata.json` (a recorded or resumed session is never touched).
   */
  discardUnrecorded(cwd: string, sessionId: string): void {
    const dir = path.join(this.projectDir(cwd), sessionId);
    const root = path.join(this.home, 'projects');
    if (!path.resolve(dir).startsWith(root + path.sep) || path.basename(dir) !== sessionId) return;
    if (fs.existsSync(path.join(dir, 'metadata.json'))) return;
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
