/**
 * The streaming contract, against recorded Gemini streams replayed by a local
 * FakeLlmServer (`__fixtures__/recorded/`: unchanged copies of
 * /work/shared/realworld-fixtures/wire, sources in its README: pydantic-ai's
 * VCR cassettes of real Gemini answers). The text stream separates its
 * messages with CRLF, as the real API does.
 */
import { readFileSync } from 'node:fs';
import { replayedStreams, streamingConformance } from '@amplifier/provider-http/testing';
import { resolveConfig } from './config.js';
import { GeminiProvider } from './provider.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`./__fixtures__/recorded/${name}`, import.meta.url), 'utf8');

streamingConformance(
  replayedStreams({
    text: fixture('gemini-stream-text.sse'),
    toolUse: fixture('gemini-stream-function-call.sse'),
    nonStreaming: JSON.parse(fixture('gemini-function-call.json')),
    error: { status: 400, body: JSON.parse(fixture('gemini-error-400-invalid-argument.json')) },
    failAfterMessages: 2,
    provider: (url, hooks) =>
      new GeminiProvider(
        resolveConfig({ api_key: 'gm-test', base_url: url, min_retry_delay: 0.001, retry_jitter: false }, {}),
        { hooks },
      ),
  }),
);
