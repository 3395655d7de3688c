/**
 * Construction is one-directional: the loader needs nothing of the session,
 * the coordinator is given the loader, the session is given both. Nothing is
 * patched in afterwards, and the loader still resolves module sources through
 * the session's mounted `module-source-resolver` (passed with each load).
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeProject } from '@amplifier/test-fixtures';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Logger, ModuleLoaderLike, ModuleSourceResolver } from './contracts.js';
import { fixtureLog, makeTempDir, removeDir, writePackage } from './loader/__fixtures__/trees.js';
import { clearDiscoveryCache } from './loader/discovery.js';
import { ModuleLoader } from './loader/loader.js';
import type { MountPlan } from './mount-plan.js';
import { AmplifierSession } from './session.js';

let root: string;
const warnings: string[] = [];
const logger: Logger = { debug() {}, info() {}, warn: (m) => warnings.push(m), error() {} };

beforeEach(() => {
  root = makeTempDir('amp-build-order-');
  // A project with no dependencies: nothing is found unless a resolver says where.
  writeProject(root);
  warnings.length = 0;
  clearDiscoveryCache();
});
afterEach(() => {
  clearDiscoveryCache();
  removeDir(root);
});

/** Write recording modules `ids` under `root/<folder>/<id>`; returns id -> folder. */
function modulesIn(folder: string, types: Record<string, 'orchestrator' | 'context' | 'tool'>) {
  const where: Record<string, string> = {};
  for (const [id, type] of Object.entries(types)) {
    where[id] = writePackage(path.join(root, folder, id), { name: `${folder}-${id}`, id, type });
  }
  return where;
}

/** A resolver that knows the folders in `where` and records what it was asked. */
function resolverOf(where: Record<string, string>): { resolver: ModuleSourceResolver; asked: unknown[][] } {
  const asked: unknown[][] = [];
  return {
    asked,
    resolver: {
      resolve(id, options) {
        asked.push([id, options]);
        const dir = where[id];
        if (dir === undefined) throw new Error(`resolver: no ${id}`);
        return { resolve: () => dir };
      },
    },
  };
}

/** The module file each id of the session was mounted from (the fixture log, since `since`). */
function mountedFrom(since: number): Record<string, string> {
  return Object.fromEntries(
    fixtureLog()
      .mounts.slice(since)
      .map((m) => [m.id, m.url]),
  );
}

const plan = (): MountPlan => ({
  session: { orchestrator: 'bo-loop', context: 'bo-context' },
  tools: [{ module: 'bo-tool', source: 'registry:bo-tool', config: { level: 2 } }],
});

const TYPES = { 'bo-loop': 'orchestrator', 'bo-context': 'context', 'bo-tool': 'tool' } as const;

describe('the session builds loader, coordinator, session in that order', () => {
  it('the coordinator is given the loader at construction, and it cannot be replaced later', () => {
    const loader = new ModuleLoader({ baseDir: root, searchPaths: [], logger });
    const session = new AmplifierSession(plan(), { loader, logger });
    expect(session.loader).toBe(loader);
    expect(session.coordinator.loader).toBe(loader);
    expect(() => {
      (session.coordinator as { loader: unknown }).loader = { load: async () => ({}) };
    }).toThrow(TypeError);
    expect(session.coordinator.loader).toBe(loader);

    const plain = new AmplifierSession(plan(), { baseDir: root, logger });
    expect(plain.loader).toBeInstanceOf(ModuleLoader);
    expect(plain.coordinator.loader).toBe(plain.loader);
  });

  it("a loader made before the session (no coordinator) resolves through the session's module-source-resolver", async () => {
    const where = modulesIn('registry', TYPES);
    const { resolver, asked } = resolverOf(where);
    const loader = new ModuleLoader({ baseDir: root, searchPaths: [], logger });
    const session = new AmplifierSession(plan(), { loader, logger, workingDir: root });
    session.coordinator.mount('module-source-resolver', resolver);
    const since = fixtureLog().mounts.length;
    try {
      await session.initialize();
    } finally {
      await session.cleanup();
    }
    expect(session.failures).toEqual([]);
    expect(asked).toEqual([
      ['bo-loop', {}],
      ['bo-context', {}],
      ['bo-tool', { sourceHint: 'registry:bo-tool' }],
    ]);
    expect(mountedFrom(since)).toEqual({
      'bo-loop': pathToFileURL(path.join(where['bo-loop']!, 'index.js')).href,
      'bo-context': pathToFileURL(path.join(where['bo-context']!, 'index.js')).href,
      'bo-tool': pathToFileURL(path.join(where['bo-tool']!, 'index.js')).href,
    });
    // The module got its own copy of its config (the session's plan is frozen; the copy is not).
    const config = fixtureLog()
      .mounts.slice(since)
      .find((m) => m.id === 'bo-tool')?.config;
    expect(config).toEqual({ level: 2 });
    expect(Object.isFrozen(config)).toBe(false);
    expect(Object.isFrozen(session.config.tools?.[0]?.config)).toBe(true);
  });

  it('the default loader does too, and a resolver mounted by an earlier module serves the later ones', async () => {
    const where = modulesIn('registry', { 'bo-context': 'context', 'bo-tool': 'tool' });
    // The orchestrator module itself mounts the resolver (the way a resolver module would).
    const resolverModule = writePackage(path.join(root, 'local', 'bo-loop'), {
      name: 'bo-loop',
      id: 'bo-loop',
      type: 'orchestrator',
      files: {
        'index.js': `const where = ${JSON.stringify(where)};
export async function mount(coordinator) {
  coordinator.mount('module-source-resolver', {
    resolve(id) {
      return { resolve: () => where[id] };
    },
  });
}
`,
      },
    });
    const session = new AmplifierSession(
      {
        ...plan(),
        session: { orchestrator: { module: 'bo-loop', source: resolverModule }, context: 'bo-context' },
      },
      { baseDir: root, logger, workingDir: root },
    );
    const since = fixtureLog().mounts.length;
    try {
      await session.initialize();
    } finally {
      await session.cleanup();
    }
    expect(session.failures).toEqual([]);
    expect(mountedFrom(since)).toEqual({
      'bo-context': pathToFileURL(path.join(where['bo-context']!, 'index.js')).href,
      'bo-tool': pathToFileURL(path.join(where['bo-tool']!, 'index.js')).href,
    });
  });

  it('one loader serves two sessions, each through its own resolver', async () => {
    const first = modulesIn('first', TYPES);
    const second = modulesIn('second', TYPES);
    const loader = new ModuleLoader({ baseDir: root, searchPaths: [], logger });
    const sessions = [first, second].map((where) => {
      const session = new AmplifierSession(plan(), { loader, logger, workingDir: root });
      session.coordinator.mount('module-source-resolver', resolverOf(where).resolver);
      return session;
    });
    const since = fixtureLog().mounts.length;
    try {
      for (const session of sessions) await session.initialize();
    } finally {
      for (const session of sessions) await session.cleanup();
    }
    const urls = fixtureLog()
      .mounts.slice(since)
      .filter((m) => m.id === 'bo-tool')
      .map((m) => m.url);
    expect(urls).toEqual([
      pathToFileURL(path.join(first['bo-tool']!, 'index.js')).href,
      pathToFileURL(path.join(second['bo-tool']!, 'index.js')).href,
    ]);
  });

  it('a custom loader gets the mounted resolver with each load (and may ignore it)', async () => {
    const { resolver } = resolverOf({});
    const seen: unknown[] = [];
    const loader: ModuleLoaderLike = {
      async load(id, _config, options) {
        seen.push([id, options?.sourceResolver === resolver]);
        return { id, type: undefined, mount: async () => {} };
      },
    };
    const bare = new AmplifierSession(plan(), { loader, logger, workingDir: root });
    await bare.initialize();
    await bare.cleanup();
    const withResolver = new AmplifierSession(plan(), { loader, logger, workingDir: root });
    withResolver.coordinator.mount('module-source-resolver', resolver);
    await withResolver.initialize();
    await withResolver.cleanup();
    expect(seen).toEqual([
      ['bo-loop', false],
      ['bo-context', false],
      ['bo-tool', false],
      ['bo-loop', true],
      ['bo-context', true],
      ['bo-tool', true],
    ]);
  });
});
