import { expect, it } from 'vitest';
import { contentAttribute } from './content.js';

it('blanks secret-named keys at any depth and keeps the rest', () => {
  const value = {
    path: 'a.txt',
    headers: { Authorization: 'Bearer abc', accept: 'json' },
    OPENAI_API_KEY: 'sk-1',
  };
  expect(JSON.parse(contentAttribute(value, 100))).toEqual({
    path: 'a.txt',
    headers: { Authorization: '[REDACTED]', accept: 'json' },
    OPENAI_API_KEY: '[REDACTED]',
  });
});

it('blanks strings that are secrets by their shape', () => {
  expect(contentAttribute('postgres://app:hunter2@db/app', 100)).toBe('[REDACTED]');
  expect(JSON.parse(contentAttribute({ url: 'https://u:p@host/x', ok: 'fine' }, 100))).toEqual({
    url: '[REDACTED]',
    ok: 'fine',
  });
});

it('shortens long strings and survives cycles and BigInts', () => {
  expect(contentAttribute('x'.repeat(50), 16)).toBe(`${'x'.repeat(16)}... (truncated 34 chars)`);
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  expect(JSON.parse(contentAttribute(cyclic, 100))).toEqual({ a: 1, self: '[Circular]' });
  expect(contentAttribute({ n: 1n }, 100)).toBe('[unserializable]');
});
