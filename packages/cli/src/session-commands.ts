/**
 * `amplifier session list | show | delete`: the stored sessions of this
 * project (or all projects with --all).
 */
import path from 'node:path';
import type { Message } from '@amplifier/core';
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
  const records = store.list(options.all ? undefined : options.cwd);
  if (options.json) {
    out.write(`${JSON.stringify(records.map(summary), null, 2)}\n`);
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
      m.provider,
      ...(options.all ? [m.cwd] : []),
      (m.name ?? '').slice(0, 50),
    ];
  });
  out.write(table(header, rows));
  return EXIT_OK;
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

/** `amplifier session show <id> [--json]`: metadata, then the conversation. */
export function showSession(
  id: string,
  options: { cwd: string; json: boolean },
  display: Display,
  out: NodeJS.WritableStream,
): number {
  const record = new SessionStore().find(id, options.cwd);
  const { messages, skipped } = record.readTranscript();
  if (options.json) {
    out.write(
      `${JSON.stringify({ metadata: summary(record), messages, skipped_lines: skipped }, null, 2)}\n`,
    );
    return EXIT_OK;
  }
  const c = display.colors;
  const m = record.metadata;
  const lines = [
    `${c.bold('session')}   ${m.session_id}`,
    `${c.bold('status')}    ${record.displayStatus}, ${m.turn_count} turn${m.turn_count === 1 ? '' : 's'}`,
    `${c.bold('created')}   ${when(m.created)}   ${c.bold('updated')} ${when(m.updated)}`,
    `${c.bold('provider')}  ${m.provider}${m.model ? ` (${m.model})` : ''}`,
    `${c.bold('cwd')}       ${m.cwd}`,
    `${c.bold('files')}     ${path.join(record.dir, '')}`,
    '',
  ];
  for (const message of messages) {
    const role = message.role.padEnd(9);
    if (message.role === 'tool') {
      const first = (text(message.content).split('\n')[0] ?? '').slice(0, 120);
      lines.push(`${c.dim(role)} ${c.dim(first)}`);
      continue;
    }
    const body = text(message.content).trim();
    if (body !== '') lines.push(`${c.bold(role)} ${body.replace(/\n/g, `\n${' '.repeat(10)}`)}`);
    for (const call of message.tool_calls ?? []) {
      lines.push(
        `${c.dim(role)} ${c.cyan('→')} ${call.tool} ${JSON.stringify(call.arguments).slice(0, 100)}`,
      );
    }
  }
  if (skipped > 0) lines.push(c.yellow(`(${skipped} unreadable line${skipped === 1 ? '' : 's'} skipped)`));
  out.write(`${lines.join('\n')}\n`);
  return EXIT_OK;
}

/** `amplifier session delete <id...>`. */
export function deleteSessions(ids: readonly string[], options: { cwd: string }, display: Display): number {
  const store = new SessionStore();
  const records = ids.map((id) => store.find(id, options.cwd));
  for (const record of records) {
    store.delete(record);
    display.line(`Deleted session ${record.id}`);
  }
  return EXIT_OK;
}
