import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashTree, type Mounted, makeTree, mkfifo, mountTools, type Tree } from './__fixtures__/helpers.js';

let tree: Tree;
let tools: Mounted;
let outsideHash: string;

beforeEach(async () => {
  tree = makeTree();
  outsideHash = hashTree(tree.outside);
  tools = await mountTools({ working_dir: tree.ws });
});
afterEach(async () => {
  await tools.cleanup();
  tree.cleanup();
});

describe('write_file (reference checklist, tool-filesystem)', () => {
  it('#12 default config: writing W/new/dir/f.txt creates the parents and reports UTF-8 bytes', async () => {
    const out = await tools.out('write_file', { file_path: 'new/dir/f.txt', content: 'héllo wörld' });
    const file = path.join(tree.ws, 'new', 'dir', 'f.txt');
    expect(out).toEqual({ file_path: file, bytes: 13 });
    expect(fs.readFileSync(file, 'utf8')).toBe('héllo wörld');
  });

  it('#13 outside the allowed write paths is refused; denied_write_paths beats an allowed path', async () => {
    const outside = await tools.call('write_file', {
      file_path: path.join(tree.outside, 'x.txt'),
      content: 'x',
    });
    expect(outside.error?.message).toBe(
      `Access denied: ${path.join(tree.outside, 'x.txt')} is not within allowed write paths`,
    );
    const denied = await mountTools({ working_dir: tree.ws, denied_write_paths: ['secrets'] });
    try {
      const result = await denied.call('write_file', { file_path: 'secrets/k.txt', content: 'x' });
      expect(result.error?.message).toBe(
        `Access denied: ${path.join(tree.ws, 'secrets', 'k.txt')} is within denied directories`,
      );
      expect(fs.existsSync(path.join(tree.ws, 'secrets'))).toBe(false);
    } finally {
      await denied.cleanup();
    }
    expect(hashTree(tree.outside)).toBe(outsideHash);
  });

  it('#14 a ~/x entry in the allow or deny list matches $HOME/x/...', async () => {
    const home = path.join(tree.root, 'home');
    fs.mkdirSync(path.join(home, 'project', 'sensitive'), { recursive: true });
    const saved = process.env.HOME;
    process.env.HOME = home;
    try {
      const homed = await mountTools({
        working_dir: tree.ws,
        allowed_write_paths: ['~/project'],
        denied_write_paths: ['~/project/sensitive'],
      });
      try {
        await homed.out('write_file', { file_path: '~/project/ok.txt', content: 'ok' });
        expect(fs.readFileSync(path.join(home, 'project', 'ok.txt'), 'utf8')).toBe('ok');
        const denied = await homed.call('write_file', {
          file_path: '~/project/sensitive/secret.txt',
          content: 'x',
        });
        expect(denied.error?.message).toBe(
          `Access denied: ${path.join(home, 'project', 'sensitive', 'secret.txt')} is within denied directories`,
        );
      } finally {
        await homed.cleanup();
      }
    } finally {
      process.env.HOME = saved;
    }
  });

  it('#15 a symlink inside the allowed directory that points outside is denied for writes', async () => {
    fs.symlinkSync(tree.secret, path.join(tree.ws, 'leak'));
    const result = await tools.call('write_file', { file_path: 'leak', content: 'pwned' });
    expect(result.success).toBe(false);
    expect(result.error?.message).toBe(
      `Access denied: ${path.join(tree.ws, 'leak')} is not within allowed write paths (it resolves to ${tree.secret})`,
    );
    expect(hashTree(tree.outside)).toBe(outsideHash);
    expect(fs.readlinkSync(path.join(tree.ws, 'leak'))).toBe(tree.secret);
  });

  it('#16 (write) a successful write emits artifact:write {path, bytes}', async () => {
    await tools.out('write_file', { file_path: 'a.txt', content: 'ü' });
    expect(
      tools.events.getEvents('artifact:write').map(([, d]) => ({ path: d.path, bytes: d.bytes })),
    ).toEqual([{ path: path.join(tree.ws, 'a.txt'), bytes: 2 }]);
  });
});

describe('write_file (beyond the reference)', () => {
  it('refuses to write over a directory', async () => {
    fs.mkdirSync(path.join(tree.ws, 'd'));
    const result = await tools.call('write_file', { file_path: 'd', content: 'x' });
    expect(result.error?.message).toBe('Cannot write to directory: d');
    expect(fs.statSync(path.join(tree.ws, 'd')).isDirectory()).toBe(true);
  });

  it('refuses to write over a FIFO', async () => {
    mkfifo(path.join(tree.ws, 'pipe'));
    const result = await tools.call('write_file', { file_path: 'pipe', content: 'x' });
    expect(result.error?.message).toBe(
      'Cannot write pipe: it is a FIFO (named pipe); only regular files can be written',
    );
  });

  it('a missing content writes an empty file; a non-string content is refused', async () => {
    expect(await tools.out('write_file', { file_path: 'e.txt' })).toMatchObject({ bytes: 0 });
    expect(fs.readFileSync(path.join(tree.ws, 'e.txt'), 'utf8')).toBe('');
    expect((await tools.call('write_file', { file_path: 'n.txt', content: 42 })).error?.message).toBe(
      'content must be a string',
    );
  });

  it('keeps the mode of the file it replaces (an executable stays executable)', async () => {
    const file = path.join(tree.ws, 'run.sh');
    fs.writeFileSync(file, '#!/bin/sh\necho old\n');
    fs.chmodSync(file, 0o754);
    await tools.out('write_file', { file_path: 'run.sh', content: '#!/bin/sh\necho new\n' });
    expect(fs.statSync(file).mode & 0o7777).toBe(0o754);
    expect(fs.readFileSync(file, 'utf8')).toBe('#!/bin/sh\necho new\n');
  });

  it('replaces a hardlinked target instead of writing through the link (the other name keeps the old bytes)', async () => {
    const inside = path.join(tree.ws, 'hard.txt');
    fs.linkSync(tree.secret, inside);
    const before = hashTree(tree.outside);
    await tools.out('write_file', { file_path: 'hard.txt', content: 'new content' });
    expect(fs.readFileSync(inside, 'utf8')).toBe('new content');
    expect(fs.readFileSync(tree.secret, 'utf8')).toBe(`${tree.marker}\n`);
    expect(hashTree(tree.outside)).toBe(before);
  });

  it('writes through a symlink whose target is inside the root: the target changes, the link stays', async () => {
    fs.writeFileSync(path.join(tree.ws, 'target.txt'), 'old');
    fs.symlinkSync('target.txt', path.join(tree.ws, 'link.txt'));
    await tools.out('write_file', { file_path: 'link.txt', content: 'new' });
    expect(fs.readFileSync(path.join(tree.ws, 'target.txt'), 'utf8')).toBe('new');
    expect(fs.lstatSync(path.join(tree.ws, 'link.txt')).isSymbolicLink()).toBe(true);
  });

  it('leaves no temp file behind', async () => {
    await tools.out('write_file', { file_path: 'a.txt', content: 'one' });
    await tools.out('write_file', { file_path: 'a.txt', content: 'two' });
    expect(fs.readdirSync(tree.ws)).toEqual(['a.txt']);
  });

  it('two concurrent writes to one file both complete and the file holds one of them whole', async () => {
    const a = 'a'.repeat(100_000);
    const b = 'b'.repeat(100_000);
    const results = await Promise.all([
      tools.call('write_file', { file_path: 'c.txt', content: a }),
      tools.call('write_file', { file_path: 'c.txt', content: b }),
    ]);
    expect(results.every((r) => r.success)).toBe(true);
    expect([a, b]).toContain(fs.readFileSync(path.join(tree.ws, 'c.txt'), 'utf8'));
    expect(fs.readdirSync(tree.ws)).toEqual(['c.txt']);
  });

  it('declares write keys on the real path and on every ancestor directory', async () => {
    const tool = tools.coordinator.get('tools', 'write_file')!;
    const keys = tool.executionProfile?.resourceKeys?.({ file_path: 'sub/new.txt' }) ?? [];
    expect(keys[0]).toEqual({ key: `file:${path.join(tree.ws, 'sub', 'new.txt')}`, mode: 'write' });
    expect(keys).toContainEqual({ key: `file:${tree.ws}`, mode: 'write' });
    expect(keys.at(-1)).toEqual({ key: 'file:/', mode: 'write' });
    expect(keys.every((k) => k.mode === 'write')).toBe(true);
  });
});
