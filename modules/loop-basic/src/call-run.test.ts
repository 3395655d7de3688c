/**
 * The shared deadline timer and the lazy per-call signal. Timeouts here are
 * the thing under test; they are tiny and the assertions are about order,
 * never about durations.
 */
import type { Tool, ToolResult } from '@amplifier/core';
import { describe, expect, it, vi } from 'vitest';
import { deferred, within } from './__fixtures__/harness.js';
import { AbortHub } from './abort-hub.js';
import { type CallOutcome, CallRun, Deadlines, type Expirable, STOPPED } from './call-run.js';

function item(name: string, log: string[]): Expirable {
  return { deadline: 0, expire: () => log.push(name) };
}

function tool(execute: Tool['execute']): Tool {
  return { name: 't', description: 't', execute };
}

/** A call whose outcome is also a promise (the runner takes it through the callback only). */
function runCall(...args: [Tool, Record<string, unknown>, string, number | null, AbortHub, Deadlines]): {
  done: Promise<CallOutcome>;
} {
  return { done: new Promise((resolve) => new CallRun(...args, undefined, resolve)) };
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

describe('Deadlines beyond the timer limit', () => {
  it('a deadline further off than setTimeout allows (2^31 - 1 ms) waits on one timer, not one firing every millisecond', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const d = new Deadlines();
      const log: string[] = [];
      d.add(item('far', log), 3_000_000_000); // about 35 days
      const arms = vi.spyOn(globalThis, 'setTimeout');
      vi.advanceTimersByTime(1_000);
      // Node runs an overflowing delay after 1 ms: the timer would fire, find nothing due and re-arm, every ms.
      expect(arms).not.toHaveBeenCalled();
      vi.advanceTimersByTime(2 ** 31); // the first timer fires, finds nothing due and re-arms once
      expect(arms).toHaveBeenCalledTimes(1);
      expect(log).toEqual([]);
      vi.advanceTimersByTime(3_000_000_000 - 2 ** 31);
      expect(log).toEqual(['far']);
    } finally {
      vi.restoreAllMocks();
      vi.useRealTimers();
    }
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
    const timed = runCall(t, {}, 'id1', 1000, hub, new Deadlines());
    expect(await timed.done).toEqual({ kind: 'returned', value: { success: true, output: 'id1' } });
    expect(seen[0]).toBe(seen[1]);
    expect(seen[0]).not.toBe(hub.signal);
    const untimed = runCall(t, {}, 'id2', null, hub, new Deadlines());
    await untimed.done;
    expect(seen[2]).toBe(hub.signal);
  });

  it('a throw (sync or async) settles as threw; the run abort as STOPPED, aborting the call signal', async () => {
    const hub = hubOf();
    const d = new Deadlines();
    const sync = runCall(
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
    const waiting = runCall(
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
    const seen: CallOutcome[] = [];
    const labels: string[] = [];
    const record = (label: string) => (outcome: CallOutcome) => {
      labels.push(`${label}:${outcome.kind}`);
      seen.push(outcome);
    };
    new CallRun(
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
    expect(labels).toEqual(['a:threw']); // before the constructor returned
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    const calls: string[] = [];
    new CallRun(
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
    expect(labels).toEqual(['a:threw', 'b:stopped']);
    expect(calls).toEqual([]); // an aborted run does not start the tool
    expect(seen[0]).toEqual({ kind: 'threw', thrown: new Error('now') });
    expect(seen[1]).toBe(STOPPED);
    const returned = deferred();
    new CallRun(
      tool(async () => ({ success: true, output: 'x' })),
      {},
      'c',
      null,
      hubOf(),
      new Deadlines(),
      undefined,
      (outcome) => {
        record('c')(outcome);
        returned.resolve();
      },
    );
    expect(labels).toEqual(['a:threw', 'b:stopped']); // a promise's result comes in a later turn
    await returned.promise;
    expect(seen[2]).toEqual({ kind: 'returned', value: { success: true, output: 'x' } });
    expect(labels).toEqual(['a:threw', 'b:stopped', 'c:returned']);
  });

  it('a deadline that is not a number throws before the call is registered: the run never calls back', () => {
    const controller = new AbortController();
    const hub = new AbortHub(controller.signal);
    const deadlines = new Deadlines();
    const told: string[] = [];
    const ran: string[] = [];
    expect(
      () =>
        new CallRun(
          tool(async () => {
            ran.push('ran');
            return { success: true };
          }),
          {},
          'd',
          10n as unknown as number,
          hub,
          deadlines,
          undefined,
          (outcome) => told.push(outcome.kind),
        ),
    ).toThrow(TypeError);
    controller.abort(new Error('later'));
    expect(told).toEqual([]); // not watched by the hub: no second answer after the runner's own
    expect(ran).toEqual([]);
    expect(deadlines.size).toBe(0);
    hub.dispose();
  });

  it('a timeout settles with the timeout and aborts the signal even if the tool reads it afterwards', async () => {
    const hub = hubOf();
    const read = deferred();
    let late: AbortSignal | undefined;
    const run = runCall(
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
