import { AmplifierError, silentLogger } from '@amplifier/core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  ALWAYS_KEPT,
  CONFIG_SCHEMA,
  parseConfig,
  type RedactionConfig,
  type RedactionConfigInput,
} from './config.js';
import { RULES, type Rule } from './patterns.js';

describe('the config type is derived from CONFIG_SCHEMA (issue 38, point 5)', () => {
  it('types each key as the schema says; a wrong-typed key does not compile and is refused at mount', () => {
    expectTypeOf<RedactionConfigInput['rules']>().toEqualTypeOf<Rule[] | undefined>();
    expectTypeOf<RedactionConfigInput['priority']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<RedactionConfig['rules']>().toEqualTypeOf<Rule[]>();
    expectTypeOf<RedactionConfig['skip_events']>().toEqualTypeOf<Set<string>>();
    // @ts-expect-error priority is a number
    const bad: RedactionConfigInput = { priority: 'first' };
    expect(() => parseConfig(bad, silentLogger)).toThrow(AmplifierError);
    expect(() => parseConfig(bad, silentLogger)).toThrow(/priority must be number/);
  });

  it("the schema's rule names are RULES", () => {
    expect(CONFIG_SCHEMA.properties.rules.items.enum).toEqual(RULES);
  });

  it('names every bad key in one MOUNT_FAILED, with what the keys hold', () => {
    let error: unknown;
    try {
      parseConfig({ rules: 'secrets', allowlist: [1], priority: 'x', skip_events: 'tool:pre' }, silentLogger);
    } catch (caught) {
      error = caught;
    }
    expect(AmplifierError.is(error, 'MOUNT_FAILED')).toBe(true);
    expect((error as Error).message).toBe(
      [
        'hooks-redaction: invalid config:',
        '  - rules must be array',
        '  - allowlist[0] must be string',
        '  - priority must be number',
        '  - skip_events must be array',
        'Fix these keys in the module\'s config (rules: "secrets", "pii-basic"; allowlist: payload paths such as a.b[0]).',
      ].join('\n'),
    );
  });

  it('fills in the defaults; the allowlist keeps the kernel fields', () => {
    const config = parseConfig(undefined, silentLogger);
    expect(config.rules).toEqual(['secrets', 'pii-basic']);
    expect(config.priority).toBe(10);
    expect([...config.skip_events]).toEqual(['tool:pre', 'tool:post']);
    expect([...config.allowlist]).toEqual([...ALWAYS_KEPT]);
  });
});
