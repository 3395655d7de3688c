import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dynamicEvent } from '@amplifier/core';
import { LogWriter } from '@amplifier/sessions';
import { createTestCoordinator } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getEventLogger, mount } from './index.js';

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'hooks-logging-writer-'));
});
afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
});

function parseAll(file: string): Record<string, unknown>[] {
  const text = readFileSync(file, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function logger(config: Record<string, unknown> = {}) {
  const coordinator = createTestCoordinator({ bare: true });
  const messages: string[] = [];
  coordinator.display = { showMessage: (message) => messages.push(message) };
  const cleanup = await mount(coordinator, {
    session_log_template: path.join(tmp, '{session_id}.jsonl'),
    ...config,
  });
  return { coordinator, cleanup, messages, file: path.join(tmp, 'test-session.jsonl') };
}

describe('lossless, bounded writing', () => {
  it('makes the missing folders of the log file: one level (a session folder), several, or none', async () => {
    for (const relative of ['s1/events.jsonl', 'a/b/c/events.jsonl', 'flat.jsonl']) {
      const file = path.join(tmp, relative);
      const { coordinator, cleanup } = await logger({ session_log_template: file });
      await coordinator.hooks.emit(dynamicEvent('tool:pre'), { i: 1 });
      await cleanup();
      expect(parseAll(file).length).toBeGreaterThan(0);
    }
    // A file where a folder should be is an error reported, not a crash.
    writeFileSync(path.join(tmp, 'blocker'), 'x');
    const blocked = await logger({ session_log_template: path.join(tmp, 'blocker', 'e.jsonl') });
    await blocked.coordinator.hooks.emit(dynamicEvent('tool:pre'), { i: 1 });
    await blocked.cleanup();
    expect(blocked.messages.join('\n')).toMatch(/cannot write .*blocker/);
  });

  it('a burst of 100k events loses nothing: every line is there after cleanup, in order', async () => {
    const { coordinator, cleanup, file } = await logger({
      queue_max_records: 1000,
      queue_full_wait_ms: 600_000,
    });
    const before = process.memoryUsage().rss;
    for (let i = 0; i < 100_000; i++)
      await coordinator.hooks.emit(dynamicEvent('tool:post'), { i, result: 'x'.repeat(50) });
    const growth = process.memoryUsage().rss - before;
    await cleanup();
    const records = parseAll(file);
    expect(records).toHaveLength(100_000);
    expect(records.every((r, i) => (r.data as { i: number }).i === i)).toBe(true);
    // The queue is bounded (1000 records), so memory does not follow the burst.
    expect(growth).toBeLessThan(128 * 1024 * 1024);
  });

  it('a full queue drops after the wait and writes the drop count to the log', async () => {
    const { coordinator, cleanup, file } = await logger({ queue_max_records: 10, queue_full_wait_ms: 0 });
    // Emitted without awaiting: all handlers run before the writer gets a turn.
    const pending = Array.from({ length: 100 }, (_, i) =>
      coordinator.hooks.emit(dynamicEvent('tool:pre'), { i }),
    );
    await Promise.all(pending);
    const writer = getEventLogger(coordinator)?.writers[0];
    expect(writer?.dropped).toBe(90);
    await cleanup();
    const records = parseAll(file);
    expect(records.filter((r) => r.event === 'tool:pre')).toHaveLength(10);
    const notice = records.find((r) => r.event === 'logging:dropped');
    expect(notice).toMatchObject({ lvl: 'WARN', data: { dropped: 90 } });
  });

  it('a full queue blocks briefly and the record gets in when the writer frees room', async () => {
    const { coordinator, cleanup, file } = await logger({ queue_max_records: 5, queue_full_wait_ms: 60_000 });
    const pending = Array.from({ length: 50 }, (_, i) =>
      coordinator.hooks.emit(dynamicEvent('tool:pre'), { i }),
    );
    await Promise.all(pending);
    await cleanup();
    expect(parseAll(file)).toHaveLength(50);
  });

  it('rotates at max_file_bytes into events.1.jsonl ... keeping max_files, never splitting a record', async () => {
    const { coordinator, cleanup } = await logger({
      max_file_bytes: 4096,
      max_files: 3,
      session_log_template: path.join(tmp, 'logs/events.jsonl'),
    });
    for (let i = 0; i < 400; i++)
      await coordinator.hooks.emit(dynamicEvent('tool:post'), { i, pad: 'y'.repeat(100) });
    await cleanup();
    const files = readdirSync(path.join(tmp, 'logs')).sort();
    expect(files).toEqual(['events.1.jsonl', 'events.2.jsonl', 'events.jsonl']);
    // Oldest files were deleted; what is kept is contiguous and ends with the last record.
    const kept = ['events.2.jsonl', 'events.1.jsonl', 'events.jsonl'].flatMap((name) => {
      const file = path.join(tmp, 'logs', name);
      expect(statSync(file).size).toBeLessThanOrEqual(4096);
      return parseAll(file).map((record) => (record.data as { i: number }).i);
    });
    expect(kept.length).toBeGreaterThan(20);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, k) => (kept[0] as number) + k));
    expect(kept.at(-1)).toBe(399);
  });
});

describe('a batch at the size bound', () => {
  const writer = (file: string, maxFileBytes: number) =>
    new LogWriter(file, {
      maxRecords: 1000,
      maxBytes: 1 << 20,
      fullWaitMs: 0,
      maxFileBytes,
      maxFiles: 5,
      onError: (message) => {
        throw new Error(message);
      },
    });

  it('multi-byte lines that fit by characters but not by bytes are rotated, never split', async () => {
    const file = path.join(tmp, 'utf8', 'events.jsonl');
    // 40 lines of about 56 UTF-16 units and 136 bytes each (40 × '€'): 2,240 units fit in 3,000
    // bytes, 5,440 bytes do not.
    const line = (i: number) => `${JSON.stringify({ i, t: '€'.repeat(40) })}\n`;
    const w = writer(file, 3000);
    for (let i = 0; i < 40; i++) await w.push(line(i));
    await w.close();
    expect(readdirSync(path.dirname(file)).sort()).toEqual(['events.1.jsonl', 'events.jsonl']);
    const order = ['events.1.jsonl', 'events.jsonl'].flatMap((name) => {
      expect(statSync(path.join(path.dirname(file), name)).size).toBeLessThanOrEqual(3000);
      return parseAll(path.join(path.dirname(file), name)).map((r) => r.i);
    });
    expect(order).toEqual([...Array(40).keys()]);
  });

  it('a batch that fits even at 3 bytes a character goes into the current file whole', async () => {
    const file = path.join(tmp, 'fits', 'events.jsonl');
    const w = writer(file, 100_000);
    for (let i = 0; i < 40; i++) await w.push(`${JSON.stringify({ i, t: 'é€😀' })}\n`);
    await w.close();
    expect(readdirSync(path.dirname(file))).toEqual(['events.jsonl']);
    expect(parseAll(file).map((r) => r.i)).toEqual([...Array(40).keys()]);
    expect(w.written).toBe(40);
  });
});

describe('write failures (security.md 5.7)', () => {
  it('LG-02: a sink that fails (/dev/full) is reported once through the display and never thrown', async () => {
    const { coordinator, cleanup, messages } = await logger({ session_log_template: '/dev/full' });
    for (let i = 0; i < 200; i++) {
      const result = await coordinator.hooks.emit(dynamicEvent('tool:pre'), { i });
      expect(result.action).toBe('continue');
    }
    await getEventLogger(coordinator)?.writers[0]?.flush();
    await cleanup();
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/cannot write \/dev\/full/);
  });

  it('LG-02: an unwritable directory is reported once, not per event', async () => {
    // The "directory" is a regular file, so it can never be created (ENOTDIR), also as root.
    writeFileSync(path.join(tmp, 'not-a-dir'), '');
    const { coordinator, cleanup, messages } = await logger({
      session_log_template: path.join(tmp, 'not-a-dir', 'sub', 'events.jsonl'),
    });
    for (let i = 0; i < 50; i++) await coordinator.hooks.emit(dynamicEvent('tool:pre'), { i });
    await cleanup();
    expect(messages).toHaveLength(1);
  });

  it('LG-03: file size limit hit mid-record (EFBIG): no crash, the next run continues on a fresh line', () => {
    // The fixture runs the built package (dist) in a child process: the limit applies to it alone.
    const script = path.join(path.dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'burst.mjs');
    const file = path.join(tmp, 'burst.jsonl');
    const run = (limit: string | undefined, name: string) => {
      const args = [script, file, '300'];
      const env = { ...process.env, BURST_RUN: name };
      return limit
        ? spawnSync('prlimit', [`--fsize=${limit}`, process.execPath, ...args], { encoding: 'utf8', env })
        : spawnSync(process.execPath, args, { encoding: 'utf8', env });
    };
    const first = run('10000', 'first');
    expect(first.status).toBe(0);
    expect(first.stdout).toContain('done');
    expect(first.stderr).toMatch(/cannot write/);
    expect(statSync(file).size).toBe(10_000);
    const second = run(undefined, 'second');
    expect(second.status).toBe(0);
    const raw = readFileSync(file, 'utf8').split('\n');
    expect(raw.at(-1)).toBe('');
    const bad = raw.slice(0, -1).filter((line) => {
      try {
        JSON.parse(line);
        return false;
      } catch {
        return true;
      }
    });
    // At most the one torn record from the first run; every record of the second run parses.
    expect(bad.length).toBeLessThanOrEqual(1);
    expect(raw.filter((l) => l.includes('"run":"second"'))).toHaveLength(300);
  }, 120_000);
});

describe('records are safe to read line by line', () => {
  it('LG-06: newlines, U+2028/2029, lone surrogates, NUL, ANSI and JSON lookalikes stay inside one line', async () => {
    const { coordinator, cleanup, file } = await logger();
    const nasty = [
      'a\nb',
      'c\r\nd',
      'e\u2028f\u2029g',
      'lone \ud800 surrogate',
      'nul \u0000 byte',
      '\u001b[31mred\u001b[0m',
      '"}\n{"type":"tool_result","forged":true}',
    ];
    for (const value of nasty) await coordinator.hooks.emit(dynamicEvent('tool:post'), { value });
    await cleanup();
    const text = readFileSync(file, 'utf8');
    expect(text).not.toMatch(/[\u2028\u2029]/);
    const records = parseAll(file);
    expect(records).toHaveLength(nasty.length);
    expect(records.map((r) => (r.data as { value: string }).value)).toEqual(nasty);
  });

  it('LG-05: a 5 MB string is capped at max_value_chars with a marker', async () => {
    const { coordinator, cleanup, file } = await logger({ max_value_chars: 1000 });
    await coordinator.hooks.emit(dynamicEvent('tool:post'), { output: 'z'.repeat(5_000_000) });
    await cleanup();
    const value = (parseAll(file)[0]?.data as { output: string } | undefined)?.output ?? '';
    expect(value.startsWith('z'.repeat(1000))).toBe(true);
    expect(value).toContain('[truncated 4999000 chars]');
  });
});

describe('LogWriter', () => {
  it('flush resolves once queued lines are on disk; pushes after close are counted as dropped', async () => {
    const file = path.join(tmp, 'w.jsonl');
    const writer = new LogWriter(file, {
      maxRecords: 100,
      maxBytes: 1 << 20,
      fullWaitMs: 0,
      maxFileBytes: null,
      maxFiles: 1,
      onError: () => {},
    });
    expect(writer.push('{"a":1}\n')).toBeUndefined();
    expect(writer.push('{"a":2}\n')).toBeUndefined();
    await writer.flush();
    expect(readFileSync(file, 'utf8')).toBe('{"a":1}\n{"a":2}\n');
    await writer.close();
    expect(writer.push('{"a":3}\n')).toBeUndefined();
    expect(writer.dropped).toBe(1);
    expect(existsSync(file)).toBe(true);
  });
});
