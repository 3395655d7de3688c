/**
 * The streaming contract, against recorded Messages API streams replayed by
 * a local FakeLlmServer (`__fixtures__/recorded/`: unchanged copies of
 * /work/shared/realworld-fixtures/wire, sources in its README: the
 * anthropic-sdk-typescript test fixtures).
 */
import { readFileSync } from 'node:fs';
import { replayedStreams, streamingConformance } from '@amplifier/provider-http/testing';
import { resolveConfig } from './config.js';
import { AnthropicProvider } from './provider.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`./__fixtures__/recorded/${name}`, import.meta.url), 'utf8');

streamingConformance(
  replayedStreams({
    text: fixture('anthropic-stream-text.sse'),
    toolUse: fixture('anthropic-stream-tool-use.sse'),
    nonStreaming: JSON.parse(fixture('anthropic-nonstream-tool-use.json')),
    error: { status: 400, body: JSON.parse(fixture('anthropic-error-400-sdk-test.json')) },
    provider: (url, hooks) =>
      new AnthropicProvider(
        resolveConfig(
          { api_key: 'sk-ant-test', base_url: url, min_retry_delay: 0.001, retry_jitter: false },
          {},
        ),
        { hooks },
      ),
  }),
);
