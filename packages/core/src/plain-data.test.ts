import { nestedValue } from '@amplifier/test-fixtures';
import { describe, expect, it } from 'vitest';
import { DataValidationError } from './errors.js';
import { getOwn, isPlainObject, MAX_DATA_DEPTH, ownConfig, ownData, setOwn } from './plain-data.js';

const nested = (depth: number): unknown => nestedValue(depth);

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'];

describe('setOwn / getOwn', () => {
  it('setOwn keeps __proto__, constructor and prototype as own keys; getOwn never reads inherited values', () => {
    for (const key of PROTO_KEYS) {
      const out: Record<string, unknown> = {};
      setOwn(out, key, { safety_profile: 'unrestricted' });
      expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
      expect(Object.keys(out)).toEqual([key]);
      expect(out.safety_profile).toBeUndefined();
      expect(getOwn(out, key)).toEqual({ safety_profile: 'unrestricted' });
    }
    const inherits = Object.create({ allowed_write_paths: ['/'] }) as Record<string, unknown>;
    expect(inherits.allowed_write_paths).toEqual(['/']);
    expect(getOwn(inherits, 'allowed_write_paths')).toBeUndefined();
    expect(getOwn(null, 'x')).toBeUndefined();
    expect(getOwn('text', 'length')).toBeUndefined();
  });
});

describe('ownData', () => {
  it('copies own keys only: a prototype made by `out.__proto__ = {...}` or Object.create is dropped', () => {
    const polluted: Record<string, unknown> = {};
    // What a plain-object copy of {"__proto__": {...}} does by assignment.
    Object.setPrototypeOf(polluted, { safety_profile: 'unrestricted' });
    polluted.timeout = 5;
    expect(polluted.safety_profile).toBe('unrestricted');
    const copy = ownData({ config: polluted, list: [Object.create({ x: 1 })] });
    expect(copy.config).toEqual({ timeout: 5 });
    expect(copy.config.safety_profile).toBeUndefined();
    expect(Object.getPrototypeOf(copy.config)).toBe(Object.prototype);
    expect((copy.list[0] as { x?: number }).x).toBeUndefined();
  });

  it('keeps own __proto__ / constructor / prototype keys of parsed JSON as data, at any depth', () => {
    for (const key of PROTO_KEYS) {
      const parsed = JSON.parse(`{"tools": [{"config": {"${key}": {"safety_profile": "unrestricted"}}}]}`);
      const config = ownData(parsed).tools[0].config;
      expect(Object.keys(config)).toEqual([key]);
      expect(config.safety_profile).toBeUndefined();
      expect(Object.getPrototypeOf(config)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(config, key)?.value).toEqual({ safety_profile: 'unrestricted' });
    }
  });

  it('keeps functions, class instances and primitives by reference; copies arrays and plain objects', () => {
    const fn = () => 1;
    const date = new Date(0);
    const map = new Map();
    const input = { fn, date, map, n: 1, s: 's', nil: null, nested: { list: [1, { b: 2 }] } };
    const copy = ownData(input);
    expect(copy).toEqual(input);
    expect(copy.fn).toBe(fn);
    expect(copy.date).toBe(date);
    expect(copy.map).toBe(map);
    expect(copy.nested).not.toBe(input.nested);
    expect(copy.nested.list).not.toBe(input.nested.list);
    expect(ownData('x')).toBe('x');
  });

  it('strict (default): a cycle or nesting deeper than the limit throws a DataValidationError with the path', () => {
    const cyclic: Record<string, unknown> = { a: { b: {} } };
    (cyclic.a as { b: Record<string, unknown> }).b.back = cyclic;
    expect(() => ownData(cyclic)).toThrow(DataValidationError);
    expect(() => ownData(cyclic)).toThrow(/^a\.b\.back refers to itself/);
    expect(() => ownData(nested(MAX_DATA_DEPTH))).not.toThrow();
    expect(() => ownData(nested(MAX_DATA_DEPTH + 1))).toThrow(/nested deeper than 256 levels/);
    expect(() => ownData({ 'odd key': [nested(10)] }, { maxDepth: 5 })).toThrow(
      /^\["odd key"\]\[0\]\.a\.a\.a is nested deeper than 5 levels/,
    );
    // Long paths are shortened in the message, kept whole in `errors`.
    try {
      ownData(nested(100_000));
      expect.unreachable();
    } catch (error) {
      const e = error as DataValidationError;
      expect(e.message.length).toBeLessThan(300);
      expect(e.errors[0]!.path).toBe(Array.from({ length: MAX_DATA_DEPTH }, () => 'a').join('.'));
    }
  });

  it("onLimit 'keep': cycles point at the copy of their ancestor, data below the limit is kept as it is", () => {
    const cyclic: Record<string, unknown> = { name: 'root' };
    cyclic.self = cyclic;
    const copy = ownData(cyclic, { onLimit: 'keep' });
    expect(copy).not.toBe(cyclic);
    expect(copy.self).toBe(copy);
    const deep = nested(100_000) as Record<string, unknown>;
    const kept = ownData(deep, { onLimit: 'keep' });
    let at: unknown = kept;
    let original: unknown = deep;
    for (let i = 0; i < MAX_DATA_DEPTH; i++) {
      expect(at).not.toBe(original);
      at = (at as { a: unknown }).a;
      original = (original as { a: unknown }).a;
    }
    expect(at).toBe(original);
  });
});

describe('ownConfig', () => {
  it('undefined and null give {}; anything else but a plain object is refused naming the module', () => {
    expect(ownConfig(undefined, 'tool-x')).toEqual({});
    expect(ownConfig(null, 'tool-x')).toEqual({});
    expect(() => ownConfig([1], 'tool-x')).toThrow(/^tool-x: config must be an object .* got an array/);
    expect(() => ownConfig('yes', 'tool-x')).toThrow(/got string/);
    expect(() => ownConfig(new Date(), 'tool-x')).toThrow(/got object/);
  });

  it('a config inheriting settings gets none of them; deep or cyclic config never throws', () => {
    const config = ownConfig(Object.create({ safety_profile: 'unrestricted' }), 'tool-bash');
    expect(config.safety_profile).toBeUndefined();
    expect(() => ownConfig({ deep: nested(10_000) }, 'tool-x')).not.toThrow();
  });

  it('isPlainObject: data objects yes (whatever prototype a bad copy gave them), class instances and arrays no', () => {
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject(Object.create(null))).toBe(true);
    expect(isPlainObject(Object.create({ x: 1 }))).toBe(true);
    expect(isPlainObject(JSON.parse('{"__proto__": {}}'))).toBe(true);
    expect(isPlainObject([])).toBe(false);
    expect(isPlainObject(new Date())).toBe(false);
    expect(isPlainObject(new (class A {})())).toBe(false);
    expect(isPlainObject(null)).toBe(false);
  });
});
