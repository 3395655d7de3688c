/**
 * The shared deadline timer and the lazy per-call signal. Timeouts here are
 * the thing under test; they are tiny and the assertions are about order,
 * never about durations.
 */
import type { Tool, ToolResult } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { deferred, within } from './__fixtures__/harness.js';
import { AbortHub } from './abort-hub.js';
import { CallRun, Deadlines, type Expirable, STOPPED } from './call-run.js';

function item(name: string, log: string[]): Expirable {
  return { deadline: 0, expire: () => log.push(name) };
}

function tool(execute: Tool['execute']): Tool {
  return { name: 't', description: 't', execute };
}

describe('Deadlines', () => {
  it('a later, shorter deadline re-arms the timer; the longer one keeps waiting', async () => {
    const d = new Deadlines();
    const log: string[] = [];
    const long = item('long', log);
    const fired = deferred();
    d.add(long, 600_000);
    d.add(
      {
        deadline: 0,
        expire: () => {
          log.push('short');
          fired.resolve();
        },
      },
      5,
    );
    await within(fired.promise, 'the short deadline');
    expect(log).toEqual(['short']);
    expect(d.size).toBe(1);
    expect(d.holdsProcess).toBe(true);
    d.remove(long);
    expect(d.size).toBe(0);
    expect(d.holdsProcess).toBe(false); // no waiting item: the process may exit
  });

  it('expires items in deadline order, each once; removed items never expire', async () => {
    const d = new Deadlines();
    const log: string[] = [];
    const all = deferred();
    const gone = item('gone', log);
    d.add(item('b', log), 10);
    d.add(gone, 1);
    d.add(item('a', log), 2);
    d.add(
      {
        deadline: 0,
        expire: () => {
          log.push('c');
          all.resolve();
        },
      },
      20,
    );
    d.remove(gone);
    await within(all.promise, 'every deadline');
    expect(log).toEqual(['a', 'b', 'c']);
    expect(d.size).toBe(0);
    expect(d.holdsProcess).toBe(false);
  });
});

describe('CallRun', () => {
  const hubOf = () => new AbortHub(new AbortController().signal);

  it('creates the call signal only when the tool reads it; without a timeout it is the run signal', async () => {
    const hub = hubOf();
    const seen: AbortSignal[] = [];
    const t = tool(async (_input, options) => {
      seen.push(options!.signal!, options!.signal!);
      return { success: true, output: options!.toolCallId };
    });
    const timed = new CallRun(t, {}, 'id1', 1000, hub, new Deadlines());
    expect(await timed.done).toEqual({ kind: 'returned', value: { success: true, output: 'id1' } });
    expect(seen[0]).toBe(seen[1]);
    expect(seen[0]).not.toBe(hub.signal);
    const untimed = new CallRun(t, {}, 'id2', null, hub, new Deadlines());
    await untimed.done;
    expect(seen[2]).toBe(hub.signal);
  });

  it('a throw (sync or async) settles as threw; the run abort as STOPPED, aborting the call signal', async () => {
    const hub = hubOf();
    const d = new Deadlines();
    const sync = new CallRun(
      tool(() => {
        throw new Error('sync');
      }),
      {},
      'a',
      1000,
      hub,
      d,
    );
    expect(await sync.done).toEqual({ kind: 'threw', thrown: new Error('sync') });
    const started = deferred<AbortSignal>();
    const controller = new AbortController();
    const hub2 = new AbortHub(controller.signal);
    const waiting = new CallRun(
      tool((_input, options) => {
        started.resolve(options!.signal!);
        return new Promise<ToolResult>(() => {});
      }),
      {},
      'b',
      600_000,
      hub2,
      d,
    );
    const signal = await started.promise;
    expect(d.size).toBe(1);
    controller.abort(new Error('stop'));
    expect(await within(waiting.done, 'stopped')).toBe(STOPPED);
    expect(signal.aborted).toBe(true);
    expect(d.size).toBe(0);
    hub.dispose();
    hub2.dispose();
  });

  it('tells onOutcome once, at once when the tool throws synchronously or the run is already aborted', async () => {
    const seen: string[] = [];
    const record = (label: string) => (outcome: { kind: string }) => seen.push(`${label}:${outcome.kind}`);
    const throwing = new CallRun(
      tool(() => {
        throw new Error('now');
      }),
      {},
      'a',
      1000,
      hubOf(),
      new Deadlines(),
      undefined,
      record('a'),
    );
    expect(seen).toEqual(['a:threw']); // before the constructor returned
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    const calls: string[] = [];
    const aborted = new CallRun(
      tool(async () => {
        calls.push('ran');
        return { success: true };
      }),
      {},
      'b',
      1000,
      new AbortHub(controller.signal),
      new Deadlines(),
      undefined,
      record('b'),
    );
    expect(seen).toEqual(['a:threw', 'b:stopped']);
    expect(calls).toEqual([]); // an aborted run does not start the tool
    // `done`, asked for after the outcome, settles with it; nothing is told twice.
    expect(await throwing.done).toEqual({ kind: 'threw', thrown: new Error('now') });
    expect(await aborted.done).toBe(STOPPED);
    const later = new CallRun(
      tool(async () => ({ success: true, output: 'x' })),
      {},
      'c',
      null,
      hubOf(),
      new Deadlines(),
      undefined,
      record('c'),
    );
    expect(seen).toEqual(['a:threw', 'b:stopped']); // a promise's result comes in a later turn
    expect(await later.done).toEqual({ kind: 'returned', value: { success: true, output: 'x' } });
    expect(seen).toEqual(['a:threw', 'b:stopped', 'c:returned']);
  });

  it('a timeout settles with the timeout and aborts the signal even if the tool reads it afterwards', async () => {
    const hub = hubOf();
    const read = deferred();
    let late: AbortSignal | undefined;
    const run = new CallRun(
      tool(async (_input, options) => {
        await read.promise;
        late = options!.signal;
        return { success: true };
      }),
      {},
      'c',
      5,
      hub,
      new Deadlines(),
    );
    expect(await within(run.done, 'the timeout')).toEqual({ kind: 'timed_out', ms: 5 });
    read.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(late!.aborted).toBe(true);
    expect((late!.reason as Error).name).toBe('TimeoutError');
  });
});
