/**
 * The default scanner: secretlint's recommended preset, then the supplement,
 * compiled once per process.
 */
import { isSecretValue as isStructuralSecret } from '@amplifier/core';
import { type SecretRule, SecretScanner } from './scanner.js';
import { secretlintRules } from './secretlint.js';
import { SUPPLEMENT_RULES } from './supplement.js';

let shared: SecretScanner | undefined;

/** Every rule of the default set: secretlint's recommended preset first, then the supplement. */
export function defaultSecretRules(): readonly SecretRule[] {
  return secretScanner().rules;
}

/**
 * The default scanner (secretlint's preset, then the supplement), built on
 * first use and shared by the whole process: it holds no per-text state.
 */
export function secretScanner(): SecretScanner {
  shared ??= new SecretScanner([...secretlintRules(), ...SUPPLEMENT_RULES]);
  return shared;
}

/** `text` with every secret value replaced by `[REDACTED:<rule id>]`; the ids that fired are added to `fired`. */
export function redactSecretValues(text: string, fired?: Set<string>): string {
  return secretScanner().redact(text, fired);
}

/**
 * True when `value` is a secret whatever its name: core's `isSecretValue` (a
 * URL with a password, a PEM private key) or any rule of the default set.
 */
export function isSecretValue(value: string): boolean {
  return isStructuralSecret(value) || secretScanner().test(value);
}
