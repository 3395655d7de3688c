/**
 * Secret redaction for log records: values of secret-named keys, high-specificity
 * secret shapes inside strings (API keys, bearer tokens, AWS keys, private keys,
 * credentials in URLs, `NAME=value` env dumps) and the exact values of
 * secret-looking environment variables.
 */
import type { RedactionConfig } from './config.js';

interface Rule {
  name: string;
  regex: RegExp;
  /** Replacement; `$<keep>` keeps a named group (the prefix) in place. */
  replace: string;
}

const DEFAULT_KEYS = [
  'apikey',
  'api_key',
  'x-api-key',
  'authorization',
  'proxy-authorization',
  'password',
  'passwd',
  'secret',
  'client_secret',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'private_key',
  'credentials',
  'cookie',
  'set-cookie',
];

/** Key suffixes (after removing `-`/`_`, lower-cased) that mark a secret: `OPENAI_API_KEY`, `github_token`. */
const SECRET_KEY_SUFFIXES = ['apikey', 'secret', 'password', 'passwd', 'token', 'privatekey', 'accesskey'];

const DEFAULT_RULES: readonly Rule[] = [
  {
    name: 'private_key',
    regex: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
    replace: '[REDACTED:private_key]',
  },
  {
    name: 'openai_key',
    regex: /\bsk-(?:proj-|ant-|live-)?[A-Za-z0-9_-]{20,}/g,
    replace: '[REDACTED:api_key]',
  },
  { name: 'aws_access_key', regex: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, replace: '[REDACTED:aws_access_key]' },
  {
    name: 'github_token',
    regex: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})/g,
    replace: '[REDACTED:github_token]',
  },
  { name: 'slack_token', regex: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, replace: '[REDACTED:slack_token]' },
  { name: 'google_api_key', regex: /\bAIza[0-9A-Za-z_-]{35}\b/g, replace: '[REDACTED:api_key]' },
  {
    name: 'jwt',
    regex: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
    replace: '[REDACTED:jwt]',
  },
  {
    name: 'bearer',
    regex: /(?<keep>\b[Bb]earer\s+)[A-Za-z0-9._~+/=-]{8,}/g,
    replace: '$<keep>[REDACTED:bearer]',
  },
  {
    name: 'url_credentials',
    regex: /(?<keep>\b[a-z][a-z0-9+.-]*:\/\/)[^\s/@:]+:[^\s/@]+@/gi,
    replace: '$<keep>[REDACTED:credentials]@',
  },
  {
    name: 'env_assignment',
    regex:
      /(?<keep>\b[A-Z0-9_]*(?:API_KEY|APIKEY|SECRET|TOKEN|PASSWORD|PASSWD|PRIVATE_KEY|ACCESS_KEY)[A-Z0-9_]*\s*[=:]\s*["']?)[^\s"']{4,}/g,
    replace: '$<keep>[REDACTED:env]',
  },
];

function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[-_]/g, '');
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Keys remembered by `isSecretKey` before the memo starts over (records reuse a few dozen keys). */
const KEY_MEMO_LIMIT = 4096;
/** Strings up to this length have their redaction remembered, up to this many of them. */
const STRING_MEMO_MAX_CHARS = 128;
const STRING_MEMO_LIMIT = 2048;
const NONE: readonly string[] = Object.freeze([]);

interface Redacted {
  out: string;
  rules: readonly string[];
}

/** Applies the configured rules; counts what it replaced. */
export class Redactor {
  readonly #keys: Set<string>;
  /** `isSecretKey` answers by key: normalizing and testing suffixes on every key of every record adds up. */
  readonly #keyMemo = new Map<string, boolean>();
  /**
   * `redactString` answers for short strings, which repeat from record to
   * record (session ids, tool and provider names): the text to write and the
   * rules that fired (none for most).
   */
  readonly #stringMemo = new Map<string, Redacted>();
  readonly #rules: Rule[];
  /** One alternation of every rule, to skip strings with nothing to redact in a single pass. */
  readonly #any: RegExp;

  constructor(config: RedactionConfig, env: NodeJS.ProcessEnv = process.env) {
    this.#keys = new Set([...DEFAULT_KEYS, ...config.keys].map(normalizeKey));
    this.#rules = [...DEFAULT_RULES];
    config.patterns.forEach((pattern, i) => {
      this.#rules.push({
        name: `pattern_${i}`,
        regex: new RegExp(pattern, 'g'),
        replace: '[REDACTED:pattern]',
      });
    });
    if (config.env_values) {
      const values = Object.entries(env)
        .filter(([name, value]) => value !== undefined && value.length >= 8 && this.isSecretKey(name))
        .map(([, value]) => escapeRegex(value as string))
        .sort((a, b) => b.length - a.length);
      if (values.length > 0) {
        this.#rules.unshift({
          name: 'env_value',
          regex: new RegExp(values.join('|'), 'g'),
          replace: '[REDACTED:env]',
        });
      }
    }
    this.#any = new RegExp(this.#rules.map((r) => `(?:${stripNamedGroups(r.regex.source)})`).join('|'), 'i');
  }

  /** True when a value stored under `key` is a secret. */
  isSecretKey(key: string): boolean {
    let secret = this.#keyMemo.get(key);
    if (secret === undefined) {
      const k = normalizeKey(key);
      secret = this.#keys.has(k) || SECRET_KEY_SUFFIXES.some((suffix) => k.endsWith(suffix));
      if (this.#keyMemo.size >= KEY_MEMO_LIMIT) this.#keyMemo.clear();
      this.#keyMemo.set(key, secret);
    }
    return secret;
  }

  /** `text` with secrets replaced; adds the names of the rules that fired to `fired`. */
  redactString(text: string, fired: Set<string>): string {
    if (text.length > STRING_MEMO_MAX_CHARS) return this.#redact(text, fired);
    let known = this.#stringMemo.get(text);
    if (known === undefined) {
      const rules = new Set<string>();
      const out = this.#redact(text, rules);
      known = rules.size === 0 ? { out, rules: NONE } : { out, rules: [...rules] };
      if (this.#stringMemo.size >= STRING_MEMO_LIMIT) this.#stringMemo.clear();
      this.#stringMemo.set(text, known);
    }
    for (const rule of known.rules) fired.add(rule);
    return known.out;
  }

  #redact(text: string, fired: Set<string>): string {
    if (!this.#any.test(text)) return text;
    let out = text;
    for (const rule of this.#rules) {
      rule.regex.lastIndex = 0;
      if (!rule.regex.test(out)) continue;
      rule.regex.lastIndex = 0;
      out = out.replace(rule.regex, rule.replace);
      fired.add(rule.name);
    }
    return out;
  }
}

function stripNamedGroups(source: string): string {
  return source.replace(/\(\?<[A-Za-z]+>/g, '(?:');
}
