import { describe, expect, it } from 'vitest';
import { argsHash, canonicalJson, shortHash } from './binding.js';

describe('args hash', () => {
  it('canonical JSON sorts keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
    expect(canonicalJson({ a: undefined, b: 2n })).toBe('{"b":"2"}');
    expect(canonicalJson(undefined)).toBe('null');
  });

  it('a __proto__ key is data, not a prototype', () => {
    const input = JSON.parse('{"__proto__": {"x": 1}, "a": 1}') as Record<string, unknown>;
    expect(canonicalJson(input)).toBe('{"__proto__":{"x":1},"a":1}');
  });

  it('the same arguments in any key order hash the same; any change hashes differently', () => {
    const base = argsHash({ command: 'ls', timeout: 5 });
    expect(argsHash({ timeout: 5, command: 'ls' })).toBe(base);
    expect(base).toMatch(/^sha256:[0-9a-f]{64}$/);
    for (const changed of [
      { command: 'ls ', timeout: 5 },
      { command: 'ls', timeout: '5' },
      { command: 'ls', timeout: 5, extra: null },
      { command: 'ls' },
    ]) {
      expect(argsHash(changed)).not.toBe(base);
    }
    expect(shortHash(base)).toBe(base.slice(0, 19));
  });

  it('cyclic arguments throw (the hook turns that into a denial)', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => argsHash(cyclic)).toThrow();
  });
});
