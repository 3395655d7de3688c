import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { removeTempDirs, scriptedRun, tempDir } from '../__fixtures__/scripted-run.js';
import { assignLanes } from './lanes.js';
import { matchToolCalls } from './match-calls.js';
import type { EventRecord } from './records.js';
import { SessionFold } from './session-fold.js';

afterEach(removeTempDirs);

const PYTHON = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '__fixtures__',
  'amplifier-home',
  'projects',
  '-home-dev-app',
  'sessions',
  '6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
);

function fold(file: string): SessionFold {
  const out = new SessionFold();
  for (const line of fs.readFileSync(file, 'utf8').split('\n'))
    if (line.trim()) out.add(JSON.parse(line) as EventRecord);
  return out;
}

describe('SessionFold over a real scripted run', () => {
  it('pairs provider and tool calls, with approvals, outputs and usage', async () => {
    const run = await scriptedRun(tempDir());
    const f = fold(path.join(run.dir, 'events.jsonl'));
    expect(f.calls).toHaveLength(4);
    expect(f.calls.every((c) => c.status === 'ok' && c.model === 'mock-model')).toBe(true);
    expect(f.totals()).toMatchObject({
      input: 1200 + 2400 + 2600 + 2900,
      output: 80 + 40 + 30 + 60,
      calls: 4,
    });
    const byId = new Map(f.toolCalls.map((c) => [c.id, c]));
    expect([...byId.keys()].sort()).toEqual([
      'call_bash',
      'call_glob',
      'call_grep_a',
      'call_grep_b',
      'call_read',
    ]);
    expect(byId.get('call_bash')).toMatchObject({ status: 'denied', approval: { decision: 'denied' } });
    expect(byId.get('call_read')).toMatchObject({
      status: 'ok',
      approval: { decision: 'granted', source: 'rule' },
    });
    expect(JSON.stringify(byId.get('call_read')!.output)).toContain('<script>window.__pwned');
    for (const call of f.toolCalls) expect(call.end).not.toBeNull();
    // The three calls of the first response ran at once: three rows on the timeline.
    const first = f.toolCalls.filter((c) => c.parallelGroup === byId.get('call_grep_a')!.parallelGroup);
    expect(first).toHaveLength(3);
    expect(new Set(assignLanes(first, 0).lanes).size).toBe(3);
    expect(f.endStatus).toBe('completed');
  });
});

describe('SessionFold over Python Amplifier events', () => {
  it('pairs tool events without call ids by tool and order, and reads cost_usd', () => {
    const f = fold(path.join(PYTHON, 'events.jsonl'));
    expect(f.calls.map((c) => c.model)).toEqual(['claude-sonnet-4-5', 'claude-sonnet-4-5']);
    const totals = f.totals();
    expect(totals).toMatchObject({ input: 11_190, output: 395, cacheRead: 9216 });
    expect(totals.cost).toBeCloseTo(0.03721, 6);
    expect(f.toolCalls.map((c) => [c.name, c.status, c.end! - c.start])).toEqual([
      ['read_file', 'ok', 42],
      ['bash', 'ok', 469],
      ['task', 'ok', 5200],
    ]);
    const transcript = [
      { id: 'toolu_01A', name: 'read_file' },
      { id: 'toolu_01B', name: 'bash' },
      { id: 'toolu_01C', name: 'task' },
    ];
    const matched = matchToolCalls(transcript, f.toolCalls);
    expect(matched.get('toolu_01B')?.name).toBe('bash');
    expect(JSON.stringify(matched.get('toolu_01B')?.output)).toContain('tsc -p .');
  });
});

describe('SessionFold with what a log may lack', () => {
  it('a response without its request, an error response, a tool error and a cut-off call', () => {
    const f = new SessionFold();
    f.add({
      event: 'llm:response',
      ts: '2026-01-01T00:00:02.000Z',
      status: 'ok',
      duration_ms: 500,
      data: { provider: 'p' },
    });
    f.add({ event: 'llm:request', ts: '2026-01-01T00:00:03.000Z', data: { provider: 'p', model: 'm' } });
    f.add({
      event: 'llm:response',
      ts: '2026-01-01T00:00:04.000Z',
      status: 'error',
      error: { type: 'RateLimit', message: 'slow down' },
      data: { provider: 'p' },
    });
    f.add({
      event: 'tool:pre',
      ts: '2026-01-01T00:00:05.000Z',
      data: { tool_name: 'bash', tool_call_id: 'a' },
    });
    f.add({
      event: 'tool:error',
      ts: '2026-01-01T00:00:06.000Z',
      data: { tool_name: 'bash', tool_call_id: 'a', error: { type: 'RuntimeError', msg: 'boom' } },
    });
    f.add({
      event: 'tool:pre',
      ts: '2026-01-01T00:00:07.000Z',
      data: { tool_name: 'grep', tool_call_id: 'b' },
    });
    f.add({ event: 'no-time' });
    expect(f.calls[0]).toMatchObject({ start: Date.parse('2026-01-01T00:00:01.500Z'), status: 'ok' });
    expect(f.calls[1]).toMatchObject({ status: 'error', error: 'RateLimit: slow down' });
    expect(f.toolCalls.map((c) => c.status)).toEqual(['error', 'running']);
    expect(f.errors.map((e) => e.text)).toEqual([
      'llm:response (p): RateLimit: slow down',
      'tool bash (a): RuntimeError: boom',
    ]);
    expect(f.records).toBe(7);
  });
});

describe('assignLanes', () => {
  it('puts overlapping spans on separate rows and reuses a free row', () => {
    const { lanes, count } = assignLanes(
      [
        { start: 0, end: 10 },
        { start: 2, end: 5 },
        { start: 6, end: 8 },
        { start: 10, end: null },
      ],
      20,
    );
    expect(lanes).toEqual([0, 1, 1, 0]);
    expect(count).toBe(2);
  });
});
