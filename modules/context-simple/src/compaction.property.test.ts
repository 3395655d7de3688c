import type { Message } from '@amplifier/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pairingProblems } from './__fixtures__/messages.js';
import { compactMessages, estimateTokens } from './compaction.js';
import { SimpleContextManager } from './context.js';
import { NOTICE_SOURCE } from './notice.js';

/** One step of a conversation; tool rounds carry how many calls and how many got results. */
type Step =
  | { kind: 'system'; hook: boolean; size: number }
  | { kind: 'user'; size: number }
  | { kind: 'assistant'; size: number }
  | { kind: 'tools'; calls: number; answered: number; size: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('system' as const), hook: fc.boolean(), size: fc.nat(300) }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('user' as const), size: fc.nat(400) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('assistant' as const), size: fc.nat(400) }) },
  {
    weight: 5,
    arbitrary: fc
      .record({
        calls: fc.integer({ min: 1, max: 4 }),
        missing: fc.nat(4),
        full: fc.boolean(),
        size: fc.nat(2000),
      })
      .map(({ calls, missing, full, size }) => ({
        kind: 'tools' as const,
        calls,
        // Most rounds are complete; some lost results (an interrupted turn).
        answered: full ? calls : Math.max(0, calls - missing),
        size,
      })),
  },
);

const text = (prefix: string, size: number): string =>
  `${prefix} ${'lorem ipsum dolor '.repeat(size / 18 + 1)}`.slice(0, size + prefix.length);

/** Build a history with unique call ids (or ids reused every 3 steps); tool results follow their call. */
function build(steps: Step[], reuseIds = false): Message[] {
  const out: Message[] = [];
  steps.forEach((s, n) => {
    if (s.kind === 'system') {
      out.push({
        role: 'system',
        content: text(`sys${n}`, s.size),
        ...(s.hook && { metadata: { source: 'hook' } }),
      });
    } else if (s.kind === 'user') out.push({ role: 'user', content: text(`user${n}`, s.size) });
    else if (s.kind === 'assistant') out.push({ role: 'assistant', content: text(`asst${n}`, s.size) });
    else {
      const ids = Array.from({ length: s.calls }, (_, k) => `call_${reuseIds ? n % 3 : n}_${k}`);
      out.push({
        role: 'assistant',
        content: '',
        tool_calls: ids.map((id) => ({ id, tool: 't', arguments: {} })),
      });
      for (const id of ids.slice(0, s.answered))
        out.push({ role: 'tool', tool_call_id: id, content: text(id, s.size) });
    }
  });
  return out;
}

const config = fc.record({
  compact_threshold: fc.double({ min: 0.05, max: 1, noNaN: true }),
  target_usage: fc.double({ min: 0.05, max: 1, noNaN: true }),
  protected_recent: fc.double({ min: 0, max: 1, noNaN: true }),
  protected_tool_results: fc.integer({ min: -1, max: 8 }),
  truncate_chars: fc.nat(400),
  compaction_notice_enabled: fc.boolean(),
});

describe('compaction invariants (property-based)', () => {
  it('never orphans a tool result or a call, keeps systems and the last user message, leaves history alone', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 60 }),
        config,
        fc.double({ min: 0, max: 1.2, noNaN: true }),
        async (steps, cfg, budgetFraction) => {
          const ctx = new SimpleContextManager(cfg);
          const history = build(steps);
          for (const m of history) await ctx.addMessage(m);
          const before = await ctx.getMessages();
          const tokenBudget = Math.max(1, Math.floor(ctx.estimatedTokens * budgetFraction));
          const view = await ctx.getMessagesForRequest({ tokenBudget });

          expect(await ctx.getMessages()).toEqual(before);
          expect(pairingProblems(view, before)).toEqual([]);

          const systems = (ms: Message[]) =>
            ms
              .filter((m) => m.role === 'system' && m.metadata?.source !== NOTICE_SOURCE)
              .map((m) => m.content);
          expect(systems(view)).toEqual(systems(before));

          const lastUser = before.findLast((m) => m.role === 'user');
          if (lastUser !== undefined) expect(view).toContainEqual(lastUser);

          // An assistant whose calls lack results is always kept.
          for (const m of before) {
            if (
              m.tool_calls?.length &&
              !m.tool_calls.every((c) => before.some((r) => r.tool_call_id === c.id))
            ) {
              expect(view).toContainEqual(m);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('state kept between requests (tool pairs, rewrites) gives the views a fresh manager computes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 40 }),
        fc.boolean(),
        config,
        fc.array(fc.double({ min: 0.1, max: 1.2, noNaN: true }), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 6 }),
        async (steps, reuseIds, generated, fractions, every) => {
          // Compaction of the whole history on every request (sticky views are checked below).
          const cfg = { ...generated, sticky_compaction: false };
          const ctx = new SimpleContextManager(cfg);
          const history = build(steps, reuseIds);
          for (let i = 0; i < history.length; i++) {
            await ctx.addMessage(history[i]!);
            if (i % every !== 0 && i !== history.length - 1) continue;
            const fresh = new SimpleContextManager(cfg);
            await fresh.setMessages(await ctx.getMessages());
            for (const fraction of fractions) {
              const tokenBudget = Math.max(1, Math.floor(ctx.estimatedTokens * fraction));
              const once = new SimpleContextManager(cfg);
              await once.setMessages(await ctx.getMessages());
              const view = await ctx.getMessagesForRequest({ tokenBudget });
              expect(view).toEqual(await fresh.getMessagesForRequest({ tokenBudget }));
              expect(view).toEqual(await once.getMessagesForRequest({ tokenBudget }));
              if (once.lastCompactionStats !== undefined) {
                expect(ctx.lastCompactionStats).toEqual(once.lastCompactionStats);
              }
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a sticky view is extended with new messages and compacted again only at the threshold, keeping every invariant', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 80 }),
        fc.boolean(),
        config,
        fc.integer({ min: 200, max: 4000 }),
        fc.integer({ min: 1, max: 4 }),
        async (steps, reuseIds, cfg, tokenBudget, every) => {
          const compactions: Record<string, unknown>[] = [];
          const hooks = {
            emit: async (_event: string, data: Record<string, unknown>) => compactions.push(data),
          };
          const ctx = new SimpleContextManager(cfg, { hooks });
          const history = build(steps, reuseIds);
          let previous: Message[] | undefined;
          let added: Message[] = [];
          for (let i = 0; i < history.length; i++) {
            await ctx.addMessage(history[i]!);
            added.push(history[i]!);
            if (i % every !== 0 && i !== history.length - 1) continue;
            const before = await ctx.getMessages();
            const count = compactions.length;
            const view = await ctx.getMessagesForRequest({ tokenBudget });
            const stored = before.slice(-added.length);
            // (The checker reads ids as unique; reused ones are checked by the comparisons below.)
            if (!reuseIds) expect(pairingProblems(view, before)).toEqual([]);
            const lastUser = before.findLast((m) => m.role === 'user');
            if (lastUser !== undefined) expect(view).toContainEqual(lastUser);
            const systems = (ms: Message[]) =>
              ms
                .filter((m) => m.role === 'system' && m.metadata?.source !== NOTICE_SOURCE)
                .map((m) => m.content);
            expect(systems(view)).toEqual(systems(before));
            const effective = cfg.compaction_notice_enabled
              ? tokenBudget - ctx.config.compaction_notice_token_reserve
              : tokenBudget;
            const sum = (ms: Message[]) => ms.reduce((n, m) => n + estimateTokens(m), 0);
            if (previous !== undefined && ctx.lastCompactionStats) {
              const kept = previous.filter((m) => m.role !== 'system');
              const extended = [
                ...before.filter((m) => m.role === 'system'),
                ...kept,
                ...stored.filter((m) => m.role !== 'system'),
              ];
              const historyOver = ctx.shouldCompact(sum(before), effective);
              // The kept view plus the new messages stays under the threshold: nothing is compacted.
              if (historyOver && !ctx.shouldCompact(sum(extended), effective)) {
                expect(compactions.length).toBe(count);
              }
            }
            if (compactions.length === count && previous !== undefined && ctx.lastCompactionStats) {
              // No compaction ran: the last view plus what was added (systems go with the systems).
              const work = (ms: Message[]) => ms.filter((m) => m.role !== 'system');
              expect(work(view)).toEqual([...work(previous), ...work(stored)]);
            }
            if (compactions.length > count && previous !== undefined) {
              // A compaction ran: from the sticky view plus the new messages, or the whole history.
              const notice = (m: Message) => m.metadata?.source === NOTICE_SOURCE;
              const reference = [
                ...previous.filter((m) => !notice(m)),
                ...stored.filter((m) => m.role !== 'system'),
              ];
              const settings = { ...ctx.config };
              const withSystems = [
                ...before.filter((m) => m.role === 'system'),
                ...reference.filter((m) => m.role !== 'system'),
              ];
              const tokens = withSystems.map((m) => estimateTokens(m));
              const total = tokens.reduce((a, b) => a + b, 0);
              const again = compactMessages(withSystems, tokens, total, effective, settings).messages;
              const fromHistory = compactMessages(
                before,
                before.map((m) => estimateTokens(m)),
                before.reduce((n, m) => n + estimateTokens(m), 0),
                effective,
                settings,
              ).messages;
              const strip = (ms: Message[]) => ms.filter((m) => !notice(m));
              expect([again, fromHistory]).toContainEqual(strip(view));
            }
            previous = view;
            added = [];
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
