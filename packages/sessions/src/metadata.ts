/**
 * `metadata.json`: what this CLI writes and what Python Amplifier's CLI
 * writes, read into one shape that keeps every key it was found with; the
 * status a reader should show (a `running` session whose process is gone
 * was interrupted); and the redaction applied to what the file keeps of a
 * prompt or a config (`storedText`, `storedData`: the event log's rules).
 */
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_REDACTION, type Redactor, sharedRedactor } from '@amplifier/secrets';
import { SESSION_FILES } from './paths.js';
import { sanitizeValue } from './record.js';

const METADATA = SESSION_FILES.metadata;

let redactor: Redactor | undefined;

/** The redactor of what a session folder keeps outside the event log: the event log's default one (shared). */
function storeRedactor(): Redactor {
  redactor ??= sharedRedactor(DEFAULT_REDACTION);
  return redactor;
}

/** `text` as metadata.json keeps it (a session's name is its first prompt): secrets redacted as in events.jsonl. */
export function storedText(text: string): string {
  return storeRedactor().redactString(text, new Set());
}

/** A JSON-safe copy of `value` as metadata.json keeps it (a child's config, its spawn request): redacted as in events.jsonl. */
export function storedData<T>(value: T): T {
  return sanitizeValue(value, { redactor: storeRedactor() }).value as T;
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

/** What `readMetadataFile` found: the object (null when there is none to read) and, if so, why in one sentence. */
export interface MetadataRead {
  metadata: Record<string, unknown> | null;
  problem: string | null;
}

/**
 * The `metadata.json` of the session folder `dir` as found, never thrown
 * for: a missing, unreadable, invalid or non-object file is a `problem`.
 */
export function readMetadataFile(dir: string): MetadataRead {
  const file = path.join(dir, METADATA);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      metadata: null,
      problem:
        code === 'ENOENT'
          ? 'metadata.json is missing: status, model and name come from the event log where it has them'
          : `metadata.json cannot be read (${code ?? (error as Error).message})`,
    };
  }
  try {
    const raw: unknown = JSON.parse(text);
    if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
      return { metadata: raw as Record<string, unknown>, problem: null };
    }
    return { metadata: null, problem: 'metadata.json is not a JSON object; it is ignored' };
  } catch (error) {
    return {
      metadata: null,
      problem: `metadata.json is not valid JSON (${(error as Error).message}); it is ignored`,
    };
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The status to show for a session whose metadata says `status` and `pid`:
 * `running` with a process that is gone (not this one, not alive) is
 * `interrupted` (a crash or kill -9); anything else as written.
 */
export function displayStatus(status: string, pid: number): string {
  if (status === 'running' && pid !== process.pid && (pid <= 0 || !isAlive(pid))) return 'interrupted';
  return status;
}
