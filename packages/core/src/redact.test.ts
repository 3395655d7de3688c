import { PLAIN_KEY_NAMES, SECRET_KEY_NAMES } from '@amplifier/test-fixtures';
import { describe, expect, it } from 'vitest';
import { isSecretKey, isSecretValue, redactSecrets, SENSITIVE_KEYS, truncateValues } from './redact.js';

describe('redactSecrets', () => {
  it('replaces the value of every sensitive key (whole key, any case) at any depth, in objects and arrays', () => {
    const input = {
      api_key: 'sk-1',
      Authorization: 'Bearer x',
      nested: { PASSWORD: 'p', list: [{ token: 't', keep: 1 }], credentials: ['a', 'b'] },
      'api-key': 'k',
    };
    expect(redactSecrets(input)).toEqual({
      api_key: '[REDACTED]',
      Authorization: '[REDACTED]',
      nested: { PASSWORD: '[REDACTED]', list: [{ token: '[REDACTED]', keep: 1 }], credentials: '[REDACTED]' },
      'api-key': '[REDACTED]',
    });
  });

  it('matches whole keys only, not substrings', () => {
    expect(redactSecrets({ api_key_env: 'OPENAI_API_KEY', tokens: 5, max_tokens: 10, author: 'me' })).toEqual(
      {
        api_key_env: 'OPENAI_API_KEY',
        tokens: 5,
        max_tokens: 10,
        author: 'me',
      },
    );
  });

  it('returns a copy and never modifies the input', () => {
    const input = { secret: 's', inner: { keep: [1, 2] } };
    const out = redactSecrets(input);
    expect(input).toEqual({ secret: 's', inner: { keep: [1, 2] } });
    expect(out.inner).not.toBe(input.inner);
    expect(out.inner.keep).not.toBe(input.inner.keep);
  });

  it('takes a custom key set; SENSITIVE_KEYS is the reference list', () => {
    expect(redactSecrets({ pin: 1, password: 2 }, new Set(['pin']))).toEqual({
      pin: '[REDACTED]',
      password: 2,
    });
    expect([...SENSITIVE_KEYS].sort()).toEqual(
      [
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
      ].sort(),
    );
  });

  it('leaves non-plain objects (class instances, dates) and primitives as they are', () => {
    const date = new Date(0);
    const map = new Map([['token', 'x']]);
    const out = redactSecrets({ when: date, map, n: 1, s: 'x', nil: null });
    expect(out.when).toBe(date);
    expect(out.map).toBe(map);
    expect(redactSecrets('plain')).toBe('plain');
    expect(redactSecrets(null)).toBeNull();
  });

  it('writes a cycle as "[Circular]" instead of overflowing the stack; shared references are copied twice', () => {
    const plan: Record<string, unknown> = { session: { orchestrator: 'o' } };
    plan.self = plan;
    const list: unknown[] = [];
    list.push(list);
    expect(redactSecrets(plan)).toEqual({ session: { orchestrator: 'o' }, self: '[Circular]' });
    expect(redactSecrets(list)).toEqual(['[Circular]']);
    const shared = { password: 'p' };
    expect(redactSecrets({ a: shared, b: shared })).toEqual({
      a: { password: '[REDACTED]' },
      b: { password: '[REDACTED]' },
    });
  });
});

describe('isSecretKey', () => {
  const secret = [...SENSITIVE_KEYS, ...SECRET_KEY_NAMES];
  const notSecret = PLAIN_KEY_NAMES;
  it.each(secret)('%s holds a secret', (name) => {
    expect(isSecretKey(name)).toBe(true);
  });
  it.each(notSecret)('%s does not', (name) => {
    expect(isSecretKey(name)).toBe(false);
  });

  it('isSecretValue: URLs with a password and PEM private keys, whatever the name', () => {
    expect(isSecretValue('postgres://app:hunter2@db:5432/app')).toBe(true);
    expect(isSecretValue('redis://:pw@cache:6379')).toBe(true);
    expect(isSecretValue('mongodb+srv://u:p@cluster0.example.net')).toBe(true);
    expect(isSecretValue('-----BEGIN OPENSSH PRIVATE KEY-----\nabc')).toBe(true);
    expect(isSecretValue('https://example.com/path?q=1')).toBe(false);
    expect(isSecretValue('/home/me/project')).toBe(false);
  });

  it('redactSecrets uses it by default; a set restricts it to those keys', () => {
    expect(
      redactSecrets({ OPENAI_API_KEY: 'sk', env: { AWS_SECRET_ACCESS_KEY: 'x', AWS_REGION: 'eu' } }),
    ).toEqual({
      OPENAI_API_KEY: '[REDACTED]',
      env: { AWS_SECRET_ACCESS_KEY: '[REDACTED]', AWS_REGION: 'eu' },
    });
    expect(redactSecrets({ OPENAI_API_KEY: 'sk' }, SENSITIVE_KEYS)).toEqual({ OPENAI_API_KEY: 'sk' });
  });

  it('a __proto__ key in the data stays a key of the copy (never its prototype)', () => {
    const out = redactSecrets(JSON.parse('{"__proto__": {"password": "p", "safe": 1}}')) as Record<
      string,
      unknown
    >;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(out.safe).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toEqual({
      password: '[REDACTED]',
      safe: 1,
    });
  });
});

describe('truncateValues', () => {
  it('shortens strings longer than the limit to prefix + "... (truncated N chars)", at any depth', () => {
    const long = 'x'.repeat(200);
    expect(truncateValues({ a: long, list: [long, 'short'], n: 5 })).toEqual({
      a: `${'x'.repeat(180)}... (truncated 20 chars)`,
      list: [`${'x'.repeat(180)}... (truncated 20 chars)`, 'short'],
      n: 5,
    });
    expect(truncateValues('abcdef', 3)).toBe('abc... (truncated 3 chars)');
    expect(truncateValues('abc', 3)).toBe('abc');
  });

  it('returns a copy and never modifies the input', () => {
    const input = { text: 'y'.repeat(500) };
    truncateValues(input, 10);
    expect(input.text).toHaveLength(500);
  });
});
