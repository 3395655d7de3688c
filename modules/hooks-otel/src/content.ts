/**
 * Content put on spans when `capture_content` is on: a copy with core's
 * redaction rules applied (values of secret-named keys, and strings that are
 * secrets whatever their name: URL credentials, PEM private keys), long
 * strings shortened, written as JSON.
 */
import { isSecretValue, redactSecrets, truncateValues } from '@amplifier/core';

const REDACTED = '[REDACTED]';

const hideSecretValues = (_key: string, value: unknown): unknown =>
  typeof value === 'string' && isSecretValue(value) ? REDACTED : value;

/** `value` redacted and shortened to `maxChars` per string; a string stays text, anything else becomes JSON. */
export function contentAttribute(value: unknown, maxChars: number): string {
  // core's copies never throw and write cycles as "[Circular]", so stringify cannot fail on them.
  const safe = truncateValues(redactSecrets(value), maxChars);
  if (typeof safe === 'string') return isSecretValue(safe) ? REDACTED : safe;
  try {
    return JSON.stringify(safe, hideSecretValues) ?? '';
  } catch {
    return '[unserializable]'; // a BigInt somewhere
  }
}
