import { PROVIDER_CONFIG_PROPERTIES } from '@amplifier/provider-http';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  ANTHROPIC_CONFIG_PROPERTIES,
  type AnthropicConfig,
  CONFIG_SCHEMA,
  DEFAULT_ANTHROPIC_VERSION,
  type ResolvedConfig,
  resolveConfig,
} from './config.js';
import { createAnthropicProvider } from './index.js';

describe('the config type is derived from the schema (issue 38, point 5)', () => {
  it('types its own keys and the kit shared ones; a wrong-typed key does not compile and is refused', () => {
    expectTypeOf<AnthropicConfig['thinking_type']>().toEqualTypeOf<'enabled' | 'adaptive' | undefined>();
    expectTypeOf<AnthropicConfig['beta_headers']>().toEqualTypeOf<string[] | undefined>();
    expectTypeOf<AnthropicConfig['base_url']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<ResolvedConfig['thinkingType']>().toEqualTypeOf<'enabled' | 'adaptive'>();
    // @ts-expect-error enable_prompt_caching is a boolean
    const bad: AnthropicConfig = { enable_prompt_caching: 'yes' };
    expect(() => createAnthropicProvider(bad)).toThrow(/enable_prompt_caching must be boolean/);
  });

  it('the schema is the kit shared keys and its own, the same objects', () => {
    for (const [key, schema] of Object.entries({
      ...PROVIDER_CONFIG_PROPERTIES,
      ...ANTHROPIC_CONFIG_PROPERTIES,
    })) {
      expect(Reflect.get(CONFIG_SCHEMA.properties as object, key)).toBe(schema);
    }
  });

  it('the version and beta headers, under config headers; the defaults', () => {
    const config = resolveConfig(
      { beta_headers: ['a', 'b'], headers: { 'Anthropic-Version': '2099-01-01' } },
      { ANTHROPIC_API_KEY: 'k' },
    );
    expect(config.headers).toEqual({ 'anthropic-version': '2099-01-01', 'anthropic-beta': 'a,b' });
    expect(resolveConfig({}, {}).headers).toEqual({ 'anthropic-version': DEFAULT_ANTHROPIC_VERSION });
    expect(resolveConfig({}, {})).toMatchObject({
      temperature: 0.7,
      promptCaching: true,
      extendedThinking: false,
      thinkingBudget: 32_000,
      thinkingType: 'enabled',
    });
  });
});
