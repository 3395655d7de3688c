/**
 * Secrets and size in data meant for people (logs, debug payloads): which key
 * names hold secrets (`isSecretKey`, one rule for log redaction and for the
 * environment of subprocesses), and copies of data with secrets blanked out or
 * long strings shortened. The copies recurse through plain objects and arrays,
 * never modify their input, write a cycle as "[Circular]" and anything nested
 * deeper than `MAX_DATA_DEPTH` as "[MaxDepth]": they never throw.
 */
import { isPlainObject, MAX_DATA_DEPTH, MAX_DEPTH_MARKER, setOwn } from './plain-data.js';

/** The reference's keys whose values are secrets (compared lower-cased, whole key). */
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

/** Whole names (lower-cased, `-` `_` `.` removed) that hold secrets. */
const SECRET_NAMES: ReadonlySet<string> = new Set([
  ...[...SENSITIVE_KEYS].map(normalizeKey),
  'xapikey',
  'proxyauthorization',
  'passwd',
  'passphrase',
  'clientsecret',
  'cookie',
  'setcookie',
]);

/** Endings (of the normalized name) that mark a secret: `OPENAI_API_KEY`, `github_token`, `AWS_SECRET_ACCESS_KEY`. */
const SECRET_SUFFIXES: readonly string[] = [
  'apikey',
  'secret',
  'secretkey',
  'accesskey',
  'password',
  'passwd',
  'passphrase',
  'token',
  'privatekey',
  'credential',
  'credentials',
  'auth',
  'signingkey',
  'encryptionkey',
  'masterkey',
  'licensekey',
  'subscriptionkey',
  'accountkey',
  'sessionkey',
  'hmackey',
  'secretkeybase',
  'accesskeyid',
  'connectionstring',
  'cookie',
  'dsn',
  'authconfig',
];

/** `*_PWD` (`MYSQL_PWD`) holds a password; the shell's own `PWD` and `OLDPWD` are directories. */
const PASSWORD_ABBREVIATION = /^(?!old)[a-z0-9]+pwd$/;

/** Environment-style names (upper case) ending in `_KEY` or `_PAT`: `STRIPE_KEY`, `AZURE_OPENAI_KEY`, `GITHUB_PAT`. */
const ENV_STYLE_SECRET = /^[A-Z][A-Z0-9_]*_(?:KEY|PAT)$/;

function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[-_.]/g, '');
}

/**
 * True when a value stored under `name` (an object key, a header, an
 * environment variable) is a secret: a known secret name (`password`,
 * `authorization`, `cookie`), a name ending in one (`OPENAI_API_KEY`,
 * `GITHUB_TOKEN`, `db_password`, `AWS_SECRET_ACCESS_KEY`, `basic_auth`,
 * `signing_key`, `SECRET_KEY_BASE`), or an upper-case environment name ending
 * in `_KEY` or `_PAT`; a trailing number is ignored (`API_KEY_2`). Names that only
 * contain a secret word elsewhere are not (`max_tokens`, `api_key_env`,
 * `token_count`, `SSH_AUTH_SOCK`). Case, `-`, `_` and `.` are ignored except
 * for the environment-style rule.
 */
export function isSecretKey(name: string): boolean {
  // A numbered copy is what it copies: API_KEY_2, GITHUB_TOKEN1.
  const base = name.replace(/[-_.]?\d+$/, '');
  const key = normalizeKey(base);
  if (SECRET_NAMES.has(key)) return true;
  for (const suffix of SECRET_SUFFIXES) if (key.endsWith(suffix)) return true;
  return PASSWORD_ABBREVIATION.test(key) || ENV_STYLE_SECRET.test(base);
}

/** Credentials inside a URL (`postgres://user:password@host`). */
const URL_CREDENTIALS = /\b[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:[^\s/@]+@/i;
const PRIVATE_KEY = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/;

/**
 * True when a value is a secret whatever its name says: a URL with a password
 * in it (`DATABASE_URL=postgres://app:hunter2@db/app`) or a PEM private key.
 * Subprocess environments withhold such variables like secret-named ones.
 */
export function isSecretValue(value: string): boolean {
  return URL_CREDENTIALS.test(value) || PRIVATE_KEY.test(value);
}

/**
 * Replace the value of every secret key with "[REDACTED]". Default: every key
 * `isSecretKey` accepts (which includes the reference's `SENSITIVE_KEYS`); a
 * set means exactly those keys (case-insensitive, whole key).
 */
export function redactSecrets<T>(
  value: T,
  keys: ReadonlySet<string> | ((key: string) => boolean) = isSecretKey,
): T {
  const secret = typeof keys === 'function' ? keys : (key: string) => keys.has(key.toLowerCase());
  return mapDeep(value, (key, v) => (key !== undefined && secret(key) ? '[REDACTED]' : v)) as T;
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
  if (!isArray && !isPlainObject(value)) return value;
  if (ancestors.has(value)) return '[Circular]';
  if (ancestors.size >= MAX_DATA_DEPTH) return MAX_DEPTH_MARKER;
  ancestors.add(value);
  let out: unknown;
  if (isArray) {
    out = (value as unknown[]).map((item) => mapDeep(item, fn, undefined, ancestors));
  } else {
    const copy: Record<string, unknown> = {};
    for (const k of Object.keys(value as object)) {
      setOwn(copy, k, mapDeep((value as Record<string, unknown>)[k], fn, k, ancestors));
    }
    out = copy;
  }
  ancestors.delete(value);
  return out;
}
