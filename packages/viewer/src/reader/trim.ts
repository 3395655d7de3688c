/**
 * Values made small enough for a page: a string longer than `maxChars` is
 * cut with a note of what was left out, and nesting deeper than `maxDepth`
 * becomes a marker. A huge tool output (a 50 MB file read) then costs the
 * browser a few kilobytes, and says so where it is shown.
 */
export interface TrimLimits {
  maxChars: number;
  maxDepth: number;
}

export const DEFAULT_TRIM: TrimLimits = { maxChars: 20_000, maxDepth: 12 };

export function trimValue(value: unknown, limits: TrimLimits = DEFAULT_TRIM, depth = 0): unknown {
  if (typeof value === 'string') {
    if (value.length <= limits.maxChars) return value;
    return `${value.slice(0, limits.maxChars)}… [${value.length - limits.maxChars} more characters not shown]`;
  }
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= limits.maxDepth) return '[nested too deep to show]';
  if (Array.isArray(value)) return value.map((item) => trimValue(item, limits, depth + 1));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    // defineProperty: a key named __proto__ stays data.
    Object.defineProperty(out, key, {
      value: trimValue((value as Record<string, unknown>)[key], limits, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
