import { OBSERVABILITY_EVENTS_CHANNEL } from '@amplifier/core';
import { FakeLlmServer, reply } from '@amplifier/provider-http/testing';
import { createTestCoordinator, RecordingLogger } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MODEL, textStream } from './__fixtures__/wire.js';
import { AnthropicProvider, createAnthropicProvider, mount } from './index.js';

let server: FakeLlmServer;
beforeEach(async () => {
  server = await FakeLlmServer.start();
  vi.stubEnv('ANTHROPIC_API_KEY', '');
  vi.stubEnv('ANTHROPIC_BASE_URL', '');
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
  it('missing credentials: does not mount and warns why (also for a local base_url)', async () => {
    const { coordinator: c, logger } = coordinator();
    expect(await mount(c, { base_url: server.url })).toBeUndefined();
    expect(c.get('providers').size).toBe(0);
    expect(logger.problemsSince().join('\n')).toMatch(/not mounted: no API key.*ANTHROPIC_API_KEY/);
  });

  it('reads the key and base URL from the environment', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-env');
    vi.stubEnv('ANTHROPIC_BASE_URL', server.url);
    server.enqueue(reply.sse(textStream(['hi'])));
    const { coordinator: c } = coordinator();
    const cleanup = await mount(c, {});
    const provider = c.get('providers', 'anthropic')!;
    expect(provider).toBeInstanceOf(AnthropicProvider);
    await provider.complete({ messages: [{ role: 'user', content: 'hi' }] });
    expect(server.requests[0]!.headers['x-api-key']).toBe('sk-ant-env');
    await cleanup?.();
  });

  it('bad config fails the mount with every problem listed', async () => {
    const { coordinator: c } = coordinator();
    const error = await Promise.resolve(
      mount(c, { api_key: 'k', thinking_type: 'deep', temperature: 1.5 }),
    ).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^provider-anthropic: invalid config:/);
    expect((error as Error).message).toContain('thinking_type must be one of "enabled", "adaptive"');
    expect((error as Error).message).toContain('temperature must be <= 1');
  });

  it('priority, session.cost and observability.events contributions; cleanup closes the pool', async () => {
    server.enqueue(reply.sse(textStream(['hi'])));
    const { coordinator: c, logger } = coordinator();
    const cleanup = await mount(c, {
      api_key: 'k',
      base_url: server.url,
      default_model: MODEL,
      priority: 1,
      colour: 'red',
    });
    expect(logger.problemsSince().join('\n')).toContain("unknown config key 'colour'");
    const provider = c.get('providers', 'anthropic')!;
    expect(provider.priority).toBe(1);
    expect(await c.collectContributions('session.cost')).toEqual([]);
    await provider.complete({ messages: [{ role: 'user', content: 'hi' }] });
    expect(await c.collectContributions('session.cost')).toEqual([
      { provider: 'anthropic', cost_usd: '0.0003' },
    ]);
    expect((await c.collectContributions(OBSERVABILITY_EVENTS_CHANNEL)).flat()).toContain(
      'llm:stream_aborted',
    );
    await cleanup?.();
    await expect(provider.complete({ messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({
      kind: 'configuration',
    });
  });

  it('reads own config properties only: a __proto__ or inherited api_key or base_url mounts nothing, redirects nothing', async () => {
    const loosening = {
      api_key: 'sk-ant-inherited',
      base_url: server.url,
      beta_headers: ['x'],
      extended_thinking: true,
    };
    for (const raw of [
      JSON.parse(`{"__proto__": ${JSON.stringify(loosening)}}`),
      Object.create(loosening) as Record<string, unknown>,
    ]) {
      const { coordinator: c, logger } = coordinator();
      expect(await mount(c, raw)).toBeUndefined();
      expect(c.get('providers').size).toBe(0);
      const problems = logger.problemsSince();
      expect(problems.some((p) => p.includes("unknown config key '__proto__'"))).toBe(
        Object.hasOwn(raw, '__proto__'),
      );
      expect(problems.join('\n')).toMatch(/not mounted: no API key/);
      const withKey = Object.assign(Object.create(loosening), { api_key: 'sk-ant-own' }) as Record<
        string,
        unknown
      >;
      const provider = createAnthropicProvider(withKey);
      expect(provider.getInfo().defaults?.base_url).toBe('https://api.anthropic.com/');
      expect(provider.config).toMatchObject({ extendedThinking: false });
      expect(provider.config.headers['anthropic-beta']).toBeUndefined();
      await provider.close();
    }
    expect(server.requests).toEqual([]);
  });
});
