import type { Message } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { assistant, call, pairingProblems, result, system, user } from './__fixtures__/messages.js';
import { type CompactionSettings, compactMessages, estimateTokens } from './compaction.js';
import { SimpleContextManager } from './context.js';
import { stubText } from './notice.js';

const settings = (over: Partial<CompactionSettings> = {}): CompactionSettings => ({
  target_usage: 0.5,
  protected_recent: 0.3,
  protected_tool_results: 5,
  truncate_chars: 250,
  ...over,
});

/** Run the compaction directly over plain messages. */
function compact(messages: Message[], budget: number, over: Partial<CompactionSettings> = {}) {
  const tokens = messages.map(estimateTokens);
  const total = tokens.reduce((a, b) => a + b, 0);
  return compactMessages(messages, tokens, total, budget, settings(over));
}

const toolCount = (ms: Message[]): number => ms.filter((m) => m.role === 'tool').length;
const callCount = (ms: Message[]): number => ms.filter((m) => (m.tool_calls?.length ?? 0) > 0).length;

function expectCallsFollowedByResults(view: Message[]): void {
  view.forEach((m, i) => {
    if (m.tool_calls?.length) expect(view[i + 1]?.role).toBe('tool');
  });
}

/** A small-budget manager: no notice reserve, compaction from half the budget. */
const tight = (config: Record<string, unknown> = {}) =>
  new SimpleContextManager({ compact_threshold: 0.5, compaction_notice_enabled: false, ...config });

describe('context-simple checklist (compaction)', () => {
  it('item 6: truncated tool results read "[truncated: ~N tokens - call tool again if needed] <first 250 chars>..."', () => {
    const big = 'abcdefghij'.repeat(800); // 8000 chars, 2000 tokens
    const history = [user('go'), call('a'), result('a', big), call('b'), result('b', big), user('next')];
    const { messages, stats } = compact(history, 6000, { protected_tool_results: 1 });
    expect(stats.strategy_level).toBe(2); // two results: wave 1 is empty, wave 2 holds 'a'
    const truncated = messages.find((m) => m.tool_call_id === 'a')!;
    expect(truncated.content).toBe(
      `[truncated: ~2,000 tokens - call tool again if needed] ${big.slice(0, 250)}...`,
    );
    expect(truncated.metadata).toMatchObject({ _truncated: true, _original_tokens: 2000 });
    expect(messages.find((m) => m.tool_call_id === 'b')!.content).toBe(big);
    expect(history[2]!.content).toBe(big); // the input is untouched
  });

  it('item 7: no orphan results, no call without all its results, multi-call results stay adjacent', async () => {
    const ctx = tight();
    await ctx.addMessage(system('sys'));
    for (let i = 0; i < 12; i++) {
      await ctx.addMessage(user(`ask ${i}`));
      const ids = Array.from({ length: (i % 3) + 1 }, (_, k) => `t${i}_${k}`);
      await ctx.addMessage(call(...ids));
      for (const id of ids) await ctx.addMessage(result(id, `output of ${id} `.repeat(30)));
      await ctx.addMessage(assistant(`done ${i}`));
    }
    await ctx.addMessage(user('final'));
    for (const budget of [8000, 4000, 2000, 1000, 300]) {
      const view = await ctx.getMessagesForRequest({ tokenBudget: budget });
      expect(pairingProblems(view, await ctx.getMessages())).toEqual([]);
      expectCallsFollowedByResults(view);
    }
    expect(ctx.lastCompactionStats!.messages_removed).toBeGreaterThan(0);
  });

  it('item 11: protected_tool_results=0 protects none (truncation alone reaches level 2, nothing removed)', async () => {
    const run = async (protectedToolResults: number) => {
      const ctx = tight({
        target_usage: 0.6,
        truncate_chars: 50,
        protected_recent: 0.5,
        protected_tool_results: protectedToolResults,
      });
      for (let i = 0; i < 8; i++) {
        await ctx.addMessage(user(`ask ${i}`));
        await ctx.addMessage(call(`t${i}`));
        await ctx.addMessage(result(`t${i}`, 'x'.repeat(800)));
      }
      // A budget whose target needs exactly four truncations.
      const history = await ctx.getMessages();
      const tool = history[2]!;
      const saving =
        estimateTokens(tool) -
        estimateTokens({
          ...tool,
          content: `[truncated: ~200 tokens - call tool again if needed] ${'x'.repeat(50)}...`,
          metadata: { ...tool.metadata, _truncated: true, _original_tokens: 200 },
        });
      const budget = Math.ceil((ctx.estimatedTokens - 4 * saving) / 0.6);
      const view = await ctx.getMessagesForRequest({ tokenBudget: budget });
      const truncatedIds = view.filter((m) => m.metadata?._truncated).map((m) => m.tool_call_id);
      return { stats: ctx.lastCompactionStats!, truncatedIds };
    };
    const none = await run(0);
    expect(none.truncatedIds).toEqual(['t0', 't1', 't2', 't3']);
    expect(none.stats).toMatchObject({ strategy_level: 2, messages_truncated: 4, messages_removed: 0 });
    const negative = await run(-1);
    expect(negative.stats).toMatchObject({ strategy_level: 2, messages_removed: 0 });
  });
});

describe('protected tool results', () => {
  const workload = async (n: number) => {
    const ctx = tight({
      target_usage: 0.6,
      truncate_chars: 50,
      protected_recent: 0.5,
      protected_tool_results: n,
    });
    for (let i = 0; i < 8; i++) {
      await ctx.addMessage(user(`ask ${i}`));
      await ctx.addMessage(call(`t${i}`));
      await ctx.addMessage(result(`t${i}`, 'x'.repeat(800)));
    }
    return ctx;
  };

  it('N protects exactly the last N from truncation: N=4 reaches level 2, N=5 must remove', async () => {
    const budgetFor = async (ctx: SimpleContextManager) => {
      const m = (await ctx.getMessages())[2]!;
      const cut = {
        ...m,
        content: `[truncated: ~200 tokens - call tool again if needed] ${'x'.repeat(50)}...`,
        metadata: { ...m.metadata, _truncated: true, _original_tokens: 200 },
      };
      return Math.ceil((ctx.estimatedTokens - 4 * (estimateTokens(m) - estimateTokens(cut))) / 0.6);
    };
    const four = await workload(4);
    await four.getMessagesForRequest({ tokenBudget: await budgetFor(four) });
    expect(four.lastCompactionStats).toMatchObject({
      strategy_level: 2,
      messages_truncated: 4,
      messages_removed: 0,
    });
    const five = await workload(5);
    await five.getMessagesForRequest({ tokenBudget: await budgetFor(five) });
    expect(five.lastCompactionStats!.strategy_level).toBe(3);
    expect(five.lastCompactionStats!.messages_truncated).toBe(3);
    expect(five.lastCompactionStats!.messages_removed).toBeGreaterThan(0);
    const eight = await workload(8);
    const view = await eight.getMessagesForRequest({ tokenBudget: await budgetFor(eight) });
    expect(eight.lastCompactionStats!.messages_truncated).toBe(0);
    expect(toolCount(view)).toBe(8); // protected results are never removed either
  });

  it('one protected sibling vetoes removing the whole batch', () => {
    const history = [
      user('first human'),
      call('old', 'recent'),
      result('old', 'older sibling'),
      result('recent', 'protected sibling'),
      user('last human'),
    ];
    for (const n of [1, 5]) {
      const { messages, stats } = compact(history, 1, { protected_recent: 0, protected_tool_results: n });
      expect(stats.messages_removed).toBe(0);
      expect(messages).toEqual(history);
    }
    const { messages, stats } = compact(history, 1, { protected_recent: 0, protected_tool_results: 0 });
    expect(stats.messages_removed).toBe(3);
    expect(messages).toEqual([history[0], history[4]]);
  });
});

describe('tool pairs (reference tests)', () => {
  it('scenario A: a pair at the end of the history is kept together', async () => {
    const ctx = tight();
    for (let i = 0; i < 9; i++) await ctx.addMessage(user(`message ${i}`));
    await ctx.addMessage(call('toolu_test'));
    await ctx.addMessage(result('toolu_test', 'bash output'));
    const view = await ctx.getMessagesForRequest({ tokenBudget: 100 });
    expect(ctx.lastCompactionStats).toBeDefined();
    expect(callCount(view)).toBe(toolCount(view));
    expectCallsFollowedByResults(view);
  });

  it('scenario B: a pair straddling the protected window is kept together', async () => {
    const ctx = tight({ protected_recent: 0.25 });
    for (let i = 0; i < 8; i++) await ctx.addMessage(assistant(`message ${i}`));
    await ctx.addMessage(call('toolu_test2'));
    await ctx.addMessage(result('toolu_test2', 'file content'));
    await ctx.addMessage(user('message 10'));
    await ctx.addMessage(assistant('response 10'));
    // 12 messages, boundary floor(12 * 0.75) = 9: the call is outside, its result inside.
    const view = await ctx.getMessagesForRequest({ tokenBudget: 100 });
    expect(ctx.lastCompactionStats!.messages_removed).toBeGreaterThan(0);
    expect(callCount(view)).toBe(1);
    expect(toolCount(view)).toBe(1);
    expectCallsFollowedByResults(view);
  });

  it('identical-content pairs are never deduplicated', async () => {
    const ctx = tight({ protected_recent: 0.9 });
    await ctx.addMessage(user('test'));
    await ctx.addMessage(call('toolu_1'));
    await ctx.addMessage(result('toolu_1', 'file1.txt'));
    await ctx.addMessage(user('test again'));
    await ctx.addMessage(call('toolu_2'));
    await ctx.addMessage(result('toolu_2', 'file1.txt'));
    const view = await ctx.getMessagesForRequest({ tokenBudget: 200 });
    expect(ctx.lastCompactionStats).toBeDefined();
    expect(toolCount(view)).toBe(2);
  });

  it('multiple pairs: every call is followed by its results and the counts match', async () => {
    const ctx = tight({ protected_tool_results: 0 });
    for (let i = 0; i < 3; i++) {
      await ctx.addMessage(user(`request ${i}`));
      await ctx.addMessage(call(`toolu_${i}`));
      await ctx.addMessage(result(`toolu_${i}`, `result ${i}`));
    }
    for (let i = 0; i < 10; i++) await ctx.addMessage(user(`later message ${i}`));
    const view = await ctx.getMessagesForRequest({ tokenBudget: 100 });
    expect(ctx.lastCompactionStats!.messages_removed).toBeGreaterThan(0);
    expect(callCount(view)).toBe(toolCount(view));
    expectCallsFollowedByResults(view);
  });

  it('six results of one multi-call assistant all survive, adjacent', async () => {
    const ctx = tight({ protected_recent: 0.5 });
    for (let i = 0; i < 8; i++) {
      await ctx.addMessage(user(`request ${i}`));
      await ctx.addMessage(assistant(`response ${i}`));
    }
    const ids = ['toolu_1', 'toolu_2', 'toolu_3', 'toolu_4', 'toolu_5', 'toolu_6'];
    await ctx.addMessage(call(...ids));
    for (const id of ids) await ctx.addMessage(result(id, `content of ${id}`));
    await ctx.addMessage(user('what did you find?'));
    const view = await ctx.getMessagesForRequest({ tokenBudget: 400 });
    expect(ctx.lastCompactionStats!.messages_removed).toBeGreaterThan(0);
    const at = view.findIndex((m) => m.tool_calls?.length === 6);
    expect(at).toBeGreaterThanOrEqual(0);
    expect(view.slice(at + 1, at + 7).map((m) => m.tool_call_id)).toEqual(ids);
  });

  it('an incomplete pair (a call without its result yet) is not removed', () => {
    const history: Message[] = [];
    for (let i = 0; i < 5; i++) history.push(call(`old${i}`), result(`old${i}`, 'old output '.repeat(20)));
    history.push(call('call_A', 'call_B'), result('call_A', 'Result from tool A'), user('continue'));
    const { messages, stats } = compact(history, 10, { protected_recent: 0, protected_tool_results: 0 });
    expect(stats.messages_removed).toBe(10); // every complete old pair went
    const kept = messages.filter((m) => m.tool_calls?.length);
    expect(kept).toHaveLength(1);
    expect(kept[0]!.tool_calls!.map((c) => c.id)).toEqual(['call_A', 'call_B']);
    expect(messages.map((m) => m.tool_call_id ?? m.role)).toEqual(['assistant', 'call_A', 'user']);
  });

  it('complete old pairs may be removed but leave no orphans', () => {
    const history: Message[] = [
      call('call_A', 'call_B'),
      result('call_A', 'Result A'),
      result('call_B', 'Result B'),
    ];
    for (let i = 0; i < 20; i++)
      history.push(user(`Message ${i}`.repeat(100)), assistant(`Response ${i}`.repeat(100)));
    const { messages, stats } = compact(history, 1000, { protected_tool_results: 0 });
    expect(stats.messages_removed).toBeGreaterThan(0);
    expect(messages.some((m) => m.tool_calls)).toBe(false);
    expect(toolCount(messages)).toBe(0);
    expect(pairingProblems(messages, history)).toEqual([]);
  });

  it('ids reused across turns bind each result to its own call', () => {
    const history = [
      user('one'),
      call('call_1'),
      result('call_1', 'first turn output '.repeat(20)),
      assistant('done one'),
      user('two'),
      call('call_1'),
      result('call_1', 'second turn output'),
      user('three'),
    ];
    // A target reached exactly by dropping the first pair.
    const [t1, t2] = [estimateTokens(history[1]), estimateTokens(history[2])];
    const total = history.reduce((n, m) => n + estimateTokens(m), 0);
    const { messages, stats } = compact(history, 2 * (total - t1 - t2), {
      protected_recent: 0.4,
      protected_tool_results: 0,
    });
    expect(stats.messages_removed).toBe(2);
    expect(messages.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual(['second turn output']);
    expect(pairingProblems(messages, history)).toEqual([]);
  });
});

describe('levels', () => {
  it('level 8 stubs the first user message but never removes it; the last user message stays whole', () => {
    const first = `Original task: ${'build the whole thing step by step, carefully and well '.repeat(3)}`;
    const history: Message[] = [system('sys'), user(first)];
    for (let i = 0; i < 10; i++) {
      history.push(user(`Intermediate request ${i}: ${'more detail about the request '.repeat(4)}`));
      history.push(assistant(`reply ${i} `.repeat(30)));
    }
    history.push(user(`Last request: ${'the current goal '.repeat(10)}`));
    const { messages, stats } = compact(history, 50, {});
    expect(stats.strategy_level).toBe(8);
    expect(messages[0]).toBe(history[0]);
    expect(messages[1]!.content).toBe(stubText(first));
    expect(stubText(first)).toBe(`[User message compacted - original: "${first.slice(0, 50).trim()}..."]`);
    expect(messages.at(-1)).toBe(history.at(-1));
    expect(stats.user_messages_stubbed).toBeGreaterThan(1);
  });

  it('stops at the first level that reaches the target', () => {
    const big = 'y'.repeat(4000);
    const history: Message[] = [user('start')];
    for (let i = 0; i < 8; i++) history.push(call(`c${i}`), result(`c${i}`, big));
    history.push(user('end'));
    const total = history.reduce((n, m) => n + estimateTokens(m), 0);
    const { stats } = compact(history, Math.floor(total * 1.9), { protected_tool_results: 0 });
    expect(stats.strategy_level).toBe(1);
    expect(stats.messages_truncated).toBe(1);
    expect(stats.after_tokens).toBeLessThanOrEqual(stats.target_tokens);
  });
});
