import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_REDACTION, Redactor, sharedRedactor } from './index.js';

const DEFAULTS = { redaction: DEFAULT_REDACTION };
const SECRETS = {
  aws: 'AKIAIOSFODNN7EXAMPLE',
  github: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789AB',
};

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
