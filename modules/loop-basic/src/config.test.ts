import { describe, expect, expectTypeOf, it } from 'vitest';
import { type LoopBasicConfig, resolveConfig } from './config.js';

describe('the config type is derived from CONFIG_SCHEMA (issue 38, point 5)', () => {
  it('types each key as the schema says; a wrong-typed key does not compile', () => {
    expectTypeOf<LoopBasicConfig['tool_timeout']>().toEqualTypeOf<number | null | undefined>();
    expectTypeOf<LoopBasicConfig['tool_aliases']>().toEqualTypeOf<Record<string, string> | undefined>();
    // @ts-expect-error max_concurrent_tools is a number, not a string
    const bad: LoopBasicConfig = { max_concurrent_tools: '4' };
    expect(() => resolveConfig(bad)).toThrow(/max_concurrent_tools/);
  });
});
