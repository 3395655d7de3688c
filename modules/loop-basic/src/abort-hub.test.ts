import { describe, expect, it } from 'vitest';
import { AbortHub } from './abort-hub.js';

describe('AbortHub', () => {
  it('aborted follows the signal: false until it aborts, true from the moment watchers are told', () => {
    const controller = new AbortController();
    const hub = new AbortHub(controller.signal);
    const seen: boolean[] = [];
    hub.watch({ onAbort: () => seen.push(hub.aborted) });
    expect(hub.aborted).toBe(false);
    controller.abort(new Error('stop'));
    expect(hub.aborted).toBe(true);
    expect(seen).toEqual([true]);
    // Watching after the abort calls back at once.
    hub.watch({ onAbort: () => seen.push(hub.aborted) });
    expect(seen).toEqual([true, true]);
    hub.dispose();
  });

  it('a hub over an already-aborted signal starts aborted', () => {
    const hub = new AbortHub(AbortSignal.abort());
    expect(hub.aborted).toBe(true);
    let called = 0;
    hub.watch({ onAbort: () => called++ });
    expect(called).toBe(1);
  });

  it('race rejects with the reason once the signal aborts, and unwatched watchers are not called', async () => {
    const controller = new AbortController();
    const hub = new AbortHub(controller.signal);
    let called = 0;
    const watcher = { onAbort: () => called++ };
    hub.watch(watcher);
    hub.unwatch(watcher);
    const raced = hub.race(new Promise<never>(() => {}));
    const reason = new Error('cancelled');
    controller.abort(reason);
    await expect(raced).rejects.toBe(reason);
    expect(called).toBe(0);
  });
});
