/**
 * Config read through own properties only (issue 16, point 1): a key that
 * sits on the prototype, or an own `__proto__` key, never loosens a setting.
 */
import { AmplifierError, type Cleanup, type Logger } from '@amplifier/core';
import { SANDBOX_CONFIG_PROPERTIES, type SandboxPolicy } from '@amplifier/process';
import { createTestCoordinator } from '@amplifier/testing';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { type BashConfig, type BashConfigInput, CONFIG_SCHEMA, DEFAULTS, parseConfig } from './config.js';
import { mount } from './index.js';
import type { SafetyProfileName } from './profiles.js';

const LOOSENING: Record<string, unknown> = {
  safety_profile: 'unrestricted',
  allowed_commands: ['*'],
  safety_overrides: { allow: ['*'] },
  pass_env: ['OPENAI_API_KEY'],
  env: 'inherit',
  max_output_bytes: 1e12,
};

function viaProto(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return JSON.parse(JSON.stringify({ ...extra, ['__proto__']: LOOSENING })) as Record<string, unknown>;
}

function recorder(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, logger: { debug() {}, info() {}, error() {}, warn: (m: string) => warnings.push(m) } };
}

describe('parseConfig reads own properties only', () => {
  it('an own __proto__ key (JSON.parse) is an unknown key: warned, ignored, not carried into the config', () => {
    const raw = viaProto({ timeout: 5 });
    expect(Object.hasOwn(raw, '__proto__')).toBe(true);
    const { logger, warnings } = recorder();
    const config = parseConfig(raw, logger);
    expect(config.safety_profile).toBe('strict');
    expect(config.allowed_commands).toEqual([]);
    expect(config.safety_overrides).toBeNull();
    expect(config.pass_env).toEqual([]);
    expect(config.max_output_bytes).toBe(DEFAULTS.max_output_bytes);
    expect(config.timeout).toBe(5);
    expect(warnings).toEqual(["tool-bash: unknown config key '__proto__' is ignored"]);
    expect(Object.hasOwn(config, '__proto__')).toBe(false);
    expect(Object.getPrototypeOf(config)).toBe(Object.prototype);
    // A later copy of the config by assignment cannot pick the prototype up either.
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(config)) copy[key] = (config as unknown as Record<string, unknown>)[key];
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  });

  it('inherited keys (Object.create) are not read', () => {
    const config = parseConfig(Object.create(LOOSENING) as Record<string, unknown>);
    expect(config.safety_profile).toBe('strict');
    expect(config.allowed_commands).toEqual([]);
    expect(config.pass_env).toEqual([]);
    expect(config.max_output_bytes).toBe(DEFAULTS.max_output_bytes);
  });

  it('nested objects are read through own properties too', () => {
    const overrides = Object.create({ allow: ['sudo *'] }) as Record<string, unknown>;
    overrides.block = ['curl *'];
    const config = parseConfig({ safety_profile: 'standard', safety_overrides: overrides });
    expect(config.safety_overrides).toEqual({ allow: [], block: ['curl *'] });
  });

  it('a config that is not an object fails mount with the module named', () => {
    expect(() => parseConfig([] as unknown as Record<string, unknown>)).toThrow(
      /tool-bash: config must be an object/,
    );
  });
});

describe('mount keeps the safe default whatever the prototype says', () => {
  const cleanups: Cleanup[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it.each([
    ['JSON.parse with an own __proto__', () => viaProto()],
    ['Object.create', () => Object.create(LOOSENING) as Record<string, unknown>],
  ])('%s: sudo is still denied (strict)', async (_name, make) => {
    const coordinator = createTestCoordinator();
    cleanups.push((await mount(coordinator, make())) as Cleanup);
    const result = await coordinator.get('tools', 'bash')!.execute({ command: 'sudo ls' });
    expect(result.success).toBe(false);
    expect(result.error?.message).toContain('Privilege escalation not allowed in strict mode');
  });
});

describe('config policy', () => {
  it('an unknown key warns once per logger and the tool mounts', () => {
    const { logger, warnings } = recorder();
    parseConfig({ colour: 'red' }, logger);
    parseConfig({ colour: 'blue' }, logger);
    expect(warnings).toEqual(["tool-bash: unknown config key 'colour' is ignored"]);
  });

  it('a misspelt deny list or safety override is refused with the reason', () => {
    for (const raw of [
      { denied_command: ['curl * | bash'] },
      { safety_profil: 'strict' },
      { safety_overrides: { blocks: ['rm *'] } },
      { env_allow_list: ['PATH'] },
    ]) {
      let error: unknown;
      try {
        parseConfig(raw);
      } catch (caught) {
        error = caught;
      }
      expect(AmplifierError.is(error, 'CONFIG_REFUSED')).toBe(true);
      expect((error as Error).message).toMatch(/would (let commands run|pass more of the environment)/);
    }
  });
});

describe('the config type is derived from CONFIG_SCHEMA (issue 38, point 5)', () => {
  it('types each key as the schema says; a wrong-typed key does not compile and is refused at mount', () => {
    expectTypeOf<BashConfigInput['timeout']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<BashConfigInput['env']>().toEqualTypeOf<'inherit' | 'allowlist' | undefined>();
    expectTypeOf<BashConfigInput['max_concurrent']>().toEqualTypeOf<number | null | undefined>();
    expectTypeOf<BashConfig['working_dir']>().toEqualTypeOf<string | null>();
    expectTypeOf<BashConfig['safety_profile']>().toEqualTypeOf<SafetyProfileName>();
    expectTypeOf<BashConfig['pass_env']>().toEqualTypeOf<string[]>();
    expectTypeOf<BashConfig['sandbox']>().toEqualTypeOf<SandboxPolicy>();
    // @ts-expect-error env is inherit or allowlist
    const bad: BashConfigInput = { env: 'none' };
    expect(() => parseConfig(bad)).toThrow(AmplifierError);
    expect(() => parseConfig(bad)).toThrow(/env must be one of "inherit", "allowlist"/);
  });

  it('an unknown profile fails the mount with the reference message, through the one config wrapper', () => {
    let error: unknown;
    try {
      parseConfig({ safety_profile: 'bogus' });
    } catch (caught) {
      error = caught;
    }
    expect(AmplifierError.is(error, 'MOUNT_FAILED')).toBe(true);
    expect((error as Error).message).toBe(
      "tool-bash: Unknown profile 'bogus'. Valid profiles: strict, standard, permissive, unrestricted\nFix these keys in the module's config.",
    );
  });

  it('describes every sandbox key of @amplifier/process, as it does', () => {
    for (const [key, schema] of Object.entries(SANDBOX_CONFIG_PROPERTIES)) {
      expect(Reflect.get(CONFIG_SCHEMA.properties, key)).toBe(schema);
    }
  });
});
