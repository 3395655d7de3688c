/**
 * The ids real Amplifier bundles use for their orchestrator, `loop-streaming`
 * (the foundation bundle's) and `loop-events`, resolve to this package through
 * its manifest's aliases: a session whose plan names them loads this package
 * (from its folder, by the real loader) and runs the reference's turn; the
 * provider streams, as the reference's contract says, without a streaming mode
 * of the loop.
 */
import { fileURLToPath } from 'node:url';
import {
  AmplifierSession,
  type Coordinator,
  type EventData,
  ModuleLoader,
  type ModuleLoaderLike,
  silentLogger,
} from '@amplifier/core';
import { MockContextManager } from '@amplifier/testing';
import { describe, expect, it } from 'vitest';
import { ScriptProvider } from './__fixtures__/harness.js';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

/**
 * The real loader finding this package in its folder (as `AMPLIFIER_MODULES` would), and a
 * context and a provider in process. The provider emits the reference's stream events on the
 * session's hooks inside `complete()`, as the streaming providers of this project do.
 */
function setup(orchestrator: string, config: Record<string, unknown>) {
  const real = new ModuleLoader({ baseDir: PACKAGE_DIR, searchPaths: [PACKAGE_DIR], logger: silentLogger });
  let coordinator: Coordinator | undefined;
  const provider = new ScriptProvider([
    async () => {
      const hooks = coordinator!.hooks;
      const base = { request_id: 'r1', block_index: 0, block_type: 'text' as const };
      await hooks.emit('llm:stream_block_start', base);
      await hooks.emit('llm:stream_block_delta', { ...base, sequence: 0, text: 'Hel' });
      await hooks.emit('llm:stream_block_delta', { ...base, sequence: 1, text: 'lo.' });
      await hooks.emit('llm:stream_block_end', base);
      return { content: [{ type: 'text', text: 'Hello.' }] };
    },
  ]);
  const loaded: { id: string; aliasOf?: string }[] = [];
  const loader: ModuleLoaderLike = {
    async load(id, moduleConfig = {}, options) {
      if (id === 'context-test')
        return { id, type: 'context', mount: async (c) => c.mount('context', new MockContextManager()) };
      if (id === 'provider-test') {
        return {
          id,
          type: 'provider',
          mount: async (c) => {
            coordinator = c;
            c.mount('providers', provider, { name: 'test' });
          },
        };
      }
      const module = await real.load(id, moduleConfig, options);
      loaded.push({ id: module.id, ...(module.aliasOf !== undefined && { aliasOf: module.aliasOf }) });
      return module;
    },
  };
  const session = new AmplifierSession(
    {
      session: { orchestrator: { module: orchestrator, config }, context: 'context-test' },
      providers: [{ module: 'provider-test' }],
    },
    { loader, logger: silentLogger, sessionId: `alias-${orchestrator}` },
  );
  return { session, provider, loaded };
}

describe('aliases of loop-basic', () => {
  it("loop-streaming (the foundation bundle's orchestrator, extended_thinking: true) runs a streamed turn", async () => {
    const { session, provider, loaded } = setup('loop-streaming', { extended_thinking: true });
    await using _ = session;
    const deltas: string[] = [];
    await session.initialize();
    session.coordinator.hooks.register('llm:stream_block_delta', (_event, data: EventData) => {
      deltas.push(String(data.text));
    });
    expect(await session.execute('Say hello.')).toBe('Hello.');
    expect(loaded).toEqual([{ id: 'loop-streaming', aliasOf: 'loop-basic' }]);
    expect(deltas).toEqual(['Hel', 'lo.']);
    // The reference's extended_thinking reaches the provider as loop-streaming passes it.
    expect(provider.options[0]).toMatchObject({ extended_thinking: true });
  });

  it('loop-events runs the same turn (no scheduler hooks: the reference falls back to the plain loop)', async () => {
    const { session, loaded } = setup('loop-events', {});
    await using _ = session;
    expect(await session.execute('Say hello.')).toBe('Hello.');
    expect(loaded).toEqual([{ id: 'loop-events', aliasOf: 'loop-basic' }]);
  });
});
