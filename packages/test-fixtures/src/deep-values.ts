/**
 * Hostile data shapes for testing walkers of outside data (copies, redaction,
 * serialisation, snapshots, schema checks): values nested far deeper than any
 * real document, and seeded random deep/wide values for property tests. Every
 * builder is iterative, so it never overflows the stack it is meant to test.
 */

/** `{a: {a: ... leaf}}` (or `[[...leaf]]` with `array: true`) `depth` levels deep. */
export function nestedValue(
  depth: number,
  options: { leaf?: unknown; key?: string; array?: boolean } = {},
): unknown {
  let value = options.leaf ?? 'leaf';
  const key = options.key ?? 'a';
  for (let i = 0; i < depth; i++) value = options.array ? [value] : { [key]: value };
  return value;
}

/** How many levels of arrays and plain objects `value` has (iterative; 0 for a primitive). */
export function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** A small fast seeded generator (mulberry32): the same seed gives the same values. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = ['a', 'b', 'name', 'value', 'password', 'token', '__proto__', 'constructor', 'prototype', ''];
const LEAVES: readonly unknown[] = [
  0,
  -1.5,
  'text',
  '',
  null,
  true,
  false,
  'sk-proj-abcdefghijklmnopqrstuvwx',
];

export interface RandomValueOptions {
  /** Levels along the deepest spine (default: up to 5,000, chosen by the seed). */
  depth?: number;
  /** Most siblings added beside the spine at each level (default 3). */
  width?: number;
}

/**
 * A random value with one spine `depth` levels deep (objects and arrays
 * mixed, keys including `__proto__`, `constructor` and secret-looking names)
 * and up to `width` shallow siblings per level: deep and wide at once.
 */
export function randomDeepValue(seed: number, options: RandomValueOptions = {}): unknown {
  const random = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const depth = options.depth ?? Math.floor(random() * 5000);
  const width = options.width ?? 3;
  let value: unknown = pick(LEAVES);
  for (let level = 0; level < depth; level++) {
    const siblings = Math.floor(random() * (width + 1));
    if (random() < 0.5) {
      const list: unknown[] = [];
      for (let i = 0; i < siblings; i++) list.push(pick(LEAVES));
      list.splice(Math.floor(random() * (list.length + 1)), 0, value);
      value = list;
    } else {
      const record: Record<string, unknown> = {};
      for (let i = 0; i < siblings; i++) {
        Object.defineProperty(record, `${pick(KEYS)}${i}`, {
          value: pick(LEAVES),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      Object.defineProperty(record, pick(KEYS), {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      value = record;
    }
  }
  return value;
}

/** `{"a":{"a":...leaf...}}` nested `depth` deep as JSON text (JSON.stringify of such a value would overflow). */
export function nestedJson(depth: number, leaf = '1'): string {
  return `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;
}
