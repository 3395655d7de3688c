import { expect, it } from 'vitest';
import { DEFAULTS, parseConfig } from './config.js';

it('fills in the defaults: content off, metrics on', () => {
  expect(parseConfig(undefined)).toEqual(DEFAULTS);
  expect(DEFAULTS.capture_content).toBe(false);
});

it('warns once about an unknown key and keeps the rest', () => {
  const warnings: string[] = [];
  const config = parseConfig({ capture_content: true, colour: 'red' }, { warn: (m) => warnings.push(m) });
  expect(config.capture_content).toBe(true);
  expect(warnings).toEqual(["hooks-otel: unknown config key 'colour' is ignored"]);
});

it('refuses a bad value, naming the key', () => {
  expect(() => parseConfig({ max_content_chars: 'lots' })).toThrow(/max_content_chars must be integer/);
  expect(() => parseConfig({ capture_content: 'yes' })).toThrow(/capture_content must be boolean/);
});

it('reads own properties only', () => {
  const config = JSON.parse('{"__proto__": {"capture_content": true}}') as Record<string, unknown>;
  expect(parseConfig(config).capture_content).toBe(false);
});
