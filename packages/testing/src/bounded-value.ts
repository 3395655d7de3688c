/** The expected value of property tests over core's depth-bounded writers. */
import { MAX_DATA_DEPTH, MAX_DEPTH_MARKER, setOwn } from '@amplifier/core';

/**
 * `value` as core's bounded writers give it (`stringifyJson`, `redactSecrets`,
 * snapshots): every array or object with `MAX_DATA_DEPTH` ancestors replaced
 * by `MAX_DEPTH_MARKER`. The expected value of property tests; recursive, so
 * give it values the stack can walk (a few thousand levels).
 */
export function boundedValue(value: unknown, ancestors = 0): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (ancestors >= MAX_DATA_DEPTH) return MAX_DEPTH_MARKER;
  if (Array.isArray(value)) return value.map((item) => boundedValue(item, ancestors + 1));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    setOwn(out, key, boundedValue((value as Record<string, unknown>)[key], ancestors + 1));
  }
  return out;
}
