/**
 * Copies of data with secrets blanked out or long strings shortened, for debug
 * payloads (`session.raw`) and logs. Both recurse through plain objects and
 * arrays, never modify their input, and write a cycle as "[Circular]".
 */

/** Keys whose values are secrets (compared lower-cased, whole key). */
export const SENSITIVE_KEYS: ReadonlySet<string> = new Set([
  'api_key',
  'apikey',
  'api-key',
  'secret',
  'password',
  'token',
  'credential',
  'credentials',
  'private_key',
  'privatekey',
  'auth',
  'authorization',
]);

/** Replace the value of every key named in `keys` (case-insensitive) with "[REDACTED]". */
export function redactSecrets<T>(value: T, keys: ReadonlySet<string> = SENSITIVE_KEYS): T {
  return mapDeep(value, (key, v) =>
    key !== undefined && keys.has(key.toLowerCase()) ? '[REDACTED]' : v,
  ) as T;
}

/** Shorten strings longer than `maxLength` to `<prefix>... (truncated N chars)`. */
export function truncateValues<T>(value: T, maxLength = 180): T {
  return mapDeep(value, (_key, v) =>
    typeof v === 'string' && v.length > maxLength
      ? `${v.slice(0, maxLength)}... (truncated ${v.length - maxLength} chars)`
      : v,
  ) as T;
}

function mapDeep(
  value: unknown,
  fn: (key: string | undefined, v: unknown) => unknown,
  key?: string,
  ancestors: Set<unknown> = new Set(),
): unknown {
  const mapped = fn(key, value);
  if (mapped !== value) return mapped;
  const isArray = Array.isArray(value);
  const isPlain =
    !isArray &&
    typeof value === 'object' &&
    value !== null &&
    Object.getPrototypeOf(value) === Object.prototype;
  if (!isArray && !isPlain) return value;
  if (ancestors.has(value)) return '[Circular]';
  ancestors.add(value);
  let out: unknown;
  if (isArray) {
    out = (value as unknown[]).map((item) => mapDeep(item, fn, undefined, ancestors));
  } else {
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as object)) copy[k] = mapDeep(v, fn, k, ancestors);
    out = copy;
  }
  ancestors.delete(value);
  return out;
}
