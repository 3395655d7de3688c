import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dynamicEvent } from '@amplifier/core';
import { loadEventLog } from '@amplifier/sessions';
import { createTestCoordinator, startReadyChild } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mount } from './index.js';

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'hooks-logging-read-'));
});
afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
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
