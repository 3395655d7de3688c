/**
 * The bridge against the kit's conformance suites, the whole chain real: the
 * `@ai-sdk/openai-compatible` package (a LanguageModelV3) pointed with
 * `baseURL` at a local FakeLlmServer that replays recorded Chat Completions
 * streams (`__fixtures__/recorded/`: unchanged copies of
 * /work/shared/realworld-fixtures/wire, sources in its README: openai-node and
 * openai-python snapshots of real gpt-4o streams). `providerConformance`
 * mounts the module from a plan that names the package, as an app would.
 *
 * `transportConformance` does not apply: the bridge plugs no `Transport` into
 * the kit's `ProviderHttpClient`; the package does its own HTTP with `fetch`.
 * What the transport checks cover (timeouts, aborts, refused and dropped
 * connections) is checked for the bridge in `faults.test.ts`, through the
 * package's fetch.
 */
import { readFileSync } from 'node:fs';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  FakeLlmServer,
  replayedStreams,
  reply,
  streamingConformance,
} from '@amplifier/provider-http/testing';
import { providerConformance } from '@amplifier/testing';
import { afterAll, beforeAll, describe } from 'vitest';
import { createAiSdkProvider, mount } from './index.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`./__fixtures__/recorded/${name}`, import.meta.url), 'utf8');

describe('streaming contract, @ai-sdk/openai-compatible over recorded streams', () => {
  streamingConformance(
    replayedStreams({
      text: fixture('openai-stream-text.sse'),
      toolUse: fixture('openai-stream-tool-call.sse'),
      nonStreaming: JSON.parse(fixture('openai-nonstream-parallel-tool-calls.json')),
      error: { status: 400, body: JSON.parse(fixture('openai-error-400-context-length.json')) },
      provider: (url, hooks) =>
        createAiSdkProvider(
          createOpenAICompatible({ name: 'replay', baseURL: `${url}/v1`, apiKey: 'sk-test' }).chatModel(
            'gpt-4o',
          ),
          { min_retry_delay: 0.001, retry_jitter: false },
          { hooks },
        ),
    }),
  );
});

// The module mounted from a plan naming the package (found beside the bridge: its devDependencies here).
const config: Record<string, unknown> = {
  package: '@ai-sdk/openai-compatible',
  options: { name: 'replay', apiKey: 'sk-test' },
  default_model: 'gpt-4o',
  use_streaming: false,
  max_retries: 0,
};
let server: FakeLlmServer;
beforeAll(async () => {
  server = await FakeLlmServer.start();
  server.fallback(
    reply.json(200, {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1727346161,
      model: 'gpt-4o',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    }),
  );
  config.base_url = `${server.url}/v1`;
});
afterAll(() => server.close());

describe('mounted from a plan', () => {
  providerConformance({ mount, config });
});
