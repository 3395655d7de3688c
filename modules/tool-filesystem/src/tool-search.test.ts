/**
 * `tool-search`, the id real Amplifier bundles use for glob and grep, resolves
 * to this package through its manifest's alias (the real loader, from the
 * package folder): it mounts glob and grep only, as the reference's
 * tool-search does, behind the same sandbox.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ModuleLoader, silentLogger } from '@amplifier/core';
import { createTestCoordinator } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTree, type Tree } from './__fixtures__/helpers.js';
import { mount } from './index.js';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

let tree: Tree;
beforeEach(() => {
  tree = makeTree();
});
afterEach(() => tree.cleanup());

async function mountAs(id: string, config: Record<string, unknown>) {
  const loader = new ModuleLoader({ baseDir: tree.root, searchPaths: [PACKAGE_DIR], logger: silentLogger });
  const loaded = await loader.load(id, config, { type: 'tool' });
  const coordinator = createTestCoordinator({ bare: true });
  coordinator.registerCapability('session.working_dir', tree.ws);
  const cleanup = await loaded.mount(coordinator);
  return { loaded, coordinator, cleanup };
}

describe('tool-search (alias of tool-filesystem)', () => {
  it('mounts glob and grep only, which search as the reference tool-search does', async () => {
    fs.writeFileSync(path.join(tree.ws, 'a.ts'), 'const x = 1; // TODO\n');
    fs.mkdirSync(path.join(tree.ws, 'node_modules'));
    fs.writeFileSync(path.join(tree.ws, 'node_modules', 'b.ts'), '// TODO\n');
    const { loaded, coordinator, cleanup } = await mountAs('tool-search', {});
    expect(loaded).toMatchObject({ id: 'tool-search', aliasOf: 'tool-filesystem' });
    expect([...coordinator.get('tools').keys()]).toEqual(['glob', 'grep']);
    const glob = await coordinator.get('tools', 'glob')!.execute({ pattern: '**/*.ts' });
    expect(glob.success).toBe(true);
    expect((glob.output as { matches: { path: string }[] }).matches.map((m) => m.path)).toEqual([
      path.join(tree.ws, 'a.ts'),
    ]);
    const grep = await coordinator.get('tools', 'grep')!.execute({ pattern: 'TODO' });
    expect(grep.output).toMatchObject({ output_mode: 'files_with_matches', total_matches: 1 });
    await cleanup?.();
    expect(coordinator.get('tools').size).toBe(0);
  });

  it("takes the reference tool-search's config keys (module-level and per tool)", async () => {
    for (let i = 0; i < 3; i++) fs.writeFileSync(path.join(tree.ws, `f${i}.md`), 'x\n');
    const { coordinator, cleanup } = await mountAs('tool-search', { max_results: 2, grep: { timeout: 5 } });
    const glob = await coordinator.get('tools', 'glob')!.execute({ pattern: '*.md' });
    expect(glob.output).toMatchObject({ count: 2, total_files: 3, results_capped: true });
    await cleanup?.();
  });

  it('the plan may still pick the tools; tool-filesystem under its own id mounts all five', async () => {
    const picked = await mountAs('tool-search', { tools: ['grep'] });
    expect([...picked.coordinator.get('tools').keys()]).toEqual(['grep']);
    await picked.cleanup?.();
    const own = await mountAs('tool-filesystem', {});
    expect(own.loaded.aliasOf).toBeUndefined();
    expect(own.coordinator.get('tools').size).toBe(5);
    await own.cleanup?.();
  });

  it('a bad tools list fails the mount with a message naming the key and the choices', async () => {
    const coordinator = createTestCoordinator({ bare: true });
    for (const tools of [[], ['bash'], 'glob']) {
      await expect(mount(coordinator, { working_dir: tree.ws, tools })).rejects.toThrow(
        /config key "tools" must be a non-empty list of read_file, write_file, edit_file, glob, grep/,
      );
    }
    expect(coordinator.get('tools').size).toBe(0);
  });
});
