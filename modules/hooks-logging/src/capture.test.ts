import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dynamicEvent } from '@amplifier/core';
import { Redactor } from '@amplifier/secrets';
import { buildRecord, MAX_CAPTURE_DEPTH } from '@amplifier/sessions';
import { createTestCoordinator } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mount } from './index.js';

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'hooks-logging-capture-'));
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(tmp, { recursive: true, force: true });
});

const lines = (file: string): string[] => readFileSync(file, 'utf8').split('\n').slice(0, -1);
const records = (file: string) => lines(file).map((line) => JSON.parse(line) as Record<string, unknown>);

async function logger(config: Record<string, unknown> = {}) {
  const coordinator = createTestCoordinator({ bare: true });
  coordinator.hooks.setDefaultFields({ session_id: 's1', parent_id: null });
  const cleanup = await mount(coordinator, {
    session_log_template: path.join(tmp, '{session_id}.jsonl'),
    ...config,
  });
  return { coordinator, cleanup, file: path.join(tmp, 's1.jsonl') };
}

describe('serialising and redacting off the emitting call', () => {
  it('an emit copies the data; the record is serialised and redacted in the writer batch', async () => {
    const { coordinator, cleanup, file } = await logger();
    const redact = vi.spyOn(Redactor.prototype, 'redactString');
    const stringify = vi.spyOn(JSON, 'stringify');
    for (let i = 0; i < 10; i++) {
      await coordinator.hooks.emit(dynamicEvent('tool:post'), {
        i,
        result: { output: 'token=abcdefghijklmnop' },
      });
    }
    expect(redact).not.toHaveBeenCalled();
    expect(stringify).not.toHaveBeenCalled();
    await cleanup();
    expect(redact).toHaveBeenCalled();
    const written = records(file);
    expect(written.map((r) => (r.data as { i: number }).i)).toEqual([...Array(10).keys()]);
    expect(JSON.stringify(written)).not.toContain('abcdefghijklmnop');
  });

  it('copy on emit: changing the payload after the emit does not change the record', async () => {
    const { coordinator, cleanup, file } = await logger();
    const input = { command: 'ls', args: ['-l'] };
    const result = { success: true, output: { lines: ['a'] } };
    const data: Record<string, unknown> = { tool_name: 'bash', tool_input: input, result };
    await coordinator.hooks.emit(dynamicEvent('tool:post'), data);
    input.command = 'rm -rf /';
    input.args.push('--force');
    result.output.lines[0] = 'changed';
    result.success = false;
    data.tool_name = 'other';
    await cleanup();
    const [record] = records(file);
    expect(record!.data).toMatchObject({
      tool_name: 'bash',
      tool_input: { command: 'ls', args: ['-l'] },
      result: { success: true, output: { lines: ['a'] } },
    });
  });

  it('the copy runs a getter once, on the emit, keeps an own __proto__ key as data and writes no symbol key', async () => {
    const { coordinator, cleanup, file } = await logger();
    let reads = 0;
    const input: Record<string, unknown> = JSON.parse('{"__proto__":{"polluted":true},"path":"a"}');
    const data: Record<string | symbol, unknown> = { tool_name: 'read_file', tool_input: input };
    Object.defineProperty(data, 'result', {
      enumerable: true,
      get: () => {
        reads++;
        return { success: true, output: `read ${reads}` };
      },
    });
    data[Symbol('private')] = 'not data';
    await coordinator.hooks.emit(dynamicEvent('tool:post'), data as Record<string, unknown>);
    const readsOnEmit = reads;
    await cleanup();
    expect(readsOnEmit).toBe(1);
    expect(reads).toBe(1);
    const line = lines(file)[0]!;
    expect(line).toContain('"tool_input":{"__proto__":{"polluted":true},"path":"a"}');
    expect(line).toContain('"output":"read 1"');
    expect(line).not.toContain('not data');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('data that is not plain is serialised on the emit, exactly as before; plain data gives the same line', async () => {
    const { coordinator, cleanup, file } = await logger();
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < MAX_CAPTURE_DEPTH + 5; i++) deep = { deep };
    class Point {
      x = 1;
    }
    const payloads: Record<string, unknown>[] = [
      { plain: { a: [1, 'two', null, true], password: 'hunter22', nested: { api_key: 'k' } } },
      { error: new Error('boom') },
      { map: new Map([['a', 1]]), when: new Date(0) },
      { point: new Point(), buffer: Buffer.from('hi') },
      { cyclic },
      { deep },
      { json: { toJSON: () => 'as json' } },
    ];
    const expected: string[] = [];
    const redactor = new Redactor({ enabled: true, keys: [], patterns: [], env_values: true });
    // What the logger's handler gets, serialised on the emitting call as the logger did before.
    coordinator.hooks.register(
      'tool:post',
      (event, data) => {
        const options = { redactor, stripRaw: false, maxValueChars: 1_000_000 };
        expected.push(buildRecord(event, data, options)!.line.trimEnd());
      },
      { priority: 0 },
    );
    for (const payload of payloads) await coordinator.hooks.emit(dynamicEvent('tool:post'), payload);
    await cleanup();
    expect(lines(file)).toEqual(expected);
  });

  it('a burst larger than the queue bound loses nothing: in order when awaited, all of it when concurrent', async () => {
    const { coordinator, cleanup, file } = await logger({
      queue_max_records: 20,
      queue_max_bytes: 4096,
      queue_full_wait: 600,
    });
    for (let i = 0; i < 1000; i++)
      await coordinator.hooks.emit(dynamicEvent('tool:post'), { i, pad: 'p'.repeat(100) });
    await Promise.all(
      Array.from({ length: 1000 }, (_, i) =>
        coordinator.hooks.emit(dynamicEvent('tool:pre'), { i: 1000 + i }),
      ),
    );
    await cleanup();
    const written = records(file);
    expect(written.filter((r) => r.event === 'logging:dropped')).toEqual([]);
    const seen = written.map((r) => (r.data as { i: number }).i);
    expect(seen.slice(0, 1000)).toEqual([...Array(1000).keys()]);
    expect(new Set(seen).size).toBe(2000);
  });

  it('a crashed process that runs the cleanup in its crash handler writes every accepted record', () => {
    const script = path.join(path.dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'crash-flush.mjs');
    const file = path.join(tmp, 'crash.jsonl');
    const child = spawnSync(process.execPath, [script, file, '5000'], { encoding: 'utf8' });
    expect(child.stdout).toContain('flushed after: the session crashed');
    expect(child.status).toBe(1);
    const written = records(file);
    expect(written.map((r) => (r.data as { i: number }).i)).toEqual([...Array(5000).keys()]);
    expect(readFileSync(file, 'utf8')).not.toContain('sk-abcdefghijklmnopqrstuvwxyz123456');
  });
});
