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
