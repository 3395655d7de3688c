/**
 * @amplifier/secrets: the one owner of Amplifier's secret-value rules (which
 * strings are secrets whatever they are called): secretlint's recommended
 * preset plus a small documented supplement, compiled once and prefiltered by
 * keyword. The event log (hooks-logging), hooks-redaction, the CLI and the
 * viewer redact with it; core's `isSecretValue` is a dependency-free subset.
 * And the one redactor built on them (`Redactor`): secret values, secret-named
 * keys and assignments, credentials in URLs, headers and command lines.
 */

export { defaultSecretRules, isSecretValue, redactSecretValues, secretScanner } from './default-scanner.js';
export { DEFAULT_REDACTION, type RedactionConfig, Redactor, sharedRedactor } from './redactor.js';
export {
  KeywordIndex,
  type SecretMatch,
  type SecretRule,
  type SecretRuleOrigin,
  SecretScanner,
} from './scanner.js';
export {
  SECRETLINT_KEYWORDS,
  SECRETLINT_NOT_USED,
  secretlintRuleNames,
  secretlintRules,
} from './secretlint.js';
export { AWS_KEY_ID_PREFIXES, AWS_KEY_ID_SOURCE, SUPPLEMENT_RULES } from './supplement.js';
