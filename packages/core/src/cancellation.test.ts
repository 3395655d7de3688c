import { describe, expect, it } from 'vitest';
import { CancellationToken, sleep } from './cancellation.js';
import { CancelledError } from './errors.js';

describe('CancellationToken (H)', () => {
  it('H68: a new token is in state none; isCancelled, isGraceful and isImmediate are false', () => {
    const token = new CancellationToken();
    expect(token.state).toBe('none');
    expect(token.isCancelled).toBe(false);
    expect(token.isGraceful).toBe(false);
    expect(token.isImmediate).toBe(false);
    expect(token.signal.aborted).toBe(false);
  });

  it('H69: requestGraceful moves none -> graceful once; in any other state it returns false and changes nothing', () => {
    const token = new CancellationToken();
    expect(token.requestGraceful()).toBe(true);
    expect(token.state).toBe('graceful');
    expect(token.requestGraceful()).toBe(false);
    expect(token.state).toBe('graceful');
    token.requestImmediate();
    expect(token.requestGraceful()).toBe(false);
    expect(token.state).toBe('immediate');
  });

  it('H70: requestImmediate moves none or graceful -> immediate; when already immediate it returns false', () => {
    const fromNone = new CancellationToken();
    expect(fromNone.requestImmediate()).toBe(true);
    expect(fromNone.state).toBe('immediate');
    expect(fromNone.requestImmediate()).toBe(false);
    const fromGraceful = new CancellationToken();
    fromGraceful.requestGraceful();
    expect(fromGraceful.requestImmediate()).toBe(true);
    expect(fromGraceful.isImmediate).toBe(true);
  });

  it('H71: isCancelled is true in both graceful and immediate', () => {
    const token = new CancellationToken();
    token.requestGraceful();
    expect([token.isCancelled, token.isGraceful, token.isImmediate]).toEqual([true, true, false]);
    token.requestImmediate();
    expect([token.isCancelled, token.isGraceful, token.isImmediate]).toEqual([true, false, true]);
  });

  it('H72: registerToolStart / registerToolComplete maintain runningTools (a copy) and runningToolNames', () => {
    const token = new CancellationToken();
    token.registerToolStart('call_1', 'bash');
    token.registerToolStart('call_2', 'read_file');
    expect(token.runningTools).toEqual(new Set(['call_1', 'call_2']));
    expect(token.runningToolNames).toEqual(['bash', 'read_file']);
    const copy = token.runningTools;
    copy.add('intruder');
    copy.delete('call_1');
    expect(token.runningTools).toEqual(new Set(['call_1', 'call_2']));
    token.registerToolComplete('call_1');
    token.registerToolComplete('unknown id');
    expect(token.runningTools).toEqual(new Set(['call_2']));
    expect(token.runningToolNames).toEqual(['read_file']);
  });

  it('H73: reset returns to none and clears running tools but keeps children and callbacks', async () => {
    const token = new CancellationToken();
    const child = new CancellationToken();
    const calls: string[] = [];
    token.registerChild(child);
    token.onCancel(() => {
      calls.push('cb');
    });
    token.registerToolStart('c', 'bash');
    token.requestGraceful();
    token.reset();
    expect(token.state).toBe('none');
    expect(token.runningTools.size).toBe(0);
    expect(token.runningToolNames).toEqual([]);
    child.reset();
    token.requestImmediate();
    expect(child.isImmediate).toBe(true);
    await token.triggerCallbacks();
    expect(calls).toEqual(['cb']);
  });

  it('H74: registerChild immediately applies the parent state to the child', () => {
    const graceful = new CancellationToken();
    graceful.requestGraceful();
    const a = new CancellationToken();
    graceful.registerChild(a);
    expect(a.state).toBe('graceful');

    const immediate = new CancellationToken();
    immediate.requestImmediate();
    const b = new CancellationToken();
    immediate.registerChild(b);
    expect(b.state).toBe('immediate');
    expect(b.signal.aborted).toBe(true);

    const none = new CancellationToken();
    const c = new CancellationToken();
    none.registerChild(c);
    expect(c.state).toBe('none');
  });

  it('H75: later state changes propagate to every child (and grandchild); unregisterChild stops it', () => {
    const parent = new CancellationToken();
    const child = new CancellationToken();
    const grandchild = new CancellationToken();
    const removed = new CancellationToken();
    parent.registerChild(child);
    child.registerChild(grandchild);
    parent.registerChild(removed);
    parent.unregisterChild(removed);
    parent.requestGraceful();
    expect([child.state, grandchild.state, removed.state]).toEqual(['graceful', 'graceful', 'none']);
    parent.requestImmediate();
    expect([child.state, grandchild.state, removed.state]).toEqual(['immediate', 'immediate', 'none']);
    expect(grandchild.signal.aborted).toBe(true);
  });

  it('H76: triggerCallbacks awaits every callback in order and swallows ordinary errors', async () => {
    const token = new CancellationToken();
    const calls: string[] = [];
    token.onCancel(async () => {
      await Promise.resolve();
      calls.push('async');
    });
    token.onCancel(() => {
      calls.push('throws');
      throw new Error('ordinary');
    });
    token.onCancel(() => {
      calls.push('sync');
    });
    await expect(token.triggerCallbacks()).resolves.toBeUndefined();
    expect(calls).toEqual(['async', 'throws', 'sync']);
  });

  it('H76: the first fatal error is re-thrown after every callback has run', async () => {
    const token = new CancellationToken();
    const calls: string[] = [];
    const first = new CancelledError('first');
    token.onCancel(() => {
      calls.push('a');
      throw first;
    });
    token.onCancel(() => {
      calls.push('b');
      throw new DOMException('second', 'AbortError');
    });
    token.onCancel(() => {
      calls.push('c');
    });
    await expect(token.triggerCallbacks()).rejects.toBe(first);
    expect(calls).toEqual(['a', 'b', 'c']);
  });

  it('H76: onCancel returns a function that removes the callback', async () => {
    const token = new CancellationToken();
    const calls: string[] = [];
    const off = token.onCancel(() => {
      calls.push('removed');
    });
    token.onCancel(() => {
      calls.push('kept');
    });
    off();
    off();
    await token.triggerCallbacks();
    expect(calls).toEqual(['kept']);
  });

  it('H: signal aborts on immediate (reason is a CancelledError), not on graceful; reset gives a fresh signal', () => {
    const token = new CancellationToken();
    const first = token.signal;
    let aborts = 0;
    first.addEventListener('abort', () => aborts++);
    token.requestGraceful();
    expect(first.aborted).toBe(false);
    token.requestImmediate();
    expect(first.aborted).toBe(true);
    expect(first.reason).toBeInstanceOf(CancelledError);
    expect(aborts).toBe(1);
    token.reset();
    const second = token.signal;
    expect(second).not.toBe(first);
    expect(second.aborted).toBe(false);
    expect(first.aborted).toBe(true);
  });

  it('H: reset without an abort keeps the same signal (nothing to renew)', () => {
    const token = new CancellationToken();
    const signal = token.signal;
    token.requestGraceful();
    token.reset();
    expect(token.signal).toBe(signal);
  });

  it('H: the state is already immediate when abort listeners run', () => {
    const token = new CancellationToken();
    let seen: string | undefined;
    token.signal.addEventListener('abort', () => {
      seen = token.state;
    });
    token.requestImmediate();
    expect(seen).toBe('immediate');
  });

  it('H: tokens compare by identity, so children can be held in a Set', () => {
    const parent = new CancellationToken();
    const a = new CancellationToken();
    const b = new CancellationToken();
    parent.registerChild(a);
    parent.registerChild(a);
    parent.registerChild(b);
    parent.requestGraceful();
    expect(a.isGraceful && b.isGraceful).toBe(true);
  });
});

describe('sleep', () => {
  it('resolves, and rejects with the reason when the signal aborts (already or later)', async () => {
    await expect(sleep(0)).resolves.toBeUndefined();
    const reason = new Error('stop');
    await expect(sleep(10, AbortSignal.abort(reason))).rejects.toBe(reason);
    const controller = new AbortController();
    const pending = sleep(3_600_000, controller.signal);
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });
});
