import { isSecretKey, SENSITIVE_KEYS } from '@amplifier/core';
import { SECRET_KEY_NAMES } from '@amplifier/test-fixtures';
import { describe, expect, it, vi } from 'vitest';
import { AWS_KEY_ID_PREFIXES, DEFAULT_REDACTION, Redactor, sharedRedactor } from './index.js';
import { SECRET_NAME_ENDINGS } from './redactor.js';

const DEFAULTS = { redaction: DEFAULT_REDACTION };
const SECRETS = {
  aws: 'AKIAIOSFODNN7EXAMPLE',
  github: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789AB',
};

describe('SECRET_NAME_ENDINGS', () => {
  it("finds the end of every name core's isSecretKey accepts (text search keeps up with the rule)", () => {
    const names = [...SENSITIVE_KEYS, ...SECRET_KEY_NAMES];
    expect(names.filter((name) => !isSecretKey(name))).toEqual([]);
    const ending = new RegExp(`(?:${SECRET_NAME_ENDINGS})$`, 'i');
    expect(names.filter((name) => !ending.test(name))).toEqual([]);
  });
});

describe('Redactor', () => {
  it('Redactor.isSecretKey matches names by shape, not by substring', () => {
    const redactor = new Redactor(DEFAULTS.redaction, {});
    for (const key of [
      'api_key',
      'API-KEY',
      'OPENAI_API_KEY',
      'github_token',
      'Authorization',
      'db_password',
      'client_secret',
    ]) {
      expect(redactor.isSecretKey(key), key).toBe(true);
    }
    for (const key of [
      'input_tokens',
      'max_tokens',
      'keyboard',
      'author',
      'session_id',
      'tool_name',
      'monkey',
    ]) {
      expect(redactor.isSecretKey(key), key).toBe(false);
    }
  });
});

describe('Redactor answers remembered per string and key', () => {
  it('a repeated string is redacted the same way and reports its rules every time, past the memo limit too', () => {
    const redactor = new Redactor(DEFAULTS.redaction, {});
    const secret = `key ${SECRETS.aws}`;
    for (let round = 0; round < 3; round++) {
      const fired = new Set<string>();
      expect(redactor.redactString(secret, fired)).toBe('key [REDACTED:aws_access_key]');
      expect([...fired]).toEqual(['aws_access_key']);
      const clean = new Set<string>();
      expect(redactor.redactString('read_file', clean)).toBe('read_file');
      expect(clean.size).toBe(0);
      // Thousands of distinct strings (call ids) go through the bounded memo.
      for (let i = 0; i < 3000; i++)
        expect(redactor.redactString(`call_${round}_${i}`, clean)).toBe(`call_${round}_${i}`);
      expect(clean.size).toBe(0);
    }
    const long = `${'x'.repeat(200)} ${SECRETS.github}`;
    const fired = new Set<string>();
    expect(redactor.redactString(long, fired)).toBe(`${'x'.repeat(200)} [REDACTED:github_token]`);
    expect([...fired]).toEqual(['github_token']);
    for (let i = 0; i < 5000; i++) redactor.isSecretKey(`field_${i}`);
    expect(redactor.isSecretKey('OPENAI_API_KEY')).toBe(true);
    expect(redactor.isSecretKey('tool_name')).toBe(false);
  });
});

describe('one redactor per config and environment', () => {
  it('the same config gives the same redactor, another config another one', () => {
    const config = { ...DEFAULTS.redaction, keys: ['shared_probe'] };
    expect(sharedRedactor(config)).toBe(sharedRedactor({ ...config }));
    expect(sharedRedactor(config)).not.toBe(sharedRedactor({ ...config, keys: ['other_probe'] }));
  });

  it('only secret-named variables (core rule or a configured key) decide: a plain one changing keeps the redactor', () => {
    const config = { ...DEFAULTS.redaction, keys: ['shared_probe'] };
    try {
      vi.stubEnv('PLAIN_PROBE_SETTING', 'plain-value-one');
      const first = sharedRedactor(config);
      vi.stubEnv('PLAIN_PROBE_SETTING', 'plain-value-two');
      expect(sharedRedactor(config)).toBe(first);
      vi.stubEnv('SHARED_PROBE', 'configured-secret-1');
      const configured = sharedRedactor(config);
      expect(configured).not.toBe(first);
      const fired = new Set<string>();
      expect(configured.redactString('x configured-secret-1 y', fired)).toBe('x [REDACTED:env] y');
      vi.stubEnv('SHARED_PROBE', 'configured-secret-2');
      expect(sharedRedactor(config)).not.toBe(configured);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe('one list of AWS key id prefixes', () => {
  // Built when the test runs: no string in the repository looks like a live key pair.
  const secretKey = (seed: number): string => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+';
    let state = seed;
    let out = '';
    for (let i = 0; i < 40; i++) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      out += alphabet[(state >>> 8) % alphabet.length];
    }
    return `Ab${out.slice(2)}`;
  };
  const keyId = (prefix: string): string =>
    `${prefix}${prefix.length === 3 ? 'Q' : ''}${'7'.repeat(4)}EXAMPLEKEY12`;

  it('every prefix the value rule knows (AKIA, ASIA, ...) also finds the secret key written next to its id, in each layout', () => {
    const redactor = new Redactor(DEFAULT_REDACTION, {});
    expect(AWS_KEY_ID_PREFIXES).toEqual(expect.arrayContaining(['AKIA', 'ASIA']));
    AWS_KEY_ID_PREFIXES.forEach((prefix, i) => {
      const id = keyId(prefix);
      const secret = secretKey(i + 1);
      for (const text of [
        `User name,Access key ID,Secret access key\nci,${id},${secret}`,
        `| ${id} | ${secret} |`,
        `${secret} ${id}`,
      ]) {
        const fired = new Set<string>();
        const out = redactor.redactString(text, fired);
        expect(out, `${prefix}: ${text}`).not.toContain(id);
        expect(out, `${prefix}: ${text}`).not.toContain(secret);
        expect([...fired]).toContain('aws_secret_key');
      }
    });
  });

  it('a 40-character string next to something that is not a key id stays', () => {
    const redactor = new Redactor(DEFAULT_REDACTION, {});
    const text = `commit ${keyId('AXYZ')} ${secretKey(99)}`;
    expect(redactor.redactString(text, new Set())).toBe(text);
  });
});
