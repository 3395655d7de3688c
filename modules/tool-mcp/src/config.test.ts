import { AmplifierError } from '@amplifier/core';
import { SANDBOX_CONFIG_PROPERTIES } from '@amplifier/process';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { CONFIG_SCHEMA, type McpConfigInput, type McpModuleConfig, parseConfig } from './config.js';

describe('the config type is derived from CONFIG_SCHEMA (issue 38, point 5)', () => {
  it('types each key as the schema says; a wrong-typed key does not compile', () => {
    expectTypeOf<McpModuleConfig['working_dir']>().toEqualTypeOf<string | null>();
    expectTypeOf<McpModuleConfig['on_tool_change']>().toEqualTypeOf<'warn' | 'disable'>();
    // @ts-expect-error on_tool_change is warn or disable
    const bad: McpConfigInput = { on_tool_change: 'ignore' };
    expect(() => parseConfig(bad, undefined, {})).toThrow(AmplifierError);
    expect(() => parseConfig(bad, undefined, {})).toThrow(/on_tool_change/);
  });

  it('describes every sandbox key of @amplifier/process, as it does', () => {
    for (const [key, schema] of Object.entries(SANDBOX_CONFIG_PROPERTIES)) {
      expect(Reflect.get(CONFIG_SCHEMA.properties, key)).toBe(schema);
    }
  });

  it('two duration keys that disagree fail the mount through the one config wrapper', () => {
    let error: unknown;
    try {
      parseConfig({ shutdown_grace: 1, shutdown_grace_ms: 5 }, undefined, {});
    } catch (caught) {
      error = caught;
    }
    expect(AmplifierError.is(error, 'MOUNT_FAILED')).toBe(true);
    expect((error as Error).message).toBe(
      "tool-mcp: config.shutdown_grace (1 s) and config.shutdown_grace_ms (5 ms) disagree; give one (shutdown_grace, in seconds)\nFix these keys in the module's config.",
    );
  });
});
