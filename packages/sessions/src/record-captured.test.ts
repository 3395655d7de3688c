/**
 * The writer's path (`buildCapturedRecord` on the emit's copy, sanitized in
 * place) must write exactly the line the emitting call's path (`buildRecord`
 * on the event data, sanitized into a new copy) writes: same fields, same
 * order, same redactions. Checked over the redaction corpus and over random
 * payloads mixing its texts with secret key names and values JSON has no
 * form for.
 */

import { Redactor } from '@amplifier/secrets';
import {
  REDACTION_PLAIN_CASES as PLAIN_CASES,
  REDACTION_SECRET_CASES as SECRET_CASES,
  seededRandom,
} from '@amplifier/test-fixtures';
import { describe, expect, it } from 'vitest';
import { captureEvent } from './capture.js';
import { buildCapturedRecord, buildRecord, type RecordOptions } from './record.js';

const TS = '2026-11-26T10:00:00.000+00:00';
const TEXTS: readonly string[] = [...SECRET_CASES.map(([, text]) => text), ...PLAIN_CASES];

const OPTIONS: Record<string, RecordOptions> = {
  default: {
    redactor: new Redactor({ enabled: true, keys: [], patterns: [], env_values: false }),
    stripRaw: false,
    maxValueChars: 1_000_000,
  },
  configured: {
    redactor: new Redactor(
      { enabled: true, keys: ['x-internal'], patterns: ['internal-[0-9]+'], env_values: true },
      { SERVICE_TOKEN: 'service-token-value-1234' },
    ),
    stripRaw: true,
    maxValueChars: 40,
  },
  off: { redactor: undefined, stripRaw: false, maxValueChars: 1_000_000 },
};

/** JSON of `value` with bigints as text (to see that the data was not changed). */
const snapshot = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));

/** Both paths on `data`; the emitting call's data is not changed by either. */
function bothLines(event: string, data: Record<string, unknown>, options: RecordOptions) {
  const before = snapshot(data);
  const direct = buildRecord(event, data, options)?.line;
  const captured = captureEvent(event, data);
  expect(captured, 'plain data is captured').toBeDefined();
  const written = buildCapturedRecord(captured!, options)?.line;
  expect(snapshot(data)).toBe(before);
  return { direct, written };
}

const KEYS = [
  'text',
  'output',
  'password',
  'api_key',
  'max_tokens',
  'Authorization',
  'x-internal',
  'tool_input',
  'status',
  'error',
  'redaction',
  'raw',
  '__proto__',
  'items',
];

function payload(next: () => number, depth: number): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  const roll = next();
  if (depth > 3 || roll < 0.45) {
    return pick<unknown>([
      pick(TEXTS),
      pick(TEXTS),
      'internal-42 in text',
      'service-token-value-1234',
      'x'.repeat(60),
      'line\u2028separator',
      '',
      0,
      -0,
      3.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      true,
      null,
      undefined,
      10n,
      Symbol('s'),
      function named() {},
    ]);
  }
  if (roll < 0.65) {
    const list: unknown[] = [];
    const n = Math.floor(next() * 4);
    for (let i = 0; i < n; i++) list.push(payload(next, depth + 1));
    if (next() < 0.1) list.length += 2; // holes
    return list;
  }
  const object: Record<string, unknown> = next() < 0.1 ? Object.create(null) : {};
  const n = 1 + Math.floor(next() * 4);
  for (let i = 0; i < n; i++) {
    Object.defineProperty(object, pick(KEYS), {
      value: payload(next, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return object;
}

describe('the writer path writes what the emitting call would', () => {
  for (const [name, options] of Object.entries(OPTIONS)) {
    it(`${name}: every corpus text, as a value, nested, and under a secret key`, () => {
      for (const text of TEXTS) {
        const data = {
          session_id: 's1',
          timestamp: TS,
          tool_name: 'bash',
          tool_input: { command: text, args: [text, { nested: text }] },
          result: { output: text, password: text },
        };
        const { direct, written } = bothLines('tool:post', data, options);
        expect(written).toBe(direct);
      }
    });

    it(`${name}: 500 random payloads`, () => {
      const next = seededRandom(23);
      for (let i = 0; i < 500; i++) {
        const body = payload(next, 0);
        const data: Record<string, unknown> = {
          session_id: 's1',
          timestamp: TS,
          ...(typeof body === 'object' && body !== null && !Array.isArray(body) ? body : { value: body }),
        };
        const { direct, written } = bothLines(i % 7 === 0 ? 'tool:error' : 'tool:post', data, options);
        expect(written, `payload ${i}`).toBe(direct);
      }
    });
  }

  it('an object or array reached twice is written in full at each place (one is under a secret key)', () => {
    const shared = ['sk-proj-abcdefghijklmnopqrstuvwxyz0123', { inner: 'password=hunter2horse' }];
    const input = { text: 'hello' };
    const data = { session_id: 's1', timestamp: TS, password: shared, items: shared, a: input, b: input };
    for (const options of Object.values(OPTIONS)) {
      const { direct, written } = bothLines('tool:post', data, options);
      expect(written).toBe(direct);
    }
    const line = bothLines('tool:post', data, OPTIONS.default!).written!;
    expect(JSON.parse(line).data.items).toEqual([
      '[REDACTED:sk_key]',
      { inner: 'password=[REDACTED:key_value]' },
    ]);
  });

  it('the corpus secrets are redacted on the writer path too', () => {
    for (const [, text, secrets] of SECRET_CASES) {
      const captured = captureEvent('tool:post', { session_id: 's1', timestamp: TS, output: text });
      const line = buildCapturedRecord(captured!, OPTIONS.default!)!.line;
      for (const secret of secrets) expect(line).not.toContain(secret);
      expect(line).toContain('"redaction":{"applied":true');
    }
  });
});
