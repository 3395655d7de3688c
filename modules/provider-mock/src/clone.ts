/**
 * Copies of script data. A script is replayed exactly as written, however
 * deep (a test of deep model output needs a mock that returns it), so the
 * copy walks with its own stack instead of recursing.
 */
import { isPlainObject, setOwn } from '@amplifier/core';

type Container = unknown[] | Record<string, unknown>;

function isContainer(value: unknown): value is Container {
  return Array.isArray(value) || isPlainObject(value);
}

function empty(value: Container): Container {
  return Array.isArray(value) ? new Array<unknown>(value.length) : {};
}

/**
 * A deep copy of `value`: arrays and plain objects are copied (own
 * enumerable keys; a `__proto__` key stays a key), anything else is shared.
 * Any depth, no recursion; an object met twice (or a cycle) is copied once
 * and met twice in the copy, as with `structuredClone`.
 */
export function cloneData<T>(value: T): T {
  if (!isContainer(value)) return value;
  const copies = new Map<Container, Container>();
  const pending: [Container, Container][] = [];
  const copyOf = (item: unknown): unknown => {
    if (!isContainer(item)) return item;
    let copy = copies.get(item);
    if (copy === undefined) {
      copy = empty(item);
      copies.set(item, copy);
      pending.push([item, copy]);
    }
    return copy;
  };
  const root = copyOf(value);
  while (pending.length > 0) {
    const [source, target] = pending.pop()!;
    if (Array.isArray(source)) {
      const list = target as unknown[];
      for (let i = 0; i < source.length; i++) list[i] = copyOf(source[i]);
    } else {
      for (const key of Object.keys(source)) setOwn(target, key, copyOf(source[key]));
    }
  }
  return root as T;
}
