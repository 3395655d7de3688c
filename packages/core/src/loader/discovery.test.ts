import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createLargeProject, pnpmStoreDir, writeProject } from '@amplifier/test-fixtures';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../contracts.js';
import { Coordinator } from '../coordinator.js';
import {
  fixtureLog,
  installNpm,
  installPnpm,
  makeTempDir,
  moduleSource,
  removeDir,
  writePackage,
} from './__fixtures__/trees.js';
import { clearDiscoveryCache, findPackageDir } from './discovery.js';
import { ModuleLoader, type ModuleLoaderOptions } from './loader.js';

let root: string;
const warnings: string[] = [];
const logger: Logger = {
  debug() {},
  info() {},
  warn: (message) => warnings.push(message),
  error() {},
};

beforeEach(() => {
  root = makeTempDir('amp-discovery-');
  warnings.length = 0;
  clearDiscoveryCache();
});
afterEach(() => {
  vi.unstubAllEnvs();
  clearDiscoveryCache();
  removeDir(root);
});

function loaderAt(baseDir: string, options: ModuleLoaderOptions = {}): ModuleLoader {
  return new ModuleLoader({ baseDir, searchPaths: [], logger, ...options });
}

/** Load and mount `id`; returns the loaded module and the file URL its code was imported from. */
async function mountModule(loader: ModuleLoader, id: string, config: Record<string, unknown> = { for: id }) {
  const coordinator = new Coordinator({ logger });
  const loaded = await loader.load(id, config);
  await loaded.mount(coordinator);
  expect(coordinator.getCapability(`fixture.${id}`)).toEqual(config);
  const mount = fixtureLog().mounts.findLast((m) => m.id === id);
  return { loaded, url: mount?.url };
}

function urlOf(dir: string, file = 'index.js'): string {
  return pathToFileURL(path.join(dir, file)).href;
}

describe('npm-style hoisted node_modules', () => {
  it('finds @amplifier/<id> and amplifier-module-<id> by conventional name from the base dir', async () => {
    writeProject(root);
    const [scoped, prefixed] = installNpm(root, [
      { name: '@amplifier/npm-tool-a', version: '1.2.3' },
      { name: 'amplifier-module-npm-tool-b', type: 'hook' },
    ]);
    const loader = loaderAt(root);
    const a = await mountModule(loader, 'npm-tool-a');
    expect(a.url).toBe(urlOf(scoped!));
    expect(a.loaded).toMatchObject({ id: 'npm-tool-a', type: 'tool', packageName: '@amplifier/npm-tool-a' });
    expect(a.loaded.version).toBe('1.2.3');
    expect(a.loaded.path).toBe(scoped);
    const b = await mountModule(loader, 'npm-tool-b');
    expect(b.url).toBe(urlOf(prefixed!));
    expect(b.loaded.type).toBe('hook');
  });

  it('finds them from a nested subdirectory of the base dir (walking up node_modules)', async () => {
    writeProject(root);
    const [dir] = installNpm(root, [{ name: '@amplifier/npm-nested' }]);
    const nested = path.join(root, 'packages', 'app', 'src');
    mkdirSync(nested, { recursive: true });
    const { loaded, url } = await mountModule(loaderAt(nested), 'npm-nested');
    expect(url).toBe(urlOf(dir!));
    expect(loaded.path).toBe(dir);
  });

  it('discovers a declared dependency with an unconventional name from a nested subdirectory too', async () => {
    writeProject(root, { 'acme-shell-tool': '^1.0.0' });
    const [dir] = installNpm(root, [{ name: 'acme-shell-tool', id: 'npm-shell' }]);
    const nested = path.join(root, 'src', 'deep');
    mkdirSync(nested, { recursive: true });
    const { url } = await mountModule(loaderAt(nested), 'npm-shell');
    expect(url).toBe(urlOf(dir!));
  });

  it('findPackageDir returns the real path of a package seen from a directory', () => {
    writeProject(root);
    const [dir] = installNpm(root, [{ name: 'plain-dep', amplifier: null }]);
    expect(findPackageDir('plain-dep', path.join(root, 'a', 'b'))).toBe(dir);
    expect(findPackageDir('not-installed', root)).toBeUndefined();
  });
});

describe('pnpm-style layout (.pnpm virtual store, symlinks)', () => {
  it('loads a symlinked direct dependency from its real path in the store', async () => {
    writeProject(root, { '@amplifier/pnpm-tool': 'workspace:*' });
    const [real] = installPnpm(root, [{ name: '@amplifier/pnpm-tool' }]);
    expect(real).toBe(pnpmStoreDir(root, '@amplifier/pnpm-tool'));
    const loader = loaderAt(root);
    const { loaded, url } = await mountModule(loader, 'pnpm-tool');
    expect(url).toBe(urlOf(real!));
    expect(loaded.path).toBe(realpathSync(path.join(root, 'node_modules', '@amplifier', 'pnpm-tool')));
    expect((await loader.discover()).map((m) => m.path)).toEqual([real]);
  });

  it("imports a module whose own dependency is a sibling in the virtual store (resolved from the module's real path)", async () => {
    writeProject(root, { 'acme-tools': '1.0.0' });
    installPnpm(
      root,
      [
        {
          name: 'acme-tools',
          id: 'pnpm-with-dep',
          dependencies: { 'acme-helper': '1.0.0' },
          files: {
            'index.js': moduleSource(
              'pnpm-with-dep',
              "import { helper } from 'acme-helper';\nexport const helped = helper();\n",
            ),
          },
        },
        {
          name: 'acme-helper',
          amplifier: null,
          files: { 'index.js': "export function helper() { return 'from the store'; }\n" },
        },
      ],
      { direct: ['acme-tools'] },
    );
    // The helper is not reachable from the project: only from inside the store.
    expect(findPackageDir('acme-helper', root)).toBeUndefined();
    const loaded = await loaderAt(root).load('pnpm-with-dep');
    const log = fixtureLog();
    const url = urlOf(pnpmStoreDir(root, 'acme-tools'));
    expect(log.imports[url]).toBe(1);
    await loaded.mount(new Coordinator({ logger }));
    expect(log.mounts.findLast((m) => m.id === 'pnpm-with-dep')?.url).toBe(url);
  });

  it('deduplicates by real path: the same package declared by two roots is one module, not a duplicate', async () => {
    writeProject(root, { '@amplifier/pnpm-shared': '1.0.0' });
    const app = path.join(root, 'app');
    writeProject(app, { '@amplifier/pnpm-shared': '1.0.0' });
    const [real] = installPnpm(root, [{ name: '@amplifier/pnpm-shared' }]);
    mkdirSync(path.join(app, 'node_modules', '@amplifier'), { recursive: true });
    symlinkSync(real!, path.join(app, 'node_modules', '@amplifier', 'pnpm-shared'), 'dir');
    const loader = loaderAt(root, { extraRoots: [app] });
    const index = loader.scan();
    expect(index.scanned).toBe(2);
    expect(index.problems).toEqual([]);
    expect([...index.modules.values()].map((m) => m.dir)).toEqual([real]);
  });
});

describe('scoped packages, declared dependencies, AMPLIFIER_MODULES and extraRoots', () => {
  it('discovers a scoped package with an unconventional name through the base dir\'s declared dependencies and its "amplifier" field', async () => {
    writeProject(root, { '@acme/agent-shell': '^2.0.0' }, { devDependencies: { 'dev-only-tool': '1.0.0' } });
    const [shell, devTool] = installNpm(root, [
      { name: '@acme/agent-shell', id: 'acme-shell', type: 'tool', version: '2.0.0' },
      { name: 'dev-only-tool', id: 'dev-only', type: 'hook' },
      { name: 'undeclared-tool', id: 'undeclared' },
    ]);
    const loader = loaderAt(root);
    expect((await mountModule(loader, 'acme-shell')).url).toBe(urlOf(shell!));
    expect((await mountModule(loader, 'dev-only')).url).toBe(urlOf(devTool!));
    // Installed but not declared: discovery never scans node_modules wholesale.
    await expect(loader.load('undeclared')).rejects.toMatchObject({ code: 'MODULE_NOT_FOUND' });
  });

  it('AMPLIFIER_MODULES: a folder of packages (with @scope folders) and a single package dir', async () => {
    writeProject(root);
    const folder = path.join(root, 'modules');
    const plain = writePackage(path.join(folder, 'my-tool'), { name: 'my-tool', id: 'env-folder-tool' });
    const scoped = writePackage(path.join(folder, '@me', 'hook'), {
      name: '@me/hook',
      id: 'env-scoped-hook',
      type: 'hook',
    });
    writePackage(path.join(folder, '.hidden'), { name: 'hidden', id: 'env-hidden' });
    const single = writePackage(path.join(root, 'elsewhere', 'one'), { name: 'one', id: 'env-single' });
    vi.stubEnv('AMPLIFIER_MODULES', [folder, single, path.join(root, 'missing')].join(path.delimiter));
    const loader = new ModuleLoader({ baseDir: root, logger });
    expect(loader.searchPaths).toEqual([folder, single, path.join(root, 'missing')]);
    expect((await mountModule(loader, 'env-folder-tool')).url).toBe(urlOf(plain));
    expect((await mountModule(loader, 'env-scoped-hook')).url).toBe(urlOf(scoped));
    expect((await mountModule(loader, 'env-single')).url).toBe(urlOf(single));
    expect((await loader.discover()).map((m) => m.id)).toEqual([
      'env-folder-tool',
      'env-scoped-hook',
      'env-single',
    ]);
    expect(loader.scan().problems).toEqual([
      { path: path.join(root, 'missing'), message: 'AMPLIFIER_MODULES entry does not exist' },
    ]);
  });

  it('extraRoots: discovers the declared dependencies of another package root (an app installed in a pnpm store)', async () => {
    writeProject(root);
    const cliDir = path.join(root, 'cli-install');
    installPnpm(
      cliDir,
      [
        { name: 'amplifier-cli', amplifier: null, dependencies: { 'cli-bundled-tool': '1.0.0' } },
        { name: 'cli-bundled-tool', id: 'bundled' },
      ],
      { direct: ['amplifier-cli'] },
    );
    const cliRoot = pnpmStoreDir(cliDir, 'amplifier-cli');
    const loader = loaderAt(root, { extraRoots: [cliRoot] });
    expect((await mountModule(loader, 'bundled')).url).toBe(urlOf(pnpmStoreDir(cliDir, 'cli-bundled-tool')));
    expect(loader.scan().roots).toEqual([root, cliRoot]);
  });

  it("extraRoots: a bundled module's conventional name is found from the extra root without scanning its dependencies; the project's own module of that id still wins", async () => {
    const cliDir = path.join(root, 'cli-install');
    installPnpm(
      cliDir,
      [
        {
          name: 'amplifier-cli',
          amplifier: null,
          dependencies: { '@amplifier/fast-tool': '1.0.0', 'broken-dep': '1.0.0' },
        },
        { name: '@amplifier/fast-tool', id: 'fast-tool' },
        { name: 'broken-dep', id: 'not valid!' },
      ],
      { direct: ['amplifier-cli'] },
    );
    const cliRoot = pnpmStoreDir(cliDir, 'amplifier-cli');
    const outside = path.join(root, 'outside');
    mkdirSync(outside);
    const loader = loaderAt(outside, { extraRoots: [cliRoot] });
    const resolved = await loader.resolve('fast-tool');
    expect(resolved.via).toBe('@amplifier/fast-tool');
    expect(resolved.package?.dir).toBe(pnpmStoreDir(cliDir, '@amplifier/fast-tool'));
    // The full scan of the CLI's dependencies would have met the broken manifest.
    expect((await mountModule(loader, 'fast-tool')).url).toBe(
      urlOf(pnpmStoreDir(cliDir, '@amplifier/fast-tool')),
    );
    expect(loader.scan().problems.map((p) => p.path)).toEqual([
      path.join(pnpmStoreDir(cliDir, 'broken-dep'), 'package.json'),
    ]);

    // A project that declares its own package for the id: it wins over the CLI's bundled one.
    const project = path.join(root, 'project');
    writeProject(project, { 'my-fast-fork': '1.0.0' });
    const [fork] = installNpm(project, [{ name: 'my-fast-fork', id: 'fast-tool' }]);
    const inProject = loaderAt(project, { extraRoots: [cliRoot] });
    expect((await inProject.resolve('fast-tool')).package?.dir).toBe(fork);
    expect((await mountModule(inProject, 'fast-tool')).url).toBe(urlOf(fork!));
  });
});

describe('duplicates and discover()', () => {
  it('a duplicate module id in two packages: the first found wins and scan()/discover() report it', async () => {
    writeProject(root, { 'first-pkg': '1.0.0', 'second-pkg': '1.0.0' });
    const [first, second] = installNpm(root, [
      { name: 'first-pkg', id: 'dup-tool' },
      { name: 'second-pkg', id: 'dup-tool' },
    ]);
    const loader = loaderAt(root);
    const index = loader.scan();
    expect(index.modules.get('dup-tool')?.dir).toBe(first);
    expect(index.problems).toHaveLength(1);
    expect(index.problems[0]!.path).toBe(second);
    expect(index.problems[0]!.message).toContain("duplicate module id 'dup-tool'");
    expect(index.problems[0]!.message).toContain(`second-pkg (${second}) is ignored`);
    expect((await mountModule(loader, 'dup-tool')).url).toBe(urlOf(first!));
    const listed = await loader.discover();
    expect(listed.map((m) => m.name)).toEqual(['first-pkg']);
    expect(warnings.some((w) => w.includes("duplicate module id 'dup-tool'"))).toBe(true);
  });

  it('discover() lists every module with id, type, package name, version, real path and mount point', async () => {
    writeProject(root, {
      '@amplifier/loop-x': '1.0.0',
      'acme-context': '1.0.0',
      'amplifier-module-provider-y': '1.0.0',
      'left-pad': '1.0.0',
    });
    const npm = installNpm(root, [
      { name: '@amplifier/loop-x', type: 'orchestrator', version: '0.3.0', description: 'A loop' },
      { name: 'acme-context', id: 'context-z', type: 'context', version: '2.0.0' },
      { name: 'left-pad', amplifier: null },
    ]);
    const [provider] = installPnpm(root, [{ name: 'amplifier-module-provider-y', type: 'provider' }]);
    const broken = path.join(root, 'mods', 'broken');
    writePackage(broken, { name: 'broken', amplifier: { module: 'broken', type: 'nope' } });
    const res = writePackage(path.join(root, 'mods', 'res'), {
      name: 'res',
      id: 'resolver-r',
      type: 'resolver',
    });
    const loader = loaderAt(root, { searchPaths: [path.join(root, 'mods')] });
    expect(await loader.discover()).toEqual([
      {
        id: 'context-z',
        type: 'context',
        name: 'acme-context',
        version: '2.0.0',
        path: npm[1],
        mount_point: 'context',
      },
      {
        id: 'loop-x',
        type: 'orchestrator',
        name: '@amplifier/loop-x',
        version: '0.3.0',
        path: npm[0],
        mount_point: 'orchestrator',
        description: 'A loop',
      },
      {
        id: 'provider-y',
        type: 'provider',
        name: 'amplifier-module-provider-y',
        version: '1.0.0',
        path: provider,
        mount_point: 'providers',
      },
      {
        id: 'resolver-r',
        type: 'resolver',
        name: 'res',
        version: '1.0.0',
        path: res,
        mount_point: 'module-source-resolver',
      },
    ]);
    expect(loader.scan().problems.map((p) => p.path)).toEqual([path.join(broken, 'package.json')]);
    expect(warnings.some((w) => w.includes('amplifier.type must be one of'))).toBe(true);
  });
});

describe('the discovery cache', () => {
  it('a second scan reuses the index; it is rebuilt when the root package.json changes', async () => {
    writeProject(root, { 'cache-a': '1.0.0' });
    installNpm(root, [
      { name: 'cache-a', id: 'cache-a' },
      { name: 'cache-b', id: 'cache-b' },
    ]);
    const loader = loaderAt(root);
    const first = loader.scan();
    expect(first.scanned).toBe(1);
    expect(loader.scan()).toBe(first);
    // Another loader over the same roots shares the process cache.
    expect(loaderAt(root).scan()).toBe(first);
    await expect(loader.load('cache-b')).rejects.toMatchObject({ code: 'MODULE_NOT_FOUND' });

    writeProject(root, { 'cache-a': '1.0.0', 'cache-b': '1.0.0' });
    const second = loader.scan();
    expect(second).not.toBe(first);
    expect(second.scanned).toBe(2);
    expect([...second.modules.keys()]).toEqual(['cache-a', 'cache-b']);
    expect((await loader.load('cache-b')).id).toBe('cache-b');
  });

  it('clearDiscoveryCache() and scan({ fresh: true }) force a new scan', () => {
    writeProject(root, { 'cache-c': '1.0.0' });
    installNpm(root, [{ name: 'cache-c' }]);
    const loader = loaderAt(root);
    const first = loader.scan();
    clearDiscoveryCache();
    const second = loader.scan();
    expect(second).not.toBe(first);
    expect(second.modules.get('cache-c')?.packageName).toBe('cache-c');
    const third = loader.scan({ fresh: true });
    expect(third).not.toBe(second);
    expect(loader.scan()).toBe(third);
  });

  it('is rebuilt when an AMPLIFIER_MODULES folder gains a package', () => {
    const folder = path.join(root, 'mods');
    writePackage(path.join(folder, 'one'), { name: 'one', id: 'cache-one' });
    const loader = loaderAt(root, { searchPaths: [folder] });
    const first = loader.scan();
    expect(loader.scan()).toBe(first);
    writePackage(path.join(folder, 'two'), { name: 'two', id: 'cache-two' });
    expect([...loader.scan().modules.keys()]).toEqual(['cache-one', 'cache-two']);
  });

  it('reads each declared dependency once and parses only the ones that mention "amplifier"', () => {
    writeProject(root, { 'plain-1': '1', 'plain-2': '1', 'mod-1': '1' });
    installNpm(root, [
      { name: 'plain-1', amplifier: null },
      { name: 'plain-2', amplifier: null },
      { name: 'mod-1', id: 'mod-1' },
    ]);
    // A non-module package.json that is not even valid JSON is never parsed, so it is no problem.
    writeFileSync(path.join(root, 'node_modules', 'plain-2', 'package.json'), '{ "name": "plain-2", ');
    const index = loaderAt(root).scan();
    expect(index.scanned).toBe(3);
    expect(index.problems).toEqual([]);
    expect([...index.modules.keys()]).toEqual(['mod-1']);
  });
  it('finds a module whose package.json is larger than the read buffer (field at the end)', () => {
    writeProject(root, { 'big-pkg': '1.0.0', 'big-plain': '1.0.0' });
    const filler = { keywords: Array.from({ length: 9000 }, (_, i) => `keyword-${i}`) };
    installNpm(root, [
      { name: 'big-plain', amplifier: null, packageJson: filler },
      // `amplifier` goes after the 80 KB of keywords.
      {
        name: 'big-pkg',
        amplifier: null,
        packageJson: { ...filler, amplifier: { module: 'big', type: 'tool' } },
      },
    ]);
    expect(readFileSync(path.join(root, 'node_modules', 'big-pkg', 'package.json')).length).toBeGreaterThan(
      64 * 1024,
    );
    const index = loaderAt(root).scan();
    expect(index.scanned).toBe(2);
    expect([...index.modules.keys()]).toEqual(['big']);
  });
});

describe('the large-project generator (for the benchmarks)', () => {
  it.each(['npm', 'pnpm'] as const)(
    'builds %s trees where discovery finds exactly the module packages',
    async (layout) => {
      const project = createLargeProject(root, { packages: 300, modules: 6, layout });
      expect(project.dependencies).toHaveLength(300);
      expect(project.moduleIds).toHaveLength(6);
      expect(project.modulePackages.filter((n) => n.startsWith('@amplifier/'))).toHaveLength(3);
      const declared = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
        dependencies: Record<string, string>;
      };
      expect(Object.keys(declared.dependencies)).toHaveLength(300);
      const loader = loaderAt(root);
      const index = loader.scan();
      expect(index.scanned).toBe(300);
      expect(index.problems).toEqual([]);
      expect([...index.modules.keys()].sort()).toEqual([...project.moduleIds].sort());
      const last = project.moduleIds.at(-1)!;
      expect((await loader.load(last)).id).toBe(last);
    },
  );

  it('defaults to 2,000 packages of which 20 are modules', () => {
    const project = createLargeProject(root);
    expect(project.dependencies).toHaveLength(2000);
    expect(project.moduleIds).toHaveLength(20);
    const index = loaderAt(root).scan();
    expect(index.scanned).toBe(2000);
    expect(index.modules.size).toBe(20);
  });
});
