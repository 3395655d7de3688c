/**
 * The module against the kit's conformance suites: `providerConformance`
 * (mount, info, models, a completion) and `transportConformance` for both
 * transports the provider plugs into the kit: the undici pool (Gemini API)
 * and the same pool behind `bearerTransport` (Vertex AI).
 */
import { poolTransport } from '@amplifier/provider-http';
import { FakeLlmServer, reply, transportConformance } from '@amplifier/provider-http/testing';
import { providerConformance } from '@amplifier/testing';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe } from 'vitest';
import { bearerTransport, staticTokenSource } from './auth.js';
import { mount } from './index.js';

// The suite mounts with this config (copied per mount): base_url is filled in once the local server is up.
const config: Record<string, unknown> = { api_key: 'gm-test', use_streaming: false, max_retries: 0 };
let server: FakeLlmServer;
beforeAll(async () => {
  server = await FakeLlmServer.start();
  server.fallback((req, res) =>
    req.url.includes('/models?')
      ? reply.json(200, {
          models: [
            {
              name: 'models/gemini-2.5-flash',
              displayName: 'Gemini 2.5 Flash',
              supportedGenerationMethods: ['generateContent'],
            },
          ],
        })(req, res)
      : reply.json(200, {
          candidates: [{ content: { role: 'model', parts: [{ text: 'Hello.' }] }, finishReason: 'STOP' }],
          usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 },
          modelVersion: 'gemini-2.5-flash',
        })(req, res),
  );
  config.base_url = server.url;
});
afterAll(() => server.close());

providerConformance({ mount, config });

describe('Gemini API transport (undici pool)', () => {
  transportConformance({
    create: (baseUrl) => poolTransport(new Pool(baseUrl.origin, { connections: 2, pipelining: 1 })),
  });
});

describe('Vertex AI transport (the pool behind bearerTransport)', () => {
  transportConformance({
    create: (baseUrl) =>
      bearerTransport(
        poolTransport(new Pool(baseUrl.origin, { connections: 2, pipelining: 1 })),
        staticTokenSource('ya29.test'),
      ),
  });
});
