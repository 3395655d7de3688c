/**
 * The Azure OpenAI flavour's config: Amplifier's azure-openai keys and
 * variables (AZ10), the URLs of the v1 API and of deployments with a dated
 * `api-version` (AZ1, also for the Responses API), and the mount: reached
 * through the `provider-azure-openai` alias of this module's manifest, never
 * mounted without an endpoint or credentials.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ModuleLoader, silentLogger } from '@amplifier/core';
import { FakeLlmServer, reply } from '@amplifier/provider-http/testing';
import { createTestCoordinator, RecordingLogger } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { textStream } from './__fixtures__/wire.js';
import {
  AzureOpenAIProvider,
  azureApiPath,
  azureMountProblem,
  createAzureOpenAIProvider,
  isAzureConfig,
  mount,
  OpenAIProvider,
  resolveAzureConfig,
} from './index.js';

const AZURE_ENV_VARS = [
  'AZURE_OPENAI_ENDPOINT',
  'AZURE_OPENAI_BASE_URL',
  'AZURE_OPENAI_API_KEY',
  'AZURE_OPENAI_KEY',
  'AZURE_OPENAI_AD_TOKEN',
  'AZURE_USE_MANAGED_IDENTITY',
  'AZURE_USE_DEFAULT_CREDENTIAL',
  'AZURE_MANAGED_IDENTITY_CLIENT_ID',
  'OPENAI_API_VERSION',
  'AZURE_OPENAI_API_VERSION',
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
];
const saved = new Map<string, string | undefined>();
let server: FakeLlmServer;
beforeEach(async () => {
  for (const name of AZURE_ENV_VARS) {
    saved.set(name, process.env[name]);
    delete process.env[name];
  }
  server = await FakeLlmServer.start();
});
afterEach(async () => {
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await server.close();
});

function coordinator() {
  const logger = new RecordingLogger();
  return { coordinator: createTestCoordinator({ bare: true, logger }), logger };
}
const warnings = (logger: RecordingLogger): string =>
  logger.records
    .filter((r) => r.level === 'warn')
    .map((r) => r.message)
    .join('\n');

describe('URLs (AZ1)', () => {
  it('the v1 API by default: /openai/v1/<operation>, the deployment in the body', () => {
    expect(azureApiPath('chat/completions', 'v1', 'my-gpt')).toBe('/v1/chat/completions');
    expect(azureApiPath('responses', 'v1', 'my-gpt')).toBe('/v1/responses');
    expect(azureApiPath('responses', 'preview', 'my-gpt')).toBe('/v1/responses?api-version=preview');
    expect(azureApiPath('chat/completions', 'latest', 'd')).toBe('/v1/chat/completions?api-version=latest');
  });

  it('a dated api-version: the deployment URLs (Responses names the deployment in the body)', () => {
    expect(azureApiPath('chat/completions', '2024-10-21', 'my-gpt')).toBe(
      '/deployments/my-gpt/chat/completions?api-version=2024-10-21',
    );
    expect(azureApiPath('responses', '2025-04-01-preview', 'my-gpt')).toBe(
      '/responses?api-version=2025-04-01-preview',
    );
    // A deployment name cannot leave its path segment.
    expect(azureApiPath('chat/completions', '2024-10-21', '../../x?y=1')).toBe(
      '/deployments/..%2F..%2Fx%3Fy%3D1/chat/completions?api-version=2024-10-21',
    );
  });
});

describe('config (AZ10)', () => {
  it("Amplifier's keys: azure_endpoint (its /openai suffix dropped), api_key, default_deployment, api_version", () => {
    const resolved = resolveAzureConfig(
      {
        azure_endpoint: 'https://res.openai.azure.com/openai/v1/',
        api_key: 'k',
        default_deployment: 'prod-gpt',
        api_version: '2024-10-21',
        deployment_type: 'ptu',
      },
      {},
    );
    expect(resolved.baseUrl.href).toBe('https://res.openai.azure.com/openai');
    expect(resolved.azure).toMatchObject({ apiVersion: '2024-10-21', auth: { kind: 'api_key' }, ptu: true });
    expect(resolved.apiKey).toBe('k');
    expect(resolved.model).toBe('prod-gpt');
    expect(resolved.maxTokensField).toBe('max_completion_tokens');
  });

  it('the environment: endpoint, key and version variables, in that order of preference', () => {
    const resolved = resolveAzureConfig(
      {},
      {
        AZURE_OPENAI_BASE_URL: 'https://other.openai.azure.com',
        AZURE_OPENAI_ENDPOINT: 'https://res.openai.azure.com',
        AZURE_OPENAI_KEY: 'old-name',
        OPENAI_API_VERSION: '2025-04-01-preview',
        OPENAI_API_KEY: 'sk-openai',
      },
    );
    expect(resolved.azure.endpoint?.href).toBe('https://res.openai.azure.com/');
    expect(resolved.apiKey).toBe('old-name');
    expect(resolved.azure.apiVersion).toBe('2025-04-01-preview');
    expect(resolved.model).toBe('gpt-5.4');
    // OpenAI's own variables are never Azure's.
    expect(resolveAzureConfig({}, { OPENAI_API_KEY: 'sk' }).apiKey).toBeUndefined();
    expect(resolveAzureConfig({}, { AZURE_OPENAI_API_KEY: 'a', AZURE_OPENAI_KEY: 'b' }).apiKey).toBe('a');
  });

  it('Entra ID settings: token, managed identity (with client id), default credential', () => {
    const base = { azure_endpoint: 'https://res.openai.azure.com' };
    expect(resolveAzureConfig({ ...base, azure_ad_token: 'eyJ' }, {}).azure.auth).toEqual({
      kind: 'token',
      token: 'eyJ',
    });
    expect(
      resolveAzureConfig(base, {
        AZURE_USE_MANAGED_IDENTITY: 'true',
        AZURE_MANAGED_IDENTITY_CLIENT_ID: 'cid',
      }).azure.auth,
    ).toEqual({ kind: 'managed_identity', clientId: 'cid' });
    expect(resolveAzureConfig({ ...base, use_default_credential: true }, {}).azure.auth).toEqual({
      kind: 'default_credential',
      clientId: undefined,
    });
    // A key wins over every Entra ID setting; config false wins over the variable.
    expect(
      resolveAzureConfig({ ...base, api_key: 'k', use_managed_identity: true }, {}).azure.auth.kind,
    ).toBe('api_key');
    expect(
      resolveAzureConfig({ ...base, use_managed_identity: false }, { AZURE_USE_MANAGED_IDENTITY: '1' }).azure
        .auth.kind,
    ).toBe('none');
  });

  it('a remote endpoint mounts with any credential: a key, a token, a managed identity, the default chain', () => {
    const endpoint = { azure_endpoint: 'https://res.openai.azure.com' };
    for (const config of [
      { api_key: 'k' },
      { azure_ad_token: 't' },
      { use_managed_identity: true },
      { use_default_credential: true },
    ])
      expect(azureMountProblem(resolveAzureConfig({ ...endpoint, ...config }, {}))).toBeUndefined();
    expect(azureMountProblem(resolveAzureConfig(endpoint, {}))).toContain('no credentials');
    // A local endpoint (a recording server) needs none.
    expect(
      azureMountProblem(resolveAzureConfig({ azure_endpoint: 'http://127.0.0.1:9' }, {})),
    ).toBeUndefined();
  });

  it('bad values say what was wanted', () => {
    expect(() => resolveAzureConfig({}, { AZURE_OPENAI_ENDPOINT: 'res.openai.azure.com' })).toThrow(
      /AZURE_OPENAI_ENDPOINT 'res.openai.azure.com' is not a URL; use the resource endpoint/,
    );
    expect(() => resolveAzureConfig({}, { OPENAI_API_VERSION: 'yesterday' })).toThrow(
      /OPENAI_API_VERSION 'yesterday' is not an Azure OpenAI api-version: use v1, preview, or a dated version/,
    );
    expect(() =>
      createAzureOpenAIProvider({ azure_endpoint: 'https://r.openai.azure.com', api_version: '2024' }),
    ).toThrow(/api_version/);
  });

  it('which configs are Azure: azure true, or an azure_endpoint', () => {
    expect(isAzureConfig({ azure: true })).toBe(true);
    expect(isAzureConfig({ azure_endpoint: 'https://r.openai.azure.com' })).toBe(true);
    expect(isAzureConfig({ azure: false, azure_endpoint: 'https://r.openai.azure.com' })).toBe(false);
    expect(isAzureConfig({ base_url: 'https://r.openai.azure.com' })).toBe(false);
    // An inherited flag is no setting.
    expect(isAzureConfig(Object.create({ azure: true }) as Record<string, unknown>)).toBe(false);
  });
});

describe('mount', () => {
  it('without an endpoint: not mounted, the warning names AZURE_OPENAI_ENDPOINT', async () => {
    const { coordinator: c, logger } = coordinator();
    process.env.AZURE_OPENAI_API_KEY = 'k';
    expect(await mount(c, { azure: true })).toBeUndefined();
    expect(c.get('providers').size).toBe(0);
    expect(warnings(logger)).toContain(
      'provider-azure-openai: not mounted: no Azure OpenAI endpoint. Set AZURE_OPENAI_ENDPOINT',
    );
  });

  it('without credentials: not mounted, the warning names the key variable and the Entra ID settings', async () => {
    const { coordinator: c, logger } = coordinator();
    process.env.AZURE_OPENAI_ENDPOINT = 'https://res.openai.azure.com';
    expect(await mount(c, { azure: true })).toBeUndefined();
    expect(warnings(logger)).toMatch(
      /not mounted: no credentials for https:\/\/res\.openai\.azure\.com\/\. Set AZURE_OPENAI_API_KEY.*AZURE_USE_DEFAULT_CREDENTIAL/,
    );
    expect(() => createAzureOpenAIProvider({ azure_endpoint: 'https://res.openai.azure.com' })).toThrow(
      /no credentials/,
    );
  });

  it('from the environment: mounted as azure-openai, the key in api-key, the deployment in the body', async () => {
    process.env.AZURE_OPENAI_ENDPOINT = `${server.url}/openai/`;
    process.env.AZURE_OPENAI_API_KEY = 'az-key';
    process.env.OPENAI_API_KEY = 'sk-not-this-one';
    server.enqueue(reply.sse(textStream(['hi'])));
    const { coordinator: c } = coordinator();
    const cleanup = await mount(c, { azure: true, default_model: 'my-deployment' });
    const provider = c.get('providers', 'azure-openai')!;
    expect(provider).toBeInstanceOf(AzureOpenAIProvider);
    expect(await provider.listModels?.()).toEqual([]);
    await provider.complete({ messages: [{ role: 'user', content: 'hi' }] });
    const request = server.requests[0]!;
    expect(request.url).toBe('/openai/v1/chat/completions');
    expect(request.headers['api-key']).toBe('az-key');
    expect(request.headers.authorization).toBeUndefined();
    expect(request.body).toMatchObject({ model: 'my-deployment', stream: true });
    await cleanup?.();
  });

  it('a dated api_version: the deployment URL; a request model is the deployment', async () => {
    server.enqueue(reply.sse(textStream(['hi'])));
    const { coordinator: c } = coordinator();
    const cleanup = await mount(c, {
      azure: true,
      azure_endpoint: server.url,
      api_key: 'k',
      api_version: '2024-10-21',
    });
    await c
      .get('providers', 'azure-openai')!
      .complete({ messages: [{ role: 'user', content: 'hi' }], model: 'gpt4o-east' });
    expect(server.requests[0]!.url).toBe(
      '/openai/deployments/gpt4o-east/chat/completions?api-version=2024-10-21',
    );
    await cleanup?.();
  });

  it('a plain provider-openai config never turns Azure from the environment', async () => {
    process.env.AZURE_OPENAI_ENDPOINT = 'https://res.openai.azure.com';
    process.env.AZURE_OPENAI_API_KEY = 'az-key';
    const { coordinator: c } = coordinator();
    const cleanup = await mount(c, { api_key: 'sk', base_url: `${server.url}/v1` });
    expect(c.get('providers', 'openai')).toBeInstanceOf(OpenAIProvider);
    expect(c.get('providers', 'azure-openai')).toBeUndefined();
    await cleanup?.();
  });

  it('the module id provider-azure-openai loads this module through its manifest alias, with azure: true', async () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(manifest.amplifier.aliases).toContainEqual(
      expect.objectContaining({ id: 'provider-azure-openai', config: { azure: true } }),
    );
    const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'azure-alias-')));
    try {
      const loader = new ModuleLoader({
        baseDir: dir,
        searchPaths: [fileURLToPath(new URL('..', import.meta.url))],
        logger: silentLogger,
      });
      const loaded = await loader.load(
        'provider-azure-openai',
        { azure_endpoint: server.url, api_key: 'k' },
        { type: 'provider' },
      );
      expect(loaded).toMatchObject({ id: 'provider-azure-openai', aliasOf: 'provider-openai' });
      server.enqueue(reply.sse(textStream(['hi'])));
      const { coordinator: c } = coordinator();
      const cleanup = await loaded.mount(c);
      const provider = c.get('providers', 'azure-openai');
      expect(provider?.name).toBe('azure-openai');
      await provider!.complete({ messages: [{ role: 'user', content: 'hi' }] });
      expect(server.requests[0]).toMatchObject({
        url: '/openai/v1/chat/completions',
        headers: { 'api-key': 'k' },
      });
      await cleanup?.();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
