import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Logger } from './contracts.js';
import { CancelledError } from './errors.js';
import { type EventData, type HookHandler, HookRegistry, utcTimestamp } from './hooks.js';
import type { HookResult } from './results.js';

// The registry's own tests use short event names, declared as a module declares its events.
declare module './index.js' {
  interface EventPayloads {
    e: EventData;
    a: EventData;
    b: EventData;
    c: EventData;
    'a:b': EventData;
    x: EventData;
    y: EventData;
    nobody: EventData;
  }
}

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const push =
    (level: string) =>
    (message: string): void => {
      lines.push(`${level}: ${message}`);
    };
  return { lines, debug: push('debug'), info: push('info'), warn: push('warn'), error: push('error') };
}

function registry(): HookRegistry & { logger: ReturnType<typeof recordingLogger> } {
  const logger = recordingLogger();
  return Object.assign(new HookRegistry({ logger }), { logger });
}

/** A handler that appends `label` to `calls` and returns `result`. */
function tracer(calls: string[], label: string, result?: HookResult): HookHandler {
  return () => {
    calls.push(label);
    return result;
  };
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;

describe('HookRegistry: registration and listing (A)', () => {
  it('A1: register returns a function that unregisters exactly that registration', async () => {
    const hooks = registry();
    const calls: string[] = [];
    const offA = hooks.register('e', tracer(calls, 'a'));
    hooks.register('e', tracer(calls, 'b'));
    offA();
    await hooks.emit('e', {});
    expect(calls).toEqual(['b']);
  });

  it('A2: on() is an alias of register() (same options, returns an unregister)', async () => {
    const hooks = registry();
    const calls: string[] = [];
    hooks.on('e', tracer(calls, 'late'), { priority: 5, name: 'late' });
    const off = hooks.on('e', tracer(calls, 'early'), { priority: -5, name: 'early' });
    expect(hooks.listHandlers('e')).toEqual({ e: ['early', 'late'] });
    await hooks.emit('e', {});
    expect(calls).toEqual(['early', 'late']);
    off();
    expect(hooks.listHandlers('e')).toEqual({ e: ['late'] });
  });

  it('A3: handlers run in ascending priority (lower number first)', async () => {
    const hooks = registry();
    const calls: string[] = [];
    hooks.register('e', tracer(calls, 'p10'), { priority: 10 });
    hooks.register('e', tracer(calls, 'p-1'), { priority: -1 });
    hooks.register('e', tracer(calls, 'p0'));
    hooks.register('e', tracer(calls, 'p5'), { priority: 5 });
    await hooks.emit('e', {});
    expect(calls).toEqual(['p-1', 'p0', 'p5', 'p10']);
  });

  it('A4: equal priorities run in registration order', async () => {
    const hooks = registry();
    const calls: string[] = [];
    for (const label of ['first', 'second', 'third'])
      hooks.register('e', tracer(calls, label), { priority: 3 });
    hooks.register('e', tracer(calls, 'before'), { priority: 2 });
    await hooks.emit('e', {});
    expect(calls).toEqual(['before', 'first', 'second', 'third']);
  });

  it('A4: the same handler registered twice runs twice', async () => {
    const hooks = registry();
    const calls: string[] = [];
    const handler = tracer(calls, 'x');
    hooks.register('e', handler);
    hooks.register('e', handler);
    await hooks.emit('e', {});
    expect(calls).toEqual(['x', 'x']);
  });

  it('A5: a handler registered for event A is never called for event B', async () => {
    const hooks = registry();
    const calls: string[] = [];
    hooks.register('a', tracer(calls, 'a'));
    await hooks.emit('b', {});
    await hooks.emit('a:b', {});
    expect(calls).toEqual([]);
    await hooks.emit('a', {});
    expect(calls).toEqual(['a']);
  });

  it('A6: calling unregister twice does not throw and removes no other registration (even a twin)', async () => {
    const hooks = registry();
    const calls: string[] = [];
    const handler = tracer(calls, 'twin');
    const off = hooks.register('e', handler, { name: 'twin' });
    hooks.register('e', handler, { name: 'twin' });
    off();
    expect(() => off()).not.toThrow();
    expect(hooks.listHandlers('e')).toEqual({ e: ['twin'] });
    await hooks.emit('e', {});
    expect(calls).toEqual(['twin']);
  });

  it('A7: listHandlers(event) gives names in execution order; the key is present with no handlers', () => {
    const hooks = registry();
    expect(hooks.listHandlers('none')).toEqual({ none: [] });
    hooks.register('e', () => {}, { name: 'b', priority: 2 });
    hooks.register('e', () => {}, { name: 'a', priority: 1 });
    expect(hooks.listHandlers('e')).toEqual({ e: ['a', 'b'] });
  });

  it('A8: listHandlers() with no argument lists every event', () => {
    const hooks = registry();
    hooks.register('x', () => {}, { name: 'x1' });
    hooks.register('y', () => {}, { name: 'y1' });
    hooks.register('y', () => {}, { name: 'y2' });
    expect(hooks.listHandlers()).toEqual({ x: ['x1'], y: ['y1', 'y2'] });
  });

  it('A9: without a name, the function name is used, else a generated _auto_<event>_<n> name', () => {
    const hooks = registry();
    async function auditTool(): Promise<HookResult> {
      return { action: 'continue' };
    }
    hooks.register('tool:pre', auditTool);
    hooks.register(
      'tool:pre',
      (
        () => () =>
          undefined
      )(),
    );
    const names = hooks.listHandlers('tool:pre')['tool:pre']!;
    expect(names[0]).toBe('auditTool');
    expect(names[1]).toMatch(/^_auto_tool:pre_\d+$/);
  });
});

describe('HookRegistry: emit semantics (B)', () => {
  it('B10: with no handlers, emit returns continue with the caller object untouched (no defaults, no timestamp)', async () => {
    const hooks = registry();
    hooks.setDefaultFields({ session_id: 's1' });
    const data = { a: 1 };
    const result = await hooks.emit('nobody', data);
    expect(result).toEqual({ action: 'continue', data: { a: 1 } });
    expect(result.data).toBe(data);
    expect(data).toEqual({ a: 1 });
    expect(await hooks.emit('nobody')).toEqual({ action: 'continue', data: undefined });
  });

  it('B10: after the last handler is unregistered, emit is back to the no-handler result', async () => {
    const hooks = registry();
    const off = hooks.register('e', () => ({ action: 'deny' }));
    off();
    const data = { x: 1 };
    const result = await hooks.emit('e', data);
    expect(result.action).toBe('continue');
    expect(result.data).toBe(data);
  });

  it('B11: handlers receive {...defaults, ...data, timestamp}; explicit data wins over defaults', async () => {
    const hooks = registry();
    hooks.setDefaultFields({ session_id: 's1', parent_id: null, shared: 'default' });
    let seen: EventData | undefined;
    hooks.register('e', (_event, data) => {
      seen = data;
    });
    const data = { shared: 'explicit', n: 2 };
    await hooks.emit('e', data);
    expect(seen).toMatchObject({ session_id: 's1', parent_id: null, shared: 'explicit', n: 2 });
    expect(typeof seen?.timestamp).toBe('string');
    expect(data).toEqual({ shared: 'explicit', n: 2 }); // the caller's object is not mutated
  });

  it('B11: the payload keeps the order of {...defaults, ...data, timestamp} and copies __proto__ keys as data', async () => {
    const hooks = registry();
    hooks.setDefaultFields({ session_id: 's1', parent_id: null });
    const seen: EventData[] = [];
    hooks.register('e', (_event, data) => {
      seen.push(data);
    });
    await hooks.emit('e', { tool_name: 't', session_id: 'explicit', timestamp: 'replaced', n: 1 });
    expect(Object.keys(seen[0]!)).toEqual(['session_id', 'parent_id', 'tool_name', 'timestamp', 'n']);
    expect(seen[0]!.session_id).toBe('explicit');
    expect(seen[0]!.timestamp).toMatch(TIMESTAMP);
    // JSON.parse makes an own "__proto__" key: it must arrive as a key, never as the prototype.
    await hooks.emit('e', JSON.parse('{"__proto__": {"polluted": true}, "n": 2}') as EventData);
    expect(Object.getPrototypeOf(seen[1]!)).toBe(Object.prototype);
    expect(Object.hasOwn(seen[1]!, '__proto__')).toBe(true);
    expect(Object.keys(seen[1]!)).toEqual(['session_id', 'parent_id', '__proto__', 'n', 'timestamp']);
    hooks.setDefaultFields(JSON.parse('{"__proto__": {"polluted": true}}') as EventData);
    await hooks.emit('e', { n: 3 });
    expect(Object.getPrototypeOf(seen[2]!)).toBe(Object.prototype);
    expect(Object.keys(seen[2]!)).toEqual(['__proto__', 'n', 'timestamp']);
  });

  it('B11: a handler may return a result, a promise of one, or any thenable; a rejected one is a failure', async () => {
    const hooks = registry();
    const order: string[] = [];
    hooks.register('e', () => {
      order.push('sync');
      return { action: 'modify', data: { step: 1 } };
    });
    hooks.register('e', async (_event, data) => {
      order.push('async');
      return { action: 'modify', data: { step: (data.step as number) + 1 } };
    });
    hooks.register('e', (_event, data) => {
      order.push('thenable');
      const result: HookResult = { action: 'modify', data: { step: (data.step as number) + 1 } };
      // biome-ignore lint/suspicious/noThenProperty: a non-native thenable is the subject
      return { then: (resolve: (r: HookResult) => void) => resolve(result) } as unknown as HookResult;
    });
    hooks.register('e', () => {
      order.push('rejected');
      return {
        // biome-ignore lint/suspicious/noThenProperty: a non-native thenable is the subject
        then: (_: unknown, reject: (e: Error) => void) => reject(new Error('nope')),
      } as unknown as HookResult;
    });
    const result = await hooks.emit('e', {});
    expect(order).toEqual(['sync', 'async', 'thenable', 'rejected']);
    expect(result).toEqual({ action: 'continue', data: { step: 3 } });
    expect(hooks.logger.lines.join('\n')).toContain('nope');
  });

  it('B11: after an async handler, the sync ones still run in order on its data, and a deny ends the chain', async () => {
    const hooks = registry();
    const order: string[] = [];
    hooks.register('e', (_event, data) => {
      order.push(`sync1:${String(data.n)}`);
    });
    hooks.register('e', async (_event, data) => {
      order.push(`async:${String(data.n)}`);
      return { action: 'modify', data: { n: (data.n as number) + 1 } };
    });
    hooks.register('e', () => {
      order.push('throws');
      throw new Error('boom');
    });
    hooks.register('e', (_event, data) => {
      order.push(`sync2:${String(data.n)}`);
      return { action: 'deny', reason: `at ${String(data.n)}` };
    });
    hooks.register('e', tracer(order, 'never'));
    const result = await hooks.emit('e', { n: 1 });
    expect(order).toEqual(['sync1:1', 'async:1', 'throws', 'sync2:2']);
    expect(result).toEqual({ action: 'deny', reason: 'at 2' });
    expect(hooks.logger.lines.join('\n')).toContain('boom');
  });

  it('B11: a result whose `then` getter throws is that handler failing: logged, and the next handler runs', async () => {
    const hooks = registry();
    const order: string[] = [];
    hooks.register('e', () => {
      order.push('bad');
      return Object.defineProperty({}, 'then', {
        get() {
          throw new Error('then getter');
        },
      }) as HookResult;
    });
    hooks.register('e', tracer(order, 'next', { action: 'deny', reason: 'next' }));
    expect(await hooks.emit('e', {})).toEqual({ action: 'deny', reason: 'next' });
    expect(order).toEqual(['bad', 'next']);
    expect(hooks.logger.lines.join('\n')).toContain('then getter');
  });

  it('B11: emit never throws: what goes wrong before the handlers run rejects its promise', async () => {
    const hooks = registry();
    hooks.register('e', () => undefined);
    hooks.suppressWhile(() => {
      throw new Error('predicate failed');
    });
    let returned: Promise<unknown> | undefined;
    expect(() => {
      returned = hooks.emit('e', {});
    }).not.toThrow();
    await expect(returned).rejects.toThrow('predicate failed');
    const data = Object.defineProperty({}, 'bad', {
      enumerable: true,
      get() {
        throw new Error('getter failed');
      },
    });
    const other = registry();
    other.register('e', () => undefined);
    expect(() => {
      returned = other.emit('e', data);
    }).not.toThrow();
    await expect(returned).rejects.toThrow('getter failed');
  });

  it('B11: handlers receive the event name as their first argument', async () => {
    const hooks = registry();
    const events: string[] = [];
    hooks.register('tool:pre', (event) => {
      events.push(event);
    });
    await hooks.emit('tool:pre', { tool_name: 'bash', tool_input: {} });
    expect(events).toEqual(['tool:pre']);
  });

  it('B12: setDefaultFields replaces the previous defaults (no merge)', async () => {
    const hooks = registry();
    hooks.setDefaultFields({ a: 1, b: 2 });
    hooks.setDefaultFields({ c: 3 });
    let seen: EventData = {};
    hooks.register('e', (_e, d) => {
      seen = d;
    });
    await hooks.emit('e', {});
    expect(seen).not.toHaveProperty('a');
    expect(seen).not.toHaveProperty('b');
    expect(seen.c).toBe(3);
    expect(hooks.getDefaultFields()).toEqual({ c: 3 });
  });

  it('B13: timestamp is UTC ISO-8601 ending in +00:00 and overrides a caller-supplied timestamp', async () => {
    const hooks = registry();
    let seen: EventData = {};
    hooks.register('e', (_e, d) => {
      seen = d;
    });
    const result = await hooks.emit('e', { timestamp: 'caller value' });
    expect(seen.timestamp).toMatch(TIMESTAMP);
    expect(seen.timestamp).not.toBe('caller value');
    expect(result.data?.timestamp).toBe(seen.timestamp);
    expect(Math.abs(Date.parse(String(seen.timestamp)) - Date.now())).toBeLessThan(60_000);
  });

  it('B14: timestamps of successive emits are non-decreasing', async () => {
    const hooks = registry();
    const stamps: string[] = [];
    hooks.register('e', (_e, d) => {
      stamps.push(String(d.timestamp));
    });
    for (let i = 0; i < 200; i++) await hooks.emit('e', {});
    const sorted = [...stamps].sort();
    expect(stamps).toEqual(sorted);
    expect(utcTimestamp() >= stamps.at(-1)!).toBe(true);
  });

  it('B15: deny stops dispatch and returns that handler’s own result (data null)', async () => {
    const hooks = registry();
    const calls: string[] = [];
    const deny: HookResult = { action: 'deny', reason: 'blocked' };
    hooks.register('e', tracer(calls, 'first'), { priority: 1 });
    hooks.register('e', tracer(calls, 'deny', deny), { priority: 2 });
    hooks.register('e', tracer(calls, 'after'), { priority: 3 });
    const result = await hooks.emit('e', { x: 1 });
    expect(result).toBe(deny);
    expect(result.data ?? null).toBeNull();
    expect(calls).toEqual(['first', 'deny']);
  });

  it('B16: modify with data replaces what later handlers see and becomes the final data', async () => {
    const hooks = registry();
    const seen: EventData[] = [];
    hooks.register('e', () => ({ action: 'modify', data: { step: 1 } }), { priority: 1 });
    hooks.register(
      'e',
      (_e, d) => {
        seen.push(d);
        return { action: 'modify', data: { ...d, step: 2 } };
      },
      { priority: 2 },
    );
    hooks.register(
      'e',
      (_e, d) => {
        seen.push(d);
      },
      { priority: 3 },
    );
    const result = await hooks.emit('e', { step: 0 });
    expect(seen[0]).toEqual({ step: 1 });
    expect(seen[1]).toEqual({ step: 2 });
    expect(result).toEqual({ action: 'continue', data: { step: 2 } });
  });

  it('B17: modify with null or missing data is ignored', async () => {
    const hooks = registry();
    const seen: EventData[] = [];
    hooks.register('e', () => ({ action: 'modify', data: null }), { priority: 1 });
    hooks.register('e', () => ({ action: 'modify' }), { priority: 2 });
    hooks.register(
      'e',
      (_e, d) => {
        seen.push(d);
      },
      { priority: 3 },
    );
    const result = await hooks.emit('e', { keep: true });
    expect(seen[0]).toMatchObject({ keep: true });
    expect(result.action).toBe('continue');
    expect(result.data).toMatchObject({ keep: true });
  });

  it('B18: when every handler continues or modifies, emit returns continue with the final chained data', async () => {
    const hooks = registry();
    hooks.register('e', () => ({ action: 'continue' }));
    hooks.register('e', (_e, d) => ({ action: 'modify', data: { ...d, added: 1 } }));
    hooks.register('e', () => ({ action: 'continue', data: { ignored: true } }));
    const result = await hooks.emit('e', { orig: true });
    expect(result.action).toBe('continue');
    expect(result.data).toMatchObject({ orig: true, added: 1 });
    expect(result.data).not.toHaveProperty('ignored');
  });

  it('B19: a handler that throws (sync or async) is logged and skipped; the others still decide', async () => {
    const hooks = registry();
    const calls: string[] = [];
    hooks.register(
      'e',
      () => {
        throw new Error('sync boom');
      },
      { name: 'syncBoom', priority: 1 },
    );
    hooks.register(
      'e',
      async () => {
        throw new Error('async boom');
      },
      { name: 'asyncBoom', priority: 2 },
    );
    hooks.register('e', tracer(calls, 'inject', { action: 'inject_context', context_injection: 'hi' }), {
      priority: 3,
    });
    const result = await hooks.emit('e', {});
    expect(calls).toEqual(['inject']);
    expect(result.action).toBe('inject_context');
    expect(hooks.logger.lines.some((l) => l.includes('syncBoom') && l.includes('sync boom'))).toBe(true);
    expect(hooks.logger.lines.some((l) => l.includes('asyncBoom') && l.includes('async boom'))).toBe(true);
  });

  it('B20: a cancellation-type error from a handler does not stop the remaining handlers', async () => {
    const hooks = registry();
    const calls: string[] = [];
    hooks.register('e', () => {
      throw new CancelledError();
    });
    hooks.register('e', () => {
      throw new DOMException('aborted', 'AbortError');
    });
    hooks.register('e', tracer(calls, 'still runs'));
    const result = await hooks.emit('e', {});
    expect(calls).toEqual(['still runs']);
    expect(result.action).toBe('continue');
  });

  it('B21: a void result counts as continue, a plain object is coerced, an invalid one is skipped', async () => {
    const hooks = registry();
    const calls: string[] = [];
    hooks.register('e', () => undefined, { priority: 1 });
    hooks.register('e', async () => {}, { priority: 2 });
    hooks.register('e', () => ({ reason: 'no action means continue' }), { priority: 3 });
    hooks.register('e', () => ({ action: 'explode' }) as unknown as HookResult, {
      priority: 4,
      name: 'badAction',
    });
    hooks.register('e', () => 'deny' as unknown as HookResult, { priority: 5, name: 'notAnObject' });
    hooks.register('e', tracer(calls, 'last'), { priority: 6 });
    const result = await hooks.emit('e', { v: 1 });
    expect(result.action).toBe('continue');
    expect(result.data).toMatchObject({ v: 1 });
    expect(calls).toEqual(['last']);
    expect(hooks.logger.lines.filter((l) => l.includes('invalid HookResult'))).toHaveLength(2);
  });

  it('B22: ask_user is first-wins', async () => {
    const hooks = registry();
    const first: HookResult = { action: 'ask_user', approval_prompt: 'first?' };
    hooks.register('e', () => first);
    hooks.register('e', () => ({ action: 'ask_user', approval_prompt: 'second?' }));
    expect(await hooks.emit('e', {})).toBe(first);
  });

  it('B23: ask_user wins over inject_context whether the injection ran before or after it', async () => {
    for (const askPriority of [0, 10]) {
      const hooks = registry();
      const ask: HookResult = { action: 'ask_user', approval_prompt: 'ok?' };
      hooks.register('e', () => ({ action: 'inject_context', context_injection: 'ctx' }), { priority: 5 });
      hooks.register('e', () => ask, { priority: askPriority });
      expect(await hooks.emit('e', {})).toBe(ask);
    }
  });

  it('B24: a deny after an ask_user still wins', async () => {
    const hooks = registry();
    const deny: HookResult = { action: 'deny', reason: 'no' };
    hooks.register('e', () => ({ action: 'ask_user' }));
    hooks.register('e', () => ({ action: 'inject_context', context_injection: 'x' }));
    hooks.register('e', () => deny);
    expect(await hooks.emit('e', {})).toBe(deny);
  });

  it('B25: inject_context with an empty or missing injection is treated as continue', async () => {
    const hooks = registry();
    hooks.register('e', () => ({ action: 'inject_context', context_injection: '' }));
    hooks.register('e', () => ({ action: 'inject_context' }));
    hooks.register('e', () => ({ action: 'inject_context', context_injection: null }));
    const result = await hooks.emit('e', { a: 1 });
    expect(result.action).toBe('continue');
    expect(result.data).toMatchObject({ a: 1 });
  });

  it('B26: a single inject_context result is returned as the handler’s own object with all its fields', async () => {
    const hooks = registry();
    const own: HookResult = {
      action: 'inject_context',
      context_injection: 'note',
      context_injection_role: 'user',
      ephemeral: true,
      user_message: 'shown',
      append_to_last_tool_result: true,
    };
    hooks.register('e', () => own);
    hooks.register('e', () => ({ action: 'inject_context', context_injection: '' }));
    expect(await hooks.emit('e', {})).toBe(own);
  });

  it('B27: several injections merge: joined by a blank line in order, role and suppress_output from the first, other fields dropped', async () => {
    const hooks = registry();
    hooks.register(
      'e',
      () => ({
        action: 'inject_context',
        context_injection: 'two',
        context_injection_role: 'assistant',
        user_message: 'dropped',
        reason: 'dropped',
      }),
      { priority: 2 },
    );
    hooks.register(
      'e',
      () => ({
        action: 'inject_context',
        context_injection: 'one',
        context_injection_role: 'user',
        suppress_output: true,
        data: { dropped: true },
      }),
      { priority: 1 },
    );
    hooks.register('e', () => ({ action: 'inject_context', context_injection: 'three' }), { priority: 3 });
    const result = await hooks.emit('e', {});
    expect(result).toEqual({
      action: 'inject_context',
      context_injection: 'one\n\ntwo\n\nthree',
      context_injection_role: 'user',
      suppress_output: true,
      ephemeral: false,
      append_to_last_tool_result: false,
    });
  });

  it('B28: in a merged injection, ephemeral and append_to_last_tool_result are true if any result sets them', async () => {
    const hooks = registry();
    hooks.register('e', () => ({ action: 'inject_context', context_injection: 'durable' }));
    hooks.register('e', () => ({ action: 'inject_context', context_injection: 'eph', ephemeral: true }));
    hooks.register('e', () => ({
      action: 'inject_context',
      context_injection: 'append',
      append_to_last_tool_result: true,
    }));
    const result = await hooks.emit('e', {});
    expect(result.ephemeral).toBe(true);
    expect(result.append_to_last_tool_result).toBe(true);
    expect(result.context_injection).toBe('durable\n\neph\n\nappend');
  });

  it('B29: an ask_user or inject_context outcome does not carry the chained modify data', async () => {
    const hooks = registry();
    hooks.register('e', () => ({ action: 'modify', data: { modified: true } }), { priority: 1 });
    hooks.register('e', () => ({ action: 'inject_context', context_injection: 'x' }), { priority: 2 });
    const injected = await hooks.emit('e', {});
    expect(injected.data).toBeUndefined();

    const hooks2 = registry();
    hooks2.register('e', () => ({ action: 'modify', data: { modified: true } }), { priority: 1 });
    hooks2.register('e', () => ({ action: 'ask_user' }), { priority: 2 });
    const asked = await hooks2.emit('e', {});
    expect(asked.data).toBeUndefined();
  });

  it('B30: handlers run strictly one at a time', async () => {
    const hooks = registry();
    let active = 0;
    let maxActive = 0;
    const log: string[] = [];
    for (const label of ['a', 'b', 'c']) {
      hooks.register('e', async () => {
        active++;
        maxActive = Math.max(maxActive, active);
        log.push(`start ${label}`);
        await new Promise<void>((resolve) => setImmediate(resolve));
        log.push(`end ${label}`);
        active--;
      });
    }
    await hooks.emit('e', {});
    expect(maxActive).toBe(1);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('B31: the handler list is snapshotted per emit (register/unregister inside a handler does not affect that emit)', async () => {
    const hooks = registry();
    const calls: string[] = [];
    let offThird: () => void = () => {};
    hooks.register(
      'e',
      () => {
        calls.push('first');
        hooks.register('e', tracer(calls, 'added during emit'), { priority: 2 });
        offThird();
      },
      { priority: 1 },
    );
    offThird = hooks.register('e', tracer(calls, 'third'), { priority: 3 });
    await hooks.emit('e', {});
    expect(calls).toEqual(['first', 'third']);
    calls.length = 0;
    await hooks.emit('e', {});
    // This emit sees the one added last time, not the one its first handler adds now.
    expect(calls).toEqual(['first', 'added during emit']);
    expect(hooks.listHandlers('e').e).toHaveLength(3);
  });

  it('B: the shared per-emit object is documented: in-place mutation without modify is visible to later handlers', async () => {
    // Deliberate choice (see README): handlers of one emit share one object; modify is the supported way.
    const hooks = registry();
    hooks.register('e', (_e, d) => {
      d.touched = true;
    });
    let seen: EventData = {};
    hooks.register('e', (_e, d) => {
      seen = d;
    });
    const caller = { a: 1 };
    await hooks.emit('e', caller);
    expect(seen.touched).toBe(true);
    expect(caller).toEqual({ a: 1 });
  });

  it('has(event) tells whether any handler is registered', () => {
    const hooks = registry();
    expect(hooks.has('e')).toBe(false);
    const off = hooks.register('e', () => {});
    expect(hooks.has('e')).toBe(true);
    off();
    expect(hooks.has('e')).toBe(false);
  });

  it('a non-finite priority is treated as 0 (NaN) or kept (±Infinity) without breaking the order', async () => {
    const hooks = registry();
    const calls: string[] = [];
    hooks.register('e', tracer(calls, 'last'), { priority: Number.POSITIVE_INFINITY });
    hooks.register('e', tracer(calls, 'nan'), { priority: Number.NaN });
    hooks.register('e', tracer(calls, 'first'), { priority: Number.NEGATIVE_INFINITY });
    hooks.register('e', tracer(calls, 'one'), { priority: 1 });
    hooks.register('e', tracer(calls, 'zero'), { priority: 0 });
    await hooks.emit('e', {});
    expect(calls).toEqual(['first', 'nan', 'zero', 'one', 'last']);
  });
});

describe('HookRegistry: emitAndCollect (C)', () => {
  it('C32: returns [] when there are no handlers', async () => {
    const hooks = registry();
    expect(await hooks.emitAndCollect('e', { a: 1 })).toEqual([]);
  });

  it('C33: handlers get the raw data: no defaults merged, no timestamp', async () => {
    const hooks = registry();
    hooks.setDefaultFields({ session_id: 's' });
    const data = { q: 1 };
    let seen: EventData | undefined;
    hooks.register('e', (_e, d) => {
      seen = d;
    });
    await hooks.emitAndCollect('e', data);
    expect(seen).toBe(data);
    expect(seen).not.toHaveProperty('timestamp');
    expect(seen).not.toHaveProperty('session_id');
  });

  it('C34: collects every non-null result.data in priority order, whatever the action (deny does not short-circuit)', async () => {
    const hooks = registry();
    hooks.register('e', () => ({ action: 'deny', data: { from: 'deny' } }), { priority: 1 });
    hooks.register('e', () => ({ action: 'continue' }), { priority: 2 });
    hooks.register('e', () => ({ action: 'modify', data: { from: 'modify' } }), { priority: 3 });
    hooks.register('e', () => undefined, { priority: 4 });
    hooks.register('e', () => ({ data: null }), { priority: 5 });
    hooks.register('e', async () => ({ action: 'continue', data: { from: 'async' } }), { priority: 0 });
    expect(await hooks.emitAndCollect('e', {})).toEqual([
      { from: 'async' },
      { from: 'deny' },
      { from: 'modify' },
    ]);
  });

  it('C35: a handler that exceeds the timeout is skipped and logged; the others are collected', async () => {
    const hooks = registry();
    hooks.register('e', () => ({ data: { n: 1 } }));
    hooks.register('e', () => new Promise<never>(() => {}), { name: 'neverAnswers' });
    hooks.register('e', () => ({ data: { n: 3 } }));
    // A tiny timeout is the behaviour under test (the handler never settles).
    expect(await hooks.emitAndCollect('e', {}, { timeoutMs: 5 })).toEqual([{ n: 1 }, { n: 3 }]);
    expect(hooks.logger.lines.some((l) => l.includes('neverAnswers') && l.includes('timed out'))).toBe(true);
  });

  it('C36: a handler that throws is skipped; the others are collected', async () => {
    const hooks = registry();
    hooks.register('e', () => {
      throw new Error('sync');
    });
    hooks.register('e', async () => {
      throw new CancelledError();
    });
    hooks.register('e', () => ({ data: { ok: true } }));
    expect(await hooks.emitAndCollect('e', {})).toEqual([{ ok: true }]);
  });

  it('C37: the collected items are plain objects, not strings', async () => {
    const hooks = registry();
    hooks.register('e', () => ({ data: { agent: 'explorer', score: 2 } }));
    const [item] = await hooks.emitAndCollect('e', {});
    expect(typeof item).toBe('object');
    expect(item).toEqual({ agent: 'explorer', score: 2 });
  });
});

// --------------------------------------------------------- property-based

type Step =
  | { kind: 'continue' }
  | { kind: 'void' }
  | { kind: 'throw' }
  | { kind: 'modify'; value: number }
  | { kind: 'deny'; id: number }
  | { kind: 'ask_user'; id: number }
  | { kind: 'inject'; text: string };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.constant<Step>({ kind: 'continue' }),
  fc.constant<Step>({ kind: 'void' }),
  fc.constant<Step>({ kind: 'throw' }),
  fc.integer().map<Step>((value) => ({ kind: 'modify', value })),
  fc.nat().map<Step>((id) => ({ kind: 'deny', id })),
  fc.nat().map<Step>((id) => ({ kind: 'ask_user', id })),
  fc.oneof(fc.constant(''), fc.string({ minLength: 1, maxLength: 8 })).map<Step>((text) => ({
    kind: 'inject',
    text,
  })),
);

describe('HookRegistry: outcome precedence (property)', () => {
  it('B6 precedence: deny > ask_user > inject_context > continue for random handler lists', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ step: stepArb, priority: fc.integer({ min: -3, max: 3 }) }), { maxLength: 12 }),
        async (entries) => {
          const hooks = new HookRegistry({
            logger: { debug() {}, info() {}, warn() {}, error() {} },
          });
          const called: number[] = [];
          const results = new Map<number, HookResult>();
          entries.forEach(({ step, priority }, index) => {
            let result: HookResult | undefined;
            if (step.kind === 'deny') result = { action: 'deny', reason: `deny ${step.id}` };
            if (step.kind === 'ask_user') result = { action: 'ask_user', approval_prompt: `ask ${step.id}` };
            if (step.kind === 'inject') result = { action: 'inject_context', context_injection: step.text };
            if (step.kind === 'modify') result = { action: 'modify', data: { value: step.value } };
            if (step.kind === 'continue') result = { action: 'continue' };
            if (result) results.set(index, result);
            hooks.register(
              'e',
              () => {
                called.push(index);
                if (step.kind === 'throw') throw new Error('boom');
                return result;
              },
              { priority },
            );
          });

          // Execution order: stable sort by priority.
          const order = entries
            .map((e, i) => ({ ...e, i }))
            .sort((a, b) => a.priority - b.priority || a.i - b.i);
          const firstDeny = order.findIndex((e) => e.step.kind === 'deny');
          const ran = firstDeny === -1 ? order : order.slice(0, firstDeny + 1);
          const result = await hooks.emit('e', { value: 'initial' });

          expect(called).toEqual(ran.map((e) => e.i));
          if (firstDeny !== -1) {
            expect(result).toBe(results.get(order[firstDeny]!.i));
            return;
          }
          const ask = ran.find((e) => e.step.kind === 'ask_user');
          if (ask) {
            expect(result).toBe(results.get(ask.i));
            return;
          }
          const injects = ran.filter((e) => e.step.kind === 'inject' && e.step.text !== '');
          if (injects.length === 1) {
            expect(result).toBe(results.get(injects[0]!.i));
            return;
          }
          if (injects.length > 1) {
            expect(result.action).toBe('inject_context');
            expect(result.context_injection).toBe(
              injects.map((e) => (e.step as { text: string }).text).join('\n\n'),
            );
            return;
          }
          const lastModify = ran.filter((e) => e.step.kind === 'modify').at(-1);
          expect(result.action).toBe('continue');
          if (lastModify) {
            expect(result.data).toEqual({ value: (lastModify.step as { value: number }).value });
          } else if (entries.length > 0) {
            expect(result.data).toMatchObject({ value: 'initial' });
          } else {
            expect(result.data).toEqual({ value: 'initial' });
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('suppressWhile (durable replay)', () => {
  it('delivers no event while the predicate answers true, then delivers again', async () => {
    const hooks = registry();
    const calls: string[] = [];
    hooks.on('e', tracer(calls, 'h', { action: 'deny', reason: 'no' }), { name: 'h' });
    hooks.on('c', () => ({ data: { x: 1 } }), { name: 'c' });
    let replaying = true;
    const restore = hooks.suppressWhile(() => replaying);
    expect(await hooks.emit('e', { a: 1 })).toEqual({ action: 'continue', data: { a: 1 } });
    expect(await hooks.emitAndCollect('c', {})).toEqual([]);
    expect(calls).toEqual([]);
    replaying = false;
    expect((await hooks.emit('e', {})).action).toBe('deny');
    expect(await hooks.emitAndCollect('c', {})).toEqual([{ x: 1 }]);
    replaying = true;
    restore();
    expect((await hooks.emit('e', {})).action).toBe('deny');
    expect(calls).toEqual(['h', 'h']);
  });

  it('a restore function of a replaced predicate leaves the new one in place', async () => {
    const hooks = registry();
    const calls: string[] = [];
    hooks.on('e', tracer(calls, 'h'));
    const first = hooks.suppressWhile(() => true);
    hooks.suppressWhile(() => true);
    first();
    await hooks.emit('e', {});
    expect(calls).toEqual([]);
  });
});
