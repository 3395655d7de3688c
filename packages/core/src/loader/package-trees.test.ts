import { lstatSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installNpm, installPnpm, pnpmStoreDir, writePackage, writeProject } from '@amplifier/test-fixtures';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Coordinator } from '../coordinator.js';
import { silentLogger } from '../logger.js';
import { clearDiscoveryCache } from './discovery.js';
import { ModuleLoader } from './loader.js';

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'amp-trees-')));
  clearDiscoveryCache();
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('package trees (test kit)', () => {
  it("a package written without files gets an entry whose mount registers its config as 'fixture.<id>'", async () => {
    writeProject(root);
    const [dir] = installNpm(root, [{ name: '@amplifier/kit-tool' }]);
    const manifest = JSON.parse(readFileSync(path.join(dir!, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest.amplifier).toEqual({ module: 'kit-tool', type: 'tool' });
    const loaded = await new ModuleLoader({ baseDir: root, searchPaths: [], logger: silentLogger }).load(
      'kit-tool',
      { answer: 42 },
    );
    const coordinator = new Coordinator({ logger: silentLogger });
    await loaded.mount(coordinator);
    expect(coordinator.getCapability('fixture.kit-tool')).toEqual({ answer: 42 });
  });

  it('pnpm layout: the project links to the store, and a dependency is linked next to its dependent', () => {
    writeProject(root, { 'acme-tools': '1.0.0' });
    const [tools] = installPnpm(
      root,
      [
        { name: 'acme-tools', dependencies: { '@acme/helper': '1.0.0' } },
        { name: '@acme/helper', amplifier: null, files: { 'index.js': 'export const x = 1;\n' } },
      ],
      { direct: ['acme-tools'] },
    );
    expect(tools).toBe(pnpmStoreDir(root, 'acme-tools'));
    const direct = path.join(root, 'node_modules', 'acme-tools');
    expect(lstatSync(direct).isSymbolicLink()).toBe(true);
    expect(realpathSync(direct)).toBe(tools);
    expect(() => lstatSync(path.join(root, 'node_modules', '@acme', 'helper'))).toThrow();
    const sibling = path.join(path.dirname(tools!), '@acme', 'helper');
    expect(realpathSync(sibling)).toBe(pnpmStoreDir(root, '@acme/helper'));
  });

  it('writePackage merges packageJson last and writes object files as JSON', () => {
    const dir = writePackage(path.join(root, 'p'), {
      name: 'plain',
      amplifier: null,
      coreRange: '^0.1.0',
      packageJson: { main: 'lib/main.js' },
      files: { 'lib/main.js': 'export {};\n', 'data.json': { a: 1 } },
    });
    const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest).toEqual({
      name: 'plain',
      version: '1.0.0',
      type: 'module',
      main: 'lib/main.js',
      peerDependencies: { '@amplifier/core': '^0.1.0' },
    });
    expect(JSON.parse(readFileSync(path.join(dir, 'data.json'), 'utf8'))).toEqual({ a: 1 });
  });
});
