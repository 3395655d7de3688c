import { AmplifierError, type JSONSchema } from '@amplifier/core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  assertProviderConfig,
  defineProviderConfig,
  isLocalUrl,
  PROVIDER_CONFIG_PROPERTIES,
  type ProviderConfig,
  type ProviderDefaults,
  readProviderConfig,
  resolveProviderConfig,
} from './config.js';
import type { ModelPrice } from './cost.js';
import type { ModelLimits } from './models.js';

const defaults: ProviderDefaults = {
  module: 'provider-test',
  apiKeyEnv: 'TEST_API_KEY',
  baseUrlEnv: 'TEST_BASE_URL',
  baseUrl: 'https://api.test.example/v1',
  model: 'test-model',
  baseUrlHint: '; use the API root, e.g. http://localhost:8080/v1',
};
const schema: JSONSchema = {
  type: 'object',
  properties: { ...PROVIDER_CONFIG_PROPERTIES, temperature: { type: 'number', minimum: 0, maximum: 2 } },
};

describe('resolveProviderConfig', () => {
  it('defaults', () => {
    expect(resolveProviderConfig({}, defaults, {})).toEqual({
      apiKey: undefined,
      baseUrl: new URL('https://api.test.example/v1'),
      model: 'test-model',
      maxTokens: undefined,
      temperature: undefined,
      topP: undefined,
      timeoutMs: 600_000,
      maxRetries: 5,
      minRetryDelayMs: 1000,
      maxRetryDelayMs: 60_000,
      jitter: 0.2,
      useStreaming: true,
      priority: 100,
      connections: 5,
      models: {},
      prices: {},
      headers: {},
      extraBody: {},
      raw: false,
    });
  });

  it('config over the environment over the defaults; seconds become ms; header names lower-cased', () => {
    const env = { TEST_API_KEY: 'sk-env', TEST_BASE_URL: 'http://localhost:9/v1///' };
    const fromEnv = resolveProviderConfig({}, defaults, env);
    expect(fromEnv.apiKey).toBe('sk-env');
    expect(fromEnv.baseUrl.href).toBe('http://localhost:9/v1');
    const resolved = resolveProviderConfig(
      {
        api_key: 'sk-config',
        base_url: 'http://127.0.0.1:8000/',
        model: 'alias',
        timeout: 1.5,
        max_retries: 0,
        min_retry_delay: 0.25,
        max_retry_delay: 3,
        retry_jitter: false,
        max_concurrent_requests: 2,
        headers: { 'X-Trace': 'on' },
        temperature: 0,
      },
      defaults,
      env,
    );
    expect(resolved).toMatchObject({
      apiKey: 'sk-config',
      model: 'alias',
      timeoutMs: 1500,
      maxRetries: 0,
      minRetryDelayMs: 250,
      maxRetryDelayMs: 3000,
      jitter: 0,
      connections: 2,
      headers: { 'x-trace': 'on' },
      temperature: 0,
    });
    expect(resolved.baseUrl.href).toBe('http://127.0.0.1:8000/');
    expect(
      resolveProviderConfig({ model: 'a', default_model: 'b', retry_jitter: 0.5 }, defaults, {}),
    ).toMatchObject({ model: 'b', jitter: 0.5 });
    expect(resolveProviderConfig({ api_key: '' }, defaults, { TEST_API_KEY: '' }).apiKey).toBeUndefined();
  });

  it('a base URL that does not parse (from the environment) names the module and the fix', () => {
    expect(() => resolveProviderConfig({}, defaults, { TEST_BASE_URL: 'http://' })).toThrow(
      "provider-test: base_url 'http://' is not a URL; use the API root, e.g. http://localhost:8080/v1",
    );
  });
});

describe('assertProviderConfig', () => {
  it('lists every bad key with the module name', () => {
    let thrown: unknown;
    try {
      assertProviderConfig(
        schema,
        { temperature: 'hot', max_retries: -1, base_url: 'ftp://x' },
        'provider-test',
      );
    } catch (error) {
      thrown = error;
    }
    const message = (thrown as Error).message;
    expect(message).toMatch(/^provider-test: invalid config:/);
    expect(message).toContain('temperature must be number');
    expect(message).toContain('max_retries must be >= 0');
    expect(message).toContain('base_url must match pattern');
    expect(() =>
      assertProviderConfig(
        schema,
        { prices: { m: { input: 1 } }, models: { m: { context: 1 } } },
        'provider-test',
      ),
    ).toThrow(/prices\.m\.output is required/);
    expect(() =>
      assertProviderConfig(schema, { api_key: 'k', temperature: 1.2 }, 'provider-test'),
    ).not.toThrow();
  });
});

describe('isLocalUrl', () => {
  it.each([
    ['http://localhost:11434/v1', true],
    ['http://api.localhost/v1', true],
    ['http://127.0.0.1:8000/v1', true],
    ['http://127.5.6.7/v1', true],
    ['http://[::1]:1234/v1', true],
    ['http://0.0.0.0:8080', true],
    ['https://api.openai.com/v1', false],
    ['http://192.168.1.10:11434/v1', false],
    ['http://localhost.example.com/v1', false],
  ])('%s -> %s', (url, local) => {
    expect(isLocalUrl(new URL(url))).toBe(local);
  });
});

describe('own properties only', () => {
  const loosening = {
    api_key: 'sk-stolen',
    base_url: 'http://attacker.example/v1',
    headers: { 'x-exfiltrate': '1' },
    max_retries: 1000,
    extra_body: { store: true },
  };
  const variants = (): Record<string, unknown>[] => [
    JSON.parse(`{"__proto__": ${JSON.stringify(loosening)}}`),
    Object.create(loosening) as Record<string, unknown>,
  ];

  it('a __proto__ key or an inherited base_url, api_key or header is no setting', () => {
    for (const raw of variants()) {
      expect(resolveProviderConfig(raw, defaults, {})).toEqual(resolveProviderConfig({}, defaults, {}));
      expect(() => assertProviderConfig(schema, raw, 'provider-test')).not.toThrow();
    }
  });

  it('an inherited bad value is not validated either (it is never read); an own one is', () => {
    const inherited = Object.create({ base_url: 'ftp://nope', max_retries: 'many' }) as Record<
      string,
      unknown
    >;
    expect(() => assertProviderConfig(schema, inherited, 'provider-test')).not.toThrow();
    expect(() => assertProviderConfig(schema, { max_retries: 'many' }, 'provider-test')).toThrow(
      /max_retries must be integer/,
    );
  });

  it('a header named __proto__ is a header, not a prototype', () => {
    const headers = JSON.parse('{"__proto__": "x", "X-Ok": "y"}');
    const resolved = resolveProviderConfig({ headers }, defaults, {});
    expect(Object.keys(resolved.headers)).toEqual(['__proto__', 'x-ok']);
    expect(Object.getPrototypeOf(resolved.headers)).toBe(Object.prototype);
  });
});

describe("readProviderConfig (core's config policy)", () => {
  it('leaves unknown keys out, at every level, with one warning each', () => {
    const warnings: string[] = [];
    const logger = { warn: (m: string) => warnings.push(m) };
    const raw = { api_key: 'k', organization: 'o', models: { m: { context_window: 5, context: 1 } } };
    expect(readProviderConfig(schema, raw, 'provider-test', logger)).toEqual({
      api_key: 'k',
      models: { m: { context_window: 5 } },
    });
    readProviderConfig(schema, raw, 'provider-test', logger);
    expect(warnings).toEqual([
      "provider-test: unknown config key 'organization' is ignored",
      "provider-test: unknown config key 'models.m.context' is ignored",
    ]);
  });

  it('refuses a misspelt base_url: the requests would go to the public API instead', () => {
    let error: unknown;
    try {
      readProviderConfig(schema, { base_ur: 'http://localhost:11434/v1' }, 'provider-test');
    } catch (caught) {
      error = caught;
    }
    expect(AmplifierError.is(error, 'CONFIG_REFUSED')).toBe(true);
    expect((error as Error).message).toContain(
      'to the default public API instead of the server the config names',
    );
  });
});

describe('ProviderConfig is derived from PROVIDER_CONFIG_PROPERTIES (issue 38, point 5)', () => {
  it('types each key as the schema says; a wrong-typed key does not compile', () => {
    expectTypeOf<ProviderConfig['retry_jitter']>().toEqualTypeOf<boolean | number | undefined>();
    expectTypeOf<NonNullable<ProviderConfig['models']>[string]>().toEqualTypeOf<Partial<ModelLimits>>();
    expectTypeOf<NonNullable<ProviderConfig['prices']>[string]>().toEqualTypeOf<ModelPrice>();
    // @ts-expect-error max_retries is a number, not a string
    const bad: ProviderConfig = { max_retries: 'three' };
    expect(() => assertProviderConfig(schema, bad, 'provider-test')).toThrow(/max_retries/);
  });
});

describe('defineProviderConfig: a provider declares its config once', () => {
  const CONFIG = defineProviderConfig({
    module: 'provider-x',
    apiKeyEnv: 'X_API_KEY',
    baseUrlEnv: 'X_BASE_URL',
    baseUrl: 'https://api.x.test/v1',
    model: 'x-1',
    baseUrlHint: '',
    properties: {
      temperature: { type: 'number', minimum: 0, maximum: 1 },
      tenant: { type: 'string' },
    },
    prompts: { apiKey: 'X key', apiKeyRequired: true },
    headers: (config): Record<string, string> =>
      config.tenant === undefined ? {} : { 'x-tenant': config.tenant },
  });

  it('derives the config type from the shared keys and its own', () => {
    type XConfig = Parameters<typeof CONFIG.resolve>[0];
    expectTypeOf<XConfig['tenant']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<XConfig['max_retries']>().toEqualTypeOf<number | undefined>();
    // @ts-expect-error tenant is a string
    const bad: XConfig = { tenant: 3 };
    expect(() => assertProviderConfig(CONFIG.schema, bad, 'provider-x')).toThrow(/tenant must be string/);
  });

  it('resolves the shared settings with its headers under config headers, from own properties only', () => {
    const { settings, config } = CONFIG.resolve(
      { tenant: 'a', headers: { 'X-Tenant': 'b', 'X-Other': 'c' }, max_retries: 2 },
      { X_API_KEY: 'k' },
    );
    expect(settings.apiKey).toBe('k');
    expect(settings.maxRetries).toBe(2);
    expect(settings.headers).toEqual({ 'x-tenant': 'b', 'x-other': 'c' });
    expect(config.tenant).toBe('a');
    const inherited = Object.create({ tenant: 'evil', api_key: 'stolen' }) as Record<string, unknown>;
    const resolved = CONFIG.resolve(inherited, {});
    expect(resolved.settings.apiKey).toBeUndefined();
    expect(resolved.settings.headers).toEqual({});
    expect(CONFIG.schema.properties).toMatchObject({
      ...PROVIDER_CONFIG_PROPERTIES,
      tenant: { type: 'string' },
    });
    expect(CONFIG.configFields('x-2').map((f) => [f.id, f.default ?? null])).toEqual([
      ['api_key', null],
      ['default_model', 'x-2'],
    ]);
  });
});
