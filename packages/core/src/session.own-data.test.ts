/**
 * The session reads a mount plan through own properties only: a prototype
 * made by a careless copy (`out[key] = v` with key `__proto__`) or by
 * Object.create never turns into module config, and an own `__proto__` key is
 * handed to the module as an ordinary key.
 */

import { writeProject } from '@amplifier/test-fixtures';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSession } from './__fixtures__/sessions.js';
import { fixtureLog, installNpm, makeTempDir, removeDir } from './loader/__fixtures__/trees.js';
import { clearDiscoveryCache } from './loader/discovery.js';
import { ModuleLoader } from './loader/loader.js';
import type { MountPlan } from './mount-plan.js';
import { validateMountPlan } from './mount-plan.js';

const LOOSENING = { safety_profile: 'unrestricted', allowed_write_paths: ['/'] };

/** `{}` whose prototype carries the settings, as `out['__proto__'] = {...}` leaves it. */
function pollutedConfig(): Record<string, unknown> {
  const out: Record<string, unknown> = { timeout: 5 };
  Object.setPrototypeOf(out, { ...LOOSENING });
  return out;
}

function configOf(loader: { loads: { id: string; config: Record<string, unknown> }[] }, id: string) {
  return loader.loads.find((l) => l.id === id)!.config;
}

describe('plans are read through own properties', () => {
  it('a config whose prototype carries settings reaches the module without them', async () => {
    const { session, loader } = makeSession({
      session: { orchestrator: 'loop-basic', context: 'context-simple' },
      providers: [{ module: 'provider-mock', config: pollutedConfig() }],
    });
    await session.initialize();
    const config = configOf(loader, 'provider-mock');
    expect(config).toEqual({ timeout: 5 });
    expect(config.safety_profile).toBeUndefined();
    expect(config.allowed_write_paths).toBeUndefined();
  });

  it('an own "__proto__" / "constructor" / "prototype" key (from JSON.parse) is passed on as a key, not as settings', async () => {
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      const plan = JSON.parse(
        `{"session": {"orchestrator": "loop-basic", "context": "context-simple"}, "providers": [{"module": "provider-mock", "config": {"${key}": {"safety_profile": "unrestricted"}}}]}`,
      ) as MountPlan;
      const { session, loader } = makeSession(plan);
      await session.initialize();
      const config = configOf(loader, 'provider-mock');
      expect(Object.keys(config)).toEqual([key]);
      expect(config.safety_profile).toBeUndefined();
      expect(Object.getPrototypeOf(config)).toBe(Object.prototype);
      await session.cleanup();
    }
  });

  it('inherited sections and spec keys are not part of the plan (a tool list or config on a prototype is ignored)', async () => {
    const plan = Object.create({
      tools: [{ module: 'tool-a' }],
    }) as MountPlan;
    plan.session = { orchestrator: 'loop-basic', context: 'context-simple' };
    plan.providers = [
      Object.create({ config: { ...LOOSENING } }, { module: { value: 'provider-mock', enumerable: true } }),
    ];
    const { session, loader } = makeSession(plan);
    await session.initialize();
    expect(session.coordinator.get('tools').size).toBe(0);
    expect(configOf(loader, 'provider-mock')).toEqual({});
  });

  it('validateMountPlan judges the same own data: a prototype never makes a plan valid', () => {
    const plan = Object.create({ session: { orchestrator: 'a', context: 'b' } });
    expect(validateMountPlan(plan).valid).toBe(false);
    expect(validateMountPlan(plan).errors).toEqual([{ path: 'session', message: 'is required' }]);
  });
});

describe('the loader hands modules own config, whoever calls it', () => {
  let root: string;
  beforeEach(() => {
    root = makeTempDir('amp-own-');
    clearDiscoveryCache();
  });
  afterEach(() => {
    clearDiscoveryCache();
    removeDir(root);
  });

  it('ModuleLoader.load with an inheriting config: the module sees only own keys', async () => {
    writeProject(root, { '@amplifier/tool-own': '1.0.0' });
    installNpm(root, [{ name: '@amplifier/tool-own', type: 'tool' }]);
    const loader = new ModuleLoader({ baseDir: root });
    const loaded = await loader.load('tool-own', pollutedConfig());
    const { session } = makeSession();
    await loaded.mount(session.coordinator);
    const mounted = fixtureLog().mounts.at(-1)!;
    expect(mounted.id).toBe('tool-own');
    expect(mounted.config).toEqual({ timeout: 5 });
    expect((mounted.config as Record<string, unknown>).safety_profile).toBeUndefined();
  });
});
