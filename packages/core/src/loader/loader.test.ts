import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeFiles, writeProject } from '@amplifier/test-fixtures';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Logger, ModuleSourceResolver } from '../contracts.js';
import { Coordinator } from '../coordinator.js';
import { AmplifierError, ModuleNotFoundError } from '../errors.js';
import { VERSION } from '../version.js';
import {
  fixtureLog,
  installNpm,
  makeTempDir,
  moduleSource,
  removeDir,
  writePackage,
} from './__fixtures__/trees.js';
import { clearDiscoveryCache } from './discovery.js';
import { ModuleLoader, type ModuleLoaderOptions } from './loader.js';

let root: string;
const warnings: string[] = [];
const logger: Logger = { debug() {}, info() {}, warn: (m) => warnings.push(m), error() {} };

beforeEach(() => {
  root = makeTempDir('amp-loader-');
  writeProject(root);
  warnings.length = 0;
  clearDiscoveryCache();
});
afterEach(() => {
  clearDiscoveryCache();
  removeDir(root);
});

function loaderAt(baseDir: string, options: ModuleLoaderOptions = {}): ModuleLoader {
  return new ModuleLoader({ baseDir, searchPaths: [], logger, ...options });
}

async function rejection(promise: Promise<unknown>): Promise<AmplifierError> {
  try {
    await promise;
  } catch (error) {
    if (AmplifierError.is(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

/** Mount `loaded` on a fresh coordinator; returns the file URL the mount ran from. */
async function mountedFrom(loaded: { id: string; mount(c: Coordinator): Promise<unknown> }): Promise<string> {
  const coordinator = new Coordinator({ logger });
  const before = fixtureLog().mounts.length;
  await loaded.mount(coordinator);
  const mount = fixtureLog()
    .mounts.slice(before)
    .find((m) => m.id === loaded.id);
  if (mount === undefined) throw new Error(`${loaded.id} did not mount`);
  return mount.url;
}

function urlOf(...parts: string[]): string {
  return pathToFileURL(path.join(...parts)).href;
}

describe('the source hint', () => {
  it('an absolute path to a package dir', async () => {
    const dir = writePackage(path.join(root, 'vendor', 'abs'), { name: 'abs-pkg', id: 'hint-abs' });
    const loaded = await loaderAt(root).load('hint-abs', {}, { source: dir });
    expect(loaded.packageName).toBe('abs-pkg');
    expect(await mountedFrom(loaded)).toBe(urlOf(dir, 'index.js'));
  });

  it('a relative path, resolved against baseDir (not the process cwd)', async () => {
    const dir = writePackage(path.join(root, 'vendor', 'rel'), { name: 'rel-pkg', id: 'hint-rel' });
    const loaded = await loaderAt(root).load('hint-rel', {}, { source: './vendor/rel' });
    expect(loaded.path).toBe(dir);
    expect(await mountedFrom(loaded)).toBe(urlOf(dir, 'index.js'));
  });

  it('a path through a symlink: the real path is used and reported', async () => {
    const dir = writePackage(path.join(root, 'real', 'pkg'), { name: 'linked-pkg', id: 'hint-link' });
    symlinkSync(dir, path.join(root, 'link'), 'dir');
    const loaded = await loaderAt(root).load('hint-link', {}, { source: './link' });
    expect(loaded.path).toBe(dir);
    expect(await mountedFrom(loaded)).toBe(urlOf(dir, 'index.js'));
  });

  it('a file: URL', async () => {
    const dir = writePackage(path.join(root, 'vendor', 'url'), { name: 'url-pkg', id: 'hint-url' });
    const loaded = await loaderAt(root).load('hint-url', {}, { source: pathToFileURL(dir).href });
    expect(await mountedFrom(loaded)).toBe(urlOf(dir, 'index.js'));
  });

  it('a package name, resolved from baseDir, wins over the conventional name', async () => {
    installNpm(root, [
      { name: '@amplifier/hint-pkg' },
      { name: '@acme/hint-fork', id: 'hint-pkg', version: '9.0.0' },
    ]);
    const loaded = await loaderAt(root).load('hint-pkg', {}, { source: '@acme/hint-fork' });
    expect(loaded).toMatchObject({ packageName: '@acme/hint-fork', version: '9.0.0' });
    expect(await mountedFrom(loaded)).toBe(urlOf(root, 'node_modules', '@acme', 'hint-fork', 'index.js'));
  });

  it('a package name that is not installed, or a git URL meant for a resolver, falls through to the installed module', async () => {
    installNpm(root, [{ name: '@amplifier/hint-fallthrough' }]);
    const loader = loaderAt(root);
    const viaName = await loader.load('hint-fallthrough', {}, { source: '@acme/not-installed' });
    expect(viaName.packageName).toBe('@amplifier/hint-fallthrough');
    const viaGit = await loader.load(
      'hint-fallthrough',
      {},
      {
        source: 'git+https://github.com/microsoft/amplifier-module-hint@main',
      },
    );
    expect(viaGit.packageName).toBe('@amplifier/hint-fallthrough');
  });

  it('a module found by its id instead of its source says which source it stands in for', async () => {
    installNpm(root, [{ name: '@amplifier/hint-standin' }, { name: '@acme/hint-used', id: 'hint-used' }]);
    const loader = loaderAt(root);
    const git = 'git+https://github.com/microsoft/amplifier-module-hint-standin@main';
    const viaGit = await loader.resolve('hint-standin', { source: git });
    expect(viaGit).toMatchObject({ via: '@amplifier/hint-standin', standsInFor: git });
    expect((await loader.resolve('hint-standin', { source: '@acme/gone' })).standsInFor).toBe('@acme/gone');
    // A source that was used, or none at all, stands in for nothing.
    expect((await loader.resolve('hint-used', { source: '@acme/hint-used' })).standsInFor).toBeUndefined();
    expect((await loader.resolve('hint-standin')).standsInFor).toBeUndefined();
  });

  it('a git source that nothing installed stands in for fails, saying the source is not fetched', async () => {
    for (const source of [
      'git+https://github.com/microsoft/amplifier-module-tool-nowhere@main',
      'git+ssh://git@github.com/org/amplifier-module-tool-nowhere.git',
      'https://example.invalid/tool-nowhere.tgz',
    ]) {
      const error = await rejection(loaderAt(root).load('tool-nowhere', {}, { source }));
      expect(error).toBeInstanceOf(ModuleNotFoundError);
      expect(error.message).toContain(`Its source ${source} is not fetched`);
      expect(error.message).toContain('no installed package stands in for it');
      expect(error.message).toContain('"amplifier": { "module": "tool-nowhere" }');
      expect(error.message).toContain('Fix: npm install @amplifier/tool-nowhere');
    }
    // A path or package-name source gets no such note (nothing is fetched for them).
    const plain = await rejection(loaderAt(root).load('tool-nowhere', {}, { source: '@acme/nowhere' }));
    expect(plain.message).not.toContain('is not fetched');
  });

  it('a path that does not exist fails, naming it', async () => {
    const error = await rejection(loaderAt(root).load('hint-missing', {}, { source: './nowhere' }));
    expect(error).toBeInstanceOf(ModuleNotFoundError);
    expect(error.message).toContain(path.join(root, 'nowhere'));
  });

  it('a package that declares another module id is refused', async () => {
    const dir = writePackage(path.join(root, 'other'), { name: 'other', id: 'tool-other' });
    const error = await rejection(loaderAt(root).load('tool-mine', {}, { source: dir }));
    expect(error.code).toBe('MODULE_INVALID_MANIFEST');
    expect(error.message).toContain("declares module 'tool-other', not 'tool-mine'");
  });

  it('a plain folder with index.js and no package.json', async () => {
    const dir = path.join(root, 'plain-folder');
    writeFiles(dir, { 'index.js': moduleSource('plain-folder') });
    const loaded = await loaderAt(root).load(
      'plain-folder',
      { a: 1 },
      { source: './plain-folder', type: 'tool' },
    );
    expect(loaded).toMatchObject({ id: 'plain-folder', type: 'tool' });
    expect(loaded.packageName).toBeUndefined();
    expect(await mountedFrom(loaded)).toBe(urlOf(dir, 'index.js'));
  });

  it('a single .js file', async () => {
    writeFiles(root, { 'single/tool.js': moduleSource('single-file') });
    const loaded = await loaderAt(root).load('single-file', {}, { source: './single/tool.js' });
    expect(await mountedFrom(loaded)).toBe(urlOf(root, 'single', 'tool.js'));
  });

  it('a folder with neither package.json nor index.js is refused with a clear message', async () => {
    mkdirSync(path.join(root, 'empty'));
    const error = await rejection(loaderAt(root).load('empty', {}, { source: './empty' }));
    expect(error.code).toBe('MODULE_LOAD_FAILED');
    expect(error.message).toContain('neither a package.json with an "amplifier" field nor an index.js');
  });
});

describe('a mounted module-source-resolver', () => {
  /** A loader whose every `load` passes `resolver` (recording its calls) as the per-call source resolver. */
  function withResolver(resolver: ModuleSourceResolver) {
    const calls: unknown[][] = [];
    const sourceResolver: ModuleSourceResolver = {
      async resolve(id: string, options: { sourceHint?: string }) {
        calls.push([id, options]);
        return resolver.resolve(id, options);
      },
    };
    const base = loaderAt(root);
    const loader = {
      load: (id: string, config: Record<string, unknown> = {}, options: { source?: string } = {}) =>
        base.load(id, config, { ...options, sourceResolver }),
    };
    return { loader, calls };
  }

  it('is asked first, with the source hint, and its location is used', async () => {
    installNpm(root, [{ name: '@amplifier/res-first' }]);
    const elsewhere = writePackage(path.join(root, 'resolved'), { name: 'resolved', id: 'res-first' });
    const { loader, calls } = withResolver({ resolve: () => ({ resolve: async () => elsewhere }) });
    const loaded = await loader.load('res-first', {}, { source: 'git+https://example.invalid/x' });
    expect(calls).toEqual([['res-first', { sourceHint: 'git+https://example.invalid/x' }]]);
    expect(await mountedFrom(loaded)).toBe(urlOf(elsewhere, 'index.js'));
  });

  it('a resolver throwing ModuleNotFoundError falls back to direct resolution', async () => {
    const [dir] = installNpm(root, [{ name: '@amplifier/res-fallback' }]);
    const { loader } = withResolver({
      resolve: (id) => {
        throw new ModuleNotFoundError(id, `resolver has no ${id}`);
      },
    });
    expect(await mountedFrom(await loader.load('res-fallback'))).toBe(urlOf(dir!, 'index.js'));
  });

  it("re-throws the resolver's ModuleNotFoundError when direct resolution fails too", async () => {
    const original = new ModuleNotFoundError('res-nowhere', 'resolver: res-nowhere is not in the registry');
    const { loader } = withResolver({
      resolve: () => ({
        resolve: () => {
          throw original;
        },
      }),
    });
    await expect(loader.load('res-nowhere')).rejects.toBe(original);
    // Also when the direct attempt failed on a source path.
    await expect(loader.load('res-nowhere', {}, { source: './missing' })).rejects.toBe(original);
  });

  it('other resolver errors propagate without fallback', async () => {
    installNpm(root, [{ name: '@amplifier/res-broken' }]);
    const { loader } = withResolver({
      resolve: () => {
        throw new TypeError('registry offline');
      },
    });
    await expect(loader.load('res-broken')).rejects.toThrow('registry offline');
  });

  it('a resolver location that does not exist is an error, not a silent fallback', async () => {
    installNpm(root, [{ name: '@amplifier/res-bad-path' }]);
    const { loader } = withResolver({ resolve: () => ({ resolve: () => path.join(root, 'gone') }) });
    const error = await rejection(loader.load('res-bad-path'));
    expect(error.message).toContain(`module-source-resolver points at ${path.join(root, 'gone')}`);
  });
});

describe('a source resolver passed per call (no coordinator needed)', () => {
  function recording(location: () => string): { resolver: ModuleSourceResolver; calls: unknown[][] } {
    const calls: unknown[][] = [];
    return {
      calls,
      resolver: {
        resolve(id, options) {
          calls.push([id, options]);
          return { resolve: location };
        },
      },
    };
  }

  it('load and resolve use options.sourceResolver first, with the source hint', async () => {
    const elsewhere = writePackage(path.join(root, 'resolved'), { name: 'resolved', id: 'res-call' });
    const { resolver, calls } = recording(() => elsewhere);
    const loader = loaderAt(root);
    const loaded = await loader.load(
      'res-call',
      {},
      { source: 'registry:res-call', sourceResolver: resolver },
    );
    expect(calls).toEqual([['res-call', { sourceHint: 'registry:res-call' }]]);
    expect(await mountedFrom(loaded)).toBe(urlOf(elsewhere, 'index.js'));
    expect((await loader.resolve('res-call', { sourceResolver: resolver })).via).toBe(
      'module-source-resolver',
    );
    // Without one, the same loader resolves directly (nothing was kept from the calls above).
    const error = await rejection(loader.load('res-call'));
    expect(error.code).toBe('MODULE_NOT_FOUND');
    expect(error.message).toContain('module-source-resolver: none mounted');
  });

  it('one loader serves two resolvers (two sessions) side by side', async () => {
    const a = writePackage(path.join(root, 'a'), { name: 'a', id: 'res-shared' });
    const b = writePackage(path.join(root, 'b'), { name: 'b', id: 'res-shared' });
    const loader = loaderAt(root);
    const [fromA, fromB] = await Promise.all([
      loader.load('res-shared', {}, { sourceResolver: recording(() => a).resolver }),
      loader.load('res-shared', {}, { sourceResolver: recording(() => b).resolver }),
    ]);
    expect(await mountedFrom(fromA)).toBe(urlOf(a, 'index.js'));
    expect(await mountedFrom(fromB)).toBe(urlOf(b, 'index.js'));
  });
});

describe('broken packages', () => {
  it('a syntax error in the entry: ModuleLoadError naming the file', async () => {
    installNpm(root, [{ name: '@amplifier/broken-syntax', files: { 'index.js': 'export const = 1;\n' } }]);
    const error = await rejection(loaderAt(root).load('broken-syntax'));
    expect(error.code).toBe('MODULE_LOAD_FAILED');
    expect(error.message).toContain(
      path.join(root, 'node_modules', '@amplifier', 'broken-syntax', 'index.js'),
    );
    expect(error.message).toContain("Module 'broken-syntax' failed to import");
  });

  it('no mount export', async () => {
    installNpm(root, [{ name: '@amplifier/broken-nomount', files: { 'index.js': 'export const x = 1;\n' } }]);
    const error = await rejection(loaderAt(root).load('broken-nomount'));
    expect(error.code).toBe('MODULE_LOAD_FAILED');
    expect(error.message).toContain('does not export a mount function');
    expect(error.message).toContain('index.js');
  });

  it('a mount that is not a function', async () => {
    installNpm(root, [
      { name: '@amplifier/broken-mountobj', files: { 'index.js': 'export const mount = { run() {} };\n' } },
    ]);
    const error = await rejection(loaderAt(root).load('broken-mountobj'));
    expect(error.message).toContain('exports mount, but it is a object, not a function');
  });

  it('an invalid "amplifier" field: error names package.json and the JSON path', async () => {
    const [dir] = installNpm(root, [
      { name: '@amplifier/broken-field', amplifier: { module: 'broken-field', type: 'tool', mount: 'x' } },
    ]);
    const error = await rejection(loaderAt(root).load('broken-field'));
    expect(error.code).toBe('MODULE_INVALID_MANIFEST');
    expect(error.message).toContain(path.join(dir!, 'package.json'));
    expect(error.message).toContain('amplifier.mount is not allowed (unknown key)');
  });

  it('a declared type that does not match the mount point it is loaded for', async () => {
    installNpm(root, [{ name: '@amplifier/typed-hook', type: 'hook' }]);
    const loader = loaderAt(root);
    const error = await rejection(loader.load('typed-hook', {}, { type: 'tool' }));
    expect(error.code).toBe('MODULE_INCOMPATIBLE');
    expect(error.message).toContain('is a hook module, but the mount plan uses it as a tool');
    expect(error.message).toContain('move it to the hooks section');
    expect((await loader.load('typed-hook', {}, { type: 'hook' })).type).toBe('hook');
  });

  it('an @amplifier/core peer range the running core does not satisfy', async () => {
    installNpm(root, [{ name: '@amplifier/peer-old', coreRange: '^0.0.1 || ^99.0.0' }]);
    const error = await rejection(loaderAt(root, { coreVersion: '1.4.0' }).load('peer-old'));
    expect(error.code).toBe('MODULE_INCOMPATIBLE');
    expect(error.message).toContain(
      'needs @amplifier/core ^0.0.1 || ^99.0.0, but @amplifier/core 1.4.0 is running',
    );
  });

  it('peer ranges the running core satisfies load, including workspace: ranges', async () => {
    const ranges = ['workspace:*', 'workspace:^', `workspace:^${VERSION}`, `>=${VERSION}`, '*'];
    installNpm(
      root,
      ranges.map((coreRange, i) => ({ name: `@amplifier/peer-ok-${i}`, coreRange })),
    );
    const loader = loaderAt(root);
    for (let i = 0; i < ranges.length; i++) {
      expect((await loader.load(`peer-ok-${i}`)).id).toBe(`peer-ok-${i}`);
    }
    const prerelease = loaderAt(root, { coreVersion: '2.0.0-beta.1' });
    installNpm(root, [{ name: '@amplifier/peer-pre', coreRange: '^2.0.0-0' }]);
    expect((await prerelease.load('peer-pre')).id).toBe('peer-pre');
  });

  it('an invalid peer range is warned about, not fatal', async () => {
    installNpm(root, [{ name: '@amplifier/peer-junk', coreRange: 'not a range!' }]);
    expect((await loaderAt(root).load('peer-junk')).id).toBe('peer-junk');
    expect(warnings.join('\n')).toContain("invalid @amplifier/core peer range 'not a range!'");
  });

  it('an entry file missing (unbuilt package) says to build it', async () => {
    installNpm(root, [{ name: '@amplifier/unbuilt', packageJson: { main: './dist/index.js' }, files: {} }]);
    const error = await rejection(loaderAt(root).load('unbuilt'));
    expect(error.message).toContain(
      path.join(root, 'node_modules', '@amplifier', 'unbuilt', 'dist', 'index.js'),
    );
    expect(error.message).toContain('not built');
    expect(error.message).toContain('pnpm --filter @amplifier/unbuilt build');
  });
});

describe('not found', () => {
  it('names the module, every place looked, and the npm install line', async () => {
    writeProject(root, { 'left-pad': '1.0.0' });
    installNpm(root, [
      { name: 'left-pad', amplifier: null },
      { name: 'amplifier-module-ghost', amplifier: null },
    ]);
    const error = await rejection(
      loaderAt(root, { searchPaths: [path.join(root, 'mods')] }).load('ghost', {}, { source: '@acme/ghost' }),
    );
    expect(error).toBeInstanceOf(ModuleNotFoundError);
    const notFound = error as ModuleNotFoundError;
    expect(notFound.moduleId).toBe('ghost');
    expect(notFound.message).toContain("Module 'ghost' not found");
    expect(notFound.searched).toEqual([
      'module-source-resolver: none mounted',
      `source '@acme/ghost': no node_modules/@acme/ghost in ${root} or its parents`,
      `@amplifier/ghost: no node_modules/@amplifier/ghost in ${root} or its parents`,
      `amplifier-module-ghost: installed at ${path.join(root, 'node_modules', 'amplifier-module-ghost')} but its package.json has no "amplifier" field`,
      `declared dependencies of ${path.join(root, 'package.json')} (1 packages examined, none declares "amplifier": { "module": "ghost" })`,
      `AMPLIFIER_MODULES / search paths: ${path.join(root, 'mods')}`,
    ]);
    for (const place of notFound.searched) expect(notFound.message).toContain(place);
    expect(notFound.message).toContain('npm install @amplifier/ghost');
  });

  it('lists problems met on the way (an invalid manifest may be the module asked for)', async () => {
    writeProject(root, { 'acme-thing': '1.0.0' });
    installNpm(root, [{ name: 'acme-thing', amplifier: { module: 'thing', type: 'tool', extra: 1 } }]);
    const error = await rejection(loaderAt(root).load('thing'));
    expect(error.code).toBe('MODULE_NOT_FOUND');
    expect(error.message).toContain('Problems met while looking');
    expect(error.message).toContain('amplifier.extra is not allowed');
  });

  it('without a package.json at or above baseDir, says so', async () => {
    const bare = makeTempDir('amp-bare-');
    try {
      const error = await rejection(loaderAt(bare).load('nothing'));
      expect(error.message).toContain(`declared dependencies: no package.json at or above ${bare}`);
    } finally {
      removeDir(bare);
    }
  });
});

describe('loading and mounting', () => {
  it('the same id twice with different configs: two modules, each mounting with its own config; the entry is imported once', async () => {
    const [dir] = installNpm(root, [{ name: '@amplifier/twice' }]);
    const loader = loaderAt(root);
    const [a, b] = await Promise.all([
      loader.load('twice', { name: 'first' }),
      loader.load('twice', { name: 'second' }),
    ]);
    expect(a).not.toBe(b);
    const coordinator = new Coordinator({ logger });
    await a.mount(coordinator);
    expect(coordinator.getCapability('fixture.twice')).toEqual({ name: 'first' });
    await b.mount(coordinator);
    expect(coordinator.getCapability('fixture.twice')).toEqual({ name: 'second' });
    await a.mount(coordinator);
    expect(coordinator.getCapability('fixture.twice')).toEqual({ name: 'first' });
    // A second loader over the same tree reuses the already imported file too.
    await loaderAt(root).load('twice', { name: 'third' });
    const url = urlOf(dir!, 'index.js');
    expect(fixtureLog().imports[url]).toBe(1);
    expect(
      fixtureLog()
        .mounts.filter((m) => m.url === url)
        .map((m) => m.config),
    ).toEqual([{ name: 'first' }, { name: 'second' }, { name: 'first' }]);
  });

  it('a missing config mounts with {}', async () => {
    installNpm(root, [{ name: '@amplifier/no-config' }]);
    const loaded = await loaderAt(root).load('no-config');
    const coordinator = new Coordinator({ logger });
    await loaded.mount(coordinator);
    expect(coordinator.getCapability('fixture.no-config')).toEqual({});
  });

  it('onSessionReady exported by a module is exposed on the LoadedModule', async () => {
    installNpm(root, [
      {
        name: '@amplifier/ready',
        files: {
          'index.js': moduleSource(
            'ready',
            'export async function onSessionReady(coordinator) { log.ready.push(coordinator.sessionId); }\n',
          ),
        },
      },
      { name: '@amplifier/not-ready' },
    ]);
    const loader = loaderAt(root);
    const loaded = await loader.load('ready');
    expect(typeof loaded.onSessionReady).toBe('function');
    const coordinator = new Coordinator({ logger, sessionId: 'ready-session' });
    await loaded.onSessionReady!(coordinator);
    expect(fixtureLog().ready).toContain('ready-session');
    expect((await loader.load('not-ready')).onSessionReady).toBeUndefined();
  });

  it('a module exporting default { mount, onSessionReady } works', async () => {
    installNpm(root, [
      {
        name: '@amplifier/default-export',
        files: {
          'index.js': `export default {
  async mount(coordinator, config) { coordinator.registerCapability('fixture.default-export', config); return () => {}; },
  async onSessionReady(coordinator) { coordinator.registerCapability('default-export.ready', true); },
};\n`,
        },
      },
    ]);
    const loaded = await loaderAt(root).load('default-export', { d: 1 });
    const coordinator = new Coordinator({ logger });
    expect(typeof (await loaded.mount(coordinator))).toBe('function');
    expect(coordinator.getCapability('fixture.default-export')).toEqual({ d: 1 });
    await loaded.onSessionReady!(coordinator);
    expect(coordinator.getCapability('default-export.ready')).toBe(true);
  });

  it('imports by file URL: a path containing a space and % works', async () => {
    // A `#` in the path works too under plain Node (loader.node.test.ts); vitest's module runner cannot import it.
    const dir = writePackage(path.join(root, 'odd dir', '100% real'), { name: 'odd', id: 'odd-path' });
    const loaded = await loaderAt(root).load('odd-path', {}, { source: dir });
    expect(await mountedFrom(loaded)).toBe(urlOf(dir, 'index.js'));
    expect(fixtureLog().imports[urlOf(dir, 'index.js')]).toBe(1);
  });
});

describe('a loader serving many sessions', () => {
  it('resolves a module once: later loads read no package.json, a fresh scan looks again', async () => {
    installNpm(root, [{ name: '@amplifier/once-pkg', version: '1.0.0' }]);
    const loader = loaderAt(root);
    const first = await loader.resolve('once-pkg');
    const manifest = path.join(root, 'node_modules', '@amplifier', 'once-pkg', 'package.json');
    const { renameSync } = await import('node:fs');
    renameSync(manifest, `${manifest}.gone`);
    expect(await loader.resolve('once-pkg')).toBe(first);
    expect((await loader.load('once-pkg')).version).toBe('1.0.0');
    // A new loader, or a fresh scan, reads the disk again.
    expect((await rejection(loaderAt(root).resolve('once-pkg'))).code).toBe('MODULE_NOT_FOUND');
    loader.scan({ fresh: true });
    expect((await rejection(loader.resolve('once-pkg'))).code).toBe('MODULE_NOT_FOUND');
  });
});
