/**
 * Deep script data: the mock replays tool calls nested 3,000 and 100,000
 * levels deep exactly as scripted (a test of deep model output needs that),
 * never throws on them, and writes them bounded where it writes JSON (stream
 * fragments); its config is read through own properties only.
 */
import { MAX_DATA_DEPTH, MAX_DEPTH_MARKER, type StreamEvent } from '@amplifier/core';
import {
  createTestCoordinator,
  depthOf,
  nestedValue,
  RecordingLogger,
  randomDeepValue,
} from '@amplifier/testing';
import { describe, expect, it } from 'vitest';
import { cloneData } from './clone.js';
import { createMockProvider, DEFAULT_TEXT, mount, type ScriptedProvider } from './index.js';

/** Whether `a` and `b` hold the same data (iterative: any depth, unlike toEqual). */
function sameData(a: unknown, b: unknown): boolean {
  const stack: [unknown, unknown][] = [[a, b]];
  while (stack.length > 0) {
    const [x, y] = stack.pop()!;
    if (typeof x !== 'object' || x === null || typeof y !== 'object' || y === null) {
      if (!Object.is(x, y)) return false;
      continue;
    }
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    const keys = Object.keys(x);
    if (keys.join('\0') !== Object.keys(y).join('\0')) return false;
    for (const key of keys)
      stack.push([(x as Record<string, unknown>)[key], (y as Record<string, unknown>)[key]]);
  }
  return true;
}

const deepStep = (args: Record<string, unknown>) => ({
  tool_calls: [{ id: 'c1', name: 'echo', arguments: args }],
});

async function streamed(provider: ScriptedProvider): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of provider.stream({ messages: [{ role: 'user', content: 'go' }] }))
    events.push(event);
  return events;
}

describe('deep scripts', () => {
  for (const depth of [3_000, 100_000]) {
    it(`tool-call arguments ${depth.toLocaleString('en-US')} deep are replayed exactly, in code and through mount`, async () => {
      const args = { payload: nestedValue(depth) };
      const coordinator = createTestCoordinator({ bare: true });
      await mount(coordinator, { script: [deepStep(args)], repeat_last: true });
      for (const provider of [
        createMockProvider({ script: [deepStep(args)], repeat_last: true }),
        coordinator.get('providers', 'mock') as ScriptedProvider,
      ]) {
        const response = await provider.complete({ messages: [{ role: 'user', content: 'go' }] });
        const call = response.tool_calls![0]!;
        // A copy (changing it cannot change the script); no toBe: it would deep-compare on a mismatch.
        expect(call.arguments === args).toBe(false);
        expect(depthOf(call.arguments)).toBe(depth + 1);
        expect(sameData(call.arguments, args)).toBe(true);
        expect(response.usage!.output_tokens).toBeGreaterThan(0);

        const events = await streamed(provider);
        const fragment = events.find((e) => e.type === 'tool_call.delta') as { arguments_fragment: string };
        expect(fragment.arguments_fragment).toContain(JSON.stringify(MAX_DEPTH_MARKER));
        expect(depthOf(JSON.parse(fragment.arguments_fragment))).toBe(MAX_DATA_DEPTH);
        const end = events.find((e) => e.type === 'tool_call.end') as { arguments: unknown };
        expect(depthOf(end.arguments)).toBe(depth + 1);
      }
    });
  }

  it('a respond function may answer with deep arguments too; requests with deep history are estimated, not thrown on', async () => {
    const args = { payload: nestedValue(100_000) };
    const provider = createMockProvider({
      respond: () => ({ content: [], tool_calls: [{ id: 'r1', name: 'echo', arguments: args }] }),
    });
    const history = [
      { role: 'user' as const, content: 'go' },
      { role: 'assistant' as const, content: '', tool_calls: [{ id: 'r0', tool: 'echo', arguments: args }] },
    ];
    const response = await provider.complete({ messages: history });
    expect(response.tool_calls![0]!.arguments).toBe(args);
    const script = createMockProvider({ script: ['fine'] });
    const answered = await script.complete({ messages: history });
    expect(answered.usage!.input_tokens).toBeGreaterThan(0);
  });
});

describe('cloneData (random deep and wide values)', () => {
  it('copies every value exactly, to any depth, sharing no array or object with the original', () => {
    for (let seed = 0; seed < 60; seed++) {
      const value = randomDeepValue(seed, seed < 55 ? { depth: seed * 11 } : {});
      const copy = cloneData(value);
      expect(sameData(copy, value)).toBe(true);
      const originals = new Set<unknown>();
      const collect: unknown[] = [value];
      while (collect.length > 0) {
        const item = collect.pop();
        if (typeof item === 'object' && item !== null) {
          originals.add(item);
          collect.push(...Object.values(item));
        }
      }
      const check: unknown[] = [copy];
      while (check.length > 0) {
        const item = check.pop();
        if (typeof item === 'object' && item !== null) {
          expect(originals.has(item)).toBe(false);
          check.push(...Object.values(item));
        }
      }
    }
  });

  it('keeps a cycle and a shared object as they are, and a __proto__ key as a key', () => {
    const shared = { s: 1 };
    const cyclic: Record<string, unknown> = { a: shared, b: shared };
    cyclic.self = cyclic;
    const copy = cloneData(cyclic);
    expect(copy.self).toBe(copy);
    expect(copy.a).toBe(copy.b);
    expect(copy.a).not.toBe(shared);
    const proto = cloneData(JSON.parse('{"__proto__": {"polluted": true}}'));
    expect(Object.keys(proto)).toEqual(['__proto__']);
    expect((proto as { polluted?: unknown }).polluted).toBeUndefined();
    expect(cloneData('text')).toBe('text');
  });
});

describe('own config properties only', () => {
  const loosening = { priority: -1_000, repeat_last: true, default_text: 'from the prototype' };

  it('a __proto__ key or an inherited one loosens nothing, through mount and in code', async () => {
    for (const raw of [
      JSON.parse(`{"__proto__": ${JSON.stringify(loosening)}}`),
      Object.create(loosening) as Record<string, unknown>,
    ]) {
      const logger = new RecordingLogger();
      const coordinator = createTestCoordinator({ bare: true, logger });
      await mount(coordinator, raw);
      const warned = logger.problemsSince().some((p) => p.includes("unknown config key '__proto__'"));
      expect(warned).toBe(Object.hasOwn(raw, '__proto__'));
      for (const provider of [
        coordinator.get('providers', 'mock') as ScriptedProvider,
        createMockProvider(raw),
      ]) {
        expect(provider.priority).toBe(100);
        const response = await provider.complete({ messages: [{ role: 'user', content: 'hi' }] });
        expect(response.content).toEqual([{ type: 'text', text: DEFAULT_TEXT }]);
      }
      // A one-step script does not repeat through an inherited repeat_last.
      const scripted = Object.assign(Object.create(loosening), { script: ['once'] }) as Record<
        string,
        unknown
      >;
      const provider = createMockProvider(scripted);
      await provider.complete({ messages: [] });
      await expect(provider.complete({ messages: [] })).rejects.toMatchObject({ kind: 'configuration' });
    }
  });
});
