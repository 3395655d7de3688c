/**
 * Microsoft Entra ID for Azure OpenAI (AZ2): tokens cached and refreshed
 * before they expire, the bearer header on every request, and the real
 * `@azure/identity` credentials (managed identity, DefaultAzureCredential)
 * against a 127.0.0.1 token endpoint standing in for the host's identity
 * service (App Service's `IDENTITY_ENDPOINT`): no request leaves the machine.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeLlmServer, llmErrorOf, reply } from '@amplifier/provider-http/testing';
import { createTestCoordinator, RecordingLogger } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { textStream } from './__fixtures__/wire.js';
import { resolveAzureConfig } from './azure.js';
import {
  type AzureAccessToken,
  COGNITIVE_SERVICES_SCOPE,
  credentialTokenSource,
  identityCredential,
  REFRESH_MARGIN_MS,
} from './azure-auth.js';
import { AzureOpenAIProvider } from './azure-provider.js';
import { createAzureOpenAIProvider, mount } from './index.js';

const REQUEST = { messages: [{ role: 'user' as const, content: 'hi' }] };
const HOUR = 3_600_000;

/** A credential that hands out `tok-1`, `tok-2`... expiring `lifetime` after the fake clock's now. */
function countingCredential(clock: { now: number }, lifetime = HOUR) {
  const calls: string[][] = [];
  let failNext: Error | undefined;
  return {
    calls,
    failOnce(error: Error) {
      failNext = error;
    },
    async getToken(scopes: string | string[]): Promise<AzureAccessToken | null> {
      calls.push([scopes].flat());
      if (failNext !== undefined) {
        const error = failNext;
        failNext = undefined;
        throw error;
      }
      return { token: `tok-${calls.length}`, expiresOnTimestamp: clock.now + lifetime };
    },
  };
}

describe('token cache', () => {
  it('one token until shortly before it expires, then a new one; the Cognitive Services scope', async () => {
    const clock = { now: 1_000_000 };
    const credential = countingCredential(clock);
    const source = credentialTokenSource(credential, () => clock.now);
    expect(await source.getToken()).toBe('tok-1');
    clock.now += HOUR - REFRESH_MARGIN_MS - 1;
    expect(await source.getToken()).toBe('tok-1');
    clock.now += 1;
    expect(await source.getToken()).toBe('tok-2');
    expect(credential.calls).toEqual([[COGNITIVE_SERVICES_SCOPE], [COGNITIVE_SERVICES_SCOPE]]);
  });

  it('concurrent requests share one refresh; refreshAfterTimestamp is honoured', async () => {
    const clock = { now: 0 };
    let calls = 0;
    const source = credentialTokenSource(
      {
        async getToken() {
          calls++;
          return {
            token: `t${calls}`,
            expiresOnTimestamp: clock.now + HOUR,
            refreshAfterTimestamp: clock.now + 1000,
          };
        },
      },
      () => clock.now,
    );
    expect(await Promise.all([source.getToken(), source.getToken(), source.getToken()])).toEqual([
      't1',
      't1',
      't1',
    ]);
    clock.now = 1000;
    expect(await source.getToken()).toBe('t2');
    expect(calls).toBe(2);
  });

  it('a failed refresh keeps a token that is still valid; an expired one fails as authentication', async () => {
    const clock = { now: 0 };
    const credential = countingCredential(clock, REFRESH_MARGIN_MS * 2);
    const source = credentialTokenSource(credential, () => clock.now);
    expect(await source.getToken()).toBe('tok-1');
    clock.now = REFRESH_MARGIN_MS + 1; // due for refresh, not expired
    credential.failOnce(new Error('token endpoint down'));
    expect(await source.getToken()).toBe('tok-1');
    clock.now = REFRESH_MARGIN_MS * 2 + 1; // expired
    credential.failOnce(new Error('token endpoint down'));
    const error = await llmErrorOf(source.getToken());
    expect(error.kind).toBe('authentication');
    expect(error.message).toContain('could not get a Microsoft Entra ID token (token endpoint down)');
    expect(error.message).toContain('az login');
    expect(await source.getToken()).toBe('tok-4');
  });

  it('a credential that gives no token is an authentication error', async () => {
    for (const answer of [null, { token: '', expiresOnTimestamp: 0 }, { expiresOnTimestamp: 0 }]) {
      const source = credentialTokenSource({ getToken: async () => answer as AzureAccessToken | null });
      expect((await llmErrorOf(source.getToken())).kind).toBe('authentication');
    }
  });

  it('without @azure/identity installed: a configuration error saying to install it or use a key', async () => {
    const credential = identityCredential({ kind: 'default_credential' }, () =>
      Promise.reject(new Error("Cannot find package '@azure/identity'")),
    );
    const error = await llmErrorOf(credentialTokenSource(credential).getToken());
    expect(error.kind).toBe('configuration');
    expect(error.message).toContain('use_default_credential needs the optional package @azure/identity');
    expect(error.message).toContain('AZURE_OPENAI_API_KEY');
  });
});

describe('requests with Entra ID tokens', () => {
  let server: FakeLlmServer;
  beforeEach(async () => {
    server = await FakeLlmServer.start();
  });
  afterEach(() => server.close());

  it('an app credential: Authorization: Bearer on every request, no api-key; config headers.authorization wins', async () => {
    const clock = { now: Date.now() };
    const credential = countingCredential(clock);
    const provider = createAzureOpenAIProvider({ azure_endpoint: server.url }, { credential });
    server.enqueue(reply.sse(textStream(['a'])), reply.sse(textStream(['b'])));
    await provider.complete(REQUEST);
    await provider.complete(REQUEST);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer tok-1', 'Bearer tok-1']);
    expect(server.requests[0]!.headers['api-key']).toBeUndefined();
    await provider.close();

    const fixed = createAzureOpenAIProvider(
      { azure_endpoint: server.url, headers: { Authorization: 'Bearer from-config' } },
      { credential },
    );
    server.enqueue(reply.sse(textStream(['c'])));
    await fixed.complete(REQUEST);
    expect(server.requests[2]!.headers.authorization).toBe('Bearer from-config');
    expect(credential.calls).toHaveLength(1);
    await fixed.close();
  });

  it('azure_ad_token: sent as the bearer token', async () => {
    const provider = createAzureOpenAIProvider({ azure_endpoint: server.url, azure_ad_token: 'eyJ.static' });
    server.enqueue(reply.sse(textStream(['a'])));
    await provider.complete(REQUEST);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer eyJ.static');
    await provider.close();
  });

  it('a credential that fails: an authentication error, the API never called', async () => {
    const provider = createAzureOpenAIProvider(
      { azure_endpoint: server.url, max_retries: 2 },
      {
        credential: {
          getToken: () => Promise.reject(new Error('AADSTS700016: application not found')),
        },
      },
    );
    const error = await llmErrorOf(provider.complete(REQUEST));
    expect(error.kind).toBe('authentication');
    expect(error.message).toContain('AADSTS700016');
    expect(server.requests).toHaveLength(0);
    await provider.close();
  });
});

describe('@azure/identity for real (a local identity endpoint)', () => {
  let server: FakeLlmServer;
  let identity: http.Server;
  const tokenRequests: Array<{ url: string; header: unknown }> = [];
  const saved: Record<string, string | undefined> = {};
  const VARS = [
    'IDENTITY_ENDPOINT',
    'IDENTITY_HEADER',
    'AZURE_USE_MANAGED_IDENTITY',
    'AZURE_USE_DEFAULT_CREDENTIAL',
  ];

  beforeEach(async () => {
    server = await FakeLlmServer.start();
    tokenRequests.length = 0;
    identity = http.createServer((req, res) => {
      tokenRequests.push({ url: req.url ?? '', header: req.headers['x-identity-header'] });
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          access_token: `mi-token-${tokenRequests.length}`,
          expires_on: String(Math.floor(Date.now() / 1000) + 3600),
          resource: 'https://cognitiveservices.azure.com',
          token_type: 'Bearer',
        }),
      );
    });
    await new Promise<void>((resolve) => identity.listen(0, '127.0.0.1', resolve));
    for (const name of VARS) saved[name] = process.env[name];
    // App Service's managed identity endpoint: what @azure/identity (through MSAL) reads on that host.
    process.env.IDENTITY_ENDPOINT = `http://127.0.0.1:${(identity.address() as AddressInfo).port}/msi/token`;
    process.env.IDENTITY_HEADER = 'identity-secret';
  });
  afterEach(async () => {
    for (const name of VARS) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    await new Promise<void>((resolve) => identity.close(() => resolve()));
    await server.close();
  });

  it('use_managed_identity: ManagedIdentityCredential asks the host for a Cognitive Services token, sent as Bearer', async () => {
    const provider = new AzureOpenAIProvider(
      resolveAzureConfig({ azure_endpoint: server.url, use_managed_identity: true }, {}),
    );
    server.enqueue(reply.sse(textStream(['a'])), reply.sse(textStream(['b'])));
    await provider.complete(REQUEST);
    await provider.complete(REQUEST);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer mi-token-1',
      'Bearer mi-token-1',
    ]);
    expect(tokenRequests).toHaveLength(1);
    expect(tokenRequests[0]!.url).toContain('resource=https%3A%2F%2Fcognitiveservices.azure.com');
    expect(tokenRequests[0]!.header).toBe('identity-secret');
    await provider.close();
  });

  it('AZURE_USE_DEFAULT_CREDENTIAL=true: DefaultAzureCredential finds the managed identity of the host', async () => {
    process.env.AZURE_USE_DEFAULT_CREDENTIAL = 'true';
    const logger = new RecordingLogger();
    const coordinator = createTestCoordinator({ bare: true, logger });
    const cleanup = await mount(coordinator, { azure: true, azure_endpoint: server.url });
    server.enqueue(reply.sse(textStream(['a'])));
    await coordinator.get('providers', 'azure-openai')!.complete(REQUEST);
    // Only the local identity endpoint makes `mi-token-*` (MSAL may answer from its process-wide cache).
    expect(server.requests[0]!.headers.authorization).toMatch(/^Bearer mi-token-\d$/);
    await cleanup?.();
  });
});
