import { describe, expect, it } from 'vitest';
import { makeSession } from './__fixtures__/sessions.js';
import { CancellationToken } from './cancellation.js';
import type { Tool } from './contracts.js';
import type { Coordinator } from './coordinator.js';
import { silentLogger } from './logger.js';
import { journaled } from './mount-journal.js';

const tool = (name: string): Tool => ({
  name,
  description: name,
  execute: async () => ({ success: true, output: name }),
});

/** Everything a module can leave behind through the coordinator, then a throw. */
function halfMounting(log: string[], options: { replace?: boolean } = {}) {
  return {
    async mount(c: Coordinator): Promise<void> {
      c.mount('tools', tool('sneaky'));
      if (options.replace) c.mount('tools', tool('impostor'), { name: 'a' });
      c.get('tools').set('direct', tool('direct'));
      c.mount('providers', { ...tool('p'), name: 'rogue' } as never);
      c.hooks.register('tool:pre', () => ({ action: 'deny', reason: 'from a failed module' }), {
        name: 'half',
      });
      c.registerCapability('half.capability', 1);
      c.registerCapability('session.working_dir', '/elsewhere');
      c.registerContributor('observability.events', 'half', () => ['half:event']);
      c.registerCleanup(() => {
        log.push('half cleanup 1');
      });
      c.cancellation.onCancel(() => {
        log.push('half cancel callback');
      });
      c.cancellation.registerChild(childToken);
      await Promise.resolve();
      c.registerCleanup(() => {
        log.push('half cleanup 2');
      });
      throw new Error('half way');
    },
  };
}
const childToken = new CancellationToken();

describe('a module whose mount throws leaves nothing behind', () => {
  it('its tools, providers, hooks, capabilities, contributors, cancel callbacks are removed and its cleanups run (newest first)', async () => {
    const log: string[] = [];
    const { session, orchestrator } = makeSession(
      {
        session: { orchestrator: 'loop-basic', context: 'context-simple' },
        providers: [{ module: 'provider-mock' }],
        tools: [{ module: 'tool-a' }, { module: 'tool-half' }, { module: 'tool-b' }],
      },
      { extra: { 'tool-half': halfMounting(log, { replace: true }) } },
    );
    await session.initialize();
    const c = session.coordinator;

    expect(session.failures.map((f) => f.module)).toEqual(['tool-half']);
    expect([...c.get('tools').keys()]).toEqual(['a', 'b']);
    // The tool it replaced is back.
    expect(c.get('tools').get('a')!.description).toBe('a');
    expect([...c.get('providers').keys()]).toEqual(['mock']);
    expect(c.hooks.listHandlers('tool:pre')).toEqual({ 'tool:pre': [] });
    expect(c.getCapability('half.capability')).toBeUndefined();
    expect(c.getCapability('session.working_dir')).toBe(process.cwd());
    expect(await c.collectContributions('observability.events')).toEqual([]);
    expect(log).toEqual(['half cleanup 2', 'half cleanup 1']);

    // The orchestrator gets the cleaned Maps; cancelling calls no callback of the failed module.
    await session.execute('hi');
    expect([...orchestrator.runs[0]!.run.tools.keys()]).toEqual(['a', 'b']);
    await c.requestCancel({ immediate: true });
    expect(log).not.toContain('half cancel callback');
    expect(childToken.isCancelled).toBe(false);

    // Its cleanups are not run a second time at the end.
    await session.cleanup();
    expect(log.filter((l) => l.startsWith('half cleanup'))).toHaveLength(2);
  });

  it('a provider that fails after mounting is removed; a renamed instance that cannot be renamed is undone', async () => {
    const { session } = makeSession(
      {
        session: { orchestrator: 'loop-basic', context: 'context-simple' },
        providers: [{ module: 'provider-mock' }, { module: 'provider-odd', instance_id: 'odd-2' }],
      },
      {
        extra: {
          'provider-odd': {
            mount(c) {
              c.mount('providers', { ...tool('x'), name: 'not-odd' } as never);
              c.registerCapability('odd.mounted', true);
            },
          },
        },
      },
    );
    await session.initialize();
    expect(session.failures.map((f) => f.module)).toEqual(['provider-odd']);
    expect([...session.coordinator.get('providers').keys()]).toEqual(['mock']);
    expect(session.coordinator.getCapability('odd.mounted')).toBeUndefined();
  });

  it('a module that mounts sub-modules: when it fails, what they mounted goes too; when it succeeds, it stays', async () => {
    const { session } = makeSession(
      {
        session: { orchestrator: 'loop-basic', context: 'context-simple' },
        providers: [{ module: 'provider-mock' }],
        tools: [{ module: 'tool-parent-fails' }, { module: 'tool-parent-ok' }],
      },
      {
        extra: {
          'tool-parent-fails': {
            async mount(c) {
              await journaled(c, 'tool-child', silentLogger, async () => c.mount('tools', tool('child1')));
              throw new Error('parent failed after its child mounted');
            },
          },
          'tool-parent-ok': {
            async mount(c) {
              await journaled(c, 'tool-child', silentLogger, async () => c.mount('tools', tool('child2')));
            },
          },
        },
      },
    );
    await session.initialize();
    expect([...session.coordinator.get('tools').keys()]).toEqual(['child2']);
  });

  it('changes made after the mount finished (a timer the module left) are not undone later', async () => {
    let later: (() => void) | undefined;
    const { session } = makeSession(
      {
        session: { orchestrator: 'loop-basic', context: 'context-simple' },
        providers: [{ module: 'provider-mock' }],
        tools: [{ module: 'tool-late' }],
      },
      {
        extra: {
          'tool-late': {
            mount(c) {
              later = () => c.registerCapability('late.value', 42);
            },
          },
        },
      },
    );
    await session.initialize();
    later!();
    expect(session.coordinator.getCapability('late.value')).toBe(42);
  });
});
