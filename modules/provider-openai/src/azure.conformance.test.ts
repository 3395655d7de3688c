/**
 * The Azure flavour against the kit's suites: `providerConformance` (mount,
 * info, models, a completion), `transportConformance` for both transports it
 * plugs into the kit (the undici pool with `api-key`, and the pool behind
 * `entraTransport` for Entra ID tokens), and `streamingConformance` over
 * recorded Azure answers: the recorded stream (`choices: []` chunks, filter
 * results, no `[DONE]`) and completion; the tool-call stream is OpenAI's
 * recording with Azure's first chunk (its `prompt_filter_results`) put in
 * front and its `[DONE]` taken off, as Azure sends them.
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
import { completion } from './__fixtures__/wire.js';
import { resolveAzureConfig } from './azure.js';
import { entraTransport, staticTokenSource } from './azure-auth.js';
import { AzureOpenAIProvider } from './azure-provider.js';
import { mount } from './index.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`./__fixtures__/recorded/${name}`, import.meta.url), 'utf8');
const AZURE_STREAM = fixture('azure-chat-stream-prompt-filter-results.sse');
const AZURE_FIRST_CHUNK = AZURE_STREAM.slice(0, AZURE_STREAM.indexOf('\n\n') + 2);
const TOOL_STREAM =
  AZURE_FIRST_CHUNK + fixture('openai-stream-tool-call.sse').replace(/data: \[DONE\]\s*$/, '');

describe('provider-azure-openai (mounted with azure: true)', () => {
  // The suite mounts with this config (copied per mount): the endpoint is filled in once the local server is up.
  const config: Record<string, unknown> = {
    azure: true,
    api_key: 'az-test',
    use_streaming: false,
    max_retries: 0,
  };
  let server: FakeLlmServer;
  beforeAll(async () => {
    server = await FakeLlmServer.start();
    server.fallback(reply.json(200, completion({ content: 'Hello.' })));
    config.azure_endpoint = server.url;
  });
  afterAll(() => server.close());
  providerConformance({ mount, config });
});

describe('api-key transport (undici pool)', () => {
  transportConformance({
    create: (baseUrl) => poolTransport(new Pool(baseUrl.origin, { connections: 2, pipelining: 1 })),
  });
});

describe('Entra ID transport (the pool behind entraTransport)', () => {
  transportConformance({
    create: (baseUrl) =>
      entraTransport(
        poolTransport(new Pool(baseUrl.origin, { connections: 2, pipelining: 1 })),
        staticTokenSource('eyJ.test'),
      ),
  });
});

describe('streaming contract over recorded Azure answers', () => {
  streamingConformance(
    replayedStreams({
      text: AZURE_STREAM,
      toolUse: TOOL_STREAM,
      nonStreaming: JSON.parse(fixture('azure-chat-completion-filter-results.json')),
      error: {
        status: 400,
        body: {
          error: {
            message:
              "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
            param: 'prompt',
            code: 'content_filter',
            status: 400,
            innererror: {
              code: 'ResponsibleAIPolicyViolation',
              content_filter_result: { violence: { filtered: true, severity: 'high' } },
            },
          },
        },
      },
      failAfterMessages: 3,
      provider: (url, hooks) =>
        new AzureOpenAIProvider(
          resolveAzureConfig(
            { azure_endpoint: url, api_key: 'az-test', min_retry_delay: 0.001, retry_jitter: false },
            {},
          ),
          { hooks },
        ),
    }),
  );
});
