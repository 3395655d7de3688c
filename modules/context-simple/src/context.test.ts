import type { Message, ModelInfo, Provider, ProviderInfo } from '@amplifier/core';
import { createTestCoordinator, depthOf, EventRecorder, nestedValue } from '@amplifier/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { assistant, call, result, strip, system, user } from './__fixtures__/messages.js';
import { estimateTokens } from './compaction.js';
import { mount, NOTICE_SOURCE, SimpleContextManager } from './index.js';

const ISO_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}(Z|\+00:00)$/;

/** A provider that only reports limits (budget tests never call complete). */
function limitsProvider(limits: {
  model?: { context_window: number; max_output_tokens: number };
  defaults?: Record<string, unknown>;
}): Provider {
  return {
    name: 'limits',
    getInfo: (): ProviderInfo => ({ id: 'limits', display_name: 'Limits', defaults: limits.defaults ?? {} }),
    listModels: async () => [],
    complete: async () => ({ content: [] }),
    parseToolCalls: () => [],
    ...(limits.model && {
      getModelInfo: (): ModelInfo => ({ id: 'm', display_name: 'm', ...limits.model! }),
    }),
  };
}

/** A history of `rounds` tool rounds with big results, framed by a system prompt and a last question. */
async function longHistory(ctx: SimpleContextManager, rounds: number, resultChars = 2000): Promise<void> {
  await ctx.addMessage(system('You are a careful assistant.'));
  await ctx.addMessage(user(`First task: ${'describe the repository layout in detail '.repeat(4)}`));
  for (let i = 0; i < rounds; i++) {
    await ctx.addMessage(
      user(`Question ${i}: ${'please look at the next file and summarise it '.repeat(3)}`),
    );
    await ctx.addMessage(call(`c${i}`));
    await ctx.addMessage(result(`c${i}`, `${i}:`.padEnd(resultChars, 'x')));
    await ctx.addMessage(assistant(`Answer ${i}: the file looks fine.`));
  }
  await ctx.addMessage(user('Last question: what should we do next?'));
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('context-simple checklist', () => {
  it('item 1: addMessage always appends and sets metadata.timestamp (ISO UTC with ms) unless one exists', async () => {
    const ctx = new SimpleContextManager();
    const original: Message = { role: 'user', content: 'hi', metadata: { keep: 1 } };
    await ctx.addMessage(original);
    await ctx.addMessage({
      role: 'user',
      content: 'old',
      metadata: { timestamp: '2020-01-01T00:00:00.000+00:00' },
    });
    const [first, second] = await ctx.getMessages();
    expect(first!.metadata!.timestamp).toMatch(ISO_MS_UTC);
    expect(first!.metadata!.keep).toBe(1);
    expect(second!.metadata!.timestamp).toBe('2020-01-01T00:00:00.000+00:00');
    expect(original.metadata).toEqual({ keep: 1 }); // the caller's object is not touched
    expect(ctx.messageCount).toBe(2);
  });

  it('item 2: getMessages returns the full uncompacted history and compaction never mutates it', async () => {
    const ctx = new SimpleContextManager();
    await longHistory(ctx, 30);
    const before = await ctx.getMessages();
    const view = await ctx.getMessagesForRequest({ tokenBudget: 6000 });
    expect(ctx.lastCompactionStats).toBeDefined();
    expect(view.length).toBeLessThan(before.length);
    const after = await ctx.getMessages();
    expect(after).toEqual(before);
    expect(after).toHaveLength(2 + 30 * 4 + 1);
    // getMessages hands out copies: changing them does not change the history.
    after[1]!.content = 'changed';
    after.pop();
    expect(await ctx.getMessages()).toEqual(before);
  });

  it('item 3: budget from the provider is W - floor(0.5*M) - 4096, minus 800 with the notice on', async () => {
    const ctx = new SimpleContextManager();
    const provider = limitsProvider({ model: { context_window: 20_000, max_output_tokens: 4001 } });
    expect(await ctx.calculateBudget({ provider })).toBe(20_000 - 2000 - 4096);
    await longHistory(ctx, 20);
    await ctx.getMessagesForRequest({ provider });
    expect(ctx.lastCompactionStats?.budget).toBe(20_000 - 2000 - 4096 - 800);

    const noNotice = new SimpleContextManager({ compaction_notice_enabled: false });
    await longHistory(noNotice, 20);
    await noNotice.getMessagesForRequest({ provider });
    expect(noNotice.lastCompactionStats?.budget).toBe(20_000 - 2000 - 4096);
  });

  it('item 4: no compaction below 0.92 of the effective budget; compaction at or above it', async () => {
    const recorder = new EventRecorder();
    const ctx = new SimpleContextManager({}, { hooks: recorder });
    await longHistory(ctx, 5, 400);
    const total = ctx.estimatedTokens;
    // usage = total / (budget - 800)
    const justBelow = Math.floor(total / 0.92) + 800 + 2;
    const atThreshold = Math.floor(total / 0.92) + 800;
    expect(total / (justBelow - 800)).toBeLessThan(0.92);
    expect(total / (atThreshold - 800)).toBeGreaterThanOrEqual(0.92);

    const view = await ctx.getMessagesForRequest({ tokenBudget: justBelow });
    expect(recorder.getEvents('context:compaction')).toHaveLength(0);
    expect(strip(view)).toEqual(strip(await ctx.getMessages()));

    await ctx.getMessagesForRequest({ tokenBudget: atThreshold });
    expect(recorder.getEvents('context:compaction')).toHaveLength(1);
    expect(ctx.shouldCompact(total, atThreshold - 800)).toBe(true);
    expect(ctx.shouldCompact(total, justBelow - 800)).toBe(false);
  });

  it('item 5: the view keeps every system message, the last user message and the last 5 tool results in full', async () => {
    const ctx = new SimpleContextManager();
    await longHistory(ctx, 30);
    await ctx.addMessage(system('Injected by a hook', { source: 'hook' }));
    await ctx.addMessage(user('The very last question, which must survive intact.'));
    const view = await ctx.getMessagesForRequest({ tokenBudget: 3000 });
    expect(ctx.lastCompactionStats!.strategy_level).toBeGreaterThanOrEqual(7);
    const history = await ctx.getMessages();
    const systems = history.filter((m) => m.role === 'system').map((m) => m.content);
    const viewSystems = view.filter((m) => m.role === 'system' && m.metadata?.source !== NOTICE_SOURCE);
    expect(viewSystems.map((m) => m.content)).toEqual(systems);
    expect(view.at(-1)!.content).toBe('The very last question, which must survive intact.');
    const lastFive = history.filter((m) => m.role === 'tool').slice(-5);
    for (const expected of lastFive) {
      const found = view.find((m) => m.role === 'tool' && m.tool_call_id === expected.tool_call_id);
      expect(found?.content).toBe(expected.content);
    }
  });

  it('item 8: compaction emits context:compaction with strategy_level and before/after stats', async () => {
    const coordinator = createTestCoordinator({ bare: true });
    await mount(coordinator, {});
    const seen: Record<string, unknown>[] = [];
    coordinator.hooks.register('context:compaction', (_event, data) => {
      seen.push(data);
    });
    const ctx = coordinator.get('context') as SimpleContextManager;
    await longHistory(ctx, 20);
    await ctx.getMessagesForRequest({ tokenBudget: 8000 });
    expect(seen).toHaveLength(1);
    const stats = seen[0]!;
    expect(stats).toMatchObject({
      strategy_level: expect.any(Number),
      before_tokens: ctx.estimatedTokens,
      before_messages: ctx.messageCount,
      budget: 8000 - 800,
      target_tokens: Math.floor((8000 - 800) * 0.5),
      protected_recent: 0.3,
      protected_tool_results: 5,
      system_messages_preserved: 1,
      session_id: 'test-session',
    });
    expect(stats.after_tokens as number).toBeLessThan(stats.before_tokens as number);
    expect(stats.after_messages).toBe((stats.before_messages as number) - (stats.messages_removed as number));
    expect(ctx.lastCompactionStats).toMatchObject({ strategy_level: stats.strategy_level });
  });

  it('item 9: the notice is a system message at index 1 with metadata.source context-compaction', async () => {
    const ctx = new SimpleContextManager();
    await longHistory(ctx, 20);
    const view = await ctx.getMessagesForRequest({ tokenBudget: 8000 });
    const notice = view[1]!;
    expect(notice.role).toBe('system');
    expect(notice.metadata).toEqual({ source: 'context-compaction', ephemeral: true });
    expect(notice.content).toMatch(/^<system-reminder source="context-compaction">\n/);
    expect(view[0]!.content).toBe('You are a careful assistant.');
    const s = ctx.lastCompactionStats!;
    expect(notice.content).toContain(`- Strategy level: ${s.strategy_level}/8\n`);
    expect(notice.content).toContain(
      `- Messages: ${s.before_messages} → ${s.after_messages} (${s.messages_removed} removed, ${s.user_messages_stubbed} stubbed)\n`,
    );
    expect(notice.content).toContain(
      '- Recent messages (30% of conversation)\n- Last 5 tool results (full content)',
    );
    expect(notice.content).toMatch(
      /Note: This compaction is ephemeral \(affects only this request\)\. Full history is preserved in session transcript\.\n<\/system-reminder>$/,
    );
  });

  it('item 9 (minimal verbosity, min level): one sentence, and no notice below the minimum level', async () => {
    const minimal = new SimpleContextManager({ compaction_notice_verbosity: 'minimal' });
    await longHistory(minimal, 20);
    const view = await minimal.getMessagesForRequest({ tokenBudget: 8000 });
    expect(view[1]!.content).toBe(
      '<system-reminder source="context-compaction">\nContext has been compacted to fit within token budget. Some older messages and tool results may be truncated.\n</system-reminder>',
    );
    const high = new SimpleContextManager({ compaction_notice_min_level: 8 });
    await longHistory(high, 20);
    const quiet = await high.getMessagesForRequest({
      tokenBudget: Math.floor(high.estimatedTokens / 0.95) + 800,
    });
    expect(high.lastCompactionStats!.strategy_level).toBeLessThan(8);
    expect(quiet.some((m) => m.metadata?.source === NOTICE_SOURCE)).toBe(false);
  });

  it('item 10: factory mode calls the factory every request, drops stored system messages except hook ones', async () => {
    const ctx = new SimpleContextManager();
    let calls = 0;
    await ctx.setSystemPromptFactory(async () => `fresh prompt ${++calls}`);
    await ctx.addMessage(system('stale static prompt'));
    await ctx.addMessage(user('hello'));
    await ctx.addMessage(system('hook reminder', { source: 'hook' }));
    const first = await ctx.getMessagesForRequest();
    const second = await ctx.getMessagesForRequest();
    expect(calls).toBe(2);
    expect(first.map((m) => m.content)).toEqual(['fresh prompt 1', 'hello', 'hook reminder']);
    expect(second[0]).toEqual({ role: 'system', content: 'fresh prompt 2' });
    expect((await ctx.getMessages()).map((m) => m.content)).toEqual([
      'stale static prompt',
      'hello',
      'hook reminder',
    ]);
    await ctx.setSystemPromptFactory(null);
    expect((await ctx.getMessagesForRequest())[0]!.content).toBe('stale static prompt');
  });

  it('item 10 (factory mode under compaction): the fresh prompt stays first and is counted once', async () => {
    const ctx = new SimpleContextManager();
    await longHistory(ctx, 20);
    await ctx.setSystemPromptFactory(() => 'the factory prompt');
    const view = await ctx.getMessagesForRequest({ tokenBudget: 8000 });
    expect(view[0]).toEqual({ role: 'system', content: 'the factory prompt' });
    expect(view.filter((m) => m.content === 'You are a careful assistant.')).toHaveLength(0);
    const static1 = estimateTokens((await ctx.getMessages())[0]);
    expect(ctx.lastCompactionStats!.before_tokens).toBe(
      ctx.estimatedTokens - static1 + estimateTokens({ role: 'system', content: 'the factory prompt' }),
    );
  });

  it('item 12: clear() empties the history; setMessages() restores it unchanged', async () => {
    const ctx = new SimpleContextManager();
    await longHistory(ctx, 3);
    const saved = await ctx.getMessages();
    await ctx.clear();
    expect(await ctx.getMessages()).toEqual([]);
    expect(await ctx.getMessagesForRequest()).toEqual([]);
    expect(ctx.estimatedTokens).toBe(0);
    const restored = [...saved, { role: 'user', content: 'no timestamp here' } as Message];
    await ctx.setMessages(restored);
    expect(await ctx.getMessages()).toEqual(restored);
  });
});

describe('timestamps', () => {
  it('are ISO with milliseconds; existing ones survive setMessages', async () => {
    const ctx = new SimpleContextManager();
    await ctx.addMessage(user('a'));
    const stamp = (await ctx.getMessages())[0]!.metadata!.timestamp;
    expect(stamp).toMatch(ISO_MS_UTC);
    await ctx.setMessages(await ctx.getMessages());
    expect((await ctx.getMessages())[0]!.metadata!.timestamp).toBe(stamp);
  });
});

describe('budget', () => {
  it('falls back to getInfo().defaults, then to max_tokens', async () => {
    const ctx = new SimpleContextManager({ output_reserve_fraction: 0.25 });
    const defaults = limitsProvider({ defaults: { context_window: 100_000, max_output_tokens: 8000 } });
    expect(await ctx.calculateBudget({ provider: defaults })).toBe(100_000 - 2000 - 4096);
    expect(await ctx.calculateBudget({ provider: limitsProvider({}) })).toBe(200_000);
    expect(await ctx.calculateBudget()).toBe(200_000);
    expect(await ctx.calculateBudget({ tokenBudget: 1234, provider: defaults })).toBe(1234);
    const broken = {
      ...defaults,
      getInfo: () => {
        throw new Error('boom');
      },
    } as Provider;
    expect(await ctx.calculateBudget({ provider: broken })).toBe(200_000);
  });

  it('reads limits a provider returns as promises, and falls back when they reject', async () => {
    const ctx = new SimpleContextManager();
    const base = limitsProvider({ defaults: { context_window: 100_000, max_output_tokens: 8000 } });
    const asyncModel = {
      ...base,
      getModelInfo: async (): Promise<ModelInfo> => ({
        id: 'm',
        display_name: 'm',
        context_window: 50_000,
        max_output_tokens: 2000,
      }),
    } as unknown as Provider;
    expect(await ctx.calculateBudget({ provider: asyncModel })).toBe(50_000 - 1000 - 4096);
    const rejecting = {
      ...base,
      getModelInfo: () => Promise.reject(new Error('offline')),
    } as unknown as Provider;
    expect(await ctx.calculateBudget({ provider: rejecting })).toBe(100_000 - 4000 - 4096);
    const throwing = {
      ...base,
      getModelInfo: () => {
        throw new Error('no model');
      },
    } as Provider;
    expect(await ctx.calculateBudget({ provider: throwing })).toBe(100_000 - 4000 - 4096);
    await longHistory(ctx, 20, 8000);
    await ctx.getMessagesForRequest({ provider: asyncModel });
    expect(ctx.lastCompactionStats?.budget).toBe(50_000 - 1000 - 4096 - 800);
  });

  it('max_tokens caps the provider budget only when set explicitly', async () => {
    const provider = limitsProvider({ model: { context_window: 200_000, max_output_tokens: 32_000 } });
    expect(await new SimpleContextManager().calculateBudget({ provider })).toBe(179_904);
    expect(await new SimpleContextManager({ max_tokens: 50_000 }).calculateBudget({ provider })).toBe(50_000);
    expect(await new SimpleContextManager({ max_tokens: 500_000 }).calculateBudget({ provider })).toBe(
      179_904,
    );
  });

  it('a budget <= 0 never compacts (the notice reserve can eat a tiny budget)', async () => {
    const ctx = new SimpleContextManager();
    await longHistory(ctx, 3);
    const view = await ctx.getMessagesForRequest({ tokenBudget: 500 });
    expect(ctx.lastCompactionStats).toBeUndefined();
    expect(view).toHaveLength(ctx.messageCount);
  });
});

describe('incremental token estimates', () => {
  it('keeps the running total on add/set/clear equal to the sum of per-message estimates', async () => {
    const ctx = new SimpleContextManager();
    await longHistory(ctx, 4);
    const sum = (ms: Message[]): number => ms.reduce((n, m) => n + estimateTokens(m), 0);
    expect(ctx.estimatedTokens).toBe(sum(await ctx.getMessages()));
    const saved = (await ctx.getMessages()).slice(0, 5);
    await ctx.setMessages(saved);
    expect(ctx.estimatedTokens).toBe(sum(saved));
    await ctx.clear();
    expect(ctx.estimatedTokens).toBe(0);
  });

  it('each estimate is floor(JSON.stringify(stored message).length / 4), escapes, unicode and nesting included', async () => {
    const ctx = new SimpleContextManager();
    const messages: Message[] = [
      user('line one\nline "two"\t\\ back\u0001'),
      user('emoji 😀, lone \ud800 surrogate, accents éàü, CJK 漢字'),
      {
        role: 'assistant',
        content: [{ type: 'text', text: 'x' }],
        tool_calls: [
          { id: 'a', tool: 't', arguments: { n: -0, f: 1.5e-7, big: 1e21, list: [null, true, 'q"'] } },
        ],
        metadata: { skipped: undefined, kept: false },
      } as Message,
      result('a', `${'{"json": "inside"}\n'.repeat(40)}`),
    ];
    for (const m of messages) await ctx.addMessage(m);
    const stored = await ctx.getMessages();
    const expected = stored.reduce((n, m) => n + Math.floor(JSON.stringify(m).length / 4), 0);
    expect(ctx.estimatedTokens).toBe(expected);
    await ctx.setMessages(messages);
    expect(ctx.estimatedTokens).toBe(
      messages.reduce((n, m) => n + Math.floor(JSON.stringify(m).length / 4), 0),
    );
  });

  it('a repeated compaction of an unchanged history gives the same view without rewriting anything again', async () => {
    const ctx = new SimpleContextManager({ sticky_compaction: false });
    await longHistory(ctx, 50);
    const first = await ctx.getMessagesForRequest({ tokenBudget: 20_000 });
    const stats = ctx.lastCompactionStats!;
    expect(stats.messages_truncated).toBeGreaterThan(0);
    const stringify = vi.spyOn(JSON, 'stringify');
    const second = await ctx.getMessagesForRequest({ tokenBudget: 20_000 });
    expect(stringify).not.toHaveBeenCalled();
    expect(second).toEqual(first);
    expect(ctx.lastCompactionStats).toEqual(stats);
    // A new message keeps the earlier rewrites valid: the view is the same plus what the new message changes.
    await ctx.addMessage(user('one more question'));
    const third = await ctx.getMessagesForRequest({ tokenBudget: 20_000 });
    expect(third.at(-1)!.content).toBe('one more question');
    await ctx.setMessages(await ctx.getMessages());
    expect(strip(await ctx.getMessagesForRequest({ tokenBudget: 20_000 }))).toEqual(strip(third));
  });

  it('does not re-measure any message for a request that needs no compaction', async () => {
    const ctx = new SimpleContextManager();
    await longHistory(ctx, 50);
    const stringify = vi.spyOn(JSON, 'stringify');
    const view = await ctx.getMessagesForRequest();
    expect(view).toHaveLength(ctx.messageCount);
    expect(stringify).not.toHaveBeenCalled();
  });

  it('re-measures only rewritten messages when compacting', async () => {
    const ctx = new SimpleContextManager();
    await longHistory(ctx, 50);
    const stringify = vi.spyOn(JSON, 'stringify');
    await ctx.getMessagesForRequest({ tokenBudget: 20_000 });
    const stats = ctx.lastCompactionStats!;
    expect(stats.messages_truncated).toBeGreaterThan(0);
    expect(stringify.mock.calls.length).toBeLessThanOrEqual(
      stats.messages_truncated + stats.user_messages_stubbed + 5,
    );
  });
});

describe('stored messages', () => {
  it('a deeply frozen message is stored by reference, with the estimate of a copy; others are copied', async () => {
    const ctx = new SimpleContextManager();
    const frozen: Message = Object.freeze({
      role: 'user',
      content: Object.freeze([Object.freeze({ type: 'text', text: 'shared' })]),
      metadata: Object.freeze({ timestamp: '2026-11-26T10:00:00.000+00:00' }),
    }) as unknown as Message;
    await ctx.addMessage(frozen);
    const copy = new SimpleContextManager();
    await copy.addMessage(JSON.parse(JSON.stringify(frozen)) as Message);
    expect((await ctx.getMessagesForRequest())[0]).toBe(frozen);
    expect(ctx.estimatedTokens).toBe(copy.estimatedTokens);
    expect(ctx.estimatedTokens).toBe(estimateTokens(frozen));

    // Frozen on the surface only: copied, so the caller's later change does not reach the history.
    const text = { type: 'text', text: 'mine' };
    const shallow = Object.freeze({
      role: 'user',
      content: [text],
      metadata: Object.freeze({ timestamp: '2026-11-26T10:00:00.000+00:00' }),
    }) as unknown as Message;
    await ctx.addMessage(shallow);
    text.text = 'changed';
    const view = await ctx.getMessagesForRequest();
    expect(view[1]).not.toBe(shallow);
    expect(view[1]!.content).toEqual([{ type: 'text', text: 'mine' }]);
  });

  it('are snapshots: later changes to the added object do not reach the history', async () => {
    const ctx = new SimpleContextManager();
    const message: Message = { role: 'assistant', content: [{ type: 'text', text: 'v1' }] };
    await ctx.addMessage(message);
    (message.content as { text: string }[])[0]!.text = 'v2';
    expect((await ctx.getMessages())[0]!.content).toEqual([{ type: 'text', text: 'v1' }]);
  });

  it('request views are frozen snapshots that cannot change the history', async () => {
    const ctx = new SimpleContextManager();
    await ctx.addMessage(user('hello'));
    const view = await ctx.getMessagesForRequest();
    expect(Object.isFrozen(view[0])).toBe(true);
    expect(() => {
      (view[0] as { content: string }).content = 'mutated';
    }).toThrow(TypeError);
    view.push(user('appended to the view only'));
    expect(await ctx.getMessagesForRequest()).toHaveLength(1);
  });

  it('mutating a message object after addMessage never changes the stored history', async () => {
    const ctx = new SimpleContextManager();
    const message: Message = {
      role: 'assistant',
      content: [{ type: 'text', text: 'v1' }],
      tool_calls: [{ id: 'c1', tool: 'bash', arguments: { cmd: 'ls', flags: ['-l'] } }],
      metadata: { source: 'test', nested: { n: 1 } },
    };
    await ctx.addMessage(message);
    const stored = JSON.stringify(await ctx.getMessages());
    const view = JSON.stringify(await ctx.getMessagesForRequest());
    const tokens = ctx.estimatedTokens;
    (message.content as { text: string }[])[0]!.text = 'v2';
    (message.content as unknown[]).push({ type: 'text', text: 'more' });
    const args = message.tool_calls![0]!.arguments as { cmd: string; flags: string[] };
    args.cmd = 'rm -rf /';
    args.flags.push('-f');
    message.tool_calls!.push({ id: 'c2', tool: 'bash', arguments: {} });
    (message.metadata!.nested as { n: number }).n = 2;
    message.metadata!.timestamp = 'changed';
    message.role = 'user';
    expect(JSON.stringify(await ctx.getMessages())).toBe(stored);
    expect(JSON.stringify(await ctx.getMessagesForRequest())).toBe(view);
    expect(ctx.estimatedTokens).toBe(tokens);
  });

  it('mutating objects returned by getMessages() never changes the stored history', async () => {
    const ctx = new SimpleContextManager();
    await ctx.addMessage({
      role: 'assistant',
      content: [{ type: 'text', text: 'v1' }],
      tool_calls: [{ id: 'c1', tool: 'bash', arguments: { cmd: 'ls' } }],
    });
    await ctx.addMessage(user('second, likely stamped in the same millisecond'));
    const before = JSON.stringify(await ctx.getMessages());
    const [copy, second] = await ctx.getMessages();
    (copy!.content as { text: string }[])[0]!.text = 'v2';
    (copy!.tool_calls![0]!.arguments as { cmd: string }).cmd = 'changed';
    copy!.metadata!.timestamp = 'changed';
    expect(second!.metadata!.timestamp).not.toBe('changed'); // copies share nothing
    expect(JSON.stringify(await ctx.getMessages())).toBe(before);
    expect(JSON.stringify(await ctx.getMessagesForRequest())).toBe(before);
  });

  it('objects in a request view are deeply frozen, compacted or not: changing them throws and the history stays', async () => {
    const ctx = new SimpleContextManager();
    await longHistory(ctx, 30);
    await ctx.addMessage({
      role: 'assistant',
      content: [{ type: 'text', text: 'nested' }],
      tool_calls: [{ id: 'z', tool: 'bash', arguments: { cmd: 'ls' } }],
    });
    await ctx.addMessage(result('z', 'done'));
    const before = JSON.stringify(await ctx.getMessages());
    for (const view of [
      await ctx.getMessagesForRequest(),
      await ctx.getMessagesForRequest({ tokenBudget: 6000 }),
    ]) {
      const rewritten = view.find((m) => m.metadata?._truncated === true);
      for (const message of [view.at(-2)!, view.at(-1)!, ...(rewritten ? [rewritten] : [])]) {
        expect(() => {
          message.content = 'changed';
        }).toThrow(TypeError);
        expect(() => {
          message.metadata!.timestamp = 'changed';
        }).toThrow(TypeError);
      }
      const nested = view.at(-2)!;
      expect(() => {
        (nested.content as { text: string }[])[0]!.text = 'changed';
      }).toThrow(TypeError);
      expect(() => {
        (nested.tool_calls![0]!.arguments as { cmd: string }).cmd = 'changed';
      }).toThrow(TypeError);
      expect(() => (nested.content as unknown[]).push('x')).toThrow(TypeError);
      view.length = 0; // the array itself is the caller's
    }
    expect(ctx.lastCompactionStats!.messages_truncated).toBeGreaterThan(0);
    expect(JSON.stringify(await ctx.getMessages())).toBe(before);
  });

  it('addMessage({}) does not crash, and a non-object is refused with a clear error', async () => {
    const ctx = new SimpleContextManager();
    await ctx.addMessage({} as Message);
    expect(ctx.messageCount).toBe(1);
    expect(Array.isArray(await ctx.getMessagesForRequest())).toBe(true);
    await expect(ctx.addMessage(null as unknown as Message)).rejects.toThrow(
      /expects a message object, got null/,
    );
  });
});

describe('mount and config', () => {
  it('mounts at the context mount point and validates config with messages naming the key', async () => {
    const coordinator = createTestCoordinator({ bare: true });
    await mount(coordinator, { compact_threshold: 0.8, auto_compact: true });
    const ctx = coordinator.get('context');
    expect(ctx).toBeInstanceOf(SimpleContextManager);
    expect((ctx as SimpleContextManager).config.compact_threshold).toBe(0.8);
    await expect(mount(coordinator, { compact_threshold: 2 })).rejects.toThrow(
      /compact_threshold must be <= 1/,
    );
    await expect(mount(coordinator, { compaction_notice_verbosity: 'loud' })).rejects.toThrow(
      /compaction_notice_verbosity must be one of "minimal", "normal", "verbose"/,
    );
    await expect(mount(coordinator, { protected_tool_results: 'five' })).rejects.toThrow(
      /protected_tool_results must be integer/,
    );
  });

  it('warns about unknown config keys and ignores them', async () => {
    const warnings: string[] = [];
    const coordinator = createTestCoordinator({
      bare: true,
      logger: { debug() {}, info() {}, error() {}, warn: (m: string) => warnings.push(m) },
    });
    await mount(coordinator, { max_tokenz: 5 });
    expect(warnings).toEqual(["context-simple: unknown config key 'max_tokenz' is ignored"]);
  });

  it('reads only own config properties: a __proto__ key or an inherited one loosens nothing', async () => {
    const loosening = { max_tokens: 1_000_000_000, compact_threshold: 1, truncate_chars: 1_000_000 };
    for (const raw of [
      JSON.parse(`{"__proto__": ${JSON.stringify(loosening)}}`),
      Object.create(loosening) as Record<string, unknown>,
    ]) {
      const warnings: string[] = [];
      const coordinator = createTestCoordinator({
        bare: true,
        logger: { debug() {}, info() {}, error() {}, warn: (m: string) => warnings.push(m) },
      });
      await mount(coordinator, raw);
      const { config } = coordinator.get('context') as SimpleContextManager;
      expect(config).toMatchObject({ max_tokens: 200_000, compact_threshold: 0.92, truncate_chars: 250 });
      expect(config.max_tokens_explicit).toBe(false);
      expect(new SimpleContextManager(raw).config).toEqual(config);
      const own = Object.hasOwn(raw, '__proto__');
      expect(warnings).toEqual(own ? ["context-simple: unknown config key '__proto__' is ignored"] : []);
    }
  });
});

describe('deep data', () => {
  for (const depth of [3_000, 100_000]) {
    it(`tool-call arguments nested ${depth.toLocaleString('en-US')} deep are stored with the marker, never a RangeError`, async () => {
      const ctx = new SimpleContextManager({ max_tokens: 1_000 });
      const args = { deep: nestedValue(depth) } as Record<string, unknown>;
      await ctx.addMessage(user('go'));
      await ctx.addMessage({
        role: 'assistant',
        content: [{ type: 'tool_call', id: 'c1', name: 'echo', input: args }],
        tool_calls: [{ id: 'c1', tool: 'echo', arguments: args }],
      });
      await ctx.addMessage(result('c1', 'x'.repeat(5_000)));
      await ctx.addMessage(user('again'));
      const history = await ctx.getMessages();
      expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
      const stored = history[1]!;
      expect(depthOf(stored)).toBe(256);
      const text = JSON.stringify(stored);
      expect(text).toContain('"[MaxDepth]"');
      expect(ctx.estimatedTokens).toBeGreaterThan(0);
      // The budget is tiny: the request view compacts; the pair stays whole, with its arguments bounded.
      const view = await ctx.getMessagesForRequest();
      expect(ctx.lastCompactionStats).toBeDefined();
      const calls = view.filter((m) => m.role === 'assistant' && m.tool_calls !== undefined);
      for (const m of calls) expect(JSON.stringify(m)).toContain('"[MaxDepth]"');
      await ctx.setMessages(history);
      expect(await ctx.getMessages()).toEqual(history);
    });
  }
});

describe('sticky compaction', () => {
  it('keeps the compacted view between requests, extends it, and compacts again only at the threshold', async () => {
    const recorder = new EventRecorder();
    const ctx = new SimpleContextManager({}, { hooks: recorder });
    await longHistory(ctx, 40);
    const tokenBudget = 20_000;
    const first = await ctx.getMessagesForRequest({ tokenBudget });
    expect(recorder.names()).toEqual(['context:compaction']);
    // Unchanged history: the same view, the same notice object (a stable prompt prefix), no new compaction.
    const second = await ctx.getMessagesForRequest({ tokenBudget });
    expect(second).toEqual(first);
    expect(second.find((m) => m.metadata?.source === NOTICE_SOURCE)).toBe(
      first.find((m) => m.metadata?.source === NOTICE_SOURCE),
    );
    // New messages are appended to the kept view until it reaches the threshold again.
    let requests = 0;
    let compactions = 1;
    let view = second;
    for (let i = 0; i < 300; i++) {
      const added = [user(`More ${i}`), call(`m${i}`), result(`m${i}`, 'y'.repeat(600))];
      for (const m of added) await ctx.addMessage(m);
      const next = await ctx.getMessagesForRequest({ tokenBudget });
      requests++;
      if (recorder.names().length === compactions) {
        expect(strip(next)).toEqual(strip([...view, ...added]));
      } else compactions++;
      expect(
        ctx.shouldCompact(
          next.reduce((n, m) => n + (m.metadata?.source === NOTICE_SOURCE ? 0 : estimateTokens(m)), 0),
          tokenBudget - 800,
        ),
      ).toBe(false);
      view = next;
    }
    expect(compactions).toBeGreaterThan(2);
    expect(compactions).toBeLessThan(requests / 5);
    // Another budget starts afresh from the whole history, as does sticky_compaction: false.
    const other = await ctx.getMessagesForRequest({ tokenBudget: 40_000 });
    const fresh = new SimpleContextManager({ sticky_compaction: false });
    await fresh.setMessages(await ctx.getMessages());
    expect(other).toEqual(await fresh.getMessagesForRequest({ tokenBudget: 40_000 }));
  });

  it('a history back under the threshold is sent whole again', async () => {
    const ctx = new SimpleContextManager();
    await longHistory(ctx, 20);
    const compacted = await ctx.getMessagesForRequest({ tokenBudget: 10_000 });
    expect(compacted.length).toBeLessThan(ctx.messageCount);
    expect(await ctx.getMessagesForRequest({ tokenBudget: 1_000_000 })).toHaveLength(ctx.messageCount);
  });
});
