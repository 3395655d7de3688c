/**
 * `amplifier session list | show | delete`: the stored sessions of this
 * project (or all projects with --all).
 */
import path from 'node:path';
import { errorMessage, fromMessageToolCall, type Message } from '@amplifier/core';
import { terminalSafe, terminalSafeJson } from '@amplifier/process/terminal';
import { type JsonlNote, readEventLog } from '@amplifier/sessions';
import { childrenOf } from './child-sessions.js';
import type { Display } from './display.js';
import { EXIT_OK } from './errors.js';
import { table } from './modules.js';
import { type SessionRecord, SessionStore } from './sessions.js';

function when(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function summary(record: SessionRecord): Record<string, unknown> {
  return { ...record.metadata, status: record.displayStatus, dir: record.dir };
}

/** `amplifier session list [--all] [--json]`. */
export function listSessions(
  options: { cwd: string; all: boolean; json: boolean },
  display: Display,
  out: NodeJS.WritableStream,
): number {
  const store = new SessionStore();
  const all = store.list(options.all ? undefined : options.cwd);
  // Agent sessions sit next to their parent: only top-level sessions are listed, children counted.
  const records = all.filter((r) => !r.metadata.parent_id);
  const count = (r: SessionRecord): number => descendants(all, r.id).length;
  if (options.json) {
    out.write(
      `${JSON.stringify(
        records.map((r) => ({ ...summary(r), children: count(r) })),
        null,
        2,
      )}\n`,
    );
    return EXIT_OK;
  }
  if (records.length === 0) {
    display.line(
      options.all
        ? `No sessions under ${store.home}.`
        : `No sessions for ${options.cwd}. Start one with: amplifier run "<prompt>" (or see all with --all)`,
    );
    return EXIT_OK;
  }
  const header = [
    'ID',
    'UPDATED',
    'TURNS',
    'STATUS',
    'AGENTS',
    'PROVIDER',
    ...(options.all ? ['PROJECT'] : []),
    'NAME',
  ];
  const rows = records.map((r) => {
    const m = r.metadata;
    return [
      m.session_id,
      when(m.updated),
      String(m.turn_count),
      r.displayStatus,
      String(count(r)),
      m.provider || '-',
      ...(options.all ? [m.cwd || '-'] : []),
      (m.name ?? '').slice(0, 50),
    ];
  });
  out.write(table(header, rows));
  return EXIT_OK;
}

/** Every session under `id` (children, their children, ...), depth first. */
function descendants(
  records: readonly SessionRecord[],
  id: string,
  seen = new Set<string>(),
): SessionRecord[] {
  const out: SessionRecord[] = [];
  for (const child of childrenOf(records, id)) {
    if (seen.has(child.id)) continue;
    seen.add(child.id);
    out.push(child, ...descendants(records, child.id, seen));
  }
  return out;
}

/** The tree of agent sessions under `id`: one line each, indented by depth. */
function treeLines(
  records: readonly SessionRecord[],
  id: string,
  depth: number,
  seen: Set<string>,
): string[] {
  const lines: string[] = [];
  for (const child of childrenOf(records, id)) {
    if (seen.has(child.id)) continue;
    seen.add(child.id);
    const m = child.metadata as SessionRecord['metadata'] & { agent_name?: unknown };
    const agent = typeof m.agent_name === 'string' ? m.agent_name : '?';
    lines.push(
      `${'  '.repeat(depth)}└ ${agent}  ${child.id}  ${child.displayStatus}, ${m.turn_count} turn${m.turn_count === 1 ? '' : 's'}`,
    );
    lines.push(...treeLines(records, child.id, depth + 1, seen));
  }
  return lines;
}

function text(content: Message['content']): string {
  if (typeof content === 'string') return content;
  return content
    .map((block) => {
      if (block.type === 'text') return block.text;
      if (block.type === 'thinking') return '';
      return `[${block.type}]`;
    })
    .filter(Boolean)
    .join('\n');
}

/** What `session show` says about the event log: how many records each event has. */
interface EventsSummary {
  file: string;
  records: number;
  events: Record<string, number>;
  /** Why the log could not be read to the end (the counts are of what was read). */
  error?: string;
}

/** Count the records of the session's event log (rotated files included), streaming; skipped lines become notes. */
async function summarizeEvents(file: string, notes: JsonlNote[]): Promise<EventsSummary> {
  const summary: EventsSummary = { file, records: 0, events: {} };
  const counts = new Map<string, number>();
  try {
    for await (const record of readEventLog(file, { rotated: true, onNote: (note) => notes.push(note) })) {
      summary.records++;
      counts.set(record.event, (counts.get(record.event) ?? 0) + 1);
    }
  } catch (error) {
    summary.error = `cannot read ${file}: ${errorMessage(error)}`;
  }
  summary.events = Object.fromEntries([...counts].sort(([a], [b]) => (a < b ? -1 : 1)));
  return summary;
}

/**
 * `amplifier session show <id> [--json] [--redact]`: metadata, the
 * conversation and what the event log holds. Lines a crash left torn in the
 * transcript or the event log are skipped, each with a note (stderr, or
 * `notes` in JSON). Values of secret-named keys are never printed; with
 * `--redact` the event log's rules apply to everything printed.
 */
export async function showSession(
  id: string,
  options: { cwd: string; json: boolean },
  display: Display,
  out: NodeJS.WritableStream,
): Promise<number> {
  const store = new SessionStore();
  const record = store.find(id, options.cwd);
  const { messages, skipped, notes } = record.readTranscript();
  const events = await summarizeEvents(record.eventsPath, notes);
  const siblings = store.list(record.metadata.cwd || options.cwd);
  const tree = treeLines(siblings, record.id, 1, new Set([record.id]));
  if (options.json) {
    const document = {
      metadata: summary(record),
      children: descendants(siblings, record.id).map((r) => ({
        session_id: r.id,
        parent_id: r.metadata.parent_id,
        agent_name: (r.metadata as { agent_name?: unknown }).agent_name ?? null,
        status: r.displayStatus,
        turn_count: r.metadata.turn_count,
      })),
      messages,
      skipped_lines: skipped,
      events,
      notes,
    };
    out.write(`${JSON.stringify(display.safeData(document), null, 2)}\n`);
    return EXIT_OK;
  }
  const c = display.colors;
  const m = record.metadata;
  const lines = [
    `${c.bold('session')}   ${m.session_id}`,
    `${c.bold('status')}    ${record.displayStatus}, ${m.turn_count} turn${m.turn_count === 1 ? '' : 's'}`,
    `${c.bold('created')}   ${when(m.created)}   ${c.bold('updated')} ${when(m.updated)}`,
    `${c.bold('provider')}  ${m.provider || '-'}${m.model ? ` (${m.model})` : ''}`,
    ...(m.bundle ? [`${c.bold('bundle')}    ${m.bundle}`] : []),
    ...(m.parent_id ? [`${c.bold('parent')}    ${m.parent_id}`] : []),
    ...(typeof (m as { agent_name?: unknown }).agent_name === 'string'
      ? [`${c.bold('agent')}     ${terminalSafe((m as { agent_name?: string }).agent_name)}`]
      : []),
    `${c.bold('cwd')}       ${m.cwd || '(not recorded)'}`,
    `${c.bold('files')}     ${path.join(record.dir, '')}`,
    `${c.bold('events')}    ${events.records} record${events.records === 1 ? '' : 's'} in ${path.basename(events.file)}`,
    ...(tree.length > 0
      ? [`${c.bold('agents')}    ${tree.length} agent session${tree.length === 1 ? '' : 's'}`, ...tree]
      : []),
    '',
  ];
  // Redacted before shortening, so a cut never hides a secret from the rules.
  for (const message of messages) {
    const role = message.role.padEnd(9);
    if (message.role === 'tool') {
      const first = terminalSafe(display.safeText(text(message.content)).split('\n')[0] ?? '').slice(0, 120);
      lines.push(`${c.dim(role)} ${c.dim(first)}`);
      continue;
    }
    const body = display.safeText(text(message.content)).trim();
    if (body !== '') lines.push(`${c.bold(role)} ${body.replace(/\n/g, `\n${' '.repeat(10)}`)}`);
    for (const stored of message.tool_calls ?? []) {
      const call = fromMessageToolCall(stored);
      const args = (JSON.stringify(display.safeData(call.arguments)) ?? '').slice(0, 100);
      // The model chose the name: never printed raw (core's terminalSafe).
      lines.push(
        `${c.dim(role)} ${c.cyan('→')} ${terminalSafe(call.name, { max: 80 })} ${terminalSafeJson(args)}`,
      );
    }
  }
  out.write(`${lines.join('\n')}\n`);
  for (const note of notes) display.warn(`note: ${note.message}`);
  if (events.error !== undefined)
    display.warn(`note: ${events.error}; the counts above are of what was read`);
  return EXIT_OK;
}

/** `amplifier session delete <id...>`. */
export function deleteSessions(ids: readonly string[], options: { cwd: string }, display: Display): number {
  const store = new SessionStore();
  const records = ids.map((id) => store.find(id, options.cwd));
  for (const record of records) {
    // Its agent sessions go with it (they sit next to it, hidden from `session list`).
    const children = descendants(store.list(record.metadata.cwd || options.cwd), record.id);
    for (const child of children) store.delete(child);
    store.delete(record);
    display.line(
      `Deleted session ${record.id}${children.length > 0 ? ` and its ${children.length} agent session${children.length === 1 ? '' : 's'}` : ''}`,
    );
  }
  return EXIT_OK;
}
