import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ProviderMockConfig } from './provider.js';
import { checkConfig, type ScriptStep } from './script.js';

describe('the config type is derived from CONFIG_SCHEMA (issue 38, point 5)', () => {
  it('types each key as the schema says; a wrong-typed key does not compile', () => {
    expectTypeOf<ProviderMockConfig['context_window']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<ProviderMockConfig['script']>().toEqualTypeOf<ScriptStep[] | undefined>();
    // @ts-expect-error use_streaming is a boolean, not a string
    const bad: ProviderMockConfig = { use_streaming: 'yes' };
    expect(checkConfig(bad).map((e) => e.path)).toEqual(['use_streaming']);
  });
});
