/**
 * hooks-redaction as a bundle mounts it (the real loader, from the package
 * folder): the reference's checklist (hooks-approval / hooks-redaction #4, #5)
 * on a real hook registry, with a recording hook at the loggers' priority.
 */
import { fileURLToPath } from 'node:url';
import { dynamicEvent, type EventData, type Logger, ModuleLoader, silentLogger } from '@amplifier/core';
import { createTestCoordinator, REDACTION_PLAIN_CASES, REDACTION_SECRET_CASES } from '@amplifier/testing';
import { describe, expect, it } from 'vitest';
import { mount, parseConfig, scrub } from './index.js';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const AWS = 'AKIAIOSFODNN7EXAMPLE';

async function setup(config: Record<string, unknown> = {}, logger: Logger = silentLogger) {
  const loader = new ModuleLoader({ baseDir: PACKAGE_DIR, searchPaths: [PACKAGE_DIR], logger: silentLogger });
  const loaded = await loader.load('hooks-redaction', config, { type: 'hook' });
  const coordinator = createTestCoordinator({ bare: true, logger });
  const cleanup = await loaded.mount(coordinator);
  const seen: { event: string; data: EventData }[] = [];
  for (const event of [
    'provider:request',
    'tool:pre',
    'tool:post',
    'session:start',
    'llm:request',
  ] as const) {
    coordinator.hooks.register(event, (name, data) => void seen.push({ event: name, data }), {
      priority: 100,
      name: 'recorder',
    });
  }
  return { coordinator, cleanup, seen };
}

/** Fake tokens of the formats issue 37 names, built when the test runs (none is committed). */
function fakeTokens(): string[] {
  const body = (n: number, seed: number) =>
    Array.from(
      { length: n },
      (_, i) => 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789'[(i * 31 + seed * 7) % 57],
    ).join('');
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return [
    ['AS', 'IA', 'Y34FZKBOKMUTVV7A'].join(''),
    ['sk', '_live_', body(30, 1)].join(''),
    ['rk', '_test_', body(26, 2)].join(''),
    ['npm', '_', body(36, 3)].join(''),
    ['github', '_pat_', body(22, 4), '_', body(59, 5)].join(''),
    ['xox', 'b-', '1234567890-', '1234567890123-', body(24, 6)].join(''),
    ['sk', '-proj-', body(48, 7)].join(''),
    ['sk', '-ant-api03-', body(60, 8)].join(''),
    ['AI', 'za', body(35, 9)].join(''),
    [b64({ alg: 'HS256' }), b64({ sub: body(8, 10) }), body(40, 11)].join('.'),
    ['-----BEGIN EC PRIVATE', ' KEY-----\nMHc', body(60, 12), '\n-----END EC PRIVATE', ' KEY-----'].join(''),
  ];
}

describe('hooks-redaction', () => {
  it('masks every format of the shared rule set (@amplifier/secrets, the event log’s too): AWS ASIA ids, Stripe, npm, GitHub, Slack, OpenAI, Anthropic, Google, JWT, PEM', async () => {
    const { coordinator, seen } = await setup({ rules: ['secrets'] });
    const tokens = fakeTokens();
    await coordinator.hooks.emit(dynamicEvent('provider:request'), {
      messages: tokens.map((token) => ({ role: 'user', content: `value: ${token} (end)` })),
    });
    const written = JSON.stringify(seen[0]!.data);
    for (const token of tokens) expect(written).not.toContain(token.slice(-16));
    expect(written.match(/\[REDACTED:SECRET\] \(end\)/g)).toHaveLength(tokens.length);
  });

  it('masks every case of the shared redaction corpus (the event log’s), and leaves its plain text alone', async () => {
    const { coordinator, seen } = await setup({ rules: ['secrets'] });
    for (const [, text] of REDACTION_SECRET_CASES)
      await coordinator.hooks.emit(dynamicEvent('provider:request'), { text });
    const leaks = REDACTION_SECRET_CASES.flatMap(([what, , secrets], i) => {
      const out = String(seen[i]!.data.text);
      return secrets.filter((secret) => out.includes(secret)).map((secret) => `${what}: ${secret}`);
    });
    expect(leaks).toEqual([]);
    for (const [i] of REDACTION_SECRET_CASES.entries())
      expect(String(seen[i]!.data.text)).toContain('[REDACTED:SECRET]');
    for (const data of seen) expect(String(data.data.text)).not.toMatch(/\[REDACTED:(?!SECRET\])/);
    const before = seen.length;
    for (const text of REDACTION_PLAIN_CASES)
      await coordinator.hooks.emit(dynamicEvent('provider:request'), { text });
    expect(seen.slice(before).map((entry) => entry.data.text)).toEqual([...REDACTION_PLAIN_CASES]);
  });

  it('the reference’s context patterns: a whole Azure connection string, api_key/secret_key/access_token assignments', () => {
    const key = 'abcdEFGH1234abcdEFGH1234abcd';
    const cases = [
      `DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${key}==;EndpointSuffix=core.windows.net`,
      `api_key=${key}`,
      `"apiKey": "${key}"`,
      `secret-key: ${key}`,
      `ACCESS_TOKEN='${key}'`,
      `auth_token=${key}`,
    ];
    for (const text of cases) {
      const { value } = scrub({ text }, ['secrets'], new Set());
      expect((value as { text: string }).text).not.toContain(key);
      expect((value as { text: string }).text).toContain('[REDACTED:SECRET]');
    }
    const azure = scrub({ text: cases[0] }, ['secrets'], new Set()).value as { text: string };
    expect(azure.text).toBe('[REDACTED:SECRET]');
  });

  it('#4: a secret in an event is masked before a later hook (a logger at 100) sees it, with redaction{applied}', async () => {
    const { coordinator, seen } = await setup();
    const result = await coordinator.hooks.emit(dynamicEvent('provider:request'), {
      provider: 'mock',
      messages: [{ role: 'user', content: `my key is ${AWS}, mail me at ada@example.com` }],
    });
    expect(seen[0]!.data).toMatchObject({
      provider: 'mock',
      messages: [{ role: 'user', content: 'my key is [REDACTED:SECRET], mail me at [REDACTED:PII]' }],
      redaction: { applied: true, rules: ['secrets', 'pii-basic'] },
    });
    // The emitter gets the masked data too.
    expect(JSON.stringify(result.data)).not.toContain(AWS);
  });

  it('#5: tool:pre and tool:post data is never altered, and llm:* is not subscribed', async () => {
    const { coordinator, seen } = await setup();
    const input = { tool_name: 'bash', tool_input: { command: `echo ${AWS}` } };
    await coordinator.hooks.emit(dynamicEvent('tool:pre'), input);
    await coordinator.hooks.emit(dynamicEvent('tool:post'), { ...input, result: { output: AWS } });
    await coordinator.hooks.emit(dynamicEvent('llm:request'), { text: AWS });
    expect(seen.map((s) => JSON.stringify(s.data).includes(AWS))).toEqual([true, true, true]);
    expect(seen.every((s) => s.data.redaction === undefined)).toBe(true);
  });

  it('never masks the kernel fields and ids (the phone pattern would hit the digits of a timestamp)', async () => {
    const { coordinator, seen } = await setup();
    await coordinator.hooks.emit(dynamicEvent('provider:request'), {
      request_id: '12345678-1234-1234-1234-123456789012',
      note: 'call +1 (555) 010-9999',
    });
    expect(seen[0]!.data).toMatchObject({
      request_id: '12345678-1234-1234-1234-123456789012',
      note: 'call [REDACTED:PII]',
      redaction: { applied: true },
    });
    expect(seen[0]!.data.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it('leaves clean payloads alone, keeps allowlisted paths and applies only the chosen rules', async () => {
    const { coordinator, seen, cleanup } = await setup({ rules: ['secrets'], allowlist: ['keep[0]'] });
    await coordinator.hooks.emit(dynamicEvent('session:start'), { note: 'nothing secret' });
    await coordinator.hooks.emit(dynamicEvent('session:start'), {
      keep: [AWS, AWS],
      mail: 'ada@example.com',
    });
    expect(seen[0]!.data.redaction).toBeUndefined();
    expect(seen[1]!.data).toMatchObject({
      keep: [AWS, '[REDACTED:SECRET]'],
      mail: 'ada@example.com',
      redaction: { applied: true, rules: ['secrets'] },
    });
    await cleanup?.();
    await coordinator.hooks.emit(dynamicEvent('session:start'), { key: AWS });
    expect(seen[2]!.data.key).toBe(AWS);
  });

  it('skip_events: [] redacts tool events too; a cyclic payload is masked without throwing', async () => {
    const { coordinator, seen } = await setup({ skip_events: [] });
    const data: Record<string, unknown> = { tool_name: 'x', text: AWS };
    data.self = data;
    await coordinator.hooks.emit(dynamicEvent('tool:pre'), data);
    expect(seen[0]!.data.text).toBe('[REDACTED:SECRET]');
    expect(scrub(data, ['secrets'], new Set()).changed).toBe(true);
  });

  it('warns once per unknown key; refuses a rule it does not know (ignoring it would redact less)', async () => {
    const warnings: string[] = [];
    const logger: Logger = { ...silentLogger, warn: (m) => warnings.push(m) };
    parseConfig({ rules: ['secrets'], mode: 'strict' }, logger);
    expect(warnings).toEqual(["hooks-redaction: unknown config key 'mode' is ignored"]);
    await expect(mount(createTestCoordinator({ bare: true }), { rules: ['secret'] })).rejects.toThrow(
      /rules\[0\] must be one of "secrets", "pii-basic"/,
    );
  });
});
