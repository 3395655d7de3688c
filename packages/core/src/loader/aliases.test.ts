import path from 'node:path';
import { writeProject } from '@amplifier/test-fixtures';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from '../contracts.js';
import { Coordinator } from '../coordinator.js';
import { AmplifierError } from '../errors.js';
import { fixtureLog, installNpm, makeTempDir, removeDir, writePackage } from './__fixtures__/trees.js';
import { clearDiscoveryCache } from './discovery.js';
import { ModuleLoader } from './loader.js';

let root: string;
const warnings: string[] = [];
const logger: Logger = { debug() {}, info() {}, warn: (m) => warnings.push(m), error() {} };

beforeEach(() => {
  root = makeTempDir('amp-aliases-');
  warnings.length = 0;
  clearDiscoveryCache();
});
afterEach(() => {
  clearDiscoveryCache();
  removeDir(root);
});

function loaderAt(baseDir: string, extraRoots: string[] = []): ModuleLoader {
  return new ModuleLoader({ baseDir, extraRoots, searchPaths: [], logger });
}

/** Mount `id` from `loader`; returns the loaded module and the config its code received. */
async function mountId(loader: ModuleLoader, id: string, config: Record<string, unknown> = {}) {
  const loaded = await loader.load(id, config);
  const coordinator = new Coordinator({ logger });
  await loaded.mount(coordinator);
  const mount = fixtureLog().mounts.at(-1);
  return { loaded, mountedAs: mount?.id, config: mount?.config, url: mount?.url };
}

async function loadError(loader: ModuleLoader, id: string): Promise<AmplifierError> {
  const error = await loader.load(id).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!AmplifierError.is(error)) throw new Error(`expected an AmplifierError loading '${id}', got ${error}`);
  return error;
}

describe('module aliases ("amplifier": { "aliases": [...] })', () => {
  it('resolves an alias through discovery to the module declaring it, with its config defaults under the plan', async () => {
    writeProject(root, { 'acme-loop': '1.0.0', 'acme-fs': '1.0.0' });
    const [loopDir, fsDir] = installNpm(root, [
      {
        name: 'acme-loop',
        id: 'loop-basic',
        type: 'orchestrator',
        amplifier: { module: 'loop-basic', type: 'orchestrator', aliases: ['loop-streaming', 'loop-events'] },
      },
      {
        name: 'acme-fs',
        id: 'tool-filesystem',
        amplifier: {
          module: 'tool-filesystem',
          type: 'tool',
          aliases: [
            {
              id: 'tool-search',
              config: { tools: ['glob', 'grep'], max_results: 500 },
              note: 'glob and grep only',
            },
          ],
        },
      },
    ]);
    const loader = loaderAt(root);

    const loop = await mountId(loader, 'loop-streaming', { extended_thinking: true });
    expect(loop.mountedAs).toBe('loop-basic');
    expect(loop.url).toBe(`file://${path.join(loopDir!, 'index.js')}`);
    expect(loop.loaded).toMatchObject({ id: 'loop-streaming', aliasOf: 'loop-basic', type: 'orchestrator' });
    expect(loop.config).toEqual({ extended_thinking: true });

    const search = await mountId(loader, 'tool-search', { max_results: 20 });
    expect(search.loaded).toMatchObject({ id: 'tool-search', aliasOf: 'tool-filesystem', path: fsDir });
    // The alias's defaults sit under the plan's keys.
    expect(search.config).toEqual({ tools: ['glob', 'grep'], max_results: 20 });

    // The module under its own id gets no alias defaults.
    const own = await mountId(loader, 'tool-filesystem', {});
    expect(own.config).toEqual({});
    expect(own.loaded.aliasOf).toBeUndefined();

    const resolved = await loader.resolve('loop-events');
    expect(resolved).toMatchObject({ id: 'loop-events', aliasOf: 'loop-basic', via: 'discovery (alias)' });

    const listed = await loader.discover();
    expect(listed.find((m) => m.id === 'loop-basic')?.aliases).toEqual([
      { id: 'loop-streaming' },
      { id: 'loop-events' },
    ]);
    expect(listed.find((m) => m.id === 'tool-filesystem')?.aliases).toEqual([
      {
        id: 'tool-search',
        config: { tools: ['glob', 'grep'], max_results: 500 },
        note: 'glob and grep only',
      },
    ]);
  });

  it('an exact module id always wins over an alias, even when the alias is found first', async () => {
    writeProject(root, { 'acme-loop': '1.0.0', 'real-streaming': '1.0.0' });
    const [, realDir] = installNpm(root, [
      {
        name: 'acme-loop',
        id: 'loop-basic',
        type: 'orchestrator',
        amplifier: { module: 'loop-basic', type: 'orchestrator', aliases: ['loop-streaming'] },
      },
      { name: 'real-streaming', id: 'loop-streaming', type: 'orchestrator' },
    ]);
    const loader = loaderAt(root);
    const { loaded, mountedAs } = await mountId(loader, 'loop-streaming');
    expect(mountedAs).toBe('loop-streaming');
    expect(loaded.path).toBe(realDir);
    expect(loaded.aliasOf).toBeUndefined();
    // modules list does not show an alias that a module owns as its id.
    expect((await loader.discover()).find((m) => m.id === 'loop-basic')?.aliases).toBeUndefined();
  });

  it('the conventional name @amplifier/<id> wins over an alias too', async () => {
    writeProject(root, { 'acme-fs': '1.0.0' });
    const [, searchDir] = installNpm(root, [
      {
        name: 'acme-fs',
        id: 'tool-filesystem',
        amplifier: { module: 'tool-filesystem', type: 'tool', aliases: ['tool-search'] },
      },
      { name: '@amplifier/tool-search' },
    ]);
    const { loaded, mountedAs } = await mountId(loaderAt(root), 'tool-search');
    expect(mountedAs).toBe('tool-search');
    expect(loaded.path).toBe(searchDir);
  });

  it('an alias two modules declare is a clear error naming both, and a discovery problem', async () => {
    writeProject(root, { 'acme-a': '1.0.0', 'acme-b': '1.0.0' });
    installNpm(root, [
      {
        name: 'acme-a',
        id: 'hooks-a',
        type: 'hook',
        amplifier: { module: 'hooks-a', type: 'hook', aliases: ['hooks-redaction'] },
      },
      {
        name: 'acme-b',
        id: 'hooks-b',
        type: 'hook',
        amplifier: { module: 'hooks-b', type: 'hook', aliases: ['hooks-redaction'] },
      },
    ]);
    const loader = loaderAt(root);
    const error = await loadError(loader, 'hooks-redaction');
    expect(error.code).toBe('MODULE_ALIAS_CONFLICT');
    expect(error.message).toContain("'hooks-a' (acme-a) and 'hooks-b' (acme-b)");
    expect(error.message).toContain('Use one of those module ids');
    const listed = await loader.discover();
    expect(listed.every((m) => m.aliases === undefined)).toBe(true);
    expect(warnings.join('\n')).toContain(
      "alias 'hooks-redaction' is declared by 'hooks-a' (acme-a) and 'hooks-b' (acme-b)",
    );
    // The module ids themselves still load.
    expect((await mountId(loader, 'hooks-a')).mountedAs).toBe('hooks-a');
  });

  it('two copies of one module (the project and an app root) do not make its aliases conflict', async () => {
    const app = path.join(root, 'app');
    const project = path.join(root, 'project');
    const spec = {
      name: 'acme-loop',
      id: 'loop-basic',
      type: 'orchestrator' as const,
      amplifier: { module: 'loop-basic', type: 'orchestrator', aliases: ['loop-streaming'] },
    };
    writeProject(app, { 'acme-loop': '1.0.0' });
    writeProject(project, { 'acme-loop': '1.0.0' });
    installNpm(app, [spec]);
    const [projectCopy] = installNpm(project, [spec]);
    const { loaded } = await mountId(loaderAt(project, [app]), 'loop-streaming');
    expect(loaded.path).toBe(projectCopy);
    expect(warnings.some((w) => w.includes("alias 'loop-streaming'"))).toBe(false);
  });

  it('a source hint naming a package that declares the alias loads it under the alias', async () => {
    const dir = writePackage(path.join(root, 'vendor', 'fs'), {
      name: 'acme-fs',
      id: 'tool-filesystem',
      amplifier: {
        module: 'tool-filesystem',
        type: 'tool',
        aliases: [{ id: 'tool-search', config: { tools: ['grep'] } }],
      },
    });
    writeProject(root);
    const loaded = await loaderAt(root).load('tool-search', {}, { source: dir });
    expect(loaded).toMatchObject({ id: 'tool-search', aliasOf: 'tool-filesystem' });
    await loaded.mount(new Coordinator({ logger }));
    expect(fixtureLog().mounts.at(-1)?.config).toEqual({ tools: ['grep'] });

    const wrong = await loaderAt(root)
      .load('tool-web', {}, { source: dir })
      .catch((e: unknown) => e);
    expect(AmplifierError.is(wrong, 'MODULE_INVALID_MANIFEST')).toBe(true);
    expect((wrong as Error).message).toContain("nor an alias 'tool-web'");
  });

  it('a placeholder ("unavailable") fails to load by id and by alias, with its reason, without importing it', async () => {
    writeProject(root, { 'acme-delegate': '1.0.0' });
    const [dir] = installNpm(root, [
      {
        name: 'acme-delegate',
        id: 'tool-delegate',
        amplifier: {
          module: 'tool-delegate',
          type: 'tool',
          aliases: ['tool-task'],
          unavailable: 'sub-agents are not available yet; remove tool-delegate from the bundle',
        },
        files: { 'index.js': 'throw new Error("imported a placeholder");' },
      },
    ]);
    const loader = loaderAt(root);
    const byId = await loadError(loader, 'tool-delegate');
    expect(byId.code).toBe('MODULE_UNAVAILABLE');
    expect(byId.message).toBe(
      `Module 'tool-delegate' is not available: sub-agents are not available yet; remove tool-delegate from the bundle (acme-delegate@1.0.0 at ${dir} is a placeholder)`,
    );
    const byAlias = await loadError(loader, 'tool-task');
    expect(byAlias.code).toBe('MODULE_UNAVAILABLE');
    expect(byAlias.message).toContain(
      "Module 'tool-task' (an alias of 'tool-delegate') is not available: sub-agents are not available yet",
    );
    expect((await loader.discover())[0]).toMatchObject({
      id: 'tool-delegate',
      aliases: [{ id: 'tool-task' }],
      unavailable: 'sub-agents are not available yet; remove tool-delegate from the bundle',
    });
  });

  it('an invalid aliases field is an invalid manifest naming the path', async () => {
    writeProject(root, { 'acme-bad': '1.0.0' });
    installNpm(root, [
      {
        name: 'acme-bad',
        id: 'tool-bad',
        amplifier: { module: 'tool-bad', type: 'tool', aliases: ['Bad Id', { note: 'x' }] },
      },
    ]);
    await loaderAt(root).discover();
    const problem = warnings.join('\n');
    expect(problem).toContain('amplifier.aliases[0]');
    expect(problem).toContain('amplifier.aliases[1]');
  });
});
