/**
 * Resource-keyed scheduling: the conflict rule, the scheduler on its own
 * (with a property test), and scheduling observed through the loop with
 * tools that record start/end and block on promises the test controls.
 */
import type { ExecutionProfile, ResourceKey } from '@amplifier/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  calls,
  type Deferred,
  deferred,
  FREE_PROFILE,
  flush,
  gateOf,
  harness,
  TestTool,
  type ToolLogEntry,
  text,
  toolMessages,
  within,
} from './__fixtures__/harness.js';
import { conflicts, EXCLUSIVE, FREE, runScheduled, type ScheduleEntry, scheduleCalls } from './scheduler.js';

const read = (key: string): ResourceKey => ({ key, mode: 'read' });
const write = (key: string): ResourceKey => ({ key, mode: 'write' });
const keyed = (...keys: ResourceKey[]): ScheduleEntry => ({ serial: false, keys });

describe('conflict rule', () => {
  it('no profile and serial conflict with everything; same key with a write conflicts; read/read does not', () => {
    expect(conflicts(EXCLUSIVE, FREE)).toBe(true);
    expect(conflicts(FREE, EXCLUSIVE)).toBe(true);
    expect(conflicts({ serial: true, keys: [] }, FREE)).toBe(true);
    expect(conflicts(FREE, FREE)).toBe(false);
    expect(conflicts(keyed(read('a')), keyed(read('a')))).toBe(false);
    expect(conflicts(keyed(read('a')), keyed(write('a')))).toBe(true);
    expect(conflicts(keyed(write('a')), keyed(read('a')))).toBe(true);
    expect(conflicts(keyed(write('a')), keyed(write('a')))).toBe(true);
    expect(conflicts(keyed(write('a')), keyed(write('b')))).toBe(false);
    expect(conflicts(keyed(read('a'), write('b')), keyed(read('b')))).toBe(true);
  });
});

/** The scheduling rules call `i` would break by starting now (`running`: calls started, not finished). */
function brokenRules(
  entries: readonly ScheduleEntry[],
  limit: number,
  i: number,
  running: ReadonlyMap<number, unknown>,
  finished: ReadonlySet<number>,
): string[] {
  const broken: string[] = [];
  for (const j of running.keys()) {
    if (conflicts(entries[i]!, entries[j]!)) broken.push(`${i} overlaps ${j}`);
  }
  for (let j = 0; j < i; j++) {
    if (conflicts(entries[i]!, entries[j]!) && !finished.has(j)) broken.push(`${i} before ${j}`);
  }
  if (running.size >= limit) broken.push(`limit exceeded at ${i}`);
  return broken;
}

describe('runScheduled', () => {
  it('runs nothing for no entries and survives a run that throws or rejects', async () => {
    await runScheduled([], 4, () => Promise.reject(new Error('never called')));
    const ran: number[] = [];
    await runScheduled([FREE, FREE, FREE], 2, (i) => {
      ran.push(i);
      if (i === 0) throw new Error('sync throw');
      return Promise.reject(new Error('async'));
    });
    expect(ran.sort()).toEqual([0, 1, 2]);
    await runScheduled([FREE], 1, () => {
      throw new Error('single');
    });
  });

  it('calls that all run alone start one at a time, in order, each after the previous settled (throwing or not)', async () => {
    const log: string[] = [];
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const entries = [EXCLUSIVE, { serial: true, keys: [] }, EXCLUSIVE, EXCLUSIVE];
    let finished = false;
    const done = runScheduled(entries, 4, (i) => {
      log.push(`start ${i}`);
      if (i === 2) throw new Error('sync throw');
      return gates[i]!.promise.then(() => {
        log.push(`end ${i}`);
        if (i === 1) throw new Error('async');
      });
    }).then(() => {
      finished = true;
    });
    await flush(3);
    expect(log).toEqual(['start 0']);
    gates[0]!.resolve();
    await flush(3);
    expect(log).toEqual(['start 0', 'end 0', 'start 1']);
    gates[1]!.resolve();
    await flush(5);
    expect(log).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'start 3']);
    expect(finished).toBe(false);
    gates[3]!.resolve();
    await done;
    expect(log.at(-1)).toBe('end 3');
  });

  it('calls that conflict with nothing, within the limit, all start at once in the model order', async () => {
    const started: number[] = [];
    const gates = [deferred(), deferred(), deferred()];
    let finished = false;
    const keyed: ScheduleEntry = { serial: false, keys: [{ key: 'file:a', mode: 'read' }] };
    const done = runScheduled([FREE, keyed, keyed], 3, (i) => {
      started.push(i);
      return gates[i]!.promise;
    }).then(() => {
      finished = true;
    });
    expect(started).toEqual([0, 1, 2]);
    gates[2]!.resolve();
    gates[0]!.resolve();
    await flush(3);
    expect(finished).toBe(false);
    gates[1]!.resolve();
    await done;
    expect(finished).toBe(true);
    // One more call than the limit: the last waits for a free slot.
    const later: number[] = [];
    const held = [deferred(), deferred(), deferred()];
    const all = runScheduled([FREE, FREE, FREE], 2, (i) => {
      later.push(i);
      return held[i]!.promise;
    });
    expect(later).toEqual([0, 1]);
    held[1]!.resolve();
    await flush(3);
    expect(later).toEqual([0, 1, 2]);
    held[0]!.resolve();
    held[2]!.resolve();
    await all;
  });

  it('property: conflicting calls never overlap and keep the model order; the limit holds; all run', async () => {
    const keyArb = fc.record({ key: fc.constantFrom('a', 'b', 'c'), mode: fc.constantFrom('read', 'write') });
    const entryArb: fc.Arbitrary<ScheduleEntry> = fc.oneof(
      fc.constant(EXCLUSIVE),
      fc.constant<ScheduleEntry>({ serial: true, keys: [] }),
      fc.array(keyArb, { maxLength: 3 }).map((keys) => ({ serial: false, keys: keys as ResourceKey[] })),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(entryArb, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.nat(), { minLength: 64, maxLength: 64 }),
        async (entries, limit, choices) => {
          const running = new Map<number, Deferred>();
          const started: number[] = [];
          const finished = new Set<number>();
          const violations: string[] = [];
          const done = runScheduled(entries, limit, (i) => {
            violations.push(...brokenRules(entries, limit, i, running, finished));
            const d = deferred();
            running.set(i, d);
            started.push(i);
            return d.promise.then(() => {
              running.delete(i);
              finished.add(i);
            });
          });
          // Finish running calls in an arbitrary (generated) order.
          let step = 0;
          while (finished.size < entries.length) {
            await flush(1);
            const ids = [...running.keys()];
            if (ids.length === 0) continue;
            running.get(ids[choices[step++ % choices.length]! % ids.length]!)!.resolve();
          }
          await done;
          expect(violations).toEqual([]);
          expect([...started].sort((a, b) => a - b)).toEqual(entries.map((_, i) => i));
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("scheduleCalls (the tool runner's callback path)", () => {
  const entryArb: fc.Arbitrary<ScheduleEntry> = fc.oneof(
    fc.constant(EXCLUSIVE),
    fc.constant(FREE),
    fc
      .array(fc.record({ key: fc.constantFrom('a', 'b'), mode: fc.constantFrom('read', 'write') }), {
        maxLength: 2,
      })
      .map((keys) => ({ serial: false, keys: keys as ResourceKey[] })),
  );

  it('property: calls that finish inside start (or later) keep every rule, and each call and the end happen once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(entryArb, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
        fc.array(fc.nat(), { minLength: 64, maxLength: 64 }),
        async (entries, limit, atOnce, choices) => {
          const running = new Map<number, () => void>();
          const starts: number[] = [];
          const finished = new Set<number>();
          const violations: string[] = [];
          let ends = 0;
          scheduleCalls(
            entries,
            limit,
            (i, done) => {
              violations.push(...brokenRules(entries, limit, i, running, finished));
              starts.push(i);
              let called = false;
              const finish = (): void => {
                if (called) violations.push(`${i} finished twice`);
                called = true;
                running.delete(i);
                finished.add(i);
                done();
              };
              running.set(i, finish);
              if (atOnce[i]) finish();
            },
            () => ends++,
          );
          let step = 0;
          while (running.size > 0) {
            const ids = [...running.keys()];
            running.get(ids[choices[step++ % choices.length]! % ids.length]!)!();
          }
          expect(violations).toEqual([]);
          expect([...starts].sort((a, b) => a - b)).toEqual(entries.map((_, i) => i));
          expect(ends).toBe(1);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a long run of calls that finish at once does not nest one call inside the previous (no stack growth)', () => {
    const n = 100_000;
    let depth = 0;
    let deepest = 0;
    // In order (100,000: a version that nests would overflow the stack), and through the conflict table.
    for (const entries of [
      new Array<ScheduleEntry>(n).fill(EXCLUSIVE),
      [FREE, ...new Array<ScheduleEntry>(2_000).fill(EXCLUSIVE)],
    ]) {
      let ends = 0;
      let started = 0;
      scheduleCalls(
        entries,
        4,
        (_i, done) => {
          depth++;
          deepest = Math.max(deepest, depth);
          started++;
          done();
          depth--;
        },
        () => ends++,
      );
      expect(started).toBe(entries.length);
      expect(ends).toBe(1);
    }
    expect(deepest).toBe(1);
  });
});

/** A tool whose calls record start/end and wait until the test releases them by path. */
function gatedTool(name: string, mode: 'read' | 'write', log: ToolLogEntry[], gates: Map<string, Deferred>) {
  const started = new Map<string, Deferred>();
  const startedOf = (id: string): Deferred => gateOf(started, id);
  const profile: ExecutionProfile = {
    resourceKeys: (input) => [{ key: `file:${String(input.path)}`, mode }],
  };
  const tool = new TestTool({
    name,
    profile,
    log,
    schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    behave: async (input, { toolCallId }) => {
      startedOf(toolCallId!).resolve();
      await gateOf(gates, toolCallId!).promise;
      return { success: true, output: `${name} ${String(input.path)}` };
    },
  });
  return { tool, startedOf };
}

describe('scheduling through the loop', () => {
  it('two writes to the same path run in order while reads of different paths overlap', async () => {
    const log: ToolLogEntry[] = [];
    const gates = new Map<string, Deferred>();
    const gate = (id: string): Deferred => gateOf(gates, id);
    const reader = gatedTool('read_file', 'read', log, gates);
    const writer = gatedTool('write_file', 'write', log, gates);
    const h = harness(
      [
        calls(
          ['write_file', { path: '/x' }, 'w1'],
          ['read_file', { path: '/a' }, 'r1'],
          ['write_file', { path: '/x' }, 'w2'],
          ['read_file', { path: '/b' }, 'r2'],
        ),
        text('done'),
      ],
      { tools: [reader.tool, writer.tool] },
    );
    const turn = h.run();
    // w1, r1 and r2 are all running at once (r1 and r2 overlap: neither has ended).
    await within(
      Promise.all([
        writer.startedOf('w1').promise,
        reader.startedOf('r1').promise,
        reader.startedOf('r2').promise,
      ]),
      'w1, r1, r2 running together',
    );
    await flush();
    expect(log.filter((e) => e.event === 'end')).toEqual([]);
    // w2 waits for w1 (same path, write).
    expect(log.some((e) => e.id === 'w2')).toBe(false);
    // Finish the reads in reverse order; w2 still waits.
    gate('r2').resolve();
    gate('r1').resolve();
    await flush();
    expect(log.some((e) => e.id === 'w2')).toBe(false);
    gate('w1').resolve();
    await within(writer.startedOf('w2').promise, 'w2 starts after w1');
    gate('w2').resolve();
    expect(await within(turn, 'the turn ended')).toBe('done');

    const writes = log.filter((e) => e.id === 'w1' || e.id === 'w2').map((e) => `${e.event} ${e.id}`);
    expect(writes).toEqual(['start w1', 'end w1', 'start w2', 'end w2']);
    // Results are appended in the model's order, not the completion order.
    expect(toolMessages(h.context)).toEqual([
      ['w1', 'write_file /x'],
      ['r1', 'read_file /a'],
      ['w2', 'write_file /x'],
      ['r2', 'read_file /b'],
    ]);
  });

  it('max_concurrent_tools bounds how many calls run at once', async () => {
    const log: ToolLogEntry[] = [];
    const gates = new Map<string, Deferred>();
    const reader = gatedTool('read_file', 'read', log, gates);
    const list = [1, 2, 3, 4].map(
      (n) => ['read_file', { path: `/f${n}` }, `c${n}`] as [string, object, string],
    );
    const h = harness([calls(...(list as [string, Record<string, unknown>, string][])), text('done')], {
      config: { max_concurrent_tools: 2 },
      tools: [reader.tool],
    });
    const turn = h.run();
    await within(
      Promise.all([reader.startedOf('c1').promise, reader.startedOf('c2').promise]),
      'two started',
    );
    await flush();
    expect(log.map((e) => e.id)).toEqual(['c1', 'c2']);
    gates.get('c2')!.resolve();
    await within(reader.startedOf('c3').promise, 'c3 takes the free slot');
    await flush();
    expect(log.some((e) => e.id === 'c4')).toBe(false);
    gates.get('c1')!.resolve();
    await within(reader.startedOf('c4').promise, 'c4 starts');
    gates.get('c3')!.resolve();
    gates.get('c4')!.resolve();
    expect(await within(turn, 'the turn ended')).toBe('done');
    expect(toolMessages(h.context).map(([id]) => id)).toEqual(['c1', 'c2', 'c3', 'c4']);
  });

  it('tools without an execution profile run one at a time, in the model order', async () => {
    const log: ToolLogEntry[] = [];
    let running = 0;
    let maxRunning = 0;
    const plain = new TestTool({
      name: 'plain',
      log,
      behave: async () => {
        maxRunning = Math.max(maxRunning, ++running);
        await flush(2);
        running--;
        return { success: true, output: 'ok' };
      },
    });
    const free = new TestTool({ name: 'free', profile: FREE_PROFILE, log });
    const h = harness([calls(['plain', {}, 'p1'], ['free', {}, 'f1'], ['plain', {}, 'p2']), text('done')], {
      tools: [plain, free],
    });
    await h.run();
    expect(maxRunning).toBe(1);
    expect(log.map((e) => `${e.event} ${e.id}`)).toEqual([
      'start p1',
      'end p1',
      'start f1',
      'end f1',
      'start p2',
      'end p2',
    ]);
  });

  it('property: through the loop, results are always in the model order whatever order tools finish in', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ path: fc.constantFrom('/a', '/b', '/c'), write: fc.boolean() }), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.array(fc.nat(), { minLength: 32, maxLength: 32 }),
        async (plan, choices) => {
          const gates = new Map<string, Deferred>();
          const waiting: string[] = [];
          const make = (name: string, mode: 'read' | 'write') =>
            new TestTool({
              name,
              profile: { resourceKeys: (input) => [{ key: String(input.path), mode }] },
              behave: async (input, { toolCallId }) => {
                const d = deferred();
                gates.set(toolCallId!, d);
                waiting.push(toolCallId!);
                await d.promise;
                return { success: true, output: `${toolCallId} ${String(input.path)}` };
              },
            });
          const list = plan.map(
            (p, i) =>
              [p.write ? 'w' : 'r', { path: p.path }, `id${i}`] as [string, Record<string, unknown>, string],
          );
          const h = harness([calls(...list), text('done')], {
            tools: [make('r', 'read'), make('w', 'write')],
          });
          const turn = h.run();
          let step = 0;
          let finished = false;
          void turn.then(() => {
            finished = true;
          });
          while (!finished) {
            await flush(1);
            if (waiting.length === 0) continue;
            const [id] = waiting.splice(choices[step++ % choices.length]! % waiting.length, 1);
            gates.get(id!)!.resolve();
          }
          expect(toolMessages(h.context)).toEqual(plan.map((p, i) => [`id${i}`, `id${i} ${p.path}`]));
        },
      ),
      { numRuns: 60 },
    );
  });
});
