import { MAX_DATA_DEPTH, MAX_DEPTH_MARKER, setOwn, stringifyJson } from '@amplifier/core';
import { boundedValue, depthOf, nestedValue } from '@amplifier/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { copyPlain, jsonLength, snapshotMessage } from './snapshot.js';

const STAMP = '2026-11-22T10:15:00.123+00:00';

/** Every array and plain object reachable from `value` is frozen. */
function deepFrozen(value: unknown, seen = new Set<unknown>()): boolean {
  if (typeof value !== 'object' || value === null || seen.has(value)) return true;
  seen.add(value);
  const proto = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return true;
  if (!Object.isFrozen(value)) return false;
  return Object.values(value).every((v) => deepFrozen(v, seen));
}

/** No array or plain object of `copy` is one of `original`'s (other objects may be shared). */
function sharesNoContainer(original: unknown, copy: unknown): boolean {
  const containers = new Set<unknown>();
  const collect = (v: unknown): void => {
    if (typeof v !== 'object' || v === null || containers.has(v)) return;
    containers.add(v);
    Object.values(v).forEach(collect);
  };
  collect(original);
  const check = (v: unknown): boolean => {
    if (typeof v !== 'object' || v === null) return true;
    if (Object.isFrozen(v) && Array.isArray(v) && v.length === 0) return true; // the shared empty array
    if (containers.has(v)) return false;
    return Object.values(v).every(check);
  };
  return check(copy);
}

/** JSON-like data with the values JSON.stringify treats specially: undefined, -0, NaN, escapes, lone surrogates. */
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  any: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.constantFrom('line\nbreak', 'tab\t"quote"\\', '\u0000\u001f', '\ud800', 'a\udc00b', '😀 emoji'),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.array(tie('any'), { maxLength: 5 }),
    fc.dictionary(fc.string({ unit: 'binary', maxLength: 8 }), tie('any'), { maxKeys: 5 }),
  ),
})).any;

const message = fc.record(
  {
    role: fc.constantFrom('user', 'assistant', 'tool', 'system'),
    content: fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.array(value, { maxLength: 4 })),
    tool_call_id: fc.string({ maxLength: 12 }),
    tool_calls: fc.array(fc.record({ id: fc.string(), tool: fc.string(), arguments: value })),
    metadata: fc.oneof(
      fc.constant(undefined),
      fc.constant(null),
      fc.dictionary(fc.string({ maxLength: 8 }), value, { maxKeys: 4 }),
      fc.record({ timestamp: fc.oneof(fc.constant(null), fc.constant(undefined), fc.string()) }),
    ),
  },
  { requiredKeys: ['role'] },
);

describe('snapshotMessage', () => {
  it('measures exactly JSON.stringify(message).length and copies into deeply frozen new containers', () => {
    fc.assert(
      fc.property(message, value, (m, extra) => {
        const input = { ...m, extra } as Record<string, unknown>;
        const before = JSON.stringify(input);
        const { value: stored, jsonLength: length } = snapshotMessage(input);
        expect(length).toBe(JSON.stringify(input).length);
        expect(JSON.stringify(stored)).toBe(before); // same data, same key order
        expect(stored).toEqual(input);
        expect(deepFrozen(stored)).toBe(true);
        expect(sharesNoContainer(input, stored)).toBe(true);
        expect(JSON.stringify(input)).toBe(before); // the input is not touched
      }),
      { numRuns: 300 },
    );
  });

  it('with a stamp, stores { ...m, metadata: { ...m.metadata, timestamp } } when the timestamp is missing or null', () => {
    fc.assert(
      fc.property(message, (m) => {
        const input = m as Record<string, unknown>;
        const metadata = input.metadata as Record<string, unknown> | null | undefined;
        const missing = metadata?.timestamp === undefined || metadata.timestamp === null;
        const expected = missing ? { ...input, metadata: { ...metadata, timestamp: STAMP } } : input;
        const { value: stored, jsonLength: length } = snapshotMessage(input, STAMP);
        expect(JSON.stringify(stored)).toBe(JSON.stringify(expected));
        expect(length).toBe(JSON.stringify(expected).length);
        expect(deepFrozen(stored)).toBe(true);
        expect(input.metadata).toBe(metadata); // the caller's message keeps its own metadata
      }),
      { numRuns: 300 },
    );
  });

  it('stamps a null timestamp in place and leaves an existing one alone', () => {
    const { value: stamped } = snapshotMessage(
      { role: 'user', metadata: { a: 1, timestamp: null, b: 2 } },
      STAMP,
    );
    expect(Object.keys(stamped.metadata as object)).toEqual(['a', 'timestamp', 'b']);
    expect((stamped.metadata as Record<string, unknown>).timestamp).toBe(STAMP);
    const odd = snapshotMessage({ role: 'user', metadata: 'text' } as Record<string, unknown>, STAMP);
    expect(odd.value.metadata).toEqual({ 0: 't', 1: 'e', 2: 'x', 3: 't', timestamp: STAMP });
  });

  it('shares objects that are not plain data and measures them as JSON.stringify does', () => {
    class Point {
      readonly x: number;
      readonly y: number;
      constructor(x: number, y: number) {
        this.x = x;
        this.y = y;
      }
    }
    const date = new Date(0);
    const point = new Point(1, 2);
    const input = { role: 'user', content: [{ date, point, map: new Map([[1, 2]]) }] };
    const { value: stored, jsonLength: length } = snapshotMessage(input);
    const block = (stored.content as Record<string, unknown>[])[0]!;
    expect(block.date).toBe(date);
    expect(block.point).toBe(point);
    expect(length).toBe(JSON.stringify(input).length);
    const custom = { role: 'user', content: { toJSON: () => 'replaced' } };
    expect(snapshotMessage(custom).jsonLength).toBe(JSON.stringify(custom).length);
  });

  it('survives a bigint and a cycle: measured by core stringifyJson, the cycle kept in the copy', () => {
    const big = { role: 'user', content: 'n', count: 10n };
    expect(snapshotMessage(big).jsonLength).toBe(stringifyJson(big).length);
    const cyclic: Record<string, unknown> = { role: 'user', content: 'loop' };
    cyclic.self = cyclic;
    const { value: stored, jsonLength: length } = snapshotMessage(cyclic);
    expect(stored).not.toBe(cyclic);
    expect(stored.self).toBe(stored);
    expect(length).toBe(stringifyJson(cyclic).length);
    expect(copyPlain(stored).self).not.toBe(stored);
  });

  it('keeps an own __proto__ key (as JSON.parse makes) as data, not as a prototype', () => {
    const input = JSON.parse('{"role":"tool","content":"x","metadata":{"__proto__":{"polluted":true}}}');
    const { value: stored, jsonLength: length } = snapshotMessage(input);
    expect(JSON.stringify(stored)).toBe(JSON.stringify(input));
    expect(length).toBe(JSON.stringify(input).length);
    expect(Object.getPrototypeOf(stored.metadata)).toBe(Object.prototype);
    expect(Object.keys(copyPlain(stored).metadata as object)).toEqual(['__proto__']);
  });

  it('copies nesting deeper than the fast walk goes, exactly', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 200; i++) deep = i % 2 ? [deep] : { level: i, next: deep };
    const input = { role: 'user', content: deep };
    const { value: stored, jsonLength: length } = snapshotMessage(input);
    expect(length).toBe(JSON.stringify(input).length);
    expect(stored).toEqual(input);
    expect(deepFrozen(stored)).toBe(true);
  });
});

describe('what the walk remembers between messages', () => {
  it('measures keys exactly however many distinct keys it has seen (the key memo is bounded)', () => {
    for (let round = 0; round < 2; round++) {
      const wide: Record<string, string> = {};
      for (let i = 0; i < 5000; i++) wide[`k${round}_${i}${i % 7 === 0 ? '"\\\n' : ''}`] = 'v';
      const message = { role: 'tool', tool_call_id: 'c', content: 'x', metadata: wide };
      const { value, jsonLength: length } = snapshotMessage(message);
      expect(length).toBe(JSON.stringify(message).length);
      expect(value).toEqual(message);
    }
  });

  it('copies own keys only, also when something made a property of Object.prototype enumerable', () => {
    const message = { role: 'user', content: 'hi', metadata: { source: 'x' } };
    const before = snapshotMessage(message, STAMP);
    Object.defineProperty(Object.prototype, 'polluted', {
      value: 1,
      enumerable: true,
      configurable: true,
      writable: true,
    });
    let during: ReturnType<typeof snapshotMessage<typeof message>>;
    let measured: number;
    try {
      during = snapshotMessage(message, STAMP);
      measured = jsonLength(message);
    } finally {
      delete (Object.prototype as Record<string, unknown>).polluted;
    }
    expect(Object.hasOwn(during.value, 'polluted')).toBe(false);
    expect(Object.hasOwn(during.value.metadata as object, 'polluted')).toBe(false);
    expect(during.jsonLength).toBe(before.jsonLength);
    expect(measured).toBe(JSON.stringify(message).length);
    expect(snapshotMessage(message, STAMP).jsonLength).toBe(before.jsonLength);
  });
});

describe('copyPlain and jsonLength', () => {
  it('copyPlain gives mutable copies of frozen snapshots', () => {
    const { value: stored } = snapshotMessage({
      role: 'assistant',
      content: [] as unknown[],
      tool_calls: [{ id: 'a' }],
    });
    const copy = copyPlain(stored);
    expect(copy).toEqual(stored);
    copy.content.push({ type: 'text', text: 'x' });
    (copy.tool_calls as { id: string }[])[0]!.id = 'b';
    expect(stored.content).toEqual([]);
    expect((stored.tool_calls as { id: string }[])[0]!.id).toBe('a');
  });

  it('jsonLength is JSON.stringify(value).length, or stringifyJson where that throws', () => {
    expect(jsonLength({ a: 'x\n' })).toBe(JSON.stringify({ a: 'x\n' }).length);
    expect(jsonLength(undefined)).toBe(0);
    expect(jsonLength({ n: 1n })).toBe(stringifyJson({ n: 1n }).length);
  });
});

/** One level of a deep value: its container, the key that leads deeper, and shallow siblings. */
const level = fc.record({
  kind: fc.constantFrom('array', 'object'),
  key: fc.string({ maxLength: 6 }),
  siblings: fc.array(value, { maxLength: 2 }),
});

/** `depth` levels (innermost first, `pattern` repeated) around a shallow leaf, built without recursion. */
function build(
  depth: number,
  pattern: readonly { kind: string; key: string; siblings: unknown[] }[],
  leaf: unknown,
): unknown {
  let inner = leaf;
  for (let i = 0; i < depth; i++) {
    const { kind, key, siblings } = pattern[i % pattern.length]!;
    if (kind === 'array') {
      inner = [...siblings, inner];
    } else {
      const record: Record<string, unknown> = {};
      for (const [i, sibling] of siblings.entries()) setOwn(record, `s${i}`, sibling);
      setOwn(record, key, inner);
      inner = record;
    }
  }
  return inner;
}

describe('deep data (random deep and wide values)', () => {
  const deep = fc.record({
    depth: fc.integer({ min: 0, max: 700 }),
    pattern: fc.array(level, { minLength: 1, maxLength: 6 }),
    leaf: value,
    wide: fc.array(value, { maxLength: 40 }),
  });

  it('snapshots never throw, stay within MAX_DATA_DEPTH with the marker below it, and keep shallow data as it is', () => {
    fc.assert(
      fc.property(deep, ({ depth, pattern, leaf, wide }) => {
        const args = build(depth, pattern, leaf);
        const input = {
          role: 'assistant',
          content: wide,
          tool_calls: [{ id: 'c1', tool: 'echo', arguments: args }],
        } as Record<string, unknown>;
        const { value: stored, jsonLength: length } = snapshotMessage(input);
        const expected = boundedValue(input);
        expect(stored).toEqual(expected);
        expect(depthOf(stored)).toBeLessThanOrEqual(MAX_DATA_DEPTH);
        if (depthOf(input) <= MAX_DATA_DEPTH) expect(stored).toEqual(input);
        else expect(JSON.stringify(stored)).toContain(JSON.stringify(MAX_DEPTH_MARKER));
        expect(length).toBe(JSON.stringify(expected).length);
        expect(deepFrozen(stored)).toBe(true);
        // A mutable copy, and the measure without storing, agree with the snapshot.
        expect(copyPlain(args)).toEqual(boundedValue(args));
        expect(jsonLength(input)).toBe(length);
      }),
      { numRuns: 60 },
    );
  });

  it('a value nested 100,000 deep (and one that is also a cycle) is bounded, not a RangeError', () => {
    const chain = nestedValue(100_000);
    const { value: stored, jsonLength: length } = snapshotMessage({ role: 'user', content: [chain] });
    expect(depthOf(stored)).toBe(MAX_DATA_DEPTH);
    expect(length).toBe(JSON.stringify(stored).length);
    const cyclic: Record<string, unknown> = { role: 'user', content: 'loop', deep: chain };
    cyclic.self = cyclic;
    const copy = snapshotMessage(cyclic).value;
    expect(copy.self).toBe(copy);
    expect(JSON.stringify({ ...copy, self: null })).toContain(JSON.stringify(MAX_DEPTH_MARKER));
    expect(jsonLength(chain)).toBe(JSON.stringify(boundedValue(chain)).length);
  });
});

/** A deeply frozen copy of JSON-like data (made by JSON.parse, so no undefined, no holes). */
function frozenData<T>(value: T): T {
  const freeze = (v: unknown): unknown => {
    if (typeof v === 'object' && v !== null) {
      for (const item of Object.values(v)) freeze(item);
      Object.freeze(v);
    }
    return v;
  };
  return freeze(JSON.parse(JSON.stringify(value))) as T;
}

describe('deeply frozen plain data is shared, not copied', () => {
  it('stores a deeply frozen message as is, measured exactly as its unfrozen copy', () => {
    fc.assert(
      fc.property(message, value, (m, extra) => {
        const input = frozenData({ ...m, extra });
        const { value: stored, jsonLength: length } = snapshotMessage(input);
        expect(stored).toBe(input);
        expect(length).toBe(JSON.stringify(input).length);
        expect(length).toBe(snapshotMessage(JSON.parse(JSON.stringify(input))).jsonLength);
      }),
      { numRuns: 300 },
    );
  });

  it('a stamp makes a new top-level object; its deeply frozen values are shared', () => {
    const calls = frozenData([{ id: 'c1', tool: 'echo', arguments: { text: 'hi' } }]);
    const input = Object.freeze({ role: 'assistant', content: '', tool_calls: calls });
    const { value: stored, jsonLength: length } = snapshotMessage(input, STAMP);
    expect(stored).not.toBe(input);
    expect(stored.tool_calls).toBe(calls);
    expect(stored).toEqual({ ...input, metadata: { timestamp: STAMP } });
    expect(length).toBe(JSON.stringify(stored).length);
  });

  it('copies what is frozen only on the surface, and shares the frozen parts inside it', () => {
    const args = { text: 'mutable' };
    const call = Object.freeze({ id: 'c1', tool: 'echo', arguments: args });
    const content = frozenData([{ type: 'text', text: 'frozen block' }]);
    const input = Object.freeze({ role: 'assistant', content, tool_calls: Object.freeze([call]) });
    const { value: stored } = snapshotMessage(input);
    expect(stored).not.toBe(input);
    expect(stored.tool_calls![0]).not.toBe(call);
    expect(stored.content).toBe(content);
    args.text = 'changed later';
    expect(stored.tool_calls![0]!.arguments).toEqual({ text: 'mutable' });
    expect(deepFrozen(stored)).toBe(true);
  });

  it('copies frozen data that is not plain: getters, setters, holes, array subclasses, class instances, toJSON', () => {
    let reads = 0;
    const getter = Object.freeze(
      Object.defineProperty({ role: 'user' }, 'content', {
        enumerable: true,
        get: () => `read ${++reads}`,
      }),
    );
    const stored = snapshotMessage(getter).value as unknown as { content: string };
    expect(stored).not.toBe(getter);
    expect(stored.content).toBe('read 1');
    expect(stored.content).toBe('read 1'); // a snapshot of the value, not the getter

    const setter = Object.freeze(
      Object.defineProperty({ role: 'user', content: 'x' }, 'hook', { enumerable: true, set: () => {} }),
    );
    expect(snapshotMessage(setter).value).not.toBe(setter);

    // biome-ignore lint/suspicious/noSparseArray: a hole is what is tested
    const holes = Object.freeze({ role: 'user', content: Object.freeze([1, , 3]) });
    const withHoles = snapshotMessage(holes);
    expect(withHoles.value).not.toBe(holes);
    expect(withHoles.jsonLength).toBe(JSON.stringify(holes).length);
    expect(1 in (withHoles.value.content as unknown[])).toBe(true); // the copy writes undefined, as before

    class Blocks extends Array<unknown> {}
    const sub = Object.freeze({ role: 'user', content: Object.freeze(Blocks.from(['a'])) });
    expect(snapshotMessage(sub).value).not.toBe(sub);

    class Point {
      readonly x: number;
      constructor(x: number) {
        this.x = x;
      }
    }
    const instance = Object.freeze({ role: 'user', content: 'x', point: Object.freeze(new Point(1)) });
    const copied = snapshotMessage(instance);
    expect(copied.value).not.toBe(instance);
    expect(copied.jsonLength).toBe(JSON.stringify(instance).length);

    const custom = Object.freeze({ role: 'user', content: 'x', date: Object.freeze({ toJSON: () => 'D' }) });
    const measured = snapshotMessage(custom);
    expect(measured.value).not.toBe(custom);
    expect(measured.jsonLength).toBe(JSON.stringify(custom).length);
  });

  it('a frozen cycle is copied with the cycle kept, as before', () => {
    const node: Record<string, unknown> = { role: 'user', content: 'x' };
    node.self = node;
    Object.freeze(node);
    const { value: stored } = snapshotMessage(node);
    expect(stored).not.toBe(node);
    expect((stored as Record<string, unknown>).self).toBe(stored);
  });
});
