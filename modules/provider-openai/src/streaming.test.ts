/**
 * The streaming contract, against recorded Chat Completions streams replayed
 * by a local FakeLlmServer (`__fixtures__/recorded/`: unchanged copies
 * of /work/shared/realworld-fixtures/wire, sources in its README: openai-node
 * and openai-python test snapshots of real gpt-4o streams).
 */
import { readFileSync } from 'node:fs';
import { replayedStreams, streamingConformance } from '@amplifier/provider-http/testing';
import { resolveConfig } from './config.js';
import { OpenAIProvider } from './provider.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`./__fixtures__/recorded/${name}`, import.meta.url), 'utf8');

streamingConformance(
  replayedStreams({
    text: fixture('openai-stream-text.sse'),
    toolUse: fixture('openai-stream-tool-call.sse'),
    nonStreaming: JSON.parse(fixture('openai-nonstream-parallel-tool-calls.json')),
    error: { status: 400, body: JSON.parse(fixture('openai-error-400-context-length.json')) },
    provider: (url, hooks) =>
      new OpenAIProvider(
        resolveConfig(
          { api_key: 'sk-test', base_url: `${url}/v1`, min_retry_delay: 0.001, retry_jitter: false },
          {},
        ),
        { hooks },
      ),
  }),
);
