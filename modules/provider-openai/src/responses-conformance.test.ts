/**
 * The Responses mode against the kit's conformance suites: the streaming
 * contract over the recorded Responses streams replayed by a local
 * FakeLlmServer (`__fixtures__/recorded/openai-responses-*`),
 * `providerConformance` for a provider mounted with `api: "responses"`, and
 * `transportConformance` for the undici pool it plugs into the kit.
 */
import { readFileSync } from 'node:fs';
import { poolTransport } from '@amplifier/provider-http';
import {
  FakeLlmServer,
  replayedStreams,
  reply,
  streamingConformance,
  transportConformance,
} from '@amplifier/provider-http/testing';
import { providerConformance } from '@amplifier/testing';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe } from 'vitest';
import { resolveConfig } from './config.js';
import { mount } from './index.js';
import { OpenAIProvider } from './provider.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`./__fixtures__/recorded/${name}`, import.meta.url), 'utf8');

describe('Responses API: streaming contract over recorded streams', () => {
  streamingConformance(
    replayedStreams({
      text: fixture('openai-responses-stream-text-cached-tokens.sse'),
      toolUse: fixture('openai-responses-stream-reasoning-summary-function-call.sse'),
      nonStreaming: JSON.parse(fixture('openai-responses-nonstream-reasoning-encrypted.json')),
      error: {
        status: 400,
        body: JSON.parse(fixture('openai-responses-error-400-unsupported-parameter.json')),
      },
      provider: (url, hooks) =>
        new OpenAIProvider(
          resolveConfig(
            {
              api: 'responses',
              api_key: 'sk-test',
              base_url: `${url}/v1`,
              min_retry_delay: 0.001,
              retry_jitter: false,
            },
            {},
          ),
          { hooks },
        ),
    }),
  );
});

describe('Responses API: provider conformance (mounted with api: "responses")', () => {
  // The suite mounts with this config (copied per mount): base_url is filled in once the local server is up.
  const config: Record<string, unknown> = {
    api: 'responses',
    api_key: 'sk-test',
    use_streaming: false,
    max_retries: 0,
  };
  let server: FakeLlmServer;
  beforeAll(async () => {
    server = await FakeLlmServer.start();
    server.fallback((req, res) =>
      req.url.endsWith('/models')
        ? reply.json(200, { object: 'list', data: [{ id: 'gpt-5-mini', object: 'model' }] })(req, res)
        : reply.json(200, JSON.parse(fixture('openai-responses-nonstream-reasoning-encrypted.json')))(
            req,
            res,
          ),
    );
    config.base_url = `${server.url}/v1`;
  });
  afterAll(() => server.close());

  providerConformance({ mount, config });
});

describe('Responses API: transport (undici pool)', () => {
  transportConformance({
    create: (baseUrl) => poolTransport(new Pool(baseUrl.origin, { connections: 2, pipelining: 1 })),
  });
});
