import { AmplifierError } from '@amplifier/core';
import { RecordingLogger } from '@amplifier/testing';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { DEFAULTS, type DelegateConfig, type DelegateConfigInput, parseConfig } from './config.js';

describe('parseConfig', () => {
  it("defaults are the reference's, plus max_depth 3, max_children 16 and max_sub_sessions 32", () => {
    expect(parseConfig({})).toEqual(DEFAULTS);
    expect(DEFAULTS).toMatchObject({
      self_delegation: { enabled: true, max_depth: 3 },
      context_inheritance: { enabled: true, max_turns: 10 },
      exclude_tools: ['tool-delegate'],
      max_depth: 3,
      max_children: 16,
      max_sub_sessions: 32,
      timeout_ms: undefined,
    });
  });

  it("reads the foundation agents behavior's config and this module's limits", () => {
    const config = parseConfig({
      features: {
        self_delegation: { enabled: false, max_depth: 1 },
        session_resume: { enabled: false },
        context_inheritance: { enabled: true, max_turns: 4 },
        provider_selection: { enabled: false },
      },
      settings: { exclude_tools: [], exclude_hooks: ['hooks-x'], timeout: 90 },
      limits: { max_depth: null, max_children: 2, max_sub_sessions: 8 },
    });
    expect(config).toEqual({
      self_delegation: { enabled: false, max_depth: 1 },
      session_resume: false,
      context_inheritance: { enabled: true, max_turns: 4 },
      provider_selection: false,
      exclude_tools: [],
      exclude_hooks: ['hooks-x'],
      timeout_ms: 90_000,
      max_depth: null,
      max_children: 2,
      max_sub_sessions: 8,
    });
    expect(parseConfig({ limits: { max_sub_sessions: null } }).max_sub_sessions).toBeNull();
  });

  it('warns about unknown keys, refuses misspelt limits, fails on wrong types', () => {
    const logger = new RecordingLogger();
    parseConfig({ features: { colour: 1 }, extra: true }, logger);
    expect(logger.records.map((r) => r.message)).toEqual([
      "tool-delegate: unknown config key 'features.colour' is ignored",
      "tool-delegate: unknown config key 'extra' is ignored",
    ]);
    const refused = (() => {
      try {
        parseConfig({ limits: { max_dpeth: 1 } });
      } catch (error) {
        return error;
      }
    })();
    expect(AmplifierError.is(refused, 'CONFIG_REFUSED')).toBe(true);
    expect(String(refused)).toContain("'limits.max_dpeth' is refused");
    expect(() => parseConfig({ limit: { max_depth: 1 } })).toThrow(/looks like a misspelt 'limits'/);
    expect(() => parseConfig({ limits: { max_children: -1 } })).toThrow(/max_children/);
    expect(() => parseConfig({ limits: { max_sub_sessions: 2.5 } })).toThrow(/max_sub_sessions/);
    expect(() => parseConfig({ limits: { max_sub_session: 4 } })).toThrow(
      /'limits.max_sub_session' is refused/,
    );
    expect(() => parseConfig({ settings: { timeout: 'soon' } })).toThrow(/timeout/);
  });
});

describe('the config type is derived from CONFIG_SCHEMA (issue 38, point 5)', () => {
  it('types each key as the schema says; a wrong-typed key does not compile', () => {
    expectTypeOf<DelegateConfig['max_children']>().toEqualTypeOf<number | null>();
    expectTypeOf<DelegateConfig['self_delegation']>().toEqualTypeOf<{
      enabled: boolean;
      max_depth: number;
    }>();
    // @ts-expect-error limits.max_depth is an integer or null, not a string
    const bad: DelegateConfigInput = { limits: { max_depth: '2' } };
    expect(() => parseConfig(bad)).toThrow(/max_depth/);
  });
});
