import { AmplifierError, ConfigRefusedError } from '@amplifier/core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { FromSchema } from './index.js';
import { defineModuleConfig } from './module-config.js';

const SCHEMA = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1 },
    timeout: { type: 'number', exclusiveMinimum: 0 },
    limit: { type: ['integer', 'null'] },
    mode: { enum: ['fast', 'safe'] },
    kind: { const: 'tool' },
    tags: { type: 'array', items: { type: 'string' } },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    target: {
      anyOf: [
        { type: 'string' },
        { type: 'object', required: ['url'], properties: { url: { type: 'string' } } },
      ],
    },
    denied: { type: 'array', items: { type: 'string' } },
    anything: true,
  },
} as const;

describe("FromSchema (core's, re-exported for modules)", () => {
  it('derives a config type from its const schema', () => {
    type Config = FromSchema<typeof SCHEMA>;
    expectTypeOf<Config['name']>().toEqualTypeOf<string>();
    expectTypeOf<Config['limit']>().toEqualTypeOf<number | null | undefined>();
  });
});

describe('defineModuleConfig', () => {
  const config = defineModuleConfig({
    module: 'tool-typed',
    schema: SCHEMA,
    safety: { denied: 'a deny list left out would allow more' },
  });

  it('reads the known keys, typed by the schema, and warns once about an unknown one', () => {
    const warnings: string[] = [];
    const logger = { warn: (line: string) => warnings.push(line) };
    const read = config.read({ name: 'x', tags: ['a'], colour: 'red' }, logger);
    expectTypeOf(read.name).toEqualTypeOf<string>();
    expect(read).toEqual({ name: 'x', tags: ['a'] });
    config.read({ name: 'x', colour: 'red' }, logger);
    expect(warnings).toEqual(["tool-typed: unknown config key 'colour' is ignored"]);
  });

  it('a bad value is MOUNT_FAILED naming every key; a misspelt safety key is refused as is', () => {
    let failure: unknown;
    try {
      config.read({ timeout: 0, mode: 'slow' });
    } catch (error) {
      failure = error;
    }
    expect(AmplifierError.is(failure, 'MOUNT_FAILED')).toBe(true);
    expect((failure as Error).message).toMatch(/tool-typed: invalid config:[\s\S]*name is required/);
    expect((failure as Error).message).toMatch(/timeout must be > 0/);
    expect((failure as Error).message).toMatch(/mode must be one of "fast", "safe"/);
    for (const hostile of [
      { name: 'x', denyed: [] },
      { name: 'x', Denied: [] },
      { name: 'x', denied_: ['/'] },
    ]) {
      expect(() => config.read(hostile), JSON.stringify(hostile)).toThrow(ConfigRefusedError);
    }
    expect(() => config.read('not an object')).toThrow(/tool-typed/);
    expect(() => config.read(Object.create({ name: 'inherited' }))).toThrow(/name is required/);
  });
});
