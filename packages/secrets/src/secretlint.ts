/**
 * secretlint's recommended preset as scanner rules. The preset's rules keep
 * their regular expressions inside their code and report through secretlint's
 * rule API (`create(context, options)` gives a `file(source)` handler that
 * calls `context.report({ range })`); its engine (`lintSource`) is async and
 * builds a whole lint run per text. So each rule is created once, here, with
 * a small synchronous context, and its `file` handler is called directly on
 * the text whose keywords it needs: no engine, no promise, no per-event setup.
 * The keywords are this kit's (the preset has none), one line per rule; a
 * test fails when the preset gains a rule that has none, and such a rule runs
 * on every text meanwhile (safe, slower).
 *
 * The preset is one 230 KB module that takes ~20 ms to load (more than the
 * rest of the event logger): it is loaded on the first text that holds one of
 * its rules' keywords, not at import. Most sessions never pay for it. It is
 * loaded synchronously (`require` of an ES module, Node >= 20.19), because
 * redaction is synchronous.
 */
import { createRequire } from 'node:module';
import type { SecretRule } from './scanner.js';

/** What this kit uses of a secretlint rule creator (`@secretlint/types`' `SecretLintRuleCreator`). */
interface SecretlintRuleCreator {
  meta: { id: string; type?: string; docs?: { url?: string } };
  create(
    context: SecretlintContext,
    options: Record<string, unknown>,
  ): { file?(source: SecretlintSource): unknown };
}
interface SecretlintContext {
  report(descriptor: { message: unknown; range: readonly [number, number] | number[] }): void;
  ignore(descriptor: unknown): void;
  createTranslator(messages: unknown): (messageId: string, props?: Record<string, unknown>) => unknown;
}
interface SecretlintSource {
  filePath: string;
  ext: string;
  contentType: 'text';
  content: string;
}

const PREFIX = '@secretlint/secretlint-rule-';

/**
 * Per preset rule (its id without `@secretlint/secretlint-rule-`): the
 * literals one of which is in every text it reports (lower case; compared
 * case-insensitively). Read off each rule's patterns.
 */
export const SECRETLINT_KEYWORDS: Readonly<Record<string, readonly string[]>> = {
  aws: [
    'akia',
    'asia',
    'a3t',
    'agpa',
    'aida',
    'aroa',
    'aipa',
    'anpa',
    'anva',
    'secret_access',
    'secretaccess',
    'account',
  ],
  privatekey: ['private key'],
  npm: ['npm_', '_authtoken', 'x-oauth-basic'],
  basicauth: ['@'],
  slack: ['xoxb', 'xoxp', 'xapp', 'xoxa', 'xoxo', 'xoxr', 'hooks.slack.com'],
  sendgrid: ['sg.'],
  shopify: ['shppa_', 'shpca_', 'shpat_', 'shpss_'],
  stripe: ['sk_live', 'sk_test', 'rk_live', 'rk_test'],
  github: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'],
  gitlab: ['glpat-'],
  grafana: ['glc_', 'glsa_'],
  openai: ['t3blbkfj'],
  anthropic: ['sk-ant-api0'],
  groq: ['gsk_'],
  huggingface: ['hf_'],
  linear: ['lin_api_'],
  notion: ['ntn_'],
  '1password': ['ops_ey'],
  'database-connection-string': ['mongodb', 'mysql', 'postgres'],
  'hashicorp-vault': ['hvs.', 'hvb.', 'hvr.'],
  vercel: ['vcp_', 'vci_', 'vca_', 'vcr_', 'vck_'],
  databricks: ['dapi'],
  docker: ['dckr_pat_'],
  figma: ['figd_'],
  cloudflare: ['cfk_', 'cfut_', 'cfat_'],
  tailscale: ['tskey-'],
};

/** Preset rules that are not secret formats in text, and why they are left out. */
export const SECRETLINT_NOT_USED: Readonly<Record<string, string>> = {
  gcp: 'finds service-account key files by their extension (.p12 binary, .json); the PEM key inside is found by privatekey and the private_key supplement, and AIza API keys by google_api_key',
  'filter-comments':
    'the `secretlint-disable` comment directives of a linted file, not a secret format (a log honours no directive)',
};

/** Options a preset rule is created with (the rest: its defaults). */
const OPTIONS: Readonly<Record<string, Record<string, unknown>>> = {
  // Access key ids (AKIA..., ASIA...) and account ids too, not only secret access keys.
  aws: { enableIDScanRule: true },
};

/** `user:password` inside `scheme://user:password@`: a credential URL keeps its scheme and host readable. */
const USERINFO = /^[a-z][a-z0-9+.-]*:\/\/([^\s/@]*:[^\s/]*)@/i;

/** The span to replace for one report: the secret the rule quoted in its message when it lies in the range. */
function spanOf(text: string, range: readonly number[], message: unknown): [number, number] {
  const start = range[0] ?? 0;
  const end = range[1] ?? start;
  if (typeof message === 'object' && message !== null) {
    for (const value of Object.values(message as Record<string, unknown>)) {
      if (typeof value !== 'string' || value.length < 8) continue;
      const at = text.indexOf(value, start);
      // A rule may report the range of the whole assignment but quote the secret (aws's
      // `aws_secret_access_key = <secret>`): the quoted secret is what goes, all of it.
      if (at !== -1 && at < Math.max(end, start + 1)) {
        const userinfo = USERINFO.exec(value);
        if (userinfo?.[1] !== undefined && userinfo[1] !== ':') {
          const from = at + value.indexOf(userinfo[1]);
          return [from, from + userinfo[1].length];
        }
        return [at, at + value.length];
      }
    }
  }
  return [start, end];
}

let loaded: readonly SecretlintRuleCreator[] | undefined;

/** The preset's rule creators, loaded on first use. */
function presetRules(): readonly SecretlintRuleCreator[] {
  if (loaded === undefined) {
    const preset = createRequire(import.meta.url)('@secretlint/secretlint-rule-preset-recommend') as {
      rules: readonly SecretlintRuleCreator[];
    };
    loaded = preset.rules;
  }
  return loaded;
}

/** The `find` of one preset rule: its handler, created once with a synchronous context. */
function finder(creator: SecretlintRuleCreator, name: string): SecretRule['find'] {
  let text = '';
  let sink: ((start: number, end: number) => void) | undefined;
  const context: SecretlintContext = {
    report: ({ message, range }) => {
      if (sink === undefined) return;
      const [start, end] = spanOf(text, range, message);
      sink(start, end);
    },
    ignore: () => {},
    // Messages become their props (the values the rule quotes), which `spanOf` reads.
    createTranslator: () => (_messageId, props) => props ?? {},
  };
  const handler = creator.create(
    context,
    Object.hasOwn(OPTIONS, name) ? (OPTIONS[name] as Record<string, unknown>) : {},
  );
  const source: SecretlintSource = {
    filePath: 'amplifier.txt',
    ext: '.txt',
    contentType: 'text',
    content: '',
  };
  return (input, report) => {
    text = input;
    source.content = input;
    sink = report;
    try {
      handler.file?.(source);
    } finally {
      sink = undefined;
      text = '';
      source.content = '';
    }
  };
}

/** The preset's rule ids (without the `@secretlint/secretlint-rule-` prefix), as the installed preset lists them (loads it). */
export function secretlintRuleNames(): string[] {
  return presetRules().map((rule) =>
    rule.meta.id.startsWith(PREFIX) ? rule.meta.id.slice(PREFIX.length) : rule.meta.id,
  );
}

/**
 * secretlint's recommended preset, less the rules in `SECRETLINT_NOT_USED`, as
 * scanner rules: one per rule of `SECRETLINT_KEYWORDS` (a test keeps that list
 * equal to the installed preset's). The preset itself is loaded by the first
 * `find`, which only runs on a text that holds one of the rule's keywords.
 */
export function secretlintRules(): SecretRule[] {
  return Object.keys(SECRETLINT_KEYWORDS).map((name) => {
    let find: SecretRule['find'] | undefined;
    return {
      id: name.replace(/[^\w]/g, '_'),
      origin: 'secretlint',
      description: `secretlint's ${PREFIX}${name}`,
      keywords: SECRETLINT_KEYWORDS[name] as readonly string[],
      find(input, report) {
        if (find === undefined) {
          const creator = presetRules().find((rule) => rule.meta.id === `${PREFIX}${name}`);
          if (creator === undefined) {
            throw new Error(
              `@amplifier/secrets: the installed secretlint preset has no rule ${PREFIX}${name}; reinstall @amplifier/secrets`,
            );
          }
          find = finder(creator, name);
        }
        find(input, report);
      },
    };
  });
}
