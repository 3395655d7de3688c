import { OBSERVABILITY_EVENTS_CHANNEL } from '@amplifier/core';
import { FakeLlmServer, reply } from '@amplifier/provider-http/testing';
import { createTestCoordinator, RecordingLogger } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MODEL, textStream } from './__fixtures__/wire.js';
import { createOpenAIProvider, mount, OpenAIProvider } from './index.js';

let server: FakeLlmServer;
beforeEach(async () => {
  server = await FakeLlmServer.start();
  vi.stubEnv('OPENAI_API_KEY', '');
  vi.stubEnv('OPENAI_BASE_URL', '');
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await server.close();
});

function coordinator() {
  const logger = new RecordingLogger();
  return { coordinator: createTestCoordinator({ bare: true, logger }), logger };
}

describe('mount', () => {
  it('missing credentials: does not mount and warns why', async () => {
    const { coordinator: c, logger } = coordinator();
    const cleanup = await mount(c, {});
    expect(cleanup).toBeUndefined();
    expect(c.get('providers').size).toBe(0);
    const warnings = logger.records.filter((r) => r.level === 'warn').map((r) => r.message);
    expect(warnings.join('\n')).toMatch(/not mounted: no API key.*OPENAI_API_KEY/);
  });

  it('a remote base_url without a key does not mount either', async () => {
    const { coordinator: c } = coordinator();
    await mount(c, { base_url: 'https://openrouter.ai/api/v1' });
    expect(c.get('providers').size).toBe(0);
  });

  it('local base_url without key: mounts and sends no Authorization header', async () => {
    server.enqueue(reply.sse(textStream(['hi'])));
    const { coordinator: c } = coordinator();
    const cleanup = await mount(c, { base_url: `${server.url}/v1`, default_model: 'llama3.1:8b' });
    const provider = c.get('providers', 'openai')!;
    expect(provider).toBeInstanceOf(OpenAIProvider);
    await provider.complete({ messages: [{ role: 'user', content: 'hi' }] });
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
    expect(server.requests[0]!.body.model).toBe('llama3.1:8b');
    await cleanup?.();
  });

  it('reads the key and base URL from the environment', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-env');
    vi.stubEnv('OPENAI_BASE_URL', `${server.url}/v1/`);
    server.enqueue(reply.sse(textStream(['hi'])));
    const { coordinator: c } = coordinator();
    const cleanup = await mount(c, {});
    await c.get('providers', 'openai')!.complete({ messages: [{ role: 'user', content: 'hi' }] });
    expect(server.requests[0]).toMatchObject({
      url: '/v1/chat/completions',
      headers: { authorization: 'Bearer sk-env' },
    });
    await cleanup?.();
  });

  it('bad config fails the mount with every problem listed', async () => {
    const { coordinator: c } = coordinator();
    const error = await Promise.resolve(
      mount(c, { api_key: 'k', temperature: 'hot', max_retries: -1, base_url: 'ftp://x' }),
    ).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toMatch(/^provider-openai: invalid config:/);
    expect(message).toContain('temperature must be number');
    expect(message).toContain('max_retries must be >= 0');
    expect(message).toContain('base_url must match pattern');
    expect(c.get('providers').size).toBe(0);
  });

  it('unknown keys are warned about, not fatal', async () => {
    const { coordinator: c, logger } = coordinator();
    const cleanup = await mount(c, { api_key: 'k', max_token: 5 });
    expect(logger.records.some((r) => r.level === 'warn' && r.message.includes("'max_token'"))).toBe(true);
    await cleanup?.();
  });

  it('priority, session.cost and observability.events contributions; cleanup closes the pool', async () => {
    server.enqueue(reply.sse(textStream(['hi'])));
    const { coordinator: c } = coordinator();
    const cleanup = await mount(c, {
      api_key: 'k',
      base_url: `${server.url}/v1`,
      default_model: MODEL,
      priority: 5,
    });
    const provider = c.get('providers', 'openai')!;
    expect(provider.priority).toBe(5);
    expect(await c.collectContributions('session.cost')).toEqual([]); // nothing spent yet
    await provider.complete({ messages: [{ role: 'user', content: 'hi' }] });
    expect(await c.collectContributions('session.cost')).toEqual([
      { provider: 'openai', cost_usd: '0.000006' },
    ]);
    expect((await c.collectContributions(OBSERVABILITY_EVENTS_CHANNEL)).flat()).toEqual([
      'llm:stream_block_start',
      'llm:stream_block_delta',
      'llm:stream_block_end',
      'llm:stream_aborted',
      'provider:response_chain_invalidated',
    ]);
    await cleanup?.();
    await expect(provider.complete({ messages: [{ role: 'user', content: 'again' }] })).rejects.toMatchObject(
      {
        kind: 'configuration',
      },
    );
  });

  it('reads own config properties only: a __proto__ or inherited api_key or base_url mounts nothing, redirects nothing', async () => {
    const loosening = { api_key: 'sk-inherited', base_url: `${server.url}/v1`, headers: { 'x-leak': '1' } };
    for (const raw of [
      JSON.parse(`{"__proto__": ${JSON.stringify(loosening)}}`),
      Object.create(loosening) as Record<string, unknown>,
    ]) {
      const { coordinator: c, logger } = coordinator();
      expect(await mount(c, raw)).toBeUndefined();
      expect(c.get('providers').size).toBe(0);
      const warnings = logger.records.filter((r) => r.level === 'warn').map((r) => r.message);
      expect(warnings.some((w) => w.includes("unknown config key '__proto__'"))).toBe(
        Object.hasOwn(raw, '__proto__'),
      );
      expect(warnings.join('\n')).toMatch(/not mounted: no API key for https:\/\/api\.openai\.com\/v1/);
      // With an own key, the inherited base_url still does not count: requests would go to the default.
      const withKey = Object.assign(Object.create(loosening), { api_key: 'sk-own' }) as Record<
        string,
        unknown
      >;
      const provider = createOpenAIProvider(withKey);
      expect(provider.getInfo().defaults?.base_url).toBe('https://api.openai.com/v1');
      expect(provider.config.headers['x-leak']).toBeUndefined();
      await provider.close();
    }
    expect(server.requests).toEqual([]);
  });

  it('config prices override the built-in table (a local model priced at zero reports "0")', async () => {
    server.enqueue(
      reply.json(200, {
        choices: [{ message: { content: 'x' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 5, completion_tokens: 5 },
      }),
    );
    const provider = createOpenAIProvider({
      base_url: `${server.url}/v1`,
      default_model: 'llama3',
      use_streaming: false,
      prices: { llama3: { input: 0, output: 0 } },
    });
    const response = await provider.complete({ messages: [{ role: 'user', content: 'hi' }] });
    expect(response.usage?.cost_usd).toBe('0');
    expect(provider.costUsd).toBe('0');
    await provider.close();
  });
});
