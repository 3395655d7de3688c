/**
 * Sessions on disk, laid out as Amplifier's CLI does:
 * `<AMPLIFIER_HOME>/projects/<slug>/sessions/<id>/` with `transcript.jsonl`
 * (one message per line, appended as the turn goes), `metadata.json`
 * (written atomically) and `events.jsonl` (written by hooks-logging).
 * What metadata.json keeps of a prompt or a config goes through the event
 * log's redactor (`storedText`, `storedData`); the transcript stays verbatim
 * (resume replays it).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Message, stringifyJson } from '@amplifier/core';
import { DEFAULTS, type JsonlNote, Redactor, readJsonlSync, sanitizeValue } from '@amplifier/hooks-logging';
import { writeAtomic } from './atomic-write.js';
import { CliError } from './errors.js';

let redactor: Redactor | undefined;

/** The event log's redactor (secret keys, secret values of `@amplifier/secrets`, secret environment values). */
function logRedactor(): Redactor {
  redactor ??= new Redactor(DEFAULTS.redaction);
  return redactor;
}

/** `text` as metadata.json keeps it (a session's name is its first prompt): secrets redacted as in events.jsonl. */
export function storedText(text: string): string {
  return logRedactor().redactString(text, new Set());
}

/** A JSON-safe copy of `value` as metadata.json keeps it (a child's config, its spawn request): redacted as in events.jsonl. */
export function storedData<T>(value: T): T {
  return sanitizeValue(value, { redactor: logRedactor() }).value as T;
}

const isString = (value: unknown): value is string => typeof value === 'string';
const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value !== '';

/**
 * A `metadata.json` as this CLI uses it, from what this CLI or Python
 * Amplifier's CLI wrote (`~/.amplifier/projects/<slug>/sessions/<id>/`).
 * Python's keys, with their meaning there:
 * - `working_dir`: the working directory (our `cwd`);
 * - `created` (ISO 8601, `+00:00` offset): creation time; with no `updated`,
 *   the last update is the file's modification time;
 * - `turn_count`, `name`, `model` (`"unknown"` means none), `parent_id`;
 * - `bundle` (`bundle:<name>`), `description`, `agent_name`, `trace_id`,
 *   `config`, `bundle_context`, `self_delegation_depth`: kept as found.
 * A session without `status` was not written by a running process here: it
 * is `completed`. Keys are never dropped: writing the metadata back keeps
 * Python's keys next to ours. Returns undefined when `raw` is not an object.
 */
export function readSessionMetadata(raw: unknown, dir: string): SessionMetadata | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const found = raw as Record<string, unknown>;
  const options = (
    typeof found.options === 'object' && found.options !== null ? found.options : {}
  ) as Record<string, unknown>;
  const cwd = nonEmpty(found.cwd) ? found.cwd : nonEmpty(found.working_dir) ? found.working_dir : '';
  let mtime: string | undefined;
  try {
    mtime = fs.statSync(path.join(dir, METADATA)).mtime.toISOString();
  } catch {
    mtime = undefined;
  }
  const created = nonEmpty(found.created) ? found.created : (mtime ?? new Date(0).toISOString());
  const model = nonEmpty(found.model) && found.model !== 'unknown' ? found.model : null;
  return {
    ...found,
    session_id: nonEmpty(found.session_id) ? found.session_id : path.basename(dir),
    created,
    updated: nonEmpty(found.updated) ? found.updated : (mtime ?? created),
    cwd,
    ...(cwd === '' ? {} : { working_dir: cwd }),
    parent_id: nonEmpty(found.parent_id) ? found.parent_id : null,
    provider: isString(found.provider) ? found.provider : '',
    model,
    plan: (typeof found.plan === 'object' && found.plan !== null ? found.plan : {}) as Record<
      string,
      unknown
    >,
    options: {
      // Options written by other versions are kept; the ones read here are normalised.
      ...options,
      plan_file: nonEmpty(options.plan_file) ? options.plan_file : null,
      bundle: nonEmpty(options.bundle) ? options.bundle : null,
      sources: Array.isArray(options.sources) ? options.sources.filter(isString) : null,
      provider: nonEmpty(options.provider) ? options.provider : null,
      model: nonEmpty(options.model) ? options.model : null,
      max_iterations: typeof options.max_iterations === 'number' ? options.max_iterations : null,
    },
    turn_count: typeof found.turn_count === 'number' ? found.turn_count : 0,
    status: nonEmpty(found.status) ? found.status : 'completed',
    name: nonEmpty(found.name) ? found.name : null,
    pid: typeof found.pid === 'number' ? found.pid : 0,
    cli_version: isString(found.cli_version) ? found.cli_version : '',
  };
}

/** Milliseconds of an ISO time for ordering ('Z' and '+00:00' alike); 0 when unreadable. */
function timeOf(iso: string): number {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? 0 : ms;
}

/** `AMPLIFIER_HOME`, else `~/.amplifier`. */
export function amplifierHome(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.AMPLIFIER_HOME || path.join(os.homedir(), '.amplifier'));
}

/** `/home/u/app` → `-home-u-app` (the same slug hooks-logging uses for events.jsonl). */
export function projectSlug(cwd: string): string {
  const slug = path.resolve(cwd).replace(/[/\\]/g, '-').replace(/:/g, '');
  return slug.startsWith('-') ? slug : `-${slug}`;
}

/**
 * What `metadata.json` holds. The file also carries the keys Python
 * Amplifier's CLI writes and reads (`working_dir`, `parent_id`, `bundle`...,
 * see `readSessionMetadata`), and keeps any other key it was found with.
 */
export interface SessionMetadata {
  session_id: string;
  created: string;
  updated: string;
  /** The working directory ('' when a session written elsewhere recorded none). */
  cwd: string;
  /** Python Amplifier's name for `cwd`; written with the same value. */
  working_dir?: string;
  /** The parent session (sub-sessions); null for a top-level session, as the reference writes it. */
  parent_id?: string | null;
  /** Python Amplifier's bundle (`bundle:foundation`), kept as found. */
  bundle?: string;
  provider: string;
  model: string | null;
  /** Module ids per section. */
  plan: Record<string, unknown>;
  /** How the run was set up, so `--resume` and `continue` rebuild the same plan. */
  options: {
    plan_file: string | null;
    /** The bundle of `--bundle` (a path made absolute, a name or a URI), and its `--source` mappings. */
    bundle?: string | null;
    sources?: string[] | null;
    provider: string | null;
    model: string | null;
    max_iterations: number | null;
  };
  turn_count: number;
  /** running, completed, cancelled, failed. */
  status: string;
  /** The first prompt, shortened. */
  name: string | null;
  /** The process that last ran the session (to tell a crashed run from a live one). */
  pid: number;
  cli_version: string;
}

/** A transcript read back: the messages, and the lines that were skipped (torn by a crash), with why. */
export interface Transcript {
  messages: Message[];
  skipped: number;
  notes: JsonlNote[];
}

function isMessage(value: unknown): value is Message {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as { role?: unknown }).role === 'string'
  );
}

const TRANSCRIPT = 'transcript.jsonl';
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
const METADATA = 'metadata.json';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** One session folder. */
export class SessionRecord {
  readonly dir: string;
  metadata: SessionMetadata;
  #fd: number | undefined;

  constructor(dir: string, metadata: SessionMetadata) {
    this.dir = dir;
    this.metadata = metadata;
  }

  get id(): string {
    return this.metadata.session_id;
  }

  get transcriptPath(): string {
    return path.join(this.dir, TRANSCRIPT);
  }

  get eventsPath(): string {
    return path.join(this.dir, 'events.jsonl');
  }

  /** The status to show: a `running` session whose process is gone was interrupted (a crash or kill -9). */
  get displayStatus(): string {
    const { status, pid } = this.metadata;
    if (status === 'running' && pid !== process.pid && (pid <= 0 || !isAlive(pid))) return 'interrupted';
    return status;
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
    writeAtomic(path.join(this.dir, METADATA), `${JSON.stringify(this.metadata, null, 2)}\n`);
  }

  /**
   * Append one message as one line with one write call, so a crash leaves at
   * most a torn last line. System and developer messages are not stored.
   */
  appendMessage(message: Message): void {
    if (message.role === 'system' || message.role === 'developer') return;
    if (this.#fd === undefined) {
      fs.mkdirSync(this.dir, { recursive: true });
      this.#fd = fs.openSync(this.transcriptPath, 'a+');
      const { size } = fs.fstatSync(this.#fd);
      if (size > 0) {
        const last = Buffer.alloc(1);
        fs.readSync(this.#fd, last, 0, 1, size - 1);
        // A torn line from a crash: start on a fresh line so every new record parses.
        if (last[0] !== 0x0a) fs.writeSync(this.#fd, '\n');
      }
    }
    fs.writeSync(this.#fd, `${stringifyJson(message)}\n`);
  }

  /**
   * Read the transcript line by line. A line that is not a whole message (a
   * torn last line after a crash or `kill -9`, or a torn line a later run
   * appended after) is skipped with a note; every whole message is returned.
   */
  readTranscript(): Transcript {
    const notes: JsonlNote[] = [];
    let messages: Message[];
    try {
      messages = readJsonlSync<Message>(this.transcriptPath, {
        accept: isMessage,
        what: 'message',
        onNote: (note) => notes.push(note),
      });
    } catch (error) {
      throw new CliError(
        `Cannot read the transcript ${this.transcriptPath}: ${(error as Error).message}. Check that the file is readable.`,
      );
    }
    return { messages, skipped: notes.length, notes };
  }

  /** Replace the transcript (atomically): `/clear`, and repairing a torn file on resume. */
  rewriteTranscript(messages: readonly Message[]): void {
    this.close();
    fs.mkdirSync(this.dir, { recursive: true });
    const kept = messages.filter((m) => m.role !== 'system' && m.role !== 'developer');
    writeAtomic(this.transcriptPath, kept.map((m) => `${stringifyJson(m)}\n`).join(''));
  }

  close(): void {
    if (this.#fd !== undefined) {
      fs.closeSync(this.#fd);
      this.#fd = undefined;
    }
  }
}

/** The sessions under one AMPLIFIER_HOME. */
export class SessionStore {
  readonly home: string;

  constructor(home: string = amplifierHome()) {
    this.home = home;
  }

  projectDir(cwd: string): string {
    return path.join(this.home, 'projects', projectSlug(cwd), 'sessions');
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
        JSON.parse(fs.readFileSync(path.join(dir, METADATA), 'utf8')),
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
}
