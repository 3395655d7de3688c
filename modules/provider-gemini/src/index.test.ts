/**
 * Mounting and config: where the key and base URL come from, when the
 * provider does not mount, the config policy (unknown keys warned, a misspelt
 * base_url refused), and the config type derived from the schema.
 */
import { AmplifierError } from '@amplifier/core';
import { createTestCoordinator, RecordingLogger } from '@amplifier/testing';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type GeminiConfig, resolveConfig } from './config.js';
import { createGeminiProvider, mount } from './index.js';

describe('config', () => {
  it('key: api_key, else GOOGLE_API_KEY, else GEMINI_API_KEY (the order of Google SDKs)', () => {
    expect(resolveConfig({}, { GEMINI_API_KEY: 'g', GOOGLE_API_KEY: 'o' }).apiKey).toBe('o');
    expect(resolveConfig({}, { GEMINI_API_KEY: 'g' }).apiKey).toBe('g');
    expect(resolveConfig({ api_key: 'c' }, { GEMINI_API_KEY: 'g' }).apiKey).toBe('c');
    expect(resolveConfig({}, {}).apiKey).toBeUndefined();
  });

  it('base URL: base_url, else GOOGLE_GEMINI_BASE_URL, else Google; /v1beta appended unless a version is there', () => {
    expect(resolveConfig({}, {}).baseUrl.href).toBe('https://generativelanguage.googleapis.com/v1beta');
    expect(resolveConfig({}, { GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:8080' }).baseUrl.href).toBe(
      'http://127.0.0.1:8080/v1beta',
    );
    expect(resolveConfig({ base_url: 'https://proxy.example/gemini/v1beta/' }, {}).baseUrl.href).toBe(
      'https://proxy.example/gemini/v1beta',
    );
    expect(resolveConfig({ api_version: 'v1' }, {}).baseUrl.pathname).toBe('/v1');
  });

  it('defaults: gemini-2.5-flash, temperature 0.7, thoughts included, no budget', () => {
    const resolved = resolveConfig({}, {});
    expect(resolved).toMatchObject({
      model: 'gemini-2.5-flash',
      temperature: 0.7,
      includeThoughts: true,
      thinkingBudget: undefined,
      vertex: undefined,
    });
  });

  it('the config type is derived from the schema', () => {
    expectTypeOf<GeminiConfig['thinking_budget']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<GeminiConfig['thinking_level']>().toEqualTypeOf<
      'minimal' | 'low' | 'medium' | 'high' | undefined
    >();
    expectTypeOf<NonNullable<GeminiConfig['vertex']>['project']>().toEqualTypeOf<string>();
    // @ts-expect-error include_thoughts is a boolean (and refused at run time)
    expect(() => createGeminiProvider({ api_key: 'k', include_thoughts: 'yes' })).toThrow(/include_thoughts/);
  });
});

describe('mount', () => {
  it('mounts as gemini with a key, declares the stream events, and cleans up', async () => {
    const coordinator = createTestCoordinator({ bare: true });
    const cleanup = await mount(coordinator, { api_key: 'k' });
    const provider = coordinator.get('providers').get('gemini');
    expect(provider?.getInfo()).toMatchObject({
      id: 'gemini',
      credential_env_vars: ['GOOGLE_API_KEY', 'GEMINI_API_KEY'],
    });
    await cleanup?.();
  });

  it('without a key it does not mount and says which variables to set', async () => {
    const saved = {
      google: process.env.GOOGLE_API_KEY,
      gemini: process.env.GEMINI_API_KEY,
      base: process.env.GOOGLE_GEMINI_BASE_URL,
    };
    delete process.env.GOOGLE_API_KEY;
    delete process.env.GEMINI_API_KEY;
    delete process.env.GOOGLE_GEMINI_BASE_URL;
    try {
      const logger = new RecordingLogger();
      const coordinator = createTestCoordinator({ bare: true, logger });
      expect(await mount(coordinator, {})).toBeUndefined();
      expect(coordinator.get('providers').size).toBe(0);
      expect(logger.problemsSince().join('\n')).toContain(
        'provider-gemini: not mounted: no API key. Set GEMINI_API_KEY',
      );
    } finally {
      for (const [key, value] of [
        ['GOOGLE_API_KEY', saved.google],
        ['GEMINI_API_KEY', saved.gemini],
        ['GOOGLE_GEMINI_BASE_URL', saved.base],
      ] as const) {
        if (value !== undefined) process.env[key] = value;
      }
    }
  });

  it('a local server (a recording replayed on 127.0.0.1) and Vertex AI mount without a key', async () => {
    const coordinator = createTestCoordinator({ bare: true });
    const local = await mount(coordinator, { api_key: '', base_url: 'http://127.0.0.1:9' });
    expect(coordinator.get('providers').size).toBe(1);
    await local?.();
    const other = createTestCoordinator({ bare: true });
    const vertex = await mount(other, { vertex: { project: 'p', access_token: 't' } });
    expect(other.get('providers').get('gemini')?.getInfo().display_name).toBe('Google Gemini (Vertex AI)');
    await vertex?.();
  });

  it('an unknown key warns once and the provider mounts; a misspelt base_url is refused', async () => {
    const logger = new RecordingLogger();
    const coordinator = createTestCoordinator({ bare: true, logger });
    const cleanup = await mount(coordinator, { api_key: 'k', colour: 'red', vertex: undefined });
    expect(logger.problemsSince()).toEqual(["provider-gemini: unknown config key 'colour' is ignored"]);
    await cleanup?.();
    const error = await mount(createTestCoordinator({ bare: true }), {
      api_key: 'k',
      baseurl: 'http://x',
    }).catch((e: unknown) => e);
    expect(AmplifierError.is(error, 'CONFIG_REFUSED')).toBe(true);
  });
});
