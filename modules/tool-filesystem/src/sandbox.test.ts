/**
 * Sandbox.create: every configured list is canonicalized into its own rule
 * (relative to the working dir, through symlinks, missing paths resolved as
 * far as they exist), and the lists that may be absent stay absent.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTree, type Tree } from './__fixtures__/helpers.js';
import { Sandbox } from './sandbox.js';

let tree: Tree;
beforeEach(() => {
  tree = makeTree();
});
afterEach(() => tree.cleanup());

/** A folder `name` outside the workspace and a link to it from the workspace. */
function linkedDir(name: string): { real: string; link: string } {
  const real = path.join(tree.outside, name);
  fs.mkdirSync(real);
  fs.symlinkSync(real, path.join(tree.ws, `to-${name}`));
  return { real, link: `to-${name}` };
}

describe('Sandbox.create', () => {
  it('puts each list, resolved through its symlinks, into its own rule', async () => {
    const dirs = Object.fromEntries(
      ['read', 'write', 'bound', 'denied', 'denied-write'].map((name) => [name, linkedDir(name)]),
    );
    const file = path.join(tree.outside, 'write', 'one.txt');
    const sandbox = await Sandbox.create({
      working_dir: tree.ws,
      allowed_read_paths: [dirs.read!.link],
      allowed_write_paths: [dirs.write!.link],
      allowed_write_files: [path.join(dirs.write!.link, 'one.txt')],
      allowed_paths: [dirs.bound!.link],
      denied_paths: [dirs.denied!.link],
      denied_write_paths: [dirs['denied-write']!.link],
    });
    expect(sandbox.roots).toEqual({
      workingDir: tree.ws,
      allowedRead: [dirs.read!.real],
      allowedWrite: [dirs.write!.real],
      allowedWriteFiles: [file],
      bound: [dirs.bound!.real],
      denied: [dirs.denied!.real],
      deniedWrite: [dirs['denied-write']!.real],
    });
  });

  it('keeps "anywhere" (null) for reads and no bound when allowed_paths is null or absent; a missing entry resolves as far as it exists', async () => {
    const { real, link } = linkedDir('base');
    for (const allowed_paths of [null, undefined]) {
      const sandbox = await Sandbox.create({
        working_dir: tree.ws,
        allowed_read_paths: null,
        allowed_write_paths: ['.', path.join(link, 'not-yet', 'deeper')],
        allowed_paths,
        denied_paths: [],
        denied_write_paths: [],
      });
      expect(sandbox.roots.allowedRead).toBeNull();
      expect(sandbox.roots.bound).toBeNull();
      expect(sandbox.roots.allowedWrite).toEqual([tree.ws, path.join(real, 'not-yet', 'deeper')]);
      expect(sandbox.roots.allowedWriteFiles).toEqual([]);
      expect(sandbox.roots.denied).toEqual([]);
    }
  });
});
