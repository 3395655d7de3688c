import { FakeLlmServer, reply } from '@amplifier/provider-http/testing';
import { providerConformance } from '@amplifier/testing';
import { afterAll, beforeAll } from 'vitest';
import { message } from './__fixtures__/wire.js';
import { mount } from './index.js';

// The suite mounts with this config (copied per mount): base_url is filled in once the local server is up.
const config: Record<string, unknown> = { api_key: 'sk-ant-test', use_streaming: false, max_retries: 0 };
let server: FakeLlmServer;
beforeAll(async () => {
  server = await FakeLlmServer.start();
  server.fallback((req, res) =>
    req.url.startsWith('/v1/models')
      ? reply.json(200, {
          data: [{ type: 'model', id: 'claude-sonnet-4-5', display_name: 'Claude Sonnet 4.5' }],
          has_more: false,
        })(req, res)
      : reply.json(200, message([{ type: 'text', text: 'Hello.' }]))(req, res),
  );
  config.base_url = server.url;
});
afterAll(() => server.close());

providerConformance({ mount, config });
