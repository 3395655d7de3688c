/**
 * What an approval is bound to: the tool call id and a hash of the exact
 * arguments (canonical JSON: object keys sorted at every level, then sha256).
 * The same arguments in another key order hash the same; any other change
 * (a value, a key, a type) gives another hash.
 */
import { createHash } from 'node:crypto';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * JSON with object keys sorted (recursively), `undefined` members dropped as
 * JSON does, bigints as strings. Throws on a cycle (a call's arguments are JSON).
 */
export function canonicalJson(value: unknown): string {
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint') return v.toString();
    if (!isPlainObject(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) {
      Object.defineProperty(sorted, key, {
        value: v[key],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return sorted;
  });
  return text ?? 'null';
}

/** `sha256:<hex>` of the canonical JSON of `value`. */
export function argsHash(value: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalJson(value)).digest('hex')}`;
}

/** The first 12 hex digits, for prompts. */
export function shortHash(hash: string): string {
  return hash.slice(0, 'sha256:'.length + 12);
}
