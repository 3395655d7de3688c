/**
 * The module against the kit's conformance suites. `providerConformance`
 * mounts it through `mount` (SigV4 with static test credentials from the
 * environment, the SDK's default chain) against a 127.0.0.1 server.
 * `transportConformance` checks the transport the SDK's requests travel
 * through: `poolTransports` (an undici pool per origin), the same one
 * `TransportRequestHandler` hands every request to. The SDK itself (signing,
 * its request serialisation) sits above that transport; its part of the
 * faults (timeouts, aborts, refused and dropped connections through the SDK)
 * is covered by faults.test.ts.
 */
import { FakeLlmServer, reply, transportConformance } from '@amplifier/provider-http/testing';
import { providerConformance } from '@amplifier/testing';
import { afterAll, beforeAll, describe } from 'vitest';
import { isolateAwsEnv, TEST_CREDENTIALS } from './__fixtures__/env.js';
import { poolTransports } from './handler.js';
import { mount } from './index.js';

const config: Record<string, unknown> = { aws_region: 'us-east-1', use_streaming: false, max_retries: 0 };
let server: FakeLlmServer;
let restoreEnv: () => void;
beforeAll(async () => {
  restoreEnv = isolateAwsEnv();
  process.env.AWS_ACCESS_KEY_ID = TEST_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = TEST_CREDENTIALS.secretAccessKey;
  server = await FakeLlmServer.start();
  server.fallback(
    reply.json(200, {
      output: { message: { role: 'assistant', content: [{ text: 'Hello.' }] } },
      stopReason: 'end_turn',
      usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 },
      metrics: { latencyMs: 1 },
    }),
  );
  config.base_url = server.url;
});
afterAll(async () => {
  await server.close();
  restoreEnv();
});

providerConformance({ mount, config });

describe('the transport under the AWS SDK (an undici pool per origin)', () => {
  transportConformance({ create: (baseUrl) => poolTransports(2)(baseUrl.origin) });
});
