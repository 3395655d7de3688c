import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dynamicEvent } from '@amplifier/core';
import { sharedRedactor } from '@amplifier/secrets';
import { createTestCoordinator } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULTS } from './config.js';
import { mount } from './index.js';

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'hooks-logging-redact-'));
});
afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
});

const SECRETS = {
  openai: 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789',
  anthropic: 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345',
  aws: 'AKIAIOSFODNN7EXAMPLE',
  github: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789AB',
  bearer: 'eyFakeBearerToken0123456789abcdef',
  jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
  pem: '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nabc\n-----END RSA PRIVATE KEY-----',
  password: 'hunter2-but-longer',
  envValue: 'plain-looking-value-9876',
};

async function logOne(data: Record<string, unknown>, config: Record<string, unknown> = {}) {
  const coordinator = createTestCoordinator({ bare: true });
  const cleanup = await mount(coordinator, {
    session_log_template: path.join(tmp, 'events.jsonl'),
    ...config,
  });
  await coordinator.hooks.emit(dynamicEvent('tool:post'), data);
  await cleanup();
  return readFileSync(path.join(tmp, 'events.jsonl'), 'utf8');
}

describe('redaction (on by default)', () => {
  it('LG-07/secrets never reach the file: keys, shapes inside strings, env dumps, URL credentials', async () => {
    vi.stubEnv('MY_SERVICE_TOKEN', SECRETS.envValue);
    try {
      const text = await logOne({
        tool_input: {
          command: `curl -H "Authorization: Bearer ${SECRETS.bearer}" https://user:${SECRETS.password}@example.com/`,
          api_key: 'short',
          headers: { Authorization: 'Basic abc', 'X-Api-Key': 'k-123456' },
        },
        result: {
          stdout: `OPENAI_API_KEY=${SECRETS.openai}\nANTHROPIC=${SECRETS.anthropic}\naws ${SECRETS.aws}\n${SECRETS.github}\n${SECRETS.jwt}\n${SECRETS.pem}\nlater: ${SECRETS.envValue}`,
        },
        password: SECRETS.password,
      });
      for (const secret of [...Object.values(SECRETS), 'k-123456', 'Basic abc']) {
        expect(text).not.toContain(secret);
      }
      const record = JSON.parse(text) as Record<string, unknown>;
      expect(record.redaction).toMatchObject({ applied: true });
      expect((record.redaction as { rules: string[] }).rules).toEqual(
        expect.arrayContaining([
          'secret_key',
          'sk_key',
          'aws_access_key',
          'github_token',
          'jwt',
          'private_key',
          'bearer',
        ]),
      );
      // What is not secret stays readable.
      expect(text).toContain('https://[REDACTED:credentials]@example.com/');
      expect(text).toContain('curl -H');
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('redacts a copy: the data the loop (and later handlers) use is untouched', async () => {
    const coordinator = createTestCoordinator({ bare: true });
    const cleanup = await mount(coordinator, { session_log_template: path.join(tmp, 'events.jsonl') });
    const input = { api_key: SECRETS.openai, nested: { text: SECRETS.aws } };
    let seenByNext: unknown;
    coordinator.hooks.register(
      'tool:pre',
      (_e, data) => {
        seenByNext = data.tool_input;
      },
      { priority: 1000 },
    );
    await coordinator.hooks.emit(dynamicEvent('tool:pre'), { tool_input: input });
    await cleanup();
    expect(input).toEqual({ api_key: SECRETS.openai, nested: { text: SECRETS.aws } });
    expect(seenByNext).toEqual(input);
  });

  it('no redaction record when nothing was redacted; token counts are not secrets', async () => {
    const text = await logOne({
      usage: { input_tokens: 10, output_tokens: 5, max_tokens: 3 },
      text: 'hello',
    });
    const record = JSON.parse(text) as Record<string, unknown>;
    expect(record).not.toHaveProperty('redaction');
    expect(record.data).toMatchObject({ usage: { input_tokens: 10, output_tokens: 5, max_tokens: 3 } });
  });

  it('redaction: false writes data as is; extra keys and patterns are honoured', async () => {
    expect(await logOne({ api_key: 'visible-key' }, { redaction: false })).toContain('visible-key');
    const text = await logOne(
      { customer_pin: '1234', note: 'ticket CASE-42-XYZ' },
      { redaction: { keys: ['customer_pin'], patterns: ['CASE-\\d+-[A-Z]+'] } },
    );
    expect(text).not.toContain('1234');
    expect(text).not.toContain('CASE-42-XYZ');
  });

  it('an existing redaction marker from another hook is kept and extended', async () => {
    const text = await logOne({ redaction: { applied: true, by: 'hooks-redaction' }, token: 'abcdefgh123' });
    expect(JSON.parse(text).redaction).toMatchObject({
      applied: true,
      by: 'hooks-redaction',
      rules: ['secret_key'],
    });
  });
});

describe('console option', () => {
  it('writes a compact, redacted line per event on stderr at or above the level', async () => {
    const writes: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      writes.push(String(chunk));
      return true;
    });
    try {
      await logOne({ tool_name: 'bash', api_key: SECRETS.openai }, { console: 'info' });
      await logOne({ tool_name: 'quiet' }, { console: 'error' });
    } finally {
      spy.mockRestore();
    }
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/INFO {2}tool:post tool_name=bash api_key=\[REDACTED:key\]/);
    expect(writes.join('')).not.toContain(SECRETS.openai);
  });
});

describe('one redactor per config and environment', () => {
  it('loggers with the same config share a redactor; a changed secret environment value gets a new one', async () => {
    const config = { ...DEFAULTS.redaction, keys: ['shared_probe'] };
    expect(sharedRedactor(config)).toBe(sharedRedactor({ ...config }));
    expect(sharedRedactor(config)).not.toBe(sharedRedactor({ ...config, keys: ['other_probe'] }));
    vi.stubEnv('PROBE_API_TOKEN', 'first-secret-value-111');
    try {
      expect(await logOne({ output: 'first-secret-value-111' })).toContain('[REDACTED:env]');
      vi.stubEnv('PROBE_API_TOKEN', 'second-secret-value-222');
      const second = await logOne({ output: 'second-secret-value-222' });
      expect(second).not.toContain('second-secret-value-222');
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
