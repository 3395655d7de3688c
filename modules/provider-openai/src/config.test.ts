import { PROVIDER_CONFIG_PROPERTIES } from '@amplifier/provider-http';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  CONFIG_SCHEMA,
  OPENAI_CONFIG_PROPERTIES,
  type OpenAIConfig,
  type ResolvedConfig,
  resolveConfig,
} from './config.js';
import { createOpenAIProvider } from './index.js';

describe('the config type is derived from the schema (issue 38, point 5)', () => {
  it('types its own keys and the kit shared ones; a wrong-typed key does not compile and is refused', () => {
    expectTypeOf<OpenAIConfig['max_tokens_field']>().toEqualTypeOf<
      'max_completion_tokens' | 'max_tokens' | undefined
    >();
    expectTypeOf<OpenAIConfig['organization']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<OpenAIConfig['temperature']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<OpenAIConfig['max_retries']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<ResolvedConfig['maxTokensField']>().toEqualTypeOf<'max_completion_tokens' | 'max_tokens'>();
    // @ts-expect-error max_tokens_field names one of two body fields
    const bad: OpenAIConfig = { max_tokens_field: 'max_output_tokens' };
    expect(() => createOpenAIProvider(bad)).toThrow(/max_tokens_field must be one of/);
  });

  it('the schema is the kit shared keys and its own, the same objects', () => {
    for (const [key, schema] of Object.entries({
      ...PROVIDER_CONFIG_PROPERTIES,
      ...OPENAI_CONFIG_PROPERTIES,
    })) {
      expect(Reflect.get(CONFIG_SCHEMA.properties as object, key)).toBe(schema);
    }
  });

  it('organization and project become headers, under config headers; the output field follows the host', () => {
    const config = resolveConfig(
      { organization: 'org-1', project: 'p', headers: { 'OpenAI-Project': 'q' } },
      { OPENAI_API_KEY: 'k' },
    );
    expect(config.headers).toEqual({ 'openai-organization': 'org-1', 'openai-project': 'q' });
    expect(config.maxTokensField).toBe('max_completion_tokens');
    expect(resolveConfig({ base_url: 'http://localhost:11434/v1' }, {}).maxTokensField).toBe('max_tokens');
    expect(resolveConfig({ organization: '' }, {}).headers).toEqual({});
  });
});

describe('the Responses keys', () => {
  it('are resolved into `responses` (defaults: summary auto, stateless) and checked at creation', () => {
    expect(resolveConfig({}, {}).responses).toEqual({ reasoningSummary: 'auto', store: false });
    expect(
      resolveConfig(
        {
          reasoning_effort: 'max',
          reasoning_summary: 'detailed',
          store: true,
          prompt_cache_key: 'team-a',
          prompt_cache_retention: '24h',
          truncation: 'disabled',
        },
        {},
      ).responses,
    ).toEqual({
      reasoningEffort: 'max',
      reasoningSummary: 'detailed',
      store: true,
      promptCacheKey: 'team-a',
      promptCacheRetention: '24h',
      truncation: 'disabled',
    });
    expect(() => createOpenAIProvider({ api: 'soap' as 'chat' })).toThrow(/api must be one of/);
    expect(() => createOpenAIProvider({ reasoning_summary: 'verbose' as 'auto' })).toThrow(
      /reasoning_summary must be one of/,
    );
    expect(() => createOpenAIProvider({ prompt_cache_key: 'k'.repeat(65) })).toThrow(/prompt_cache_key/);
  });
});
