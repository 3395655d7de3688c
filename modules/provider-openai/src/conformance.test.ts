import { FakeLlmServer, reply } from '@amplifier/provider-http/testing';
import { providerConformance } from '@amplifier/testing';
import { afterAll, beforeAll } from 'vitest';
import { completion } from './__fixtures__/wire.js';
import { mount } from './index.js';

// The suite mounts with this config (copied per mount): base_url is filled in once the local server is up.
const config: Record<string, unknown> = { api_key: 'sk-test', use_streaming: false, max_retries: 0 };
let server: FakeLlmServer;
beforeAll(async () => {
  server = await FakeLlmServer.start();
  server.fallback((req, res) =>
    req.url.endsWith('/models')
      ? reply.json(200, { object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model' }] })(req, res)
      : reply.json(200, completion({ content: 'Hello.' }))(req, res),
  );
  config.base_url = `${server.url}/v1`;
});
afterAll(() => server.close());

providerConformance({ mount, config });
