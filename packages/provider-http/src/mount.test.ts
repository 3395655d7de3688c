import type { EventSink, JSONSchema } from '@amplifier/core';
import { OBSERVABILITY_EVENTS_CHANNEL } from '@amplifier/core';
import { createTestCoordinator, RecordingLogger } from '@amplifier/testing';
import { describe, expect, it } from 'vitest';
import { type MountableProvider, mountHttpProvider, type ProviderMountSpec } from './mount.js';

const schema: JSONSchema = {
  type: 'object',
  properties: { api_key: { type: 'string' }, local: { type: 'boolean' }, priority: { type: 'number' } },
};

interface Resolved {
  apiKey: string | undefined;
  local: boolean;
}

class FakeProvider implements MountableProvider {
  readonly name = 'fake';
  costUsd: string | null = null;
  closed = 0;
  readonly hooks: EventSink;
  constructor(hooks: EventSink) {
    this.hooks = hooks;
  }
  getInfo() {
    return { id: 'fake', display_name: 'Fake' };
  }
  async listModels() {
    return [];
  }
  async complete() {
    return { content: [] };
  }
  parseToolCalls() {
    return [];
  }
  async close() {
    this.closed++;
  }
}

const spec: ProviderMountSpec<Resolved, FakeProvider> = {
  module: 'provider-fake',
  schema,
  resolve: (config) => ({ apiKey: config.api_key as string | undefined, local: config.local === true }),
  missingKey: (resolved) => (resolved.local ? undefined : 'no API key. Set FAKE_API_KEY.'),
  create: (_resolved, { hooks }) => new FakeProvider(hooks),
  events: ['llm:stream_block_start'],
};

function coordinator() {
  const logger = new RecordingLogger();
  return { c: createTestCoordinator({ bare: true, logger }), logger };
}

describe('mountHttpProvider', () => {
  it('missing credentials: does not mount and warns why', async () => {
    const { c, logger } = coordinator();
    expect(await mountHttpProvider(c, {}, spec)).toBeUndefined();
    expect(c.get('providers').size).toBe(0);
    expect(logger.problemsSince()).toEqual(['provider-fake: not mounted: no API key. Set FAKE_API_KEY.']);
  });

  it('mounts without a key when the module allows it (a local server)', async () => {
    const { c } = coordinator();
    const cleanup = await mountHttpProvider(c, { local: true }, spec);
    expect(c.get('providers', 'fake')).toBeInstanceOf(FakeProvider);
    await cleanup?.();
  });

  it('bad config fails before anything mounts; unknown keys are warned about', async () => {
    const { c, logger } = coordinator();
    await expect(mountHttpProvider(c, { api_key: 5 }, spec)).rejects.toThrow(
      /^provider-fake: invalid config:\n.*api_key must be string/,
    );
    expect(c.get('providers').size).toBe(0);
    const cleanup = await mountHttpProvider(c, { api_key: 'k', colour: 'red' }, spec);
    expect(logger.problemsSince()).toEqual(["provider-fake: unknown config key 'colour' is ignored"]);
    await cleanup?.();
  });

  it('session.cost (null before any priced call) and observability.events; cleanup closes it', async () => {
    const { c } = coordinator();
    const cleanup = await mountHttpProvider(c, { api_key: 'k' }, spec);
    const provider = c.get('providers', 'fake') as FakeProvider;
    expect(provider.hooks).toBe(c.hooks);
    expect(await c.collectContributions('session.cost')).toEqual([]);
    provider.costUsd = '0.25';
    expect(await c.collectContributions('session.cost')).toEqual([{ provider: 'fake', cost_usd: '0.25' }]);
    expect((await c.collectContributions(OBSERVABILITY_EVENTS_CHANNEL)).flat()).toEqual([
      'llm:stream_block_start',
    ]);
    await cleanup?.();
    expect(provider.closed).toBe(1);
  });

  it('reads own properties only: an inherited or __proto__ api_key does not mount it; __proto__ is warned about', async () => {
    for (const raw of [
      JSON.parse('{"__proto__": {"api_key": "sk-inherited", "local": true}}'),
      Object.create({ api_key: 'sk-inherited', local: true }) as Record<string, unknown>,
    ]) {
      const { c, logger } = coordinator();
      expect(await mountHttpProvider(c, raw, spec)).toBeUndefined();
      expect(c.get('providers').size).toBe(0);
      const unknown = Object.hasOwn(raw, '__proto__')
        ? ["provider-fake: unknown config key '__proto__' is ignored"]
        : [];
      expect(logger.problemsSince()).toEqual([
        ...unknown,
        'provider-fake: not mounted: no API key. Set FAKE_API_KEY.',
      ]);
    }
  });
});
