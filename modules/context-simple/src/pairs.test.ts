import type { Message } from '@amplifier/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compactPrepared, estimateTokens } from './compaction.js';
import { resolveConfig } from './config.js';
import { indexPairs, type PairIndex, trackPairs } from './pairs.js';

/** A conversation of user prompts, answers and tool rounds (some results missing, some ids shared). */
const conversation: fc.Arbitrary<Message[]> = fc
  .array(
    fc.oneof(
      fc.record({ kind: fc.constant('user' as const), size: fc.nat(300) }),
      fc.record({ kind: fc.constant('answer' as const), size: fc.nat(300) }),
      fc.record({
        kind: fc.constant('tools' as const),
        calls: fc.integer({ min: 1, max: 3 }),
        answered: fc.nat(3),
        idless: fc.boolean(),
        shared: fc.boolean(),
        size: fc.nat(1500),
      }),
    ),
    { minLength: 1, maxLength: 60 },
  )
  .map((steps) => {
    const out: Message[] = [];
    steps.forEach((s, n) => {
      const text = 'x'.repeat(s.size);
      if (s.kind === 'user') out.push({ role: 'user', content: `${n} ${text}` });
      else if (s.kind === 'answer') out.push({ role: 'assistant', content: `${n} ${text}` });
      else {
        const ids = Array.from({ length: s.calls }, (_, k) => `call_${n}_${k}`);
        const calls = ids.map((id, k) => ({
          ...(!(s.idless && k === 0) && { id }),
          tool: 't',
          arguments: {},
        }));
        out.push({ role: 'assistant', content: '', tool_calls: calls as Message['tool_calls'] });
        const answered = ids.slice(0, s.answered);
        if (s.shared && answered.length > 1) {
          // One result message answering two calls (tool_result blocks).
          out.push({
            role: 'tool',
            content: answered.map((id) => ({ type: 'tool_result', tool_call_id: id, output: text })),
          } as Message);
        } else
          for (const id of answered) out.push({ role: 'tool', tool_call_id: id, content: `${id} ${text}` });
      }
    });
    return out;
  });

const plain = (index: PairIndex) => ({
  kind: [...index.kind],
  owner: [...index.owner],
  removable: [...index.removable],
  start: [...index.start],
  results: [...index.results],
});

/**
 * The pair index by its definition, one message at a time with no state carried over:
 * a result binds to the latest earlier assistant that declared its id; a result whose
 * ids bind to two callers pins both; a caller is removable when it is not pinned and
 * each of its distinct ids got a result.
 */
function indexByDefinition(messages: readonly Message[]): ReturnType<typeof plain> {
  const idsOf = (m: Message): string[] => {
    const raw: unknown[] = [];
    if (m.role !== 'assistant') return [];
    if (Array.isArray(m.tool_calls))
      for (const c of m.tool_calls as { id?: unknown; tool_call_id?: unknown }[])
        raw.push(c?.id ?? c?.tool_call_id);
    if (Array.isArray(m.content)) for (const b of m.content) if (b?.type === 'tool_call') raw.push(b.id);
    return [...new Set(raw.map((id) => (typeof id === 'string' ? id : '')))];
  };
  const n = messages.length;
  const kind = messages.map((m, i) =>
    m.role === 'user' ? 1 : m.role === 'tool' ? 2 : idsOf(messages[i]!).length > 0 ? 3 : 0,
  );
  const owner = new Array<number>(n).fill(-1);
  const pinned = messages.map((m) => idsOf(m).includes(''));
  const answered = messages.map(() => new Set<string>());
  messages.forEach((m, i) => {
    if (m.role !== 'tool') return;
    const ids = typeof m.tool_call_id === 'string' ? [m.tool_call_id] : [];
    if (Array.isArray(m.content))
      for (const b of m.content)
        if (b?.type === 'tool_result' && typeof b.tool_call_id === 'string') ids.push(b.tool_call_id);
    const callers = new Set<number>();
    for (const id of ids) {
      let a = i - 1;
      while (a >= 0 && (id === '' || !idsOf(messages[a]!).includes(id))) a--;
      if (a < 0) continue;
      callers.add(a);
      answered[a]!.add(id);
    }
    if (callers.size === 1) owner[i] = [...callers][0]!;
    if (callers.size > 1) for (const a of callers) pinned[a] = true;
  });
  const removable = messages.map((m, a) =>
    kind[a] === 3 && !pinned[a] && answered[a]!.size === idsOf(m).length ? 1 : 0,
  );
  const results: number[] = [];
  const start = [0];
  for (let a = 0; a < n; a++) {
    for (let i = 0; i < n; i++) if (owner[i] === a) results.push(i);
    start.push(results.length);
  }
  return { kind, owner, removable, start, results };
}

/** Messages whose ids come from a small pool: reused ids, late, repeated and unknown results, blocks. */
const tangled: fc.Arbitrary<Message[]> = fc.array(
  fc.oneof(
    fc.constant<Message>({ role: 'user', content: 'u' }),
    fc.constant<Message>({ role: 'assistant', content: 'a' }),
    fc
      .record({
        ids: fc.array(fc.constantFrom('a', 'b', 'c', 'd', '', 'e'), { minLength: 0, maxLength: 20 }),
        blocks: fc.array(fc.constantFrom('a', 'f'), { maxLength: 2 }),
      })
      .map(
        ({ ids, blocks }): Message =>
          ({
            role: 'assistant',
            content: blocks.map((id) => ({ type: 'tool_call', id, name: 't', input: {} })),
            tool_calls: ids.map((id) =>
              id === 'e' ? { tool: 't', arguments: {} } : { id, tool: 't', arguments: {} },
            ),
          }) as Message,
      ),
    fc
      .constantFrom('a', 'b', 'c', 'd', 'f', 'x', '')
      .map((id): Message => ({ role: 'tool', tool_call_id: id, content: 'ok' })),
    fc.array(fc.constantFrom('a', 'b', 'c', 'f', 'x'), { minLength: 1, maxLength: 3 }).map(
      (ids): Message =>
        ({
          role: 'tool',
          content: ids.map((id) => ({ type: 'tool_result', tool_call_id: id, output: 'ok' })),
        }) as Message,
    ),
  ),
  { maxLength: 40 },
);

const picks = fc.array(fc.nat(), { maxLength: 4 });

describe('PairTracker', () => {
  it('indexes as the definition says, whatever the order of calls and results', () => {
    fc.assert(
      fc.property(tangled, (messages) => {
        expect(plain(indexPairs(messages))).toEqual(indexByDefinition(messages));
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps indexing as the definition says after a compaction kept part of the messages', () => {
    fc.assert(
      fc.property(
        conversation,
        picks,
        tangled,
        fc.integer({ min: 300, max: 6000 }),
        (first, pick, rest, budget) => {
          const tracker = trackPairs(first);
          const tokens = first.map((m) => estimateTokens(m));
          const total = tokens.reduce((a, b) => a + b, 0);
          const result = compactPrepared(
            { system: [], work: first, tokens, total, pairs: tracker.index() },
            budget,
            resolveConfig({}),
          );
          const kept = tracker.survivors(result.alive)!;
          // Results (late, repeated) for the calls of the last kept caller, then anything.
          const caller = result.work.findLast((m) => Array.isArray(m.tool_calls));
          const ids = ((caller?.tool_calls ?? []) as { id?: string }[]).flatMap((c) => c.id ?? []);
          const more: Message[] = [
            ...(ids.length === 0
              ? []
              : pick.map((k) => ({
                  role: 'tool' as const,
                  tool_call_id: ids[k % ids.length]!,
                  content: 'late',
                }))),
            ...rest,
          ];
          for (const m of more) kept.add(m);
          expect(plain(kept.index())).toEqual(indexByDefinition([...result.work, ...more]));
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('PairTracker.survivors', () => {
  it('carries the index over to what a compaction kept: the same as indexing the kept messages afresh', () => {
    fc.assert(
      fc.property(conversation, conversation, fc.integer({ min: 300, max: 6000 }), (first, more, budget) => {
        const tracker = trackPairs(first);
        const tokens = first.map((m) => estimateTokens(m));
        const total = tokens.reduce((a, b) => a + b, 0);
        const settings = resolveConfig({});
        const result = compactPrepared(
          { system: [], work: first, tokens, total, pairs: tracker.index() },
          budget,
          settings,
        );
        const kept = tracker.survivors(result.alive);
        expect(kept).toBeDefined();
        expect(plain(kept!.index())).toEqual(plain(indexPairs(result.work)));
        // And it keeps tracking: messages added afterwards bind as in a tracker of the whole kept list.
        for (const m of more) kept!.add(m);
        expect(plain(kept!.index())).toEqual(plain(indexPairs([...result.work, ...more])));
      }),
      { numRuns: 300 },
    );
  });

  it('declines when an id was declared twice, or a result would outlive or lose its caller', () => {
    const caller = (id: string): Message => ({
      role: 'assistant',
      content: '',
      tool_calls: [{ id, tool: 't', arguments: {} }],
    });
    const result = (id: string): Message => ({ role: 'tool', tool_call_id: id, content: 'ok' });
    const reused = trackPairs([caller('a'), result('a'), caller('a'), result('a')]);
    expect(reused.survivors([0, 0, 1, 1])).toBeUndefined();
    const pair = trackPairs([caller('a'), result('a'), { role: 'user', content: 'u' }]);
    expect(pair.survivors([0, 1, 1])).toBeUndefined(); // a result without its caller
    expect(pair.survivors([1, 0, 1])).toBeUndefined(); // a caller without its result
    expect(plain(pair.survivors([0, 0, 1])!.index())).toEqual(
      plain(indexPairs([{ role: 'user', content: 'u' }])),
    );
    // The tracker it came from is left as it was.
    expect(plain(pair.index())).toEqual(
      plain(indexPairs([caller('a'), result('a'), { role: 'user', content: 'u' }])),
    );
  });
});
