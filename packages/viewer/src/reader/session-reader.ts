/**
 * Reads a session folder for the viewer: the metadata (this CLI's keys or
 * Python Amplifier's), the transcript and the event log, folded into a
 * summary. Nothing here throws for bad content: a missing `metadata.json`, a
 * truncated line, a record that is not one, a log too big to hold are each
 * a problem in the summary, and what can be read is shown.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  displayStatus,
  isLogRecord,
  isTranscriptMessage,
  type JsonlNote,
  readMetadataFile,
  storedText,
} from '@amplifier/sessions';
import type { EventRecord } from '../model/records.js';
import { SessionFold } from '../model/session-fold.js';
import type { SessionDetail, SessionSummary } from '../model/summary.js';
import { readJsonlSnapshot } from './jsonl-snapshot.js';
import type { SessionFolder } from './session-folder.js';
import { trimValue } from './trim.js';

export interface ReadLimits {
  /** Event records kept for a page; the rest are counted and reported. */
  maxEvents: number;
  /** Messages kept for a page. */
  maxMessages: number;
}

export const DEFAULT_LIMITS: ReadLimits = { maxEvents: 50_000, maxMessages: 20_000 };

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value !== '';

function noteText(note: JsonlNote): string {
  // The parser's message starts with the file's path: the folder is the session's, the name is enough.
  return note.message.startsWith(note.file)
    ? `${path.basename(note.file)}${note.message.slice(note.file.length)}`
    : note.message;
}

/** The summary from what was read; `fold` holds the event log. */
export function summarize(
  folder: SessionFolder,
  metadata: Record<string, unknown> | null,
  fold: SessionFold,
  problems: string[],
): SessionSummary {
  const m = metadata ?? {};
  const totals = fold.totals();
  const status = displayStatus(
    nonEmpty(m.status) ? m.status : (fold.endStatus ?? (metadata !== null ? 'completed' : 'unknown')),
    typeof m.pid === 'number' ? m.pid : 0,
  );
  const created = nonEmpty(m.created)
    ? m.created
    : fold.start !== null
      ? new Date(fold.start).toISOString()
      : null;
  const updated = nonEmpty(m.updated)
    ? m.updated
    : fold.end !== null
      ? new Date(fold.end).toISOString()
      : null;
  let durationMs: number | null = null;
  if (fold.start !== null && fold.end !== null) durationMs = fold.end - fold.start;
  else if (created !== null && updated !== null)
    durationMs = Math.max(0, Date.parse(updated) - Date.parse(created)) || null;
  const model = nonEmpty(m.model) && m.model !== 'unknown' ? m.model : fold.model;
  return {
    id: nonEmpty(m.session_id) ? m.session_id : folder.id,
    project: folder.project,
    parentId: nonEmpty(m.parent_id) ? m.parent_id : null,
    agent: nonEmpty(m.agent_name) ? m.agent_name : null,
    // The name is the first prompt's start: it may hold what the user pasted.
    name: nonEmpty(m.name) ? storedText(m.name) : nonEmpty(m.description) ? storedText(m.description) : null,
    status,
    model,
    provider: nonEmpty(m.provider) ? m.provider : (fold.calls[0]?.provider ?? null),
    cwd: nonEmpty(m.cwd) ? m.cwd : nonEmpty(m.working_dir) ? m.working_dir : null,
    created,
    updated,
    durationMs,
    tokens: {
      input: totals.input,
      output: totals.output,
      cacheRead: totals.cacheRead,
      cacheWrite: totals.cacheWrite,
    },
    cost: totals.cost,
    providerCalls: totals.calls,
    toolCalls: fold.toolCalls.length,
    events: fold.records,
    writer: 'cli_version' in m ? 'amplifier-ts' : 'amplifier',
    problems,
  };
}

interface Read {
  metadata: Record<string, unknown> | null;
  messages: Record<string, unknown>[];
  events: EventRecord[];
  offsets: { events: number; transcript: number };
  fold: SessionFold;
  problems: string[];
}

async function readFolder(folder: SessionFolder, limits: ReadLimits, withMessages: boolean): Promise<Read> {
  const problems: string[] = [];
  const { metadata, problem } = readMetadataFile(folder.dir);
  if (problem !== null) problems.push(problem);
  const fold = new SessionFold();
  const events = await readJsonlSnapshot<EventRecord>(path.join(folder.dir, 'events.jsonl'), {
    accept: isLogRecord,
    what: 'log record',
    maxRecords: limits.maxEvents,
  });
  for (const record of events.records) fold.add(record);
  if (events.missing)
    problems.push(
      'events.jsonl is missing (no logging hook was mounted): no timeline, tokens or tool timings',
    );
  if (events.dropped > 0) {
    problems.push(
      `events.jsonl has ${events.records.length + events.dropped} records; the first ${events.records.length} are shown (the rest are not read into the page)`,
    );
  }
  for (const note of events.notes) problems.push(noteText(note));
  const transcript = withMessages
    ? await readJsonlSnapshot<Record<string, unknown>>(path.join(folder.dir, 'transcript.jsonl'), {
        accept: isTranscriptMessage,
        what: 'message',
        maxRecords: limits.maxMessages,
      })
    : undefined;
  if (transcript !== undefined) {
    if (transcript.missing) problems.push('transcript.jsonl is missing: the conversation cannot be shown');
    if (transcript.dropped > 0)
      problems.push(
        `transcript.jsonl has ${transcript.records.length + transcript.dropped} messages; the first ${transcript.records.length} are shown`,
      );
    for (const note of transcript.notes) problems.push(noteText(note));
  }
  return {
    metadata,
    messages: transcript?.records ?? [],
    events: events.records,
    offsets: { events: events.offset, transcript: transcript?.offset ?? 0 },
    fold,
    problems,
  };
}

/** Summaries, cached per folder until its files change (size and modification time). */
export class SessionReader {
  readonly #limits: ReadLimits;
  readonly #cache = new Map<string, { key: string; summary: SessionSummary }>();

  constructor(limits: Partial<ReadLimits> = {}) {
    this.#limits = { ...DEFAULT_LIMITS, ...limits };
  }

  #key(dir: string): string {
    return ['metadata.json', 'events.jsonl']
      .map((file) => {
        try {
          const stat = fs.statSync(path.join(dir, file));
          return `${stat.size}:${stat.mtimeMs}`;
        } catch {
          return '-';
        }
      })
      .join('|');
  }

  async summary(folder: SessionFolder): Promise<SessionSummary> {
    const key = this.#key(folder.dir);
    const cached = this.#cache.get(folder.dir);
    if (cached !== undefined && cached.key === key) return cached.summary;
    let summary: SessionSummary;
    try {
      const read = await readFolder(folder, this.#limits, false);
      summary = summarize(folder, read.metadata, read.fold, read.problems);
    } catch (error) {
      summary = summarize(folder, null, new SessionFold(), [
        `the session cannot be read: ${(error as Error).message}`,
      ]);
    }
    this.#cache.set(folder.dir, { key, summary });
    return summary;
  }

  async detail(folder: SessionFolder, children: SessionSummary[]): Promise<SessionDetail> {
    const read = await readFolder(folder, this.#limits, true);
    return {
      summary: summarize(folder, read.metadata, read.fold, read.problems),
      metadata: read.metadata === null ? null : (trimValue(read.metadata) as Record<string, unknown>),
      messages: read.messages.map((m) => trimValue(m)),
      events: read.events.map((e) => trimValue(e)),
      offsets: read.offsets,
      children,
    };
  }
}
