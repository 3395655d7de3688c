import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dynamicEvent } from '@amplifier/core';
import { createTestCoordinator, RecordingLogger } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import {
  CONFIG_SCHEMA,
  DEFAULT_TEMPLATE,
  type LoggingConfigInput,
  logPath,
  parseConfig,
  RECORD_LEVELS,
} from './config.js';
import { mount } from './index.js';

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'hooks-logging-config-'));
});
afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(tmp, { recursive: true, force: true });
});

/** Every setting that, if inherited, would make the log less safe or put it elsewhere. */
function loosening(): Record<string, unknown> {
  return {
    redaction: false,
    session_log_template: path.join(tmp, 'elsewhere', '{session_id}.jsonl'),
    console: 'debug',
    exclude_events: ['*'],
    strip_raw: true,
    max_file_bytes: null,
    max_value_chars: 16,
  };
}

const FORMS = {
  'an own __proto__ key (JSON.parse)': () => JSON.parse(JSON.stringify({ ['__proto__']: loosening() })),
  'an inherited prototype (Object.create)': () => Object.create(loosening()),
} as const;

describe('config is read through own properties only (issue 16, point 1)', () => {
  it.each(Object.keys(FORMS))('parseConfig ignores %s', (form) => {
    const logger = new RecordingLogger();
    const config = parseConfig(FORMS[form as keyof typeof FORMS](), logger);
    expect(config).toEqual(parseConfig({}));
    expect(config.redaction.enabled).toBe(true);
    expect(config.session_log_template).toBe(DEFAULT_TEMPLATE);
  });

  it('an own __proto__ key is an unknown key: warned, ignored, the module mounts', () => {
    const logger = new RecordingLogger();
    parseConfig(JSON.parse('{"__proto__": {"redaction": false}, "bogus": 1}'), logger);
    expect(logger.problemsSince()).toEqual([
      "hooks-logging: unknown config key '__proto__' is ignored",
      "hooks-logging: unknown config key 'bogus' is ignored",
    ]);
  });

  it.each(Object.keys(FORMS))(
    'a mounted logger given %s keeps redaction on and its file where it was',
    async (form) => {
      vi.stubEnv('AMPLIFIER_HOME', path.join(tmp, 'home'));
      const coordinator = createTestCoordinator({ bare: true });
      coordinator.registerCapability('session.working_dir', tmp);
      const cleanup = await mount(coordinator, FORMS[form as keyof typeof FORMS]());
      await coordinator.hooks.emit(dynamicEvent('tool:post'), {
        api_key: 'sk-proj-abcdefghijklmnopqrstuvwxyz0123',
        raw: { kept: 1 },
      });
      await cleanup();
      expect(existsSync(path.join(tmp, 'elsewhere'))).toBe(false);
      const text = readFileSync(logPath(DEFAULT_TEMPLATE, 'test-session', tmp), 'utf8');
      expect(text).not.toContain('sk-proj-abcdefghijklmnop');
      const record = JSON.parse(text) as { data: Record<string, unknown> };
      expect(record.data).toMatchObject({ api_key: '[REDACTED:key]', raw: { kept: 1 } });
    },
  );

  it('redaction given as an object is read through its own properties too', () => {
    const inherited = parseConfig({ redaction: Object.create({ enabled: false, env_values: false }) });
    expect(inherited.redaction).toEqual(parseConfig({}).redaction);
    // Inside `redaction` an unknown key is refused, not ignored: a misspelt `keys` would redact less than asked.
    expect(() => parseConfig({ redaction: JSON.parse('{"__proto__": {"enabled": false}}') })).toThrow(
      /hooks-logging: config refused[\s\S]*'redaction.__proto__' is refused: ignoring it would write secrets/,
    );
  });

  it('non-object configs fail with what was expected', () => {
    expect(() => parseConfig('verbose')).toThrow(/hooks-logging: config must be an object/);
    expect(parseConfig(undefined)).toEqual(parseConfig({}));
  });
});

describe('durations are seconds, with the *_ms key of earlier releases as an alias', () => {
  it('queue_full_wait in seconds, queue_full_wait_ms in milliseconds, the default 100 ms', () => {
    expect(parseConfig({ queue_full_wait: 0.25 }).queue_full_wait_ms).toBe(250);
    expect(parseConfig({ queue_full_wait_ms: 40 }).queue_full_wait_ms).toBe(40);
    expect(parseConfig({}).queue_full_wait_ms).toBe(100);
    expect(() => parseConfig({ queue_full_wait: 1, queue_full_wait_ms: 5 })).toThrow(
      'config.queue_full_wait (1 s) and config.queue_full_wait_ms (5 ms) disagree',
    );
    expect(() => parseConfig({ queue_full_wait: -1 })).toThrow('queue_full_wait must be >= 0');
  });
});

describe('the config type is derived from CONFIG_SCHEMA (issue 38, point 5)', () => {
  it('types each key as the schema says; a wrong-typed key does not compile', () => {
    expectTypeOf<LoggingConfigInput['max_file_bytes']>().toEqualTypeOf<number | null | undefined>();
    expectTypeOf<LoggingConfigInput['console']>().toEqualTypeOf<
      false | 'debug' | 'info' | 'warn' | 'error' | undefined
    >();
    // @ts-expect-error max_files is an integer, not a string
    const bad: LoggingConfigInput = { max_files: '5' };
    expect(() => parseConfig(bad)).toThrow(/max_files/);
  });

  it('accepts every record level, WARN, in upper and lower case', () => {
    const upper = [...RECORD_LEVELS, 'WARN'];
    expect([...CONFIG_SCHEMA.properties.level.enum]).toEqual([
      ...upper,
      ...upper.map((l) => l.toLowerCase()),
    ]);
  });
});
