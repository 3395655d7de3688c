import { describe, expect, it } from 'vitest';
import { redactSecrets, SENSITIVE_KEYS, truncateValues } from './redact.js';

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

  it('takes a custom key set; the default set is the reference list', () => {
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
