/** Deep data for tests (core's test kit builds the values): JSON text and the bounded form to expect. */
import { MAX_DATA_DEPTH, MAX_DEPTH_MARKER, setOwn } from '@amplifier/core';

/** `{"a":{"a":...1...}}` nested `depth` deep, as JSON text (JSON.stringify would overflow the stack). */
export function deepJson(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** `value` as core's bounded writers give it: each array or object with MAX_DATA_DEPTH ancestors is the marker. */
export function bounded(value: unknown, ancestors = 0): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (ancestors >= MAX_DATA_DEPTH) return MAX_DEPTH_MARKER;
  if (Array.isArray(value)) return value.map((item) => bounded(item, ancestors + 1));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    setOwn(out, key, bounded((value as Record<string, unknown>)[key], ancestors + 1));
  }
  return out;
}
