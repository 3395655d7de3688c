/**
 * Vertex AI through the same module: the URL of each endpoint, the bearer
 * token from an injected token source, from `vertex.access_token`, and from
 * Application Default Credentials through the real google-auth-library (a
 * credential file whose token endpoint is a local server: no network), call
 * ids left out, and the failures (no library, a token source that fails).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { FakeLlmServer, llmErrorOf, reply } from '@amplifier/provider-http/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adcTokenSource, type TokenSource } from './auth.js';
import { type GeminiConfig, resolveConfig, vertexHost } from './config.js';
import { GeminiProvider } from './provider.js';

const ANSWER = {
  candidates: [{ content: { role: 'model', parts: [{ text: 'Hi.' }] }, finishReason: 'STOP' }],
  usageMetadata: { promptTokenCount: 2, candidatesTokenCount: 1 },
  modelVersion: 'gemini-2.5-flash',
};
const REQUEST = { messages: [{ role: 'user' as const, content: 'Hi' }] };

let server: FakeLlmServer;
let provider: GeminiProvider | undefined;
beforeEach(async () => {
  server = await FakeLlmServer.start();
});
afterEach(async () => {
  await provider?.close();
  provider = undefined;
  await server.close();
});

function vertexProvider(config: GeminiConfig, tokenSource?: TokenSource): GeminiProvider {
  provider = new GeminiProvider(
    resolveConfig(
      { base_url: server.url, use_streaming: false, min_retry_delay: 0.001, retry_jitter: false, ...config },
      {},
    ),
    tokenSource === undefined ? {} : { tokenSource },
  );
  return provider;
}

describe('Vertex AI URLs', () => {
  it('regional and global hosts, project path under v1beta1, GOOGLE_CLOUD_PROJECT / GOOGLE_CLOUD_LOCATION', () => {
    expect(resolveConfig({ vertex: { project: 'my-proj', location: 'europe-west4' } }, {}).baseUrl.href).toBe(
      'https://europe-west4-aiplatform.googleapis.com/v1beta1/projects/my-proj/locations/europe-west4/publishers/google',
    );
    expect(vertexHost('global')).toBe('https://aiplatform.googleapis.com');
    expect(resolveConfig({ vertex: { project: 'p', location: 'global' } }, {}).baseUrl.href).toBe(
      'https://aiplatform.googleapis.com/v1beta1/projects/p/locations/global/publishers/google',
    );
    const fromEnv = resolveConfig({ vertex: { project: '' } } as GeminiConfig, {
      GOOGLE_CLOUD_PROJECT: 'env-proj',
      GOOGLE_CLOUD_LOCATION: 'asia-east1',
    });
    expect(fromEnv.vertex).toEqual({ project: 'env-proj', location: 'asia-east1', accessToken: undefined });
    expect(resolveConfig({ vertex: { project: 'p' }, api_version: 'v1' }, {}).baseUrl.pathname).toBe(
      '/v1/projects/p/locations/us-central1/publishers/google',
    );
    // GOOGLE_VERTEX_BASE_URL stands a local server in; the Gemini API's variable does not apply to Vertex.
    const local = resolveConfig(
      { vertex: { project: 'p' } },
      {
        GOOGLE_VERTEX_BASE_URL: 'http://127.0.0.1:9',
        GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:8',
        GOOGLE_API_KEY: 'not-for-vertex',
      },
    );
    expect(local.baseUrl.href).toBe(
      'http://127.0.0.1:9/v1beta1/projects/p/locations/us-central1/publishers/google',
    );
    expect(local.apiKey).toBeUndefined();
  });

  it('an empty project without GOOGLE_CLOUD_PROJECT is a clear config error', () => {
    expect(() => resolveConfig({ vertex: { project: '' } } as GeminiConfig, {})).toThrow(
      /vertex.project is empty/,
    );
  });

  it('requests go to the project path with the injected token as a bearer header, no API key, no call ids', async () => {
    server.enqueue(reply.json(200, ANSWER), reply.json(200, ANSWER));
    let asked = 0;
    const tokens: TokenSource = {
      getToken: async () => {
        asked++;
        return `ya29.token-${asked}`;
      },
    };
    const p = vertexProvider(
      { vertex: { project: 'proj-1', location: 'us-east5' }, default_model: 'gemini-2.5-flash' },
      tokens,
    );
    expect(p.getInfo().display_name).toBe('Google Gemini (Vertex AI)');
    await p.complete(REQUEST);
    await p.complete({
      messages: [
        { role: 'user', content: 'Hi' },
        {
          role: 'assistant',
          content: [],
          tool_calls: [{ id: 'fc-1', tool: 'get_capital', arguments: { country: 'Peru' } }],
          metadata: {
            'gemini:model_version': 'gemini-2.5-flash',
            'gemini:calls': { 'fc-1': { wire_id: true } },
          },
        },
        { role: 'tool', tool_call_id: 'fc-1', content: 'Lima' },
      ],
    });
    const [first, second] = server.requests;
    expect(first!.url).toBe(
      '/v1beta1/projects/proj-1/locations/us-east5/publishers/google/models/gemini-2.5-flash:generateContent',
    );
    expect(first!.headers.authorization).toBe('Bearer ya29.token-1');
    expect(first!.headers['x-goog-api-key']).toBeUndefined();
    // The token is asked for on every request (the source caches and refreshes).
    expect(second!.headers.authorization).toBe('Bearer ya29.token-2');
    // Vertex rejects functionCall.id / functionResponse.id: left out even for wire ids.
    expect(second!.body.contents[1].parts).toEqual([
      { functionCall: { name: 'get_capital', args: { country: 'Peru' } } },
    ]);
    expect(second!.body.contents[2].parts).toEqual([
      { functionResponse: { name: 'get_capital', response: { result: 'Lima' } } },
    ]);
  });

  it('vertex.access_token is sent as the bearer token', async () => {
    server.enqueue(reply.json(200, ANSWER));
    await vertexProvider({ vertex: { project: 'p', access_token: 'ya29.fixed' } }).complete(REQUEST);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer ya29.fixed');
  });

  it('an api_key on Vertex (express mode) is sent as x-goog-api-key instead of a token', async () => {
    server.enqueue(reply.json(200, ANSWER));
    await vertexProvider(
      { vertex: { project: 'p' }, api_key: 'vx-key' },
      { getToken: () => Promise.reject(new Error('unused')) },
    ).complete(REQUEST);
    expect(server.requests[0]!.headers['x-goog-api-key']).toBe('vx-key');
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('a failing token source is an authentication error, not retried, with what to do; nothing is sent', async () => {
    const error = await llmErrorOf(
      vertexProvider(
        { vertex: { project: 'p' } },
        { getToken: () => Promise.reject(new Error('no credentials')) },
      ).complete(REQUEST),
    );
    expect(error.kind).toBe('authentication');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('no credentials');
    expect(error.message).toContain('gcloud auth application-default login');
    expect(server.requests).toHaveLength(0);
  });

  it('without google-auth-library installed: a configuration error naming the package', async () => {
    const missing = adcTokenSource(() =>
      Promise.reject(new Error("Cannot find package 'google-auth-library'")),
    );
    const error = await llmErrorOf(vertexProvider({ vertex: { project: 'p' } }, missing).complete(REQUEST));
    expect(error.kind).toBe('configuration');
    expect(error.message).toContain('npm install google-auth-library');
    expect(server.requests).toHaveLength(0);
  });
});

describe('Application Default Credentials (the real google-auth-library, a local token endpoint)', () => {
  const saved = { ...process.env };
  let dir: string;
  let tokenServer: http.Server;
  let exchanges = 0;

  beforeEach(async () => {
    exchanges = 0;
    tokenServer = http.createServer((req, res) => {
      req.resume().on('end', () => {
        exchanges++;
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            access_token: 'ya29.from-adc',
            issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
            token_type: 'Bearer',
            expires_in: 3600,
          }),
        );
      });
    });
    await new Promise<void>((resolve) => tokenServer.listen(0, '127.0.0.1', resolve));
    const { port } = tokenServer.address() as AddressInfo;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gemini-adc-'));
    fs.writeFileSync(path.join(dir, 'subject-token'), 'a-subject-token');
    // A workload identity federation credential: its token_url is honoured, so the exchange stays on 127.0.0.1.
    fs.writeFileSync(
      path.join(dir, 'credentials.json'),
      JSON.stringify({
        type: 'external_account',
        audience: '//iam.googleapis.com/locations/global/workloadIdentityPools/pool/providers/local',
        subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
        token_url: `http://127.0.0.1:${port}/token`,
        credential_source: { file: path.join(dir, 'subject-token') },
      }),
    );
    process.env.GOOGLE_APPLICATION_CREDENTIALS = path.join(dir, 'credentials.json');
    process.env.GOOGLE_CLOUD_PROJECT = 'adc-project';
  });
  afterEach(async () => {
    process.env = { ...saved };
    await new Promise<void>((resolve) => tokenServer.close(() => resolve()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the token comes from the credential file, is cached across requests, and is sent as the bearer header', async () => {
    server.enqueue(reply.json(200, ANSWER), reply.json(200, ANSWER));
    const p = vertexProvider({ vertex: { project: 'adc-project' } });
    await p.complete(REQUEST);
    await p.complete(REQUEST);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer ya29.from-adc',
      'Bearer ya29.from-adc',
    ]);
    expect(exchanges).toBe(1);
  });
});
