/**
 * Values made safe and small enough for a page. Secrets are redacted with
 * the event log's rules (`@amplifier/secrets`' `Redactor`, which hooks-logging
 * applies when it writes): transcripts and metadata are stored as written,
 * and an event log may predate a rule, so everything the viewer serves goes
 * through them here, before any cut (a cut never hides a secret from them).
 * A string longer than `maxChars` is cut with a note of what was left out,
 * and nesting deeper than `maxDepth` becomes a marker. A huge tool output (a
 * 50 MB file read) then costs the browser a few kilobytes, and says so where
 * it is shown.
 */
import { DEFAULT_REDACTION, type Redactor, sharedRedactor } from '@amplifier/secrets';
import { storedText } from '@amplifier/sessions';

let shared: Redactor | undefined;

/** The event log's redactor with its default config (and this process's secret environment values), shared. */
function redactor(): Redactor {
  shared ??= sharedRedactor(DEFAULT_REDACTION);
  return shared;
}

export interface TrimLimits {
  maxChars: number;
  maxDepth: number;
}

export const DEFAULT_TRIM: TrimLimits = { maxChars: 20_000, maxDepth: 12 };

export function trimValue(value: unknown, limits: TrimLimits = DEFAULT_TRIM, depth = 0): unknown {
  if (typeof value === 'string') {
    const safe = storedText(value); // redacted as the event log redacts
    if (safe.length <= limits.maxChars) return safe;
    return `${safe.slice(0, limits.maxChars)}… [${safe.length - limits.maxChars} more characters not shown]`;
  }
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= limits.maxDepth) return '[nested too deep to show]';
  if (Array.isArray(value)) return value.map((item) => trimValue(item, limits, depth + 1));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    // The value of a secret-named key (`password`, `api_key`, `Authorization`), as the log writes it.
    const secret =
      item !== null &&
      item !== undefined &&
      item !== '' &&
      (typeof item !== 'object' || Array.isArray(item)) &&
      redactor().isSecretKey(key);
    // defineProperty: a key named __proto__ stays data.
    Object.defineProperty(out, key, {
      value: secret ? '[REDACTED:key]' : trimValue(item, limits, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
