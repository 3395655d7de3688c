import { describe, expect, it } from 'vitest';
import type {
  ApprovalProvider,
  ApprovalRequest,
  ContextManager,
  DisplaySystem,
  Logger,
  ModuleLoaderLike,
} from './contracts.js';
import { Coordinator, type CoordinatorOptions } from './coordinator.js';
import { AmplifierError, ApprovalTimeoutError, CancelledError } from './errors.js';
import type { EventData } from './hooks.js';
import { HookRegistry } from './hooks.js';
import type { Message } from './messages.js';
import type { MountPlan } from './mount-plan.js';
import type { HookResult, MessageLevel } from './results.js';

// ------------------------------------------------------------------ fakes

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const push =
    (level: string) =>
    (message: string): void => {
      lines.push(`${level}: ${message}`);
    };
  return { lines, debug: push('debug'), info: push('info'), warn: push('warn'), error: push('error') };
}

class RecordingContext implements ContextManager {
  readonly messages: Message[] = [];
  async addMessage(message: Message): Promise<void> {
    this.messages.push(message);
  }
  async getMessagesForRequest(): Promise<Message[]> {
    return [...this.messages];
  }
  async getMessages(): Promise<Message[]> {
    return [...this.messages];
  }
  async setMessages(messages: Message[]): Promise<void> {
    this.messages.splice(0, this.messages.length, ...messages);
  }
  async clear(): Promise<void> {
    this.messages.length = 0;
  }
}

/** Answers every request with `answer` (or throws it when it is an Error); records the requests. */
class FakeApproval implements ApprovalProvider {
  readonly requests: ApprovalRequest[] = [];
  readonly signals: (AbortSignal | undefined)[] = [];
  readonly answer: string | Error | ((r: ApprovalRequest) => Promise<string>);
  constructor(answer: string | Error | ((r: ApprovalRequest) => Promise<string>)) {
    this.answer = answer;
  }
  async requestApproval(request: ApprovalRequest, options?: { signal?: AbortSignal }): Promise<string> {
    this.requests.push(request);
    this.signals.push(options?.signal);
    if (typeof this.answer === 'function') return this.answer(request);
    if (this.answer instanceof Error) throw this.answer;
    return this.answer;
  }
}

/** Never answers (a person who walked away). */
class SilentApproval implements ApprovalProvider {
  readonly requests: ApprovalRequest[] = [];
  signal: AbortSignal | undefined;
  requestApproval(request: ApprovalRequest, options?: { signal?: AbortSignal }): Promise<string> {
    this.requests.push(request);
    this.signal = options?.signal;
    return new Promise<string>(() => {});
  }
}

class RecordingDisplay implements DisplaySystem {
  readonly shown: [string, MessageLevel, string][] = [];
  showMessage(message: string, level: MessageLevel, source: string): void {
    this.shown.push([message, level, source]);
  }
}

function plan(session: Partial<MountPlan['session']> = {}): MountPlan {
  return { session: { orchestrator: 'loop-basic', context: 'context-simple', ...session } };
}

function coordinator(
  options: CoordinatorOptions = {},
): Coordinator & { log: ReturnType<typeof recordingLogger> } {
  const log = recordingLogger();
  return Object.assign(new Coordinator({ logger: log, ...options }), { log });
}

const tool = (name: string) => ({
  name,
  description: name,
  execute: async () => ({ success: true }),
});

// ------------------------------------------------------------- mount points

describe('Coordinator: mount points (E)', () => {
  it('E40: a new coordinator has empty single slots, empty providers/tools collections and a HookRegistry', () => {
    const c = coordinator();
    expect(c.get('orchestrator')).toBeUndefined();
    expect(c.get('context')).toBeUndefined();
    expect(c.get('module-source-resolver')).toBeUndefined();
    expect(c.get('providers')).toBeInstanceOf(Map);
    expect(c.get('providers').size).toBe(0);
    expect(c.get('tools')).toBeInstanceOf(Map);
    expect(c.get('tools').size).toBe(0);
    expect(c.get('hooks')).toBeInstanceOf(HookRegistry);
  });

  it('E41: coordinator.hooks is the object at the hooks mount point', () => {
    const c = coordinator();
    expect(c.get('hooks')).toBe(c.hooks);
  });

  it('E42: mount/get/unmount of an unknown point (agents included) throws "Unknown mount point: <point>"', () => {
    const c = coordinator();
    for (const point of ['agents', 'tool', 'bogus']) {
      expect(() => c.mount(point as 'tools', {})).toThrow(`Unknown mount point: ${point}`);
    }
    try {
      c.mount('agents' as 'tools', {});
    } catch (error) {
      expect(AmplifierError.is(error) && error.code).toBe('UNKNOWN_MOUNT_POINT');
    }
  });

  it('E43: mounting to hooks throws, pointing at the HookRegistry', () => {
    const c = coordinator();
    expect(() => c.mount('hooks', () => {})).toThrow(/registered directly with the HookRegistry/);
  });

  it('E44: mounting a single slot replaces the previous occupant without throwing', () => {
    const c = coordinator();
    const first = { execute: async () => 'one' };
    const second = { execute: async () => 'two' };
    for (const point of ['orchestrator', 'context', 'module-source-resolver'] as const) {
      c.mount(point, first);
      c.mount(point, second);
      expect(c.get(point)).toBe(second);
    }
  });

  it('E45: providers/tools without a name use module.name; without either it throws "Name required for <point>"', () => {
    const c = coordinator();
    const t = tool('read_file');
    c.mount('tools', t);
    expect(c.get('tools', 'read_file')).toBe(t);
    c.mount('tools', t, { name: 'alias' });
    expect(c.get('tools', 'alias')).toBe(t);
    expect(() => c.mount('tools', { description: 'nameless' })).toThrow('Name required for tools');
    expect(() => c.mount('providers', {})).toThrow('Name required for providers');
    expect(() => c.mount('providers', null)).toThrow('Name required for providers');
  });

  it('E46: mounting under an existing name silently replaces that entry', () => {
    const c = coordinator();
    const a = { name: 'mock' };
    const b = { name: 'mock' };
    c.mount('providers', a);
    c.mount('providers', b);
    expect(c.get('providers').size).toBe(1);
    expect(c.get('providers', 'mock')).toBe(b);
  });

  it('E47: get throws for an unknown point; providers and tools are the live collections', () => {
    const c = coordinator();
    expect(() => c.get('agents' as 'tools')).toThrow('Unknown mount point: agents');
    const live = c.get('tools');
    c.mount('tools', tool('grep'));
    expect(live.has('grep')).toBe(true);
    live.delete('grep');
    expect(c.get('tools', 'grep')).toBeUndefined();
  });

  it('E47: a tool named like an Object prototype key is harmless (Map, not object)', () => {
    const c = coordinator();
    for (const name of ['constructor', '__proto__', 'toString']) c.mount('tools', tool(name));
    expect([...c.get('tools').keys()]).toEqual(['constructor', '__proto__', 'toString']);
    expect(c.get('tools', 'hasOwnProperty')).toBeUndefined();
  });

  it('E48: get(point, name) returns the named provider or tool, or undefined', () => {
    const c = coordinator();
    const p = { name: 'openai' };
    c.mount('providers', p);
    expect(c.get('providers', 'openai')).toBe(p);
    expect(c.get('providers', 'anthropic')).toBeUndefined();
  });

  it('E49: unmount of a single slot empties it', () => {
    const c = coordinator();
    c.mount('orchestrator', { execute: async () => '' });
    c.unmount('orchestrator');
    expect(c.get('orchestrator')).toBeUndefined();
    c.unmount('context');
    expect(c.get('context')).toBeUndefined();
  });

  it('E50: unmount of providers/tools needs a name; an unknown name is a no-op', () => {
    const c = coordinator();
    c.mount('tools', tool('bash'));
    expect(() => c.unmount('tools')).toThrow('Name required to unmount from tools');
    expect(() => c.unmount('providers')).toThrow('Name required to unmount from providers');
    c.unmount('tools', { name: 'missing' });
    expect(c.get('tools').size).toBe(1);
    c.unmount('tools', { name: 'bash' });
    expect(c.get('tools').size).toBe(0);
  });

  it('E51: unmount("hooks") is a no-op; unmount of an unknown point throws', () => {
    const c = coordinator();
    const hooks = c.hooks;
    c.unmount('hooks');
    expect(c.get('hooks')).toBe(hooks);
    expect(() => c.unmount('agents' as 'tools')).toThrow('Unknown mount point: agents');
  });

  it('E52: sessionId, parentId, config and loader come from the owner; parentId is null at top level', () => {
    const loader: ModuleLoaderLike = { load: async () => ({ id: 'x', type: 'tool', mount: async () => {} }) };
    const config = plan();
    const c = coordinator({ sessionId: 's-1', parentId: 'p-1', config, loader });
    expect(c.sessionId).toBe('s-1');
    expect(c.parentId).toBe('p-1');
    expect(c.config).toBe(config);
    expect(c.loader).toBe(loader);
    const top = coordinator({ sessionId: 's-2' });
    expect(top.parentId).toBeNull();
    expect(top.loader).toBeUndefined();
  });

  it('the loader is fixed at construction: assigning it later throws, nothing is patched in', () => {
    const loader: ModuleLoaderLike = { load: async () => ({ id: 'x', type: 'tool', mount: async () => {} }) };
    const other: ModuleLoaderLike = { load: async () => ({ id: 'y', type: 'tool', mount: async () => {} }) };
    const c = coordinator({ loader });
    expect(() => {
      (c as { loader: ModuleLoaderLike | undefined }).loader = other;
    }).toThrow(TypeError);
    expect(c.loader).toBe(loader);
    const none = coordinator();
    expect(() => {
      (none as { loader: ModuleLoaderLike | undefined }).loader = other;
    }).toThrow(TypeError);
    expect(none.loader).toBeUndefined();
  });

  it('E53: injection budget and size limit come from config.session and default to null (unlimited)', () => {
    expect(coordinator().injectionBudgetPerTurn).toBeNull();
    expect(coordinator().injectionSizeLimit).toBeNull();
    expect(coordinator({ config: plan() }).injectionSizeLimit).toBeNull();
    const c = coordinator({ config: plan({ injection_budget_per_turn: 500, injection_size_limit: 1024 }) });
    expect(c.injectionBudgetPerTurn).toBe(500);
    expect(c.injectionSizeLimit).toBe(1024);
    const zero = coordinator({ config: plan({ injection_budget_per_turn: 0, injection_size_limit: null }) });
    expect(zero.injectionBudgetPerTurn).toBe(0);
    expect(zero.injectionSizeLimit).toBeNull();
  });
});

// ------------------------------------------------- capabilities, channels

describe('Coordinator: capabilities and contribution channels (F)', () => {
  it('F54: registerCapability then getCapability returns the value; missing is undefined; a second registration overwrites', () => {
    const c = coordinator();
    const spawn = async () => ({});
    c.registerCapability('session.spawn', spawn);
    expect(c.getCapability('session.spawn')).toBe(spawn);
    expect(c.getCapability('agents.list')).toBeUndefined();
    c.registerCapability('session.spawn', 'replaced');
    expect(c.getCapability<string>('session.spawn')).toBe('replaced');
  });

  it('F55: registerContributor appends {name, callback} to the channel, creating it; duplicates are allowed', () => {
    const c = coordinator();
    const cb1 = () => ['a'];
    const cb2 = () => ['b'];
    c.registerContributor('observability.events', 'mod-a', cb1);
    c.registerContributor('observability.events', 'mod-a', cb2);
    expect(c.channels.get('observability.events')).toEqual([
      { name: 'mod-a', callback: cb1 },
      { name: 'mod-a', callback: cb2 },
    ]);
  });

  it('F56: collecting an unknown or empty channel returns []', async () => {
    const c = coordinator();
    expect(await c.collectContributions('nothing.here')).toEqual([]);
    c.channels.set('empty', []);
    expect(await c.collectContributions('empty')).toEqual([]);
  });

  it('F57: contributions come back in registration order, each value unchanged (no flattening)', async () => {
    const c = coordinator();
    const dict = { k: 1 };
    c.registerContributor('ch', 'list', () => ['x:y', 'x:z']);
    c.registerContributor('ch', 'dict', () => dict);
    c.registerContributor('ch', 'str', () => 'text');
    c.registerContributor('ch', 'num', () => 0);
    c.registerContributor('ch', 'false', () => false);
    const out = await c.collectContributions('ch');
    expect(out).toEqual([['x:y', 'x:z'], { k: 1 }, 'text', 0, false]);
    expect(out[1]).toBe(dict);
  });

  it('F58: null and undefined contributions are omitted', async () => {
    const c = coordinator();
    c.registerContributor('ch', 'null', () => null);
    c.registerContributor('ch', 'undef', () => undefined);
    c.registerContributor('ch', 'asyncNull', async () => null);
    c.registerContributor('ch', 'value', () => 1);
    expect(await c.collectContributions('ch')).toEqual([1]);
  });

  it('F59: sync, async and sync-returning-a-promise callbacks are all supported, run one at a time', async () => {
    const c = coordinator();
    const order: string[] = [];
    c.registerContributor('ch', 'sync', () => {
      order.push('sync');
      return 'sync';
    });
    c.registerContributor('ch', 'async', async () => {
      order.push('async start');
      await new Promise<void>((resolve) => setImmediate(resolve));
      order.push('async end');
      return 'async';
    });
    c.registerContributor('ch', 'promise', () => {
      order.push('promise');
      return Promise.resolve('promise');
    });
    expect(await c.collectContributions('ch')).toEqual(['sync', 'async', 'promise']);
    expect(order).toEqual(['sync', 'async start', 'async end', 'promise']);
  });

  it('F60: a callback that throws is skipped (logged with contributor and channel); the others are returned', async () => {
    const c = coordinator();
    c.registerContributor('ch', 'ok1', () => 1);
    c.registerContributor('ch', 'broken', () => {
      throw new Error('nope');
    });
    c.registerContributor('ch', 'brokenAsync', async () => {
      throw new Error('nope async');
    });
    c.registerContributor('ch', 'ok2', () => 2);
    expect(await c.collectContributions('ch')).toEqual([1, 2]);
    expect(c.log.lines.some((l) => l.includes("'broken'") && l.includes("'ch'"))).toBe(true);
  });

  it('F61: a cancellation error stops the collection and returns what was gathered', async () => {
    for (const cancel of [new CancelledError(), new DOMException('stop', 'AbortError')]) {
      const c = coordinator();
      const calls: string[] = [];
      c.registerContributor('ch', 'first', () => 'first');
      c.registerContributor('ch', 'cancels', () => {
        throw cancel;
      });
      c.registerContributor('ch', 'never', () => {
        calls.push('never');
        return 'never';
      });
      expect(await c.collectContributions('ch')).toEqual(['first']);
      expect(calls).toEqual([]);
    }
  });
});

// ------------------------------------------------------------------ cleanup

describe('Coordinator: cleanup (G)', () => {
  it('G62: cleanups run in reverse registration order (LIFO)', async () => {
    const c = coordinator();
    const order: number[] = [];
    for (const n of [1, 2, 3]) c.registerCleanup(() => order.push(n));
    await c.cleanup();
    expect(order).toEqual([3, 2, 1]);
  });

  it('G63: sync and async cleanups are supported and a returned promise is awaited before the next', async () => {
    const c = coordinator();
    const order: string[] = [];
    c.registerCleanup(() => {
      order.push('sync');
    });
    c.registerCleanup(() =>
      new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        order.push('promise');
      }),
    );
    c.registerCleanup(async () => {
      await new Promise<void>((resolve) => setImmediate(resolve));
      order.push('async');
    });
    await c.cleanup();
    expect(order).toEqual(['async', 'promise', 'sync']);
  });

  it('G64: non-callable values are never stored', async () => {
    const c = coordinator();
    const order: string[] = [];
    c.registerCleanup(undefined);
    c.registerCleanup(null);
    c.registerCleanup('not a function');
    c.registerCleanup({ close() {} });
    c.registerCleanup(() => {
      order.push('fn');
    });
    await expect(c.cleanup()).resolves.toBeUndefined();
    expect(order).toEqual(['fn']);
  });

  it('G65: an error in one cleanup is logged and the remaining cleanups still run', async () => {
    const c = coordinator();
    const order: string[] = [];
    c.registerCleanup(() => {
      order.push('first registered');
    });
    c.registerCleanup(async () => {
      throw new Error('disk gone');
    });
    c.registerCleanup(() => {
      throw new TypeError('bug');
    });
    await expect(c.cleanup()).resolves.toBeUndefined();
    expect(order).toEqual(['first registered']);
    expect(c.log.lines.filter((l) => l.startsWith('warn: cleanup failed'))).toHaveLength(2);
  });

  it('G66: the first fatal error is re-thrown after every cleanup has run', async () => {
    const c = coordinator();
    const order: string[] = [];
    const firstFatal = new CancelledError('first fatal');
    c.registerCleanup(() => {
      order.push('a');
    });
    c.registerCleanup(() => {
      order.push('b');
      throw new DOMException('second fatal', 'AbortError');
    });
    c.registerCleanup(() => {
      order.push('c');
      throw new Error('ordinary');
    });
    c.registerCleanup(() => {
      order.push('d');
      throw firstFatal;
    });
    await expect(c.cleanup()).rejects.toBe(firstFatal);
    expect(order).toEqual(['d', 'c', 'b', 'a']);
  });

  it('G67: a second cleanup() does not re-run cleanups that already ran (drained); new ones run next time', async () => {
    const c = coordinator();
    let runs = 0;
    c.registerCleanup(() => {
      runs++;
    });
    await c.cleanup();
    await c.cleanup();
    expect(runs).toBe(1);
    c.registerCleanup(() => {
      runs += 10;
    });
    await c.cleanup();
    expect(runs).toBe(11);
  });

  it('G67: the list is drained even when a fatal error is re-thrown', async () => {
    const c = coordinator();
    let runs = 0;
    c.registerCleanup(() => {
      runs++;
      throw new CancelledError();
    });
    await expect(c.cleanup()).rejects.toBeInstanceOf(CancelledError);
    await expect(c.cleanup()).resolves.toBeUndefined();
    expect(runs).toBe(1);
  });
});

// ---------------------------------------------------- turns, cancellation

describe('Coordinator: turns and cancellation (H77, H78)', () => {
  it('H77: requestCancel emits cancel:requested {level, running_tools, running_tool_names} then runs the callbacks', async () => {
    const c = coordinator({ sessionId: 's' });
    const order: string[] = [];
    let payload: EventData | undefined;
    c.hooks.register('cancel:requested', (_e, data) => {
      order.push('event');
      payload = data;
    });
    c.cancellation.onCancel(() => {
      order.push('callback');
    });
    c.cancellation.registerToolStart('call_1', 'bash');
    expect(await c.requestCancel()).toBe(true);
    expect(order).toEqual(['event', 'callback']);
    expect(payload).toMatchObject({
      level: 'graceful',
      running_tools: ['call_1'],
      running_tool_names: ['bash'],
    });
    expect(c.cancellation.isGraceful).toBe(true);
  });

  it('H77: only a state change emits; escalating to immediate emits again and aborts the signal', async () => {
    const c = coordinator();
    const levels: unknown[] = [];
    let callbacks = 0;
    c.hooks.register('cancel:requested', (_e, data) => {
      levels.push(data.level);
    });
    c.cancellation.onCancel(() => {
      callbacks++;
    });
    expect(await c.requestCancel()).toBe(true);
    expect(await c.requestCancel()).toBe(false);
    expect(c.cancellation.signal.aborted).toBe(false);
    expect(await c.requestCancel({ immediate: true })).toBe(true);
    expect(await c.requestCancel({ immediate: true })).toBe(false);
    expect(await c.requestCancel()).toBe(false);
    expect(levels).toEqual(['graceful', 'immediate']);
    expect(callbacks).toBe(2);
    expect(c.cancellation.signal.aborted).toBe(true);
  });

  it('H78: resetTurn zeroes the injection counter and does not reset cancellation', async () => {
    const c = coordinator({ config: plan() });
    await c.processHookResult({ action: 'inject_context', context_injection: 'x'.repeat(40) }, 'e');
    expect(c.turnInjectionTokens).toBe(10);
    await c.requestCancel();
    c.resetTurn();
    expect(c.turnInjectionTokens).toBe(0);
    expect(c.cancellation.isCancelled).toBe(true);
  });
});

// ------------------------------------------------------ processHookResult

describe('Coordinator.processHookResult (I)', () => {
  it('I79: an injection longer than injection_size_limit throws an error containing "exceeds <limit>"', async () => {
    const c = coordinator({ config: plan({ injection_size_limit: 10 }) });
    const context = new RecordingContext();
    c.mount('context', context);
    await expect(
      c.processHookResult(
        { action: 'inject_context', context_injection: 'x'.repeat(11) },
        'tool:post',
        'big',
      ),
    ).rejects.toThrow('exceeds 10');
    expect(context.messages).toEqual([]);
    expect(c.turnInjectionTokens).toBe(0);
    await expect(
      c.processHookResult({ action: 'inject_context', context_injection: 'x'.repeat(10) }, 'tool:post'),
    ).resolves.toBeDefined();
    expect(context.messages).toHaveLength(1);
  });

  it('I80: going over injection_budget_per_turn only logs a warning; the injection proceeds', async () => {
    const c = coordinator({ config: plan({ injection_budget_per_turn: 5 }) });
    const context = new RecordingContext();
    c.mount('context', context);
    const result: HookResult = { action: 'inject_context', context_injection: 'y'.repeat(40) };
    await expect(c.processHookResult(result, 'prompt:submit', 'chatty')).resolves.toBe(result);
    expect(context.messages).toHaveLength(1);
    expect(
      c.log.lines.some((l) => l.startsWith('warn:') && l.includes('budget') && l.includes('chatty')),
    ).toBe(true);
  });

  it('I81: the turn counter grows by floor(len/4) for every injection, ephemeral ones included', async () => {
    const c = coordinator({ config: plan({ injection_budget_per_turn: 1 }) });
    c.mount('context', new RecordingContext());
    await c.processHookResult({ action: 'inject_context', context_injection: 'abcdefg' }, 'e'); // 7 -> 1
    await c.processHookResult(
      { action: 'inject_context', context_injection: 'a'.repeat(9), ephemeral: true },
      'e',
    ); // 2
    await c.processHookResult({ action: 'inject_context', context_injection: 'abc' }, 'e'); // 0
    expect(c.turnInjectionTokens).toBe(3);
  });

  it('I82: a durable injection is added to the context with role and provenance metadata', async () => {
    const c = coordinator({ config: plan() });
    const context = new RecordingContext();
    c.mount('context', context);
    await c.processHookResult(
      { action: 'inject_context', context_injection: 'lint: 2 errors', context_injection_role: 'user' },
      'tool:post',
      'linter',
    );
    await c.processHookResult({ action: 'inject_context', context_injection: 'default role' }, 'tool:post');
    expect(context.messages[0]).toEqual({
      role: 'user',
      content: 'lint: 2 errors',
      metadata: { source: 'hook', hook_name: 'linter', event: 'tool:post', timestamp: expect.any(String) },
    });
    expect(String(context.messages[0]!.metadata?.timestamp)).toMatch(/\+00:00$/);
    expect(context.messages[1]).toMatchObject({ role: 'system', metadata: { hook_name: 'unknown' } });
  });

  it('I82: without a mounted context (or one without addMessage) a durable injection is counted but not stored', async () => {
    const c = coordinator({ config: plan() });
    await expect(
      c.processHookResult({ action: 'inject_context', context_injection: 'abcd' }, 'e'),
    ).resolves.toBeDefined();
    c.mount('context', {});
    await expect(
      c.processHookResult({ action: 'inject_context', context_injection: 'abcd' }, 'e'),
    ).resolves.toBeDefined();
    expect(c.turnInjectionTokens).toBe(2);
  });

  it('I83: an ephemeral injection never reaches addMessage', async () => {
    const c = coordinator({ config: plan() });
    const context = new RecordingContext();
    c.mount('context', context);
    const result: HookResult = {
      action: 'inject_context',
      context_injection: 'just this call',
      ephemeral: true,
    };
    await expect(c.processHookResult(result, 'e')).resolves.toBe(result);
    expect(context.messages).toEqual([]);
  });

  it('I84: injected content is sanitized, and the size limit applies to the sanitized text', async () => {
    const c = coordinator({ config: plan({ injection_size_limit: 5 }) });
    const context = new RecordingContext();
    c.mount('context', context);
    await c.processHookResult(
      { action: 'inject_context', context_injection: 'ab\u0000\u0001c\uD800de' },
      'e',
    );
    expect(context.messages[0]!.content).toBe('abcde');
  });

  it('I: inject_context with an empty injection does nothing', async () => {
    const c = coordinator({ config: plan({ injection_size_limit: 0 }) });
    const context = new RecordingContext();
    c.mount('context', context);
    await c.processHookResult({ action: 'inject_context', context_injection: '' }, 'e');
    await c.processHookResult({ action: 'continue', context_injection: 'not an inject action' }, 'e');
    expect(context.messages).toEqual([]);
  });

  it('I85: ask_user without an approval provider returns deny "No approval system available"', async () => {
    const c = coordinator();
    expect(await c.processHookResult({ action: 'ask_user', approval_prompt: 'rm -rf?' }, 'tool:pre')).toEqual(
      {
        action: 'deny',
        reason: 'No approval system available',
      },
    );
  });

  it('I86: the approval provider gets prompt, options, timeout and default (with the reference fallbacks)', async () => {
    const approval = new FakeApproval('allow');
    const c = coordinator({ approval });
    await c.processHookResult({ action: 'ask_user' }, 'tool:pre', 'guard');
    await c.processHookResult(
      {
        action: 'ask_user',
        approval_prompt: 'Run bash?',
        approval_options: ['Allow once', 'Allow always', 'Deny'],
        approval_timeout: 30,
        approval_default: 'allow',
      },
      'tool:pre',
      'guard',
    );
    expect(approval.requests[0]).toEqual({
      prompt: 'Allow this operation?',
      options: ['Allow', 'Deny'],
      timeout: 300,
      default: 'deny',
      event: 'tool:pre',
      hook_name: 'guard',
    });
    expect(approval.requests[1]).toMatchObject({
      prompt: 'Run bash?',
      options: ['Allow once', 'Allow always', 'Deny'],
      timeout: 30,
      default: 'allow',
    });
    expect(approval.signals[0]).toBeInstanceOf(AbortSignal);
  });

  it('I87: allow, allow once and allow always (any case, trimmed) continue; anything else denies (fail closed)', async () => {
    for (const answer of ['allow', 'Allow', 'ALLOW ONCE', 'Allow always', ' allow ']) {
      const c = coordinator({ approval: new FakeApproval(answer) });
      expect(await c.processHookResult({ action: 'ask_user', approval_prompt: 'p' }, 'e'), answer).toEqual({
        action: 'continue',
      });
    }
    for (const answer of ['Deny', 'deny', 'yes', 'ok', '', 'Allowed', 'allow forever']) {
      const c = coordinator({ approval: new FakeApproval(answer) });
      expect(await c.processHookResult({ action: 'ask_user', approval_prompt: 'p' }, 'e'), answer).toEqual({
        action: 'deny',
        reason: 'User denied: p',
      });
    }
    const odd = coordinator({ approval: new FakeApproval('yes') });
    await odd.processHookResult({ action: 'ask_user' }, 'e');
    expect(odd.log.lines.some((l) => l.startsWith('warn:') && l.includes("'yes'"))).toBe(true);
  });

  it('I87: a non-string decision from a misbehaving provider denies', async () => {
    for (const answer of [undefined, null, true, 1, { choice: 'allow' }, Object.create(null)]) {
      const approval: ApprovalProvider = { requestApproval: async () => answer as unknown as string };
      const c = coordinator({ approval });
      expect((await c.processHookResult({ action: 'ask_user' }, 'e')).action, typeof answer).toBe('deny');
    }
  });

  it('I87: the deny reason carries the prompt truncated to 200 characters', async () => {
    const c = coordinator({ approval: new FakeApproval('deny') });
    const prompt = 'p'.repeat(500);
    const result = await c.processHookResult({ action: 'ask_user', approval_prompt: prompt }, 'e');
    expect(result.reason).toBe(`User denied: ${'p'.repeat(200)}`);
  });

  it('a provider with nobody to ask (unattended) denies by default, saying so instead of "User denied"', async () => {
    const approval: ApprovalProvider = {
      unattended: 'no terminal to ask',
      requestApproval: async (request) => request.default,
    };
    const c = coordinator({ approval });
    const result = await c.processHookResult({ action: 'ask_user', approval_prompt: 'Run ls?' }, 'e');
    expect(result).toEqual({ action: 'deny', reason: 'Denied: no terminal to ask (default): Run ls?' });
  });

  it('I88: the kernel enforces approval_timeout: a provider that never answers gets the default deny', async () => {
    const approval = new SilentApproval();
    const c = coordinator({ approval });
    // 10 ms: the timeout itself is what is being exercised.
    const result = await c.processHookResult(
      { action: 'ask_user', approval_prompt: 'Run it?', approval_timeout: 0.01 },
      'tool:pre',
    );
    expect(result.action).toBe('deny');
    expect(result.reason).toContain('timeout');
    expect(result.reason).toContain('Run it?');
    expect(approval.signal?.aborted).toBe(true); // the provider is told to stop asking
  });

  it('I88: on timeout with approval_default "allow" the operation continues', async () => {
    const c = coordinator({ approval: new SilentApproval() });
    const result = await c.processHookResult(
      { action: 'ask_user', approval_timeout: 0.01, approval_default: 'allow' },
      'tool:pre',
    );
    expect(result).toEqual({ action: 'continue' });
  });

  it('I88: an ApprovalTimeoutError thrown by the provider applies the default', async () => {
    const deny = coordinator({ approval: new FakeApproval(new ApprovalTimeoutError()) });
    expect((await deny.processHookResult({ action: 'ask_user' }, 'e')).reason).toMatch(/timeout/);
    const allow = coordinator({ approval: new FakeApproval(new ApprovalTimeoutError()) });
    expect(await allow.processHookResult({ action: 'ask_user', approval_default: 'allow' }, 'e')).toEqual({
      action: 'continue',
    });
  });

  it('I88: the default is parsed fail-closed too: only allow-family strings allow', async () => {
    for (const [fallback, action] of [
      ['Allow', 'continue'],
      ['allow once', 'continue'],
      ['deny', 'deny'],
      ['yes', 'deny'],
      ['', 'deny'],
    ] as const) {
      const c = coordinator({ approval: new FakeApproval(new ApprovalTimeoutError()) });
      const result = await c.processHookResult(
        { action: 'ask_user', approval_default: fallback as 'allow' },
        'e',
      );
      expect(result.action, fallback).toBe(action);
    }
  });

  it('I88: an invalid approval_timeout (0, negative, NaN) uses the 300 s default instead of timing out at once', async () => {
    for (const timeout of [0, -5, Number.NaN]) {
      const approval = new FakeApproval('deny');
      const c = coordinator({ approval });
      const result = await c.processHookResult(
        { action: 'ask_user', approval_timeout: timeout, approval_default: 'allow' },
        'e',
      );
      expect(result.action, String(timeout)).toBe('deny'); // the answer, not the timeout default
      expect(approval.requests[0]!.timeout).toBe(300);
    }
  });

  it('I88: a huge approval_timeout does not overflow the timer into an instant timeout', async () => {
    // Node turns a delay above 2^31-1 ms into 1 ms. The provider answers "deny" from a 20 ms timer;
    // a kernel timer that overflowed to 1 ms would fire first and apply the "allow" default.
    const approval = new FakeApproval(
      () => new Promise<string>((resolve) => setTimeout(() => resolve('deny'), 20)),
    );
    const c = coordinator({ approval });
    const result = await c.processHookResult(
      { action: 'ask_user', approval_timeout: 1e9, approval_default: 'allow' },
      'e',
    );
    expect(result.action).toBe('deny');
  });

  it('I88: immediate cancellation while waiting denies and aborts the provider’s signal', async () => {
    const approval = new SilentApproval();
    const c = coordinator({ approval });
    const pending = c.processHookResult({ action: 'ask_user', approval_prompt: 'p' }, 'e');
    await c.requestCancel({ immediate: true });
    const result = await pending;
    expect(result.action).toBe('deny');
    expect(result.reason).toMatch(/Cancelled/);
    expect(approval.signal?.aborted).toBe(true);
  });

  it('I88: when the session is already cancelled immediately, ask_user denies without asking', async () => {
    const approval = new SilentApproval();
    const c = coordinator({ approval });
    await c.requestCancel({ immediate: true });
    const result = await c.processHookResult({ action: 'ask_user', approval_prompt: 'p' }, 'e');
    expect(result.action).toBe('deny');
    expect(result.reason).toMatch(/Cancelled/);
    expect(approval.requests).toEqual([]);
  });

  it('I89: any other error from the approval provider propagates', async () => {
    const boom = new Error('terminal closed');
    const c = coordinator({ approval: new FakeApproval(boom) });
    await expect(c.processHookResult({ action: 'ask_user' }, 'e')).rejects.toBe(boom);
    const sync: ApprovalProvider = {
      requestApproval: () => {
        throw boom;
      },
    };
    await expect(coordinator({ approval: sync }).processHookResult({ action: 'ask_user' }, 'e')).rejects.toBe(
      boom,
    );
  });

  it('I90: for ask_user, user_message is never shown', async () => {
    const display = new RecordingDisplay();
    const c = coordinator({ approval: new FakeApproval('allow'), display });
    await c.processHookResult({ action: 'ask_user', user_message: 'hidden' }, 'e');
    expect(display.shown).toEqual([]);
  });

  it('I91: user_message goes to display.showMessage(message, level, "hook:<source or hook name>")', async () => {
    const display = new RecordingDisplay();
    const c = coordinator({ display });
    await c.processHookResult({ action: 'continue', user_message: 'saved 3 files' }, 'tool:post', 'autosave');
    await c.processHookResult(
      {
        action: 'deny',
        user_message: 'blocked',
        user_message_level: 'warning',
        user_message_source: 'policy',
      },
      'tool:pre',
      'guard',
    );
    await c.processHookResult(
      {
        action: 'inject_context',
        context_injection: 'x',
        user_message: 'noted',
        user_message_level: 'error',
      },
      'e',
    );
    expect(display.shown).toEqual([
      ['saved 3 files', 'info', 'hook:autosave'],
      ['blocked', 'warning', 'hook:policy'],
      ['noted', 'error', 'hook:unknown'],
    ]);
  });

  it('I91: without a display the message is only logged; a display that throws is logged, not raised', async () => {
    const quiet = coordinator();
    await quiet.processHookResult({ user_message: 'hello' }, 'e', 'greeter');
    expect(quiet.log.lines).toContain('info: hook:greeter (info): hello');

    const display: DisplaySystem = {
      showMessage: () => {
        throw new Error('tty closed');
      },
    };
    const c = coordinator({ display });
    const result: HookResult = { action: 'continue', user_message: 'x' };
    await expect(c.processHookResult(result, 'e')).resolves.toBe(result);
    expect(c.log.lines.some((l) => l.startsWith('warn:') && l.includes('tty closed'))).toBe(true);
  });

  it('I92: a result other than ask_user is returned as the same object, unchanged', async () => {
    const c = coordinator({ config: plan() });
    c.mount('context', new RecordingContext());
    for (const result of [
      { action: 'continue' },
      { action: 'deny', reason: 'r' },
      { action: 'modify', data: { a: 1 } },
      { action: 'inject_context', context_injection: 'ctx', suppress_output: true },
    ] as HookResult[]) {
      const snapshot = structuredClone(result);
      expect(await c.processHookResult(result, 'e')).toBe(result);
      expect(result).toEqual(snapshot);
    }
  });
});

// --------------------------------------------------------- emitAndProcess

describe('Coordinator.emitAndProcess', () => {
  type Register = (hooks: HookRegistry) => void;

  /** A coordinator with a context, a display and an approval provider answering `answer`. */
  function world(register: Register, answer: string | Error | null = 'allow', session = {}) {
    const context = new RecordingContext();
    const display = new RecordingDisplay();
    const approval = answer === null ? undefined : new FakeApproval(answer);
    const c = coordinator({ config: plan(session), display, ...(approval && { approval }) });
    c.mount('context', context);
    register(c.hooks);
    return { c, context, display, approval };
  }

  /** Timestamps differ from one emit to the next; everything else must be equal. */
  const stamped = (value: unknown): unknown =>
    JSON.parse(JSON.stringify(value ?? null, (key, v) => (key === 'timestamp' ? '<timestamp>' : v)));

  /** Everything one hook step did: its result (or error) and every effect it had. */
  async function effects(w: ReturnType<typeof world>, step: () => Promise<HookResult>) {
    let outcome: unknown;
    try {
      outcome = { result: await step() };
    } catch (error) {
      outcome = { error: String(error) };
    }
    return stamped({
      outcome,
      context: w.context.messages,
      shown: w.display.shown,
      approvals: w.approval?.requests ?? null,
      log: w.c.log.lines,
      tokens: w.c.turnInjectionTokens,
    });
  }

  /** The same registrations, run once through emitAndProcess and once through emit + processHookResult. */
  async function bothWays(
    register: Register,
    options: { answer?: string | Error | null; session?: object; hookName?: string } = {},
  ) {
    const event = 'tool:pre';
    const data = { tool_name: 'bash', tool_input: { command: 'ls' } };
    const answer = options.answer === undefined ? 'allow' : options.answer;
    const one = world(register, answer, options.session);
    const oneCall = await effects(one, () => one.c.emitAndProcess(event, data, options.hookName));
    const two = world(register, answer, options.session);
    const twoCalls = await effects(two, async () =>
      two.c.processHookResult(await two.c.hooks.emit(event, data), event, options.hookName),
    );
    expect(oneCall).toEqual(twoCalls);
    return oneCall as { outcome: { result?: HookResult; error?: string } } & Record<string, unknown>;
  }

  it('no handler, or only continue: the emitted result with its data, no effect', async () => {
    const none = await bothWays(() => {});
    expect(none.outcome.result).toEqual({
      action: 'continue',
      data: { tool_name: 'bash', tool_input: { command: 'ls' } },
    });
    const quiet = await bothWays((h) => h.register('tool:pre', () => ({ action: 'continue' })));
    expect(quiet.outcome.result).toMatchObject({ action: 'continue', data: { tool_name: 'bash' } });
    expect(quiet).toMatchObject({ context: [], shown: [], approvals: [], tokens: 0 });
  });

  it('deny: the deny result, its user_message shown, later handlers never run', async () => {
    let later = 0;
    const denied = await bothWays(
      (h) => {
        h.register('tool:pre', () => ({ action: 'deny', reason: 'no', user_message: 'blocked' }), {
          priority: 1,
        });
        h.register('tool:pre', () => void later++, { priority: 2 });
      },
      { hookName: 'guard' },
    );
    expect(denied.outcome.result).toEqual({ action: 'deny', reason: 'no', user_message: 'blocked' });
    expect(denied.shown).toEqual([['blocked', 'info', 'hook:guard']]);
    expect(later).toBe(0);
  });

  it('modify: the chained data comes back as a continue (emit does not keep a user_message of a continue)', async () => {
    const modified = await bothWays((h) => {
      h.register('tool:pre', (_e, d) => ({
        action: 'modify',
        data: { ...d, tool_input: { command: 'ls -la' } },
      }));
      h.register('tool:pre', (_e, d) => ({ action: 'modify', data: { ...d, checked: true } }));
      h.register('tool:pre', () => ({ action: 'continue', user_message: 'checked' }));
    });
    expect(modified.outcome.result).toEqual({
      action: 'continue',
      data: { tool_name: 'bash', tool_input: { command: 'ls -la' }, timestamp: '<timestamp>', checked: true },
    });
    expect(modified).toMatchObject({ context: [], shown: [], approvals: [], tokens: 0 });
  });

  it('inject_context: stored in the context under the hook name and counted; ephemeral only counted; merged', async () => {
    const stored = await bothWays(
      (h) => h.register('tool:pre', () => ({ action: 'inject_context', context_injection: 'remember X' })),
      { hookName: 'memory' },
    );
    expect(stored.context).toEqual([
      {
        role: 'system',
        content: 'remember X',
        metadata: { source: 'hook', hook_name: 'memory', event: 'tool:pre', timestamp: '<timestamp>' },
      },
    ]);
    expect(stored.tokens).toBe(2);
    const ephemeral = await bothWays((h) =>
      h.register('tool:pre', () => ({
        action: 'inject_context',
        context_injection: 'now only',
        ephemeral: true,
      })),
    );
    expect(ephemeral).toMatchObject({ context: [], tokens: 2 });
    const shown = await bothWays((h) =>
      h.register('tool:pre', () => ({ action: 'inject_context', context_injection: 'c', user_message: 'm' })),
    );
    expect(shown.shown).toEqual([['m', 'info', 'hook:unknown']]);
    const merged = await bothWays((h) => {
      h.register('tool:pre', () => ({ action: 'inject_context', context_injection: 'one' }));
      h.register('tool:pre', () => ({ action: 'inject_context', context_injection: 'two', ephemeral: true }));
    });
    expect(merged).toMatchObject({ context: [], tokens: 2 });
  });

  it('inject_context over injection_size_limit: both ways throw the same error and store nothing', async () => {
    const big = await bothWays(
      (h) => h.register('tool:pre', () => ({ action: 'inject_context', context_injection: 'x'.repeat(20) })),
      { session: { injection_size_limit: 10 } },
    );
    expect(big.outcome.error).toMatch(/exceeds 10/);
    expect(big).toMatchObject({ context: [], tokens: 0 });
  });

  it('ask_user: allow gives continue, deny and no approval system give deny; the request names the hook', async () => {
    const ask: Register = (h) =>
      h.register('tool:pre', () => ({
        action: 'ask_user',
        approval_prompt: 'Run ls?',
        user_message: 'hidden',
      }));
    const allowed = await bothWays(ask, { hookName: 'approval' });
    expect(allowed.outcome.result).toEqual({ action: 'continue' });
    expect(allowed.approvals).toEqual([
      {
        prompt: 'Run ls?',
        options: ['Allow', 'Deny'],
        timeout: 300,
        default: 'deny',
        event: 'tool:pre',
        hook_name: 'approval',
      },
    ]);
    expect(allowed.shown).toEqual([]);
    expect((await bothWays(ask, { answer: 'Deny' })).outcome.result).toEqual({
      action: 'deny',
      reason: 'User denied: Run ls?',
    });
    expect((await bothWays(ask, { answer: null })).outcome.result).toEqual({
      action: 'deny',
      reason: 'No approval system available',
    });
    expect((await bothWays(ask, { answer: new Error('prompt broke') })).outcome.error).toMatch(
      /prompt broke/,
    );
  });

  it('deny beats ask_user and ask_user beats inject_context, as in emit', async () => {
    const mixed = await bothWays((h) => {
      h.register('tool:pre', () => ({ action: 'inject_context', context_injection: 'ctx' }));
      h.register('tool:pre', () => ({ action: 'ask_user', approval_prompt: 'ok?' }));
    });
    expect(mixed.outcome.result).toEqual({ action: 'continue' });
    expect(mixed).toMatchObject({ context: [], tokens: 0 });
    const denied = await bothWays((h) => {
      h.register('tool:pre', () => ({ action: 'ask_user' }));
      h.register('tool:pre', () => ({ action: 'deny', reason: 'no' }));
    });
    expect(denied).toMatchObject({ outcome: { result: { action: 'deny', reason: 'no' } }, approvals: [] });
  });

  it('with synchronous handlers only, its promise is settled when it is returned (no extra microtask turns)', async () => {
    const w = world((h) => h.register('tool:pre', () => undefined));
    let settled = false;
    void w.c.emitAndProcess('tool:pre', { tool_name: 't', tool_input: {} }).then(() => {
      settled = true;
    });
    // The callback above was queued first when the promise is already settled, so it has run by now.
    await Promise.resolve();
    expect(settled).toBe(true);
  });

  it('uses an emit replaced on the registry instance (a wrapper), and never throws synchronously', async () => {
    const w = world((h) => h.register('tool:pre', () => ({ action: 'deny', reason: 'registry' })));
    const seen: string[] = [];
    const original = w.c.hooks.emit.bind(w.c.hooks);
    w.c.hooks.emit = async (event, data) => {
      seen.push(event);
      return original(event, data);
    };
    expect(await w.c.emitAndProcess('tool:pre', { tool_name: 't', tool_input: {} })).toEqual({
      action: 'deny',
      reason: 'registry',
    });
    expect(seen).toEqual(['tool:pre']);
    w.c.hooks.emit = () => {
      throw new Error('wrapper failed');
    };
    let returned: Promise<HookResult> | undefined;
    expect(() => {
      returned = w.c.emitAndProcess('tool:pre', { tool_name: 't', tool_input: {} });
    }).not.toThrow();
    await expect(returned).rejects.toThrow('wrapper failed');
  });

  it('deferInjection: an inject_context result comes back unapplied, for processHookResult later', async () => {
    const w = world((h) =>
      h.register('tool:post', () => ({
        action: 'inject_context',
        context_injection: 'later',
        user_message: 'm',
      })),
    );
    const result = await w.c.emitAndProcess('tool:post', { tool_name: 't' }, 'lint', {
      deferInjection: true,
    });
    expect(result).toEqual({ action: 'inject_context', context_injection: 'later', user_message: 'm' });
    expect(w.context.messages).toEqual([]);
    expect(w.display.shown).toEqual([]);
    expect(w.c.turnInjectionTokens).toBe(0);
    await w.c.processHookResult(result, 'tool:post', 'lint');
    expect(w.context.messages.map((m) => m.content)).toEqual(['later']);
    expect(w.display.shown).toEqual([['m', 'info', 'hook:lint']]);
  });

  it('deferInjection changes nothing for the other actions', async () => {
    const w = world((h) => {
      h.register('tool:pre', () => ({ action: 'ask_user', approval_prompt: 'p' }));
      h.register('prompt:submit', () => ({ action: 'deny', reason: 'r', user_message: 'u' }));
    });
    const options = { deferInjection: true };
    expect(await w.c.emitAndProcess('tool:pre', { tool_name: 't', tool_input: {} }, 'h', options)).toEqual({
      action: 'continue',
    });
    expect(w.approval?.requests).toHaveLength(1);
    expect(await w.c.emitAndProcess('prompt:submit', { prompt: 'p' }, 'h', options)).toMatchObject({
      action: 'deny',
    });
    expect(w.display.shown).toEqual([['u', 'info', 'hook:h']]);
  });
});
