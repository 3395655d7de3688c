import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dynamicEvent } from '@amplifier/core';
import { createTestCoordinator, startReadyChild } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventLogFiles, type JsonlNote, loadEventLog, mount, readEventLog, readJsonlSync } from './index.js';

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'hooks-logging-read-'));
});
afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
});

const record = (i: number): string =>
  `${JSON.stringify({ ts: '2026-01-01T00:00:00.000Z', lvl: 'INFO', event: 'tool:post', data: { i } })}\n`;

describe('readEventLog: the records of a log a crash left behind (issue 16, point 11)', () => {
  it('skips a torn last line, a torn line in the middle, NUL padding and non-records, each with a note', async () => {
    const file = path.join(tmp, 'events.jsonl');
    writeFileSync(
      file,
      [
        record(0),
        '{"ts":"2026-01-01T00:00:00.000Z","lvl":"INFO","event":"tool:po\n', // torn, then a writer went on
        record(1),
        '\n',
        '\0\0\0\0\n', // NUL padding after a crash
        '[1,2]\n', // JSON, not a record
        record(2),
        '{"ts":"2026-01-01T00:00:00.000Z","event":"tool:post","data":{"i":3', // torn last line
      ].join(''),
    );
    const { records, notes } = await loadEventLog(file);
    expect(records.map((r) => (r.data as { i: number }).i)).toEqual([0, 1, 2]);
    expect(notes.map(({ line, kind }) => ({ line, kind }))).toEqual([
      { line: 2, kind: 'invalid_line' },
      { line: 5, kind: 'invalid_line' },
      { line: 6, kind: 'invalid_line' },
      { line: 8, kind: 'torn_last_line' },
    ]);
    expect(notes[3]?.message).toMatch(/events\.jsonl line 8 is cut off .*killed or crashed.*skipped/);
    // The same file read synchronously (what the CLI does with a transcript) gives the same answer.
    const syncNotes: JsonlNote[] = [];
    const sync = readJsonlSync(file, { onNote: (note) => syncNotes.push(note) });
    expect(sync.map((r) => (r.data as { i: number }).i)).toEqual([0, 1, 2]);
    expect(syncNotes.map(({ line, kind }) => ({ line, kind }))).toEqual(
      notes.map(({ line, kind }) => ({ line, kind })),
    );
  });

  it('a whole last record without its newline is a record; a missing file has none', async () => {
    const file = path.join(tmp, 'events.jsonl');
    writeFileSync(file, `${record(0)}${record(1).trimEnd()}`);
    expect(await loadEventLog(file)).toMatchObject({ records: [{}, {}], notes: [] });
    expect(await loadEventLog(path.join(tmp, 'none.jsonl'))).toEqual({ records: [], notes: [] });
    expect(readJsonlSync(path.join(tmp, 'none.jsonl'))).toEqual([]);
  });

  it('streams: a line over maxLineBytes is skipped with a note without being held, the rest is read', async () => {
    const file = path.join(tmp, 'events.jsonl');
    const huge = `{"event":"tool:post","data":"${'x'.repeat(300_000)}"}\n`;
    writeFileSync(file, `${record(0)}${huge}${record(1)}`);
    const notes: JsonlNote[] = [];
    const seen: number[] = [];
    for await (const r of readEventLog(file, { maxLineBytes: 100_000, onNote: (n) => notes.push(n) })) {
      seen.push((r.data as { i: number }).i);
    }
    expect(seen).toEqual([0, 1]);
    expect(notes).toMatchObject([{ line: 2, kind: 'line_too_long', bytes: huge.length - 1 }]);
  });

  it('reads rotated files oldest first when asked', async () => {
    const file = path.join(tmp, 'events.jsonl');
    writeFileSync(path.join(tmp, 'events.2.jsonl'), record(0));
    writeFileSync(path.join(tmp, 'events.1.jsonl'), record(1));
    writeFileSync(file, record(2));
    writeFileSync(path.join(tmp, 'events.x.jsonl'), record(9));
    expect(eventLogFiles(file)).toEqual([
      path.join(tmp, 'events.2.jsonl'),
      path.join(tmp, 'events.1.jsonl'),
      file,
    ]);
    const all = await loadEventLog(file, { rotated: true });
    expect(all.records.map((r) => (r.data as { i: number }).i)).toEqual([0, 1, 2]);
    expect((await loadEventLog(file)).records).toHaveLength(1);
  });
});

describe('a writer killed mid-record', () => {
  it('SIGKILL while a record is half on disk: readers return every whole record with a note; the next writer goes on', async () => {
    // The fixture runs the built package (dist) in a child process under a file size limit, so
    // the OS cuts its write at a known byte, in the middle of a record; then it is killed.
    const script = path.join(path.dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'torn-writer.mjs');
    const file = path.join(tmp, 'events.jsonl');
    const limit = 20_000;
    const writer = startReadyChild<{ whole: number; size: number }>('prlimit', [
      `--fsize=${limit}`,
      process.execPath,
      script,
      file,
      String(limit),
    ]);
    const ready = await writer.ready;
    expect(await writer.kill()).toBe('SIGKILL');

    expect(ready.size).toBe(limit);
    expect(statSync(file).size).toBe(limit);
    expect(readFileSync(file).at(-1)).not.toBe(0x0a);
    const torn = await loadEventLog(file);
    expect(torn.records.map((r) => (r.data as { i: number }).i)).toEqual(
      Array.from({ length: ready.whole }, (_, i) => i),
    );
    expect(torn.notes).toMatchObject([{ kind: 'torn_last_line', line: ready.whole + 1 }]);

    // The next session's writer says what it found and starts on a fresh line.
    const coordinator = createTestCoordinator({ bare: true });
    const messages: string[] = [];
    coordinator.display = { showMessage: (message) => messages.push(message) };
    const cleanup = await mount(coordinator, { session_log_template: file });
    await coordinator.hooks.emit(dynamicEvent('tool:post'), { i: 'after' });
    await cleanup();
    expect(messages).toEqual([expect.stringMatching(/ends in a record cut off by an earlier writer/)]);
    const after = await loadEventLog(file);
    expect(after.records).toHaveLength(ready.whole + 1);
    expect(after.records.at(-1)?.data).toMatchObject({ i: 'after' });
    expect(after.notes).toMatchObject([{ kind: 'invalid_line', line: ready.whole + 1 }]);
  }, 120_000);
});
