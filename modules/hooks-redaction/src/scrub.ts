/**
 * A masked copy of an event payload: every string, at any depth, through
 * `maskText`, except under the allowlisted paths (`a.b[0]`, the reference's
 * notation). Plain objects and arrays are copied; other values are kept as
 * they are. Cycles and depth past `MAX_DATA_DEPTH` are kept as they are
 * (never followed), so scrubbing never throws.
 */
import { isPlainObject, MAX_DATA_DEPTH, setOwn } from '@amplifier/core';
import { maskText, type Rule } from './patterns.js';

/** The masked copy, and whether anything changed (the input is never modified). */
export function scrub(
  value: unknown,
  rules: readonly Rule[],
  allowlist: ReadonlySet<string>,
): { value: unknown; changed: boolean } {
  let changed = false;
  const seen = new WeakSet<object>();
  const walk = (item: unknown, at: string, depth: number): unknown => {
    if (allowlist.has(at)) return item;
    if (typeof item === 'string') {
      const masked = maskText(item, rules);
      if (masked !== item) changed = true;
      return masked;
    }
    if (depth >= MAX_DATA_DEPTH || typeof item !== 'object' || item === null || seen.has(item)) return item;
    if (Array.isArray(item)) {
      seen.add(item);
      const out = item.map((entry, i) => walk(entry, `${at}[${i}]`, depth + 1));
      seen.delete(item);
      return out;
    }
    if (!isPlainObject(item)) return item;
    seen.add(item);
    const out: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(item)) {
      setOwn(out, key, walk(entry, at === '' ? key : `${at}.${key}`, depth + 1));
    }
    seen.delete(item);
    return out;
  };
  const result = walk(value, '', 0);
  return { value: result, changed };
}
