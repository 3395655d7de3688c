/**
 * The CLI's `session.spawn` and `session.resume` (reference Part C 5): on
 * every root session, the bundle kit's spawner with children stored next to
 * the root (`cliChildStore`) and their tool lines shown under the delegate
 * call. The kit and the child store are imported on the first delegation, so
 * a run that never delegates never loads them.
 */
import type { AgentConfig, Spawner, SpawnRule } from '@amplifier/bundles';
import {
  type Coordinator,
  RESUME_CAPABILITY,
  type ResumeRequest,
  SPAWN_CAPABILITY,
  type SpawnRequest,
} from '@amplifier/core';
import type { Display } from './display.js';
import type { SessionStore } from './sessions.js';

/** What the CLI's spawner needs. */
export interface SpawnSetup {
  store: SessionStore;
  cwd: string;
  display: Display;
  spawn?: SpawnRule | undefined;
  systemPrompt?: ((agent: AgentConfig | undefined) => Promise<string | undefined>) | undefined;
}

/** Register `session.spawn` / `session.resume` on a root session's coordinator. */
export function registerSpawn(coordinator: Coordinator, setup: SpawnSetup): void {
  let spawner: Promise<Spawner> | undefined;
  const get = (): Promise<Spawner> => {
    spawner ??= Promise.all([import('@amplifier/bundles'), import('./child-sessions.js')]).then(
      ([{ createSpawner }, { cliChildStore, sessionDir }]) =>
        createSpawner({
          store: cliChildStore(setup.store, setup.cwd),
          ...(setup.spawn && { spawn: setup.spawn }),
          ...(setup.systemPrompt && { systemPrompt: setup.systemPrompt }),
          onChild: ({ session, depth, agentName }) => {
            session.coordinator.registerCapability(
              'session.directory',
              sessionDir(setup.store, setup.cwd, session.sessionId),
            );
            return setup.display.attachChild(session, depth, agentName);
          },
        }),
    );
    return spawner;
  };
  coordinator.registerCapability(SPAWN_CAPABILITY, async (request: SpawnRequest) =>
    (await get()).spawn(coordinator, request),
  );
  coordinator.registerCapability(RESUME_CAPABILITY, async (request: ResumeRequest) =>
    (await get()).resume(coordinator, request),
  );
}
