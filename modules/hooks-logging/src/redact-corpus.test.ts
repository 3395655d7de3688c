/**
 * The redaction corpus (`__fixtures__/redaction-corpus.ts`): secrets written
 * as text in the formats people and tools use, each run through the real
 * logger into a real events.jsonl; and text that must come out unchanged.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dynamicEvent } from '@amplifier/core';
import {
  REDACTION_PLAIN_CASES as PLAIN_CASES,
  REDACTION_SECRET_CASES as SECRET_CASES,
} from '@amplifier/test-fixtures';
import { createTestCoordinator } from '@amplifier/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mount } from './index.js';

let tmp: string;
let records: Array<{ data: { text: string }; redaction?: { rules: string[] } }>;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'hooks-logging-corpus-'));
  const coordinator = createTestCoordinator({ bare: true });
  const cleanup = await mount(coordinator, {
    session_log_template: path.join(tmp, 'events.jsonl'),
    // The process environment is not part of the corpus.
    redaction: { env_values: false },
  });
  for (const [, text] of SECRET_CASES) await coordinator.hooks.emit(dynamicEvent('tool:post'), { text });
  for (const text of PLAIN_CASES) await coordinator.hooks.emit(dynamicEvent('tool:post'), { text });
  await cleanup();
  records = readFileSync(path.join(tmp, 'events.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line));
});

afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
});

describe('redaction corpus through the real logger (events.jsonl)', () => {
  it('wrote one record per case', () => {
    expect(records).toHaveLength(SECRET_CASES.length + PLAIN_CASES.length);
  });

  it.each(SECRET_CASES.map(([what, input, secrets], i) => ({ what, input, secrets, i })))(
    'secret: $what',
    ({ input, secrets, i }) => {
      const record = records[i]!;
      const written = record.data.text;
      for (const secret of secrets) expect(written, `${input}\n->\n${written}`).not.toContain(secret);
      expect(written).toContain('[REDACTED:');
      expect(record.redaction?.rules.length).toBeGreaterThan(0);
    },
  );

  it.each(PLAIN_CASES.map((input, i) => ({ input, i: SECRET_CASES.length + i })))(
    'unchanged: $input',
    ({ input, i }) => {
      const record = records[i]!;
      expect(record.data.text).toBe(input);
      expect(record.redaction).toBeUndefined();
    },
  );

  it('keeps what is around a secret readable', () => {
    const text = (what: string) => records[SECRET_CASES.findIndex(([w]) => w === what)]!.data.text;
    expect(text('JSON')).toBe('{"password": "[REDACTED:key_value]", "user": "bob"}');
    expect(text('query first')).toBe('https://api.example.com/v1?api_key=[REDACTED:key_value]&format=json');
    expect(text('YAML nested')).toBe(
      'database:\n  user: app\n  password: [REDACTED:key_value]\n  port: 5432',
    );
    expect(text('curl -u')).toBe('curl -u alice:[REDACTED:cli_password] https://x.test');
    expect(text('Cookie')).toBe('Cookie: [REDACTED:http_header]');
    expect(text('JSON escaped in a string')).toBe('{"body": "{\\"password\\":\\"[REDACTED:key_value]\\"}"}');
    expect(text('mysql -p')).toBe('mysql -u root -p[REDACTED:cli_password] mydb');
    expect(text('env dump')).toBe('HOME=/root\nDB_PASSWORD=[REDACTED:key_value]\nPORT=80');
  });
});
