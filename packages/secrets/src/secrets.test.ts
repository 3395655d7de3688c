import { isSecretValue as coreIsSecretValue } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import {
  fakeBody,
  fakeJwt,
  fakePem,
  plainSamples,
  ruleSamples,
  slackWebhook,
} from './__fixtures__/tokens.js';
import {
  defaultSecretRules,
  isSecretValue,
  KeywordIndex,
  redactSecretValues,
  SECRETLINT_KEYWORDS,
  SECRETLINT_NOT_USED,
  type SecretRule,
  SecretScanner,
  SUPPLEMENT_RULES,
  secretlintRuleNames,
  secretScanner,
} from './index.js';

describe('the rule set', () => {
  it('is secretlint’s recommended preset (less the rules that are not text formats) and then the supplement', () => {
    const rules = defaultSecretRules();
    const fromPreset = rules.filter((r) => r.origin === 'secretlint').map((r) => r.id);
    expect(fromPreset.length).toBeGreaterThanOrEqual(25);
    expect(rules.slice(fromPreset.length).map((r) => r.id)).toEqual(SUPPLEMENT_RULES.map((r) => r.id));
    for (const id of ['aws', 'privatekey', 'npm', 'slack', 'stripe', 'github', 'openai', 'anthropic']) {
      expect(fromPreset).toContain(id);
    }
  });

  it('has keywords for every rule of the installed preset, or says why the rule is not used', () => {
    const names = secretlintRuleNames();
    const unaccounted = names.filter(
      (name) => !Object.hasOwn(SECRETLINT_KEYWORDS, name) && !Object.hasOwn(SECRETLINT_NOT_USED, name),
    );
    expect(unaccounted, 'a new preset rule: add its keywords to SECRETLINT_KEYWORDS').toEqual([]);
    const stale = [...Object.keys(SECRETLINT_KEYWORDS), ...Object.keys(SECRETLINT_NOT_USED)].filter(
      (name) => !names.includes(name),
    );
    expect(stale, 'a rule the preset no longer has').toEqual([]);
    for (const rule of defaultSecretRules()) expect(rule.keywords.length, rule.id).toBeGreaterThan(0);
  });

  it('the corpus has a sample for every rule it claims, and each rule finds its own', () => {
    const samples = ruleSamples();
    const ids = defaultSecretRules().map((r) => r.id);
    expect(samples.map(([id]) => id).sort()).toEqual([...ids].sort());
    for (const [id, what, text] of samples) {
      const rule = defaultSecretRules().find((r) => r.id === id) as SecretRule;
      const spans: Array<[number, number]> = [];
      rule.find(text, (s, e) => spans.push([s, e]));
      expect(spans.length, `${id}: ${what}\n${text}`).toBeGreaterThan(0);
    }
  });
});

describe('redaction', () => {
  it.each(ruleSamples().map(([id, what, text, secret]) => ({ id, what, text, secret })))(
    '$id: $what never survives, with every seed',
    ({ id }) => {
      for (const seed of [1, 7, 42, 1234, 99_999]) {
        const [, , text, secret] = ruleSamples(seed).find(([rule]) => rule === id) as readonly string[];
        const fired = new Set<string>();
        const out = redactSecretValues(text as string, fired);
        expect(out, text).not.toContain(secret);
        // No part of the secret's body is left either.
        expect(out, text).not.toContain((secret as string).slice(-12));
        expect(out).toContain('[REDACTED:');
        expect(fired.size).toBeGreaterThan(0);
      }
    },
  );

  it('finds secrets wherever they are written: quoted, in JSON, after = or :, in a URL, at either end, several at once', () => {
    const b = fakeBody(3);
    const stripe = ['sk', '_test_', b(30)].join('');
    const npm = ['npm', '_', b(36)].join('');
    const google = [
      'AI',
      'za',
      b(35, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-'),
    ].join('');
    const jwt = fakeJwt(3);
    for (const text of [
      stripe,
      `"${stripe}"`,
      `'${stripe}'`,
      `{"key":"${stripe}","n":1}`,
      `{\\"key\\":\\"${stripe}\\"}`,
      `STRIPE=${stripe}`,
      `stripe: ${stripe}\n`,
      `https://api.example/v1?token=${stripe}&x=1`,
      `(${stripe})`,
      `${stripe}, ${npm}; ${google} ${jwt}`,
      `Bearer ${jwt}`,
      `${'x '.repeat(5000)}${npm}`,
    ]) {
      const out = redactSecretValues(text);
      for (const secret of [stripe, npm, google, jwt]) {
        expect(out, text.slice(0, 200)).not.toContain(secret);
      }
    }
  });

  it('keeps what is around a secret readable', () => {
    const b = fakeBody(5);
    const stripe = ['sk', '_live_', b(30)].join('');
    expect(redactSecretValues(`key: "${stripe}" ok`)).toBe('key: "[REDACTED:stripe]" ok');
    const pw = b(12);
    expect(redactSecretValues(`postgres://app:${pw}@db.internal:5432/app`)).toBe(
      'postgres://[REDACTED:database_connection_string]@db.internal:5432/app',
    );
    expect(redactSecretValues(`https://deploy:${pw}@git.example.com/x.git`)).toBe(
      'https://[REDACTED:basicauth]@git.example.com/x.git',
    );
    const awsSecret = b(40);
    expect(redactSecretValues(`aws_secret_access_key = ${awsSecret}\nregion = x`)).toBe(
      'aws_secret_access_key = [REDACTED:aws]\nregion = x',
    );
  });

  it('redacts PEM private keys of every kind, whole, also cut short or JSON-escaped', () => {
    for (const kind of ['', 'RSA ', 'EC ', 'DSA ', 'OPENSSH ', 'ENCRYPTED ']) {
      const pem = fakePem(11, kind);
      const body = pem.split('\n')[2] as string;
      expect(redactSecretValues(`x\n${pem}\ny`)).toMatch(/^x\n\[REDACTED:\w+\]\ny$/);
      expect(redactSecretValues(pem.slice(0, 150))).not.toContain(body.slice(0, 20));
      expect(redactSecretValues(JSON.stringify({ private_key: pem }))).not.toContain(body);
    }
  });

  it('redacts AWS key ids with every prefix, AWS’s documented example included', () => {
    const b = fakeBody(8);
    for (const prefix of ['AKIA', 'ASIA', 'AGPA', 'AIDA', 'AROA', 'ANPA', 'ABIA']) {
      const id = prefix + b(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567');
      expect(redactSecretValues(`default,${id},x`)).not.toContain(id);
    }
    expect(redactSecretValues(['AKIA', 'IOSFODNN7', 'EXAMPLE'].join(''))).toBe('[REDACTED:aws_access_key]');
  });

  it('redacts JWTs signed or not, and Slack webhook URLs', () => {
    expect(redactSecretValues(`t=${fakeJwt(4, false)}`)).toBe('t=[REDACTED:jwt]');
    expect(redactSecretValues(`t=${fakeJwt(4)}`)).toBe('t=[REDACTED:jwt]');
    // Header and payload written with spaces (`{ "alg": ... }`), no signature.
    const spaced = (value: string) => Buffer.from(value).toString('base64url');
    const loose = `${spaced('{ "alg": "none" }')}.${spaced('{ "sub": "u-1234567" }')}.`;
    expect(redactSecretValues(`t=${loose} x`)).toBe('t=[REDACTED:jwt] x');
    expect(redactSecretValues(`POST ${slackWebhook(2)}`)).toBe('POST [REDACTED:slack]');
  });

  it.each(plainSamples().map((text) => ({ text })))(
    'leaves text without secrets unchanged: $text',
    ({ text }) => {
      const fired = new Set<string>();
      expect(redactSecretValues(text, fired)).toBe(text);
      expect(fired.size).toBe(0);
      expect(isSecretValue(text)).toBe(false);
    },
  );

  it('never throws on hostile input: huge, binary-looking, lone surrogates, every keyword with no secret', () => {
    const keywords = defaultSecretRules()
      .flatMap((r) => r.keywords)
      .join(' ');
    for (const text of [
      '',
      '\u0000\uFFFF\uD800x\uDC00',
      keywords,
      keywords.toUpperCase(),
      'a'.repeat(1_000_000),
      `${'-----BEGIN PRIVATE KEY-----'.repeat(1000)}`,
      `${'eyJ'.repeat(20_000)}.`,
      `${'postgres://'.repeat(5000)}`,
      `${'@'.repeat(50_000)}`,
    ]) {
      expect(() => redactSecretValues(text)).not.toThrow();
    }
  });
});

describe('the scanner', () => {
  const rule = (id: string, keywords: string[], find: SecretRule['find']): SecretRule => ({
    id,
    origin: 'supplement',
    description: id,
    keywords,
    find,
  });

  it('runs a rule only on text that holds one of its keywords (case-insensitively)', () => {
    const seen: string[] = [];
    const scanner = new SecretScanner([
      rule('a', ['tok_'], (text) => seen.push(`a:${text}`)),
      rule('b', ['zz'], (text) => seen.push(`b:${text}`)),
    ]);
    scanner.find('nothing here');
    scanner.find('a TOK_x here');
    expect(seen).toEqual(['a:a TOK_x here']);
    expect(scanner.mayContain('plain')).toBe(false);
    expect(scanner.mayContain('xZZy')).toBe(true);
  });

  it('finds every keyword, also where keywords overlap or one starts inside another', () => {
    const ran: string[] = [];
    const scanner = new SecretScanner(
      ['xox', 'xoxb', 'ab', 'bc', 'c'].map((word) => rule(`r_${word}`, [word], () => ran.push(word))),
    );
    scanner.find('..XOXB..abc..');
    expect(ran.sort()).toEqual(['ab', 'bc', 'c', 'xox', 'xoxb']);
  });

  it('merges overlapping matches into one span named after the first rule, and a failing rule costs only itself', () => {
    const scanner = new SecretScanner([
      rule('first', ['k'], (_t, report) => report(2, 6)),
      rule('boom', ['k'], () => {
        throw new Error('bug');
      }),
      rule('second', ['k'], (_t, report) => {
        report(4, 9);
        report(11, 12);
        report(50, 60); // out of range: clamped
      }),
    ]);
    expect(scanner.find('k123456789abc')).toEqual([
      { rule: 'first', start: 2, end: 9 },
      { rule: 'second', start: 11, end: 12 },
    ]);
    expect(scanner.redact('k123456789abc', undefined, () => '#')).toBe('k1#9a#c');
  });

  it('refuses rule ids that cannot name a marker, and duplicates', () => {
    expect(() => new SecretScanner([rule('a-b', ['x'], () => {})])).toThrow(/letters, digits and _.*"a-b"/);
    expect(() => new SecretScanner([rule('a', ['x'], () => {}), rule('a', ['y'], () => {})])).toThrow(/"a"/);
  });

  it('indexes keywords: every one found, case-insensitively, overlapping or inside another, ASCII only', () => {
    const words = ['sk_live', 'sk_test', 'sk-', 'sk-ant-api0', 'npm_', 'a.b', 'he', 'she', 'hers', '@'];
    const index = new KeywordIndex(words);
    const found = (text: string) => {
      const hits = index.which(text);
      return hits === undefined ? [] : index.words.filter((_, i) => hits[i] === 1);
    };
    for (const word of words) {
      expect(found(`x ${word.toUpperCase()} y`)).toContain(word);
      expect(index.any(`x ${word} y`)).toBe(true);
    }
    expect(found('USHERS')).toEqual(['he', 'she', 'hers']);
    expect(found('SK-ANT-API03')).toEqual(['sk-', 'sk-ant-api0']);
    for (const text of ['sk_', 'npm', 'aXb', 'skant', 'ｓｋ_live', 'sk\u00e9_live']) {
      expect(index.any(text), text).toBe(false);
      expect(index.which(text)).toBeUndefined();
    }
    expect(() => new KeywordIndex(['caf\u00e9'])).toThrow(/ASCII/);
  });

  it('is shared: one instance per process', () => {
    expect(secretScanner()).toBe(secretScanner());
  });
});

describe('isSecretValue agrees with core', () => {
  it('flags everything core’s isSecretValue flags (core keeps a dependency-free subset)', () => {
    const b = fakeBody(9);
    for (const value of [
      `postgres://app:${b(10)}@db/app`,
      `redis://:${b(10)}@cache:6379`,
      `https://user:${b(10)}@example.com/`,
      `mysql://root:${b(10)}@127.0.0.1/x`,
      fakePem(9),
    ]) {
      expect(coreIsSecretValue(value), value).toBe(true);
      expect(isSecretValue(value), value).toBe(true);
    }
  });

  it('also flags token formats that core does not know', () => {
    const [, , , stripe] = ruleSamples(3).find(([id]) => id === 'stripe') as readonly string[];
    expect(coreIsSecretValue(stripe as string)).toBe(false);
    expect(isSecretValue(stripe as string)).toBe(true);
  });
});

describe('loading the preset', () => {
  it('waits for the first text that holds one of its keywords (a fresh process: the preset is not loaded at import)', async () => {
    const { execFileSync } = await import('node:child_process');
    const { fileURLToPath } = await import('node:url');
    const entry = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    const script = `
      import { createRequire } from 'node:module';
      const { redactSecretValues } = await import(${JSON.stringify(entry)});
      const cache = createRequire(import.meta.url).cache;
      const loaded = () => Object.keys(cache).some((k) => k.includes('secretlint-rule-preset-recommend'));
      const out = [loaded()];
      out.push(redactSecretValues('an ordinary line of tool output, 42 files'), loaded());
      out.push(redactSecretValues('GITHUB_TOKEN=' + 'ghp_' + 'x1'.repeat(18)), loaded());
      console.log(JSON.stringify(out));`;
    const printed = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(JSON.parse(printed)).toEqual([
      false,
      'an ordinary line of tool output, 42 files',
      false,
      'GITHUB_TOKEN=[REDACTED:github]',
      true,
    ]);
  });
});
