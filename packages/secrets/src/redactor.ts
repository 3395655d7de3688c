/**
 * The one redactor of text and keys meant for people (event logs, session
 * metadata, the CLI's display, the viewer): values of secret-named keys (core's
 * `isSecretKey`, plus the configured keys), and inside every string the
 * secrets written as text: secret values of known formats (the rule set of
 * `@amplifier/secrets`: secretlint's preset and its supplement), the AWS
 * secret key next to its key id, `name=value` /
 * `name: value` / `"name": "value"` assignments of secret names (env dumps,
 * `.env`, INI and credentials files, YAML, HTTP headers, JSON inside strings,
 * escaped or not), URL credentials and secret query parameters, password
 * flags of common commands, and the exact values of secret-named environment
 * variables.
 */
import { isSecretKey as isSecretName } from '@amplifier/core';
import { secretScanner } from './default-scanner.js';
import type { SecretScanner } from './scanner.js';
import { AWS_KEY_ID_SOURCE } from './supplement.js';

/** What to redact, as the `redaction` section of hooks-logging's config spells it (plain JSON data). */
export interface RedactionConfig {
  /** Default true. The redactor itself ignores it: whoever applies the redactor checks it. */
  enabled: boolean;
  /** Extra key names (case-insensitive, `-`/`_`/`.` ignored) whose values are secrets. */
  keys: string[];
  /** Extra regular expressions (JavaScript syntax) whose matches are secrets. */
  patterns: string[];
  /** Also redact exact values of secret-named environment variables (8 characters or more). Default true. */
  env_values: boolean;
}

/** The default redaction: on, no extra keys or patterns, environment values included. */
export const DEFAULT_REDACTION: Readonly<RedactionConfig> = Object.freeze({
  enabled: true,
  keys: [],
  patterns: [],
  env_values: true,
});

/**
 * A regular-expression alternation (case-insensitive, no anchors) of the
 * words every name core's `isSecretKey` accepts ends with, separators allowed
 * where people write them (`api_key`, `X-Auth-Token`, `API_KEY_2`). For finding
 * candidate names in free text before `isSecretKey` decides; a test checks
 * that it keeps up with core's rule.
 */
export const SECRET_NAME_ENDINGS: string =
  'key|secret|passw(?:or)?d|passphrase|token|credentials?|auth(?:orization)?|cookie|pat|pwd|dsn|' +
  'key_?base|connection_?string|auth_?config|key_?id|(?:key|secret|token|passw(?:or)?d)[-_]?\\d+';

type Groups = Record<string, string | undefined>;

interface Rule {
  name: string;
  regex: RegExp;
  /**
   * A cheap pattern that matches wherever the rule could (a superset): part
   * of the one-pass pre-check, and tested before the rule itself. Default:
   * the rule's own source. Required when the source uses back-references.
   */
  trigger?: string;
  /**
   * A string replacement (`$<keep>` keeps a named group in place), or a
   * function of the named groups and the match that returns the text to put
   * in its place, or undefined to leave the match as it is.
   */
  replace: string | ((groups: Groups, match: string) => string | undefined);
}

/** Query parameters that carry secrets in URLs, though the names are too common to be secret keys elsewhere. */
const URL_SECRET_PARAMS = 'key|sig|signature|pwd|pass|x-amz-signature|x-goog-signature';

/** Flags that take a password in some tools, though the names are not secret keys elsewhere (keytool, redis-cli). */
const CLI_SECRET_FLAGS: ReadonlySet<string> = new Set([
  'pass',
  'storepass',
  'keypass',
  'srcstorepass',
  'deststorepass',
  'srckeypass',
  'destkeypass',
]);

/** HTTP headers whose whole value (spaces, `;` and all) is the secret. */
const SECRET_HEADERS = '(?:proxy-)?authorization|(?:set-)?cookie';

/**
 * Values in a secret's place that are not secrets and stay readable:
 * references (`$VAR` in capitals, `${VAR}`, `${{ secrets.X }}`, `%VAR%`, `{{ var }}`,
 * `process.env.X`, `os.environ[...]`), placeholders (`<password>`, `***`,
 * `xxx`, `...`), empty-ish words and type names, and what another rule
 * already redacted (`Bearer [REDACTED:bearer]`).
 */
const PLACEHOLDER =
  /^(?:\$\{\{.*\}\}|\$\{[A-Za-z_][\w.]*\}|\$\(.*\)|%[A-Za-z_]\w*%|\{\{.*\}\}|<[^<>]*>|\*+|x{3,}|\.{3}|…|true|false|null|none|nil|undefined|string|str|bytes|number|int|boolean|bool|(?:process\.env|os\.environ|os\.getenv|getenv|System\.getenv|ENV)\b.*|(?:[A-Za-z]+ )?\[REDACTED:\w+\])$/i;
/** `$NAME` in capitals (an environment variable); `$ecret1` is a value. */
const ENV_REFERENCE = /^\$[A-Z_][A-Z0-9_]*$/;

function notASecret(value: string): boolean {
  return ENV_REFERENCE.test(value) || PLACEHOLDER.test(value);
}

/** The characters of an AWS secret access key (base64 without padding). */
const B64 = 'A-Za-z0-9/+';

/**
 * An AWS access key id, or what the value rules (`@amplifier/secrets`: secretlint's `aws`, the
 * supplement's `aws_access_key`) or an earlier pass made of one.
 */
const AWS_KEY_ID = `(?:${AWS_KEY_ID_SOURCE}|\\[REDACTED:aws(?:_access_key)?\\])`;

/** A command-line argument: single-quoted, double-quoted or bare. */
const QUOTED_VALUE = `'[^'\\n]*'|"(?:[^"\\\\\\n]|\\\\.)*"|[^\\s'"]+`;

const BUILTIN_RULES: readonly Rule[] = [
  {
    // The secret half of an AWS key pair near its key id (credentials CSV, tables, the
    // prompts of `aws configure`), also when the id was already redacted; before the id is.
    name: 'aws_secret_key',
    regex: new RegExp(
      `(?<![${B64}=])(?=[${B64}]{0,39}[A-Z])(?=[${B64}]{0,39}[a-z])` +
        `(?:(?<=${AWS_KEY_ID}[\\s\\S]{0,200})[${B64}]{40}(?![${B64}=])` +
        `|[${B64}]{40}(?![${B64}=])(?=[\\s\\S]{0,200}${AWS_KEY_ID}))`,
      'g',
    ),
    trigger: AWS_KEY_ID,
    replace: '[REDACTED:aws_secret_key]',
  },
  {
    name: 'bearer',
    regex: /(?<keep>\b(?:[Bb]earer|BEARER)\s+)[A-Za-z0-9._~+/=-]{8,}/g,
    replace: '$<keep>[REDACTED:bearer]',
  },
  {
    // scheme://user:password@host (also an empty user, `redis://:pw@host`; a password may contain `@`).
    name: 'url_credentials',
    regex: /(?<keep>\b[a-z][a-z0-9+.-]*:\/\/)[^\s/@:]*:[^\s/]*@/gi,
    trigger: '://[^\\s/@:]*:[^\\s/]*@',
    replace: '$<keep>[REDACTED:credentials]@',
  },
  {
    name: 'url_query',
    regex: new RegExp(`(?<keep>[?&](?:${URL_SECRET_PARAMS})=)[^&#\\s"'<>\\\\]+`, 'gi'),
    replace: '$<keep>[REDACTED:url_query]',
  },
  {
    // The whole value of an Authorization / Cookie header line, spaces and `;` included.
    name: 'http_header',
    regex: new RegExp(
      `(?<keep>(?<![\\w-])(?:${SECRET_HEADERS})[ \\t]*:[ \\t]*)(?<value>[^\\s"'\`\\\\][^\\r\\n"'\`\\\\]*)`,
      'gi',
    ),
    trigger: `(?:${SECRET_HEADERS})[ \\t]*:[ \\t]*[^\\s"'\`\\\\]`,
    replace: (groups) => {
      const value = (groups.value as string).trimEnd();
      if (notASecret(value)) return undefined;
      return `${groups.keep}[REDACTED:http_header]${(groups.value as string).slice(value.length)}`;
    },
  },
  {
    // ADO / ODBC / Azure connection strings: `;Password=with spaces;`, `;Pwd=...;`, `;AccountKey=...;`.
    name: 'connection_string',
    regex: /(?<keep>;[ \t]*(?:password|pwd|accountkey)[ \t]*=[ \t]*)[^;\r\n"'\\]+/gi,
    replace: '$<keep>[REDACTED:connection_string]',
  },
  {
    name: 'cli_password',
    regex: new RegExp(
      `(?<keep>\\b(?:mysql[\\w-]*|mariadb[\\w-]*)\\b[^\\n|;&]{0,300}?[ \\t]-p)(?<value>${QUOTED_VALUE})`,
      'g',
    ),
    trigger: '\\b(?:mysql|mariadb)[^\\n|;&]{0,300}?[ \\t]-p[^\\s]',
    replace: '$<keep>[REDACTED:cli_password]',
  },
  {
    name: 'cli_password',
    regex: new RegExp(`(?<keep>\\bsshpass\\b[^\\n|;&]{0,300}?[ \\t]-p[ \\t]*)(?<value>${QUOTED_VALUE})`, 'g'),
    trigger: '\\bsshpass\\b',
    replace: '$<keep>[REDACTED:cli_password]',
  },
  {
    name: 'cli_password',
    regex: new RegExp(
      `(?<keep>\\bredis-cli\\b[^\\n|;&]{0,300}?[ \\t](?:-a|--pass)[ \\t]+)(?<value>${QUOTED_VALUE})`,
      'g',
    ),
    trigger: '\\bredis-cli\\b',
    replace: '$<keep>[REDACTED:cli_password]',
  },
  {
    name: 'cli_password',
    regex: new RegExp(
      `(?<keep>\\bdocker[ \\t]+login\\b[^\\n|;&]{0,300}?[ \\t]-p[ \\t]+)(?<value>${QUOTED_VALUE})`,
      'g',
    ),
    trigger: '\\bdocker[ \\t]+login\\b',
    replace: '$<keep>[REDACTED:cli_password]',
  },
  {
    // .netrc: `machine host login user password secret`, on one line or several.
    name: 'netrc',
    regex:
      /(?<keep>\b(?:machine\s+\S+|default(?=\s+login))(?:\s+(?:login|account)\s+\S+)*\s+password\s+)\S+/g,
    trigger: '\\b(?:machine\\s+\\S+|default(?=\\s+login))(?:\\s+(?:login|account)\\s+\\S+)*\\s+password\\s',
    replace: '$<keep>[REDACTED:netrc]',
  },
  {
    name: 'cli_password',
    regex: /(?<keep>-pass(?:in|out)?[ \t]+pass:)(?<value>[^\s'"]+)/g,
    replace: '$<keep>[REDACTED:cli_password]',
  },
  {
    // curl -u user:password (also --user, -U / --proxy-user, -uuser:password): the user stays.
    name: 'cli_password',
    regex: new RegExp(
      `(?<keep>\\bcurl\\b[^\\n|;&]{0,300}?[ \\t](?:-u|--user|-U|--proxy-user)(?:[ \\t]+|=)?)(?<value>${QUOTED_VALUE})`,
      'g',
    ),
    trigger: '\\bcurl\\b[^\\n|;&]{0,300}?[ \\t](?:-u|--user|-U|--proxy-user)',
    replace: (groups) => {
      const value = groups.value as string;
      const quote = value[0] === '"' || value[0] === "'" ? value[0] : '';
      const colon = value.indexOf(':');
      if (colon === -1 || colon === value.length - 1 - quote.length) return undefined;
      return `${groups.keep}${value.slice(0, colon + 1)}[REDACTED:cli_password]${quote}`;
    },
  },
];

function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[-_.]/g, '');
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A normalized key as a pattern that also matches it spelt with `-`, `_` or `.` between letters. */
function flexibleName(normalized: string): string {
  return [...normalized].map(escapeRegex).join('[-_.]?');
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
  /** Extra secret names from the config, normalized (case, `-`, `_`, `.` ignored). */
  readonly #keys: Set<string>;
  /** `isSecretKey` answers by key: the shared rule runs once per distinct key name. */
  readonly #keyMemo = new Map<string, boolean>();
  /**
   * `redactString` answers for short strings, which repeat from record to
   * record (session ids, tool and provider names): the text to write and the
   * rules that fired (none for most).
   */
  readonly #stringMemo = new Map<string, Redacted>();
  readonly #rules: Rule[];
  /** Per rule, its trigger when that is not the rule itself: a cheap test before the rule's own. */
  readonly #gates: (RegExp | undefined)[];
  /**
   * One alternation of the rules' triggers: with the value rules' keyword
   * index, one pass skips a string with nothing to redact (most strings). Configured patterns are not in it
   * (their syntax, back-references included, is not known well enough to
   * combine): when there are any, every string goes through the rules.
   */
  readonly #any: RegExp | undefined;
  /** The secret formats (`@amplifier/secrets`: secretlint's preset and its supplement), one shared instance. */
  readonly #values: SecretScanner = secretScanner();

  constructor(config: RedactionConfig, env: NodeJS.ProcessEnv = process.env) {
    this.#keys = new Set(config.keys.map(normalizeKey));
    const endings = [SECRET_NAME_ENDINGS, ...[...this.#keys].map(flexibleName)].join('|');
    this.#rules = [...BUILTIN_RULES, ...this.#nameRules(endings)];
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
    this.#gates = this.#rules.map((r) => (r.trigger === undefined ? undefined : new RegExp(r.trigger, 'i')));
    const triggers = new Set(this.#rules.map((r) => r.trigger ?? stripNamedGroups(r.regex.source)));
    this.#any =
      config.patterns.length > 0
        ? undefined
        : new RegExp([...triggers].map((source) => `(?:${source})`).join('|'), 'i');
  }

  /**
   * The rules that find secret names in text (`endings` is the alternation
   * of the words such names end with); whether a name is one is up to
   * `isSecretKey`.
   */
  #nameRules(endings: string): Rule[] {
    // A name is a secret when `isSecretKey` says so of it, or of its last word
    // (`API Key`, `Secret Access Key`, `export STRIPE_KEY`).
    const secret = (name: string | undefined): boolean => {
      if (name === undefined) return false;
      const space = name.lastIndexOf(' ');
      if (space === -1) return this.isSecretKey(name);
      return this.isSecretKey(name.slice(space + 1)) || this.isSecretKey(name.replaceAll(' ', '_'));
    };
    const quotedValue = `(?<vq>\\\\*["'\`])(?<quoted>(?:(?!\\k<vq>)(?:\\\\.|[^\\\\\\n]))+)(?<close>\\k<vq>|(?=\\n|$))`;
    // Unquoted after ':' (YAML, labels): up to the end of the line, or , ; } ) ] (code, inline maps).
    // (`${NAME}` and a CI file's `${{ expression }}` are taken whole, so they are recognised as references.)
    const restValue = `(?<rest>\\$\\{\\{[^}\\n]*\\}\\}|\\$\\{[^}\\n]*\\}|[^\\s"'\`{[(\\\\,;})\\]][^\\r\\n"'\`\\\\,;})\\]]*)`;
    const redactValue = (groups: Groups, marker: string): string | undefined => {
      const { keep, vq, quoted, close, word, rest } = groups;
      if (quoted !== undefined) {
        return notASecret(quoted) ? undefined : `${keep}${vq}[REDACTED:${marker}]${close}`;
      }
      const value = (word ?? rest ?? '').trimEnd();
      if (value === '' || notASecret(value)) return undefined;
      return `${keep}[REDACTED:${marker}]${(word ?? rest ?? '').slice(value.length)}`;
    };
    return [
      {
        // name=value, name: value, name := value, "name": "value", 'name'='value', "name" => "value",
        // \"name\":\"value\" (JSON inside a JSON string, at any escaping depth), `API Key: value`.
        name: 'key_value',
        regex: new RegExp(
          `(?<keep>(?<![\\w.])(?<nq>\\\\*["'\`]?)` +
            `(?<name>(?:[A-Za-z_][\\w.-]*[ ])?[A-Za-z_][\\w.-]*)(?<=${endings})\\k<nq>` +
            `[ \\t]*(?::=|=>(?=[ \\t]*\\\\*["'\`])|=(?![=>~])|:(?!:))[ \\t]*)` +
            `(?:${quotedValue}` +
            // Unquoted after '=': up to a space, '&' (URL query), ';' (shell, connection strings) or ','.
            `|(?<=[=][ \\t]*)(?<word>[^\\s"'\`&;,\\\\]+)` +
            `|(?<=:[ \\t]*)${restValue})`,
          'gi',
        ),
        trigger: `(?:${endings})\\\\*["'\`]?[ \\t]*[:=]`,
        replace: (groups) => (secret(groups.name) ? redactValue(groups, 'key_value') : undefined),
      },
      {
        // A secret's name given as data next to its value: Kubernetes and ECS env lists
        // (`- name: DB_PASSWORD` / `value: ...`), `{"Name": "API_KEY", "Value": "..."}`.
        name: 'name_value',
        regex: new RegExp(
          `(?<keep>(?<![\\w.])(?<q1>\\\\*["']?)(?:name|key)\\k<q1>[ \\t]*[:=][ \\t]*` +
            `(?<q2>\\\\*["']?)(?<name>[A-Za-z_][\\w.-]*)\\k<q2>[ \\t]*,?[ \\t]*(?:\\r?\\n[ \\t]*(?:-[ \\t]+)?)?` +
            `(?<q3>\\\\*["']?)value\\k<q3>[ \\t]*[:=][ \\t]*)` +
            `(?:${quotedValue}|${restValue})`,
          'gi',
        ),
        // What the rule cannot do without: the literal `value` and its separator (a literal is
        // found fast; the name before it is the expensive part, left to the rule).
        trigger: `value\\\\*["']?[ \\t]*[:=]`,
        replace: (groups) => (secret(groups.name) ? redactValue(groups, 'name_value') : undefined),
      },
      {
        // <password>value</password> (Maven settings, XML configs).
        name: 'xml_element',
        regex: new RegExp(
          `(?<keep><(?<name>[A-Za-z_][\\w.:-]*)(?<=${endings})(?:[ \\t][^<>\\n]{0,200})?>)(?<value>[^<>\\n]+)(?=</\\k<name>>)`,
          'gi',
        ),
        trigger: `</[\\w.:-]*(?:${endings})>`,
        replace: (groups) => {
          if (!secret(groups.name) || notASecret((groups.value as string).trim())) return undefined;
          return `${groups.keep}[REDACTED:xml_element]`;
        },
      },
      {
        // --password value, --api-key "value", -storepass value (the `=` form is key_value).
        name: 'cli_flag',
        regex:
          /(?<keep>(?<![\w-])--?(?<name>[A-Za-z][\w-]*)[ \t]+)(?<value>'[^'\n]*'|"(?:[^"\\\n]|\\.)*"|[^\s"'-][^\s"']*)/g,
        trigger: `-[\\w-]*(?:${endings}|pass)[ \\t]+[^\\s-]`,
        replace: (groups) => {
          const name = groups.name as string;
          if (/^no-/i.test(name)) return undefined;
          if (!secret(name) && !CLI_SECRET_FLAGS.has(name.toLowerCase())) return undefined;
          const value = groups.value as string;
          const inner = value[0] === '"' || value[0] === "'" ? value.slice(1, -1) : value;
          if (inner === '' || notASecret(inner)) return undefined;
          const quote = inner === value ? '' : (value[0] as string);
          return `${groups.keep}${quote}[REDACTED:cli_flag]${quote}`;
        },
      },
    ];
  }

  /** True when a value stored under `key` is a secret: core's `isSecretKey`, or a configured key. */
  isSecretKey(key: string): boolean {
    let secret = this.#keyMemo.get(key);
    if (secret === undefined) {
      secret = isSecretName(key) || (this.#keys.size > 0 && this.#keys.has(normalizeKey(key)));
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
    // Secret values first (the scanner runs only the rules whose keywords the text holds: one
    // table walk), then the rules that find secrets by their context.
    const values = this.#values.mayContain(text);
    if (!values && this.#any !== undefined && !this.#any.test(text)) return text;
    let out = values ? this.#values.redact(text, fired) : text;
    for (let r = 0; r < this.#rules.length; r++) {
      const rule = this.#rules[r] as Rule;
      if (this.#gates[r]?.test(out) === false) continue;
      rule.regex.lastIndex = 0;
      if (!rule.regex.test(out)) continue;
      rule.regex.lastIndex = 0;
      const replace = rule.replace;
      if (typeof replace === 'string') {
        out = out.replace(rule.regex, replace);
        fired.add(rule.name);
        continue;
      }
      let replaced = false;
      out = out.replace(rule.regex, (match: string, ...args: unknown[]) => {
        const next = replace(args.at(-1) as Groups, match);
        if (next === undefined) return match;
        replaced = true;
        return next;
      });
      if (replaced) fired.add(rule.name);
    }
    return out;
  }
}

function stripNamedGroups(source: string): string {
  return source.replace(/\(\?<([A-Za-z]+)>/g, '(?:');
}

/** Redactors kept for reuse, by config and environment (a few configs per process at most). */
const shared = new Map<string, Redactor>();
const SHARED_LIMIT = 8;
/** Per config: the last redactor made for it, which names the secret variables (its `isSecretKey`). */
const namers = new Map<string, Redactor>();

/**
 * A `Redactor` for `config` and `env`, shared by every logger with the same
 * ones: building one compiles a few dozen regular expressions, and its memos
 * are pure (the same key or string gets the same answer), so the sessions of
 * one process share it instead of each paying for it and holding its memos.
 * A change of the secret-named variables' values gives a new one. Only those
 * values are read (every read of `process.env` is a call into the runtime,
 * about 1.5 µs here): the names come from one listing, judged by the memo of
 * the config's last redactor.
 */
export function sharedRedactor(
  config: Readonly<RedactionConfig>,
  env: NodeJS.ProcessEnv = process.env,
): Redactor {
  const configKey = JSON.stringify([config.keys, config.patterns, config.env_values]);
  let made: Redactor | undefined;
  let namer = namers.get(configKey);
  if (namer === undefined) {
    made = new Redactor(config, env);
    namer = made;
  }
  let key = configKey;
  if (config.env_values) {
    for (const name of Object.keys(env)) {
      if (!namer.isSecretKey(name)) continue;
      const value = env[name];
      if (value !== undefined && value.length >= 8) key += `\0${name}=${value}`;
    }
  }
  let redactor = shared.get(key);
  if (redactor === undefined) {
    redactor = made ?? new Redactor(config, env);
    if (shared.size >= SHARED_LIMIT) {
      shared.clear();
      namers.clear();
    }
    shared.set(key, redactor);
    namers.set(configKey, redactor);
  }
  return redactor;
}
