/**
 * The race-free walk step by step: symlinks followed by the walk itself
 * (inside the root, out of it, dangling, loops), `..` taken physically, the
 * parents a write creates, and what a held directory protects against when
 * a path is swapped after the check (deterministic races).
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashTree, makeTree, type Tree } from './__fixtures__/helpers.js';
import { HeldTree, hasProcFd, openBeneath, setProcFdForTests, type Walked, walkPath } from './path-walk.js';
import { FILESYSTEM_ERRORS, openRegularFile, Sandbox, SandboxError } from './sandbox.js';
import { writeAtomic } from './write.js';

let tree: Tree;
const open: Walked[] = [];
beforeEach(() => {
  tree = makeTree();
  fs.mkdirSync(path.join(tree.ws, 'sub', 'deeper'), { recursive: true });
  fs.writeFileSync(path.join(tree.ws, 'f.txt'), 'top\n');
  fs.writeFileSync(path.join(tree.ws, 'sub', 'f.txt'), 'sub\n');
});
afterEach(async () => {
  for (const walked of open.splice(0)) await walked.dir.close();
  setProcFdForTests(undefined);
  tree.cleanup();
});

async function walk(abs: string, create?: (real: string) => void): Promise<Walked> {
  const walked = await walkPath(abs, create ? { create } : {});
  open.push(walked);
  return walked;
}

const ws = (...parts: string[]): string => path.join(tree.ws, ...parts);

function sandbox(): Promise<Sandbox> {
  return Sandbox.create({
    working_dir: tree.ws,
    allowed_read_paths: ['.'],
    allowed_write_paths: ['.'],
    denied_paths: [],
    denied_write_paths: [],
  });
}

describe('walkPath', () => {
  it('walks a plain path and holds its parent directory', async () => {
    const walked = await walk(ws('sub', 'f.txt'));
    expect(walked.real).toBe(ws('sub', 'f.txt'));
    expect(walked.dir.real).toBe(ws('sub'));
    expect(walked.name).toBe('f.txt');
    expect(walked.stat?.isFile()).toBe(true);
    expect(fs.readFileSync(walked.dir.child(walked.name), 'utf8')).toBe('sub\n');
    if (hasProcFd()) expect(walked.dir.path).toBe(`/proc/self/fd/${walked.dir.handle.fd}`);
  });

  it('follows a symlink component inside the root itself, relative and absolute', async () => {
    fs.symlinkSync('sub', ws('rel'));
    fs.symlinkSync(ws('sub'), ws('abs'));
    expect((await walk(ws('rel', 'f.txt'))).real).toBe(ws('sub', 'f.txt'));
    expect((await walk(ws('abs', 'f.txt'))).real).toBe(ws('sub', 'f.txt'));
    // A link as the last component is followed too: the walk ends on the file, never on a link.
    fs.symlinkSync('sub/f.txt', ws('last'));
    const last = await walk(ws('last'));
    expect(last.real).toBe(ws('sub', 'f.txt'));
    expect(last.stat?.isSymbolicLink()).toBe(false);
  });

  it('reports where a link out of the root leads, and the sandbox refuses it', async () => {
    fs.symlinkSync(tree.outside, ws('out'));
    expect((await walk(ws('out', 'secret.txt'))).real).toBe(tree.secret);
    const box = await sandbox();
    // Resolved and checked while `out` was a directory inside; swapped for the link before the open.
    fs.renameSync(ws('out'), ws('out.link'));
    fs.mkdirSync(ws('out'));
    fs.writeFileSync(ws('out', 'secret.txt'), 'inside\n');
    const resolved = await box.resolve('out/secret.txt', 'read');
    fs.rmSync(ws('out'), { recursive: true });
    fs.renameSync(ws('out.link'), ws('out'));
    const refused = await box.locate(resolved, ['read'], 'out/secret.txt').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SandboxError);
    expect(FILESYSTEM_ERRORS.is(refused, 'FILESYSTEM_PATH_REFUSED')).toBe(true);
    expect((refused as SandboxError).message).toContain('not within allowed read paths');
  });

  it('follows a dangling link to where it would create the file', async () => {
    fs.symlinkSync('sub/new.txt', ws('dangle'));
    const walked = await walk(ws('dangle'));
    expect(walked.real).toBe(ws('sub', 'new.txt'));
    expect(walked.stat).toBeUndefined();
    expect(walked.missingParent).toBe(false);
    fs.symlinkSync(path.join(tree.outside, 'created.txt'), ws('dangle-out'));
    expect((await walk(ws('dangle-out'))).real).toBe(path.join(tree.outside, 'created.txt'));
    expect(fs.existsSync(path.join(tree.outside, 'created.txt'))).toBe(false);
  });

  it('gives ELOOP for a link loop and ENOTDIR for a file used as a directory', async () => {
    fs.symlinkSync('y', ws('x'));
    fs.symlinkSync('x', ws('y'));
    await expect(walkPath(ws('x'))).rejects.toMatchObject({ code: 'ELOOP' });
    await expect(walkPath(ws('x', 'f.txt'))).rejects.toMatchObject({ code: 'ELOOP' });
    fs.symlinkSync('.', ws('self'));
    expect((await walk(ws('self', 'self', 'self', 'f.txt'))).real).toBe(ws('f.txt'));
    await expect(walkPath(ws('f.txt', 'g'))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  it('takes `..` physically (after a link, from the link target), lexically in a missing rest', async () => {
    expect((await walk(`${ws('sub')}/../f.txt`)).real).toBe(ws('f.txt'));
    fs.symlinkSync('sub/deeper', ws('down'));
    // down/.. is sub (the target's parent), not the workspace: what the kernel does.
    expect((await walk(`${ws('down')}/../f.txt`)).real).toBe(ws('sub', 'f.txt'));
    expect((await walk(`${ws('missing')}/../f.txt`)).real).toBe(ws('f.txt'));
    expect((await walk('/../../..')).real).toBe('/');
    const missing = await walk(ws('no', 'such', 'file'));
    expect(missing).toMatchObject({ real: ws('no', 'such', 'file'), stat: undefined, missingParent: true });
  });

  it('creates missing parents only when the callback allows each one', async () => {
    const asked: string[] = [];
    const walked = await walk(ws('a', 'b', 'c.txt'), (real) => asked.push(real));
    expect(asked).toEqual([ws('a'), ws('a', 'b')]);
    expect(walked.dir.real).toBe(ws('a', 'b'));
    expect(fs.statSync(ws('a', 'b')).isDirectory()).toBe(true);
    await expect(
      walkPath(ws('x1', 'y.txt'), {
        create: () => {
          throw new Error('refused');
        },
      }),
    ).rejects.toThrow('refused');
    expect(fs.existsSync(ws('x1'))).toBe(false);
  });

  it('works without /proc/self/fd (the fallback names held directories by real path)', async () => {
    setProcFdForTests(false);
    fs.symlinkSync('sub', ws('rel'));
    const walked = await walk(ws('rel', 'f.txt'));
    expect(walked.dir.path).toBe(ws('sub'));
    expect(walked.real).toBe(ws('sub', 'f.txt'));
  });
});

describe('Sandbox.locate', () => {
  it('creates no parent outside when a directory was swapped for a symlink after the check', async () => {
    const box = await sandbox();
    const resolved = await box.resolve('sub/new/x.txt', 'write');
    expect(resolved.real).toBe(ws('sub', 'new', 'x.txt'));
    fs.renameSync(ws('sub'), ws('sub.away'));
    fs.symlinkSync(tree.outside, ws('sub'));
    const before = hashTree(tree.outside);
    const refused = await box.locate(resolved, ['write'], 'sub/new/x.txt', true).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SandboxError);
    expect((refused as SandboxError).type).toBe('PathChanged');
    expect(hashTree(tree.outside)).toBe(before);
    expect(fs.existsSync(path.join(tree.outside, 'new'))).toBe(false);
  });
});

describe('openBeneath', () => {
  it('opens directories below a held one and refuses symlinks and `..`', async () => {
    const base = await walk(`${tree.ws}/.`);
    const root = await openBeneath(base.dir, 'ws');
    expect(root?.real).toBe(tree.ws);
    fs.symlinkSync('sub', ws('link'));
    expect(await openBeneath(root!, 'link')).toBeUndefined();
    expect(await openBeneath(root!, '../outside')).toBeUndefined();
    const deeper = await openBeneath(root!, 'sub/deeper');
    expect(deeper?.real).toBe(ws('sub', 'deeper'));
    await deeper?.close();
    await root?.close();
  });
});

describe('HeldTree', () => {
  it('opens each directory once from its held parent, refuses symlinks and `..`, also past its cap', async () => {
    fs.symlinkSync('sub', ws('link'));
    const base = await walk(`${tree.ws}/.`);
    const root = await openBeneath(base.dir, 'ws');
    for (const max of [256, 0]) {
      const held = new HeldTree(root!, max);
      const list = (rel: string) => held.use(rel, async (dir) => (await fsp.readdir(dir.path)).sort());
      expect(await list('sub/deeper')).toEqual([]);
      expect(await list('sub')).toEqual(['deeper', 'f.txt']);
      expect(await list('')).toEqual(['f.txt', 'link', 'sub']);
      expect(await list('link')).toBeUndefined();
      expect(await list('../outside')).toBeUndefined();
      expect(await list('f.txt')).toBeUndefined();
      await held.close();
    }
    await root?.close();
  });
});

describe.runIf(hasProcFd())('a held directory beats a swap after the walk', () => {
  it('a read opens the file of the held directory; a file swapped for a symlink is refused', async () => {
    const walked = await walk(ws('sub', 'f.txt'));
    fs.renameSync(ws('sub', 'f.txt'), ws('sub', 'f.old'));
    fs.symlinkSync(tree.secret, ws('sub', 'f.txt'));
    await expect(openRegularFile(walked, 'sub/f.txt')).rejects.toThrow('it changed while being opened');
  });

  it('a directory swapped for a symlink to outside: the read and the write stay in the held directory', async () => {
    fs.writeFileSync(path.join(tree.outside, 'f.txt'), `${tree.marker}\n`);
    const before = hashTree(tree.outside);
    const walked = await walk(ws('sub', 'f.txt'));
    fs.renameSync(ws('sub'), ws('sub.held'));
    fs.symlinkSync(tree.outside, ws('sub'));
    const { handle } = await openRegularFile(walked, 'sub/f.txt');
    expect(await handle.readFile('utf8')).toBe('sub\n');
    await handle.close();
    await writeAtomic(walked.dir, walked.name, Buffer.from('written\n'), walked.stat);
    expect(fs.readFileSync(ws('sub.held', 'f.txt'), 'utf8')).toBe('written\n');
    expect(hashTree(tree.outside)).toBe(before);
    expect((await fsp.readdir(walked.dir.path)).sort()).toEqual(['deeper', 'f.txt']);
  });
});
