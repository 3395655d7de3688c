/**
 * The reference's rule sets: secrets become `[REDACTED:SECRET]`, PII (e-mail
 * addresses, phone-like digit runs) becomes `[REDACTED:PII]`. Secrets are
 * found by the one redactor of `@amplifier/secrets`, the same the event log
 * uses (secret values of common services, JWTs, private keys, and secrets
 * known by their context: `PASSWORD=…`, credentials in URLs, HTTP headers,
 * command-line flags, connection strings, values of secret-named environment
 * variables); its marks become `[REDACTED:SECRET]`. The reference's two
 * context patterns (`api_key=...` assignments, whole Azure connection
 * strings) run after it.
 */
import { DEFAULT_REDACTION, sharedRedactor } from '@amplifier/secrets';

/** The rule sets a config may name. */
export const RULES = ['secrets', 'pii-basic'] as const;
export type Rule = (typeof RULES)[number];

export const SECRET_MARK = '[REDACTED:SECRET]';
export const PII_MARK = '[REDACTED:PII]';

/** The marks the shared redactor writes (`[REDACTED:key_value]`, `[REDACTED:aws_access_key]`...). */
const REDACTOR_MARK = /\[REDACTED:[A-Za-z0-9_]+\]/g;

/** The reference's secrets that are known by their context, not by a value format. */
const SECRET_PATTERNS: readonly RegExp[] = [
  /DefaultEndpointsProtocol=https?;[^\s"']+/gi, // Azure connection string
  /(?:api[_-]?key|apikey|secret[_-]?key|access[_-]?token|auth[_-]?token)["'`]?\s*[:=]\s*["'`]?[A-Za-z0-9_-]{20,}["'`]?/gi,
];

const PII_PATTERNS: readonly RegExp[] = [
  /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g, // e-mail
  /\+?\d[\d\s().-]{7,}\d/g, // phone-like (also hits long numbers and timestamps, as in the reference)
];

/** `text` with every match of the chosen rules replaced by its mark. */
export function maskText(text: string, rules: readonly Rule[]): string {
  let out = text;
  if (rules.includes('secrets')) {
    const fired = new Set<string>();
    out = sharedRedactor(DEFAULT_REDACTION).redactString(out, fired);
    if (fired.size > 0) out = out.replace(REDACTOR_MARK, SECRET_MARK);
    for (const pattern of SECRET_PATTERNS) out = out.replace(pattern, SECRET_MARK);
  }
  if (rules.includes('pii-basic')) for (const pattern of PII_PATTERNS) out = out.replace(pattern, PII_MARK);
  return out;
}
