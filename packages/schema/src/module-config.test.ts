import {
  AmplifierError,
  type ConfigRefusedError,
  DataValidationError,
  type JSONSchema,
} from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { configDurationMs, defineModuleConfig, readModuleConfig, warnConfigKey } from './module-config.js';

const schema: JSONSchema = {
  type: 'object',
  properties: {
    timeout: { type: 'number' },
    denied_paths: { type: 'array', items: { type: 'string' } },
    rules: {
      type: 'array',
      items: {
        type: 'object',
        required: ['action'],
        properties: { action: { enum: ['allow', 'deny'] }, when: { type: 'string' } },
      },
    },
    limits: { type: 'object', properties: { files: { type: 'integer' } } },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    redaction: {
      anyOf: [{ type: 'boolean' }, { type: 'object', properties: { keys: { type: 'array' } } }],
    },
  },
};

const safety = {
  denied_paths: 'a misspelt deny list would allow what it should deny',
  rules: 'a misspelt rule key would change what the rule decides',
};

function recorder(): { warn(message: string): void; lines: string[] } {
  const lines: string[] = [];
  return { lines, warn: (message) => lines.push(message) };
}

describe('readModuleConfig', () => {
  it('drops unknown keys with one warning per module and key, and keeps the known ones', () => {
    const logger = recorder();
    const config = readModuleConfig(
      { timeout: 3, output_dir: 'x', limits: { files: 2, depth: 1 } },
      { module: 'tool-x', schema, logger },
    );
    expect(config).toEqual({ timeout: 3, limits: { files: 2 } });
    readModuleConfig({ output_dir: 'y' }, { module: 'tool-x', schema, logger });
    readModuleConfig({ output_dir: 'y' }, { module: 'tool-y', schema, logger });
    expect(logger.lines).toEqual([
      "tool-x: unknown config key 'output_dir' is ignored",
      "tool-x: unknown config key 'limits.depth' is ignored",
      "tool-y: unknown config key 'output_dir' is ignored",
    ]);
  });

  it('reads own properties only: __proto__ is an unknown key, an inherited key is nothing', () => {
    const logger = recorder();
    const raw = JSON.parse('{"__proto__": {"timeout": 9}}') as Record<string, unknown>;
    const inherited = Object.create({ timeout: 'not a number' }) as Record<string, unknown>;
    expect(readModuleConfig(raw, { module: 'm', schema, logger })).toEqual({});
    expect(readModuleConfig(inherited, { module: 'm', schema, logger })).toEqual({});
    expect(logger.lines).toEqual(["m: unknown config key '__proto__' is ignored"]);
  });

  it('keeps the keys of maps and checks their values', () => {
    const config = readModuleConfig({ headers: { 'x-a': 'b' } }, { module: 'm', schema });
    expect(config).toEqual({ headers: { 'x-a': 'b' } });
    expect(() => readModuleConfig({ headers: { 'x-a': 1 } }, { module: 'm', schema })).toThrow(
      /headers\["x-a"\]|headers\.x-a|headers/,
    );
  });

  it('fails on a wrong type of a known key, naming the key', () => {
    const error = (() => {
      try {
        readModuleConfig({ timeout: 'soon' }, { module: 'm', schema });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(DataValidationError);
    expect((error as Error).message).toContain('m: invalid config');
    expect((error as Error).message).toContain('timeout must be number');
  });

  it('refuses an unknown key inside a safety section, with the reason, as a required failure', () => {
    let error: unknown;
    try {
      readModuleConfig({ rules: [{ action: 'deny', whne: 'rm*' }] }, { module: 'hooks-x', schema, safety });
    } catch (caught) {
      error = caught;
    }
    expect(AmplifierError.is(error, 'CONFIG_REFUSED')).toBe(true);
    expect((error as ConfigRefusedError).required).toBe(true);
    expect((error as ConfigRefusedError).keys).toEqual(['rules[0].whne']);
    expect((error as Error).message).toContain('a misspelt rule key would change what the rule decides');
  });

  it('refuses a top-level key that looks like a misspelt safety key, and only warns for others', () => {
    const logger = recorder();
    for (const key of ['denied_path', 'Denied-Paths', 'deniedpaths', 'denied_pahts']) {
      expect(() => readModuleConfig({ [key]: ['/etc'] }, { module: 'm', schema, safety, logger })).toThrow(
        /looks like a misspelt 'denied_paths'/,
      );
    }
    expect(readModuleConfig({ allowed_paths: ['.'] }, { module: 'm', schema, safety, logger })).toEqual({});
    expect(logger.lines).toEqual(["m: unknown config key 'allowed_paths' is ignored"]);
  });

  it('walks into the object branch of anyOf', () => {
    const logger = recorder();
    expect(readModuleConfig({ redaction: { keys: [], extra: 1 } }, { module: 'm', schema, logger })).toEqual({
      redaction: { keys: [] },
    });
    expect(readModuleConfig({ redaction: true }, { module: 'm', schema, logger })).toEqual({
      redaction: true,
    });
    expect(logger.lines).toEqual(["m: unknown config key 'redaction.extra' is ignored"]);
  });

  it('refuses a config that is not an object', () => {
    expect(() => readModuleConfig([1], { module: 'm', schema })).toThrow(/m: config must be an object/);
    expect(readModuleConfig(undefined, { module: 'm', schema })).toEqual({});
  });
});

describe('warnConfigKey', () => {
  it('warns once per logger, module, key and note', () => {
    const logger = recorder();
    warnConfigKey(logger, 'm', 'k', 'is accepted but has no effect here');
    warnConfigKey(logger, 'm', 'k', 'is accepted but has no effect here');
    warnConfigKey(recorder(), 'm', 'k');
    expect(logger.lines).toEqual(["m: config key 'k' is accepted but has no effect here"]);
  });
});

describe('configDurationMs', () => {
  it('reads the key in seconds, or its _ms alias in milliseconds', () => {
    expect(configDurationMs({ timeout: 1.5 }, 'timeout', 'm')).toBe(1500);
    expect(configDurationMs({ timeout_ms: 250 }, 'timeout', 'm')).toBe(250);
    expect(configDurationMs({ timeout: 2, timeout_ms: 2000 }, 'timeout', 'm')).toBe(2000);
    expect(configDurationMs({}, 'timeout', 'm')).toBeUndefined();
  });

  it('refuses both keys when they disagree, and values that are not durations', () => {
    expect(() => configDurationMs({ timeout: 1, timeout_ms: 5 }, 'timeout', 'tool-x')).toThrow(
      'tool-x: config.timeout (1 s) and config.timeout_ms (5 ms) disagree; give one (timeout, in seconds)',
    );
    for (const bad of ['10', -1, Number.NaN, Number.POSITIVE_INFINITY, null]) {
      expect(() => configDurationMs({ timeout: bad }, 'timeout', 'm')).toThrow(DataValidationError);
      expect(() => configDurationMs({ timeout_ms: bad }, 'timeout', 'm')).toThrow(
        'config.timeout_ms must be a number >= 0',
      );
    }
  });

  it('reads own properties only', () => {
    const inherited = Object.create({ timeout: 9 }) as Record<string, unknown>;
    expect(configDurationMs(inherited, 'timeout', 'm')).toBeUndefined();
  });
});

describe('defineModuleConfig: the one config wrapper', () => {
  const CONFIG = defineModuleConfig({
    module: 'tool-x',
    schema: {
      type: 'object',
      properties: { limit: { type: 'integer', minimum: -1 }, name: { type: 'string' } },
    } as const,
    safety: { limit: 'ignoring it would run more than asked' },
    check: (config) => (config.limit === 0 ? [{ path: 'limit', message: 'must be -1 or at least 1' }] : []),
    hint: 'Fix the tool config in the mount plan (limit: -1 or >= 1).',
  });

  it('reports the rules the schema cannot state with its own problems, in one MOUNT_FAILED ending with the hint', () => {
    let error: unknown;
    try {
      CONFIG.read({ limit: 0, name: 3 });
    } catch (caught) {
      error = caught;
    }
    expect(AmplifierError.is(error, 'MOUNT_FAILED')).toBe(true);
    expect((error as Error).message).toBe(
      'tool-x: invalid config:\n  - name must be string\n  - limit must be -1 or at least 1\nFix the tool config in the mount plan (limit: -1 or >= 1).',
    );
    expect(CONFIG.read({ limit: -1 })).toEqual({ limit: -1 });
  });

  it('passes a refusal as is', () => {
    expect(() => CONFIG.read({ limt: 3 })).toThrow(expect.objectContaining({ code: 'CONFIG_REFUSED' }));
  });

  it('resolve: an error of the build step is the same MOUNT_FAILED, prefixed with the module id once', () => {
    const build = (config: { name?: string }) => {
      if (config.name === 'bad') throw new Error("unknown name 'bad'");
      if (config.name === 'worse') throw new Error("tool-x: config.name 'worse' is refused");
      return { name: config.name ?? 'default' };
    };
    expect(CONFIG.resolve({}, undefined, build)).toEqual({ name: 'default' });
    expect(() => CONFIG.resolve({ name: 'bad' }, undefined, build)).toThrow(
      "tool-x: unknown name 'bad'\nFix the tool config in the mount plan (limit: -1 or >= 1).",
    );
    expect(() => CONFIG.resolve({ name: 'worse' }, undefined, build)).toThrow(
      /^tool-x: config.name 'worse' is refused\n/,
    );
    expect(() => CONFIG.resolve({ name: 1 }, undefined, build)).toThrow(/name must be string/);
    const mountFailed = new AmplifierError('MOUNT_FAILED', 'needs a POSIX system');
    let error: unknown;
    try {
      CONFIG.resolve({}, undefined, () => {
        throw mountFailed;
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBe(mountFailed);
  });
});
