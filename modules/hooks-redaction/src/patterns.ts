/**
 * The reference's text patterns: secrets (API keys and tokens of common
 * services, JWTs, private key headers, `api_key=...` assignments) become
 * `[REDACTED:SECRET]`, PII (e-mail addresses, phone-like digit runs) becomes
 * `[REDACTED:PII]`.
 */

/** The rule sets a config may name. */
export const RULES = ['secrets', 'pii-basic'] as const;
export type Rule = (typeof RULES)[number];

export const SECRET_MARK = '[REDACTED:SECRET]';
export const PII_MARK = '[REDACTED:PII]';

const SECRET_PATTERNS: readonly RegExp[] = [
  /AKIA[0-9A-Z]{16}/g, // AWS access key id
  /sk-proj-[A-Za-z0-9_-]{20,}/g, // OpenAI project key
  /sk-ant-[A-Za-z0-9_-]{20,}/g, // Anthropic key
  /sk-[A-Za-z0-9]{48,}/g, // OpenAI legacy key
  /gh[pousr]_[A-Za-z0-9]{36,}/g, // GitHub tokens
  /github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}/g, // GitHub fine-grained token
  /xox[abpr]-[A-Za-z0-9-]+/g, // Slack
  /AIza[0-9A-Za-z_-]{35}/g, // Google API key
  /DefaultEndpointsProtocol=https?;[^\s"']+/gi, // Azure connection string
  /(?:api[_-]?key|apikey|secret[_-]?key|access[_-]?token|auth[_-]?token)["'`]?\s*[:=]\s*["'`]?[A-Za-z0-9_-]{20,}["'`]?/gi,
  /eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g, // JWT
  /-----BEGIN (?:RSA |EC |DSA |OPENSSH )?PRIVATE KEY-----/g,
];

const PII_PATTERNS: readonly RegExp[] = [
  /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g, // e-mail
  /\+?\d[\d\s().-]{7,}\d/g, // phone-like (also hits long numbers and timestamps, as in the reference)
];

/** `text` with every match of the chosen rules replaced by its mark. */
export function maskText(text: string, rules: readonly Rule[]): string {
  let out = text;
  if (rules.includes('secrets'))
    for (const pattern of SECRET_PATTERNS) out = out.replace(pattern, SECRET_MARK);
  if (rules.includes('pii-basic')) for (const pattern of PII_PATTERNS) out = out.replace(pattern, PII_MARK);
  return out;
}
