/**
 * The filesystem cases of the security catalogue (security.md 5.1) that apply
 * to this package. The sandbox root is T/ws (reads and writes); every case
 * checks the tools' answers AND that nothing outside the root changed.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { ToolResult } from '@amplifier/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashTree, isRoot, type Mounted, makeTree, mountTools, type Tree } from './__fixtures__/helpers.js';
import { isInside } from './sandbox.js';

let tree: Tree;
let tools: Mounted;
/** Hash of everything in T except ws/. */
let before: string;

function outsideState(): string {
  const entries = fs.readdirSync(tree.root).sort().join('|');
  return `${entries}:${hashTree(tree.outside)}:${hashTree(tree.wsEvil)}`;
}

beforeEach(async () => {
  tree = makeTree();
  tools = await mountTools({
    working_dir: tree.ws,
    allowed_read_paths: [tree.ws],
    allowed_write_paths: [tree.ws],
  });
  before = outsideState();
});
afterEach(async () => {
  // Every case, whatever else it checks: nothing outside the root changed.
  expect(outsideState()).toBe(before);
  await tools.cleanup();
  tree.cleanup();
});

/** Every tool on `target`: each must fail, without the marker in its answer. */
async function everyToolRefuses(target: string): Promise<ToolResult[]> {
  const results = [
    await tools.call('read_file', { file_path: target }),
    await tools.call('write_file', { file_path: target, content: 'pwned' }),
    await tools.call('edit_file', { file_path: target, old_string: tree.marker, new_string: 'pwned' }),
    await tools.call('glob', { pattern: '*', path: target }),
    await tools.call('grep', { pattern: 'MARKER', path: target }),
  ];
  for (const result of results) {
    expect(result.success, `${target}: ${JSON.stringify(result)}`).toBe(false);
    expect(JSON.stringify(result)).not.toContain(tree.marker);
    expect(JSON.stringify(result)).not.toContain('    at '); // no stack trace
  }
  return results;
}

describe('security.md 5.1: escapes from the root', () => {
  it('FS-01 lexical traversal is refused for read, write, edit, glob and grep; nothing outside changes', async () => {
    for (const target of [
      '../outside/secret.txt',
      'sub/../../outside/secret.txt',
      '/etc/passwd',
      `${tree.ws}/../outside/secret.txt`,
    ]) {
      const results = await everyToolRefuses(target);
      expect(results[0]!.error?.message).toBe(`Access denied: ${target} is not within allowed read paths`);
      expect(results[1]!.error?.message).toMatch(/^Access denied: .* is not within allowed write paths$/);
    }
    // No existence oracle outside the root: a file used as a directory is refused like anything else.
    const probe = await tools.call('read_file', { file_path: `${tree.secret}/x` });
    expect(probe.error?.message).toBe(`Access denied: ${tree.secret}/x is not within allowed read paths`);
    const up = await tools.call('glob', { pattern: '../**' });
    expect(up.error?.message).toMatch(/^Glob pattern must be relative to path and must not contain '\.\.'/);
    expect(outsideState()).toBe(before);
  });

  it('FS-02 a prefix sibling (ws-evil) is not inside ws', async () => {
    expect(isInside('/a/ws', '/a/ws-evil')).toBe(false);
    expect(isInside('/a/ws', '/a/ws')).toBe(true);
    expect(isInside('/a/ws', '/a/ws/..x')).toBe(true);
    expect(isInside('/', '/x')).toBe(true);
    for (const target of [path.join(tree.wsEvil, 'x'), '../ws-evil/x', path.join(tree.wsEvil, 'new.txt')]) {
      await everyToolRefuses(target);
    }
    expect(fs.existsSync(path.join(tree.wsEvil, 'new.txt'))).toBe(false);
    expect(outsideState()).toBe(before);
  });

  it('FS-03 odd spellings are literal names inside the root or clean errors, never an escape', async () => {
    const home = path.join(tree.root, 'home');
    const saved = process.env.HOME;
    process.env.HOME = tree.outside;
    try {
      // Literal names: created inside ws.
      for (const name of ['%2e%2e/outside/secret.txt', '..\\..\\outside', 'C:\\Windows\\win.ini']) {
        const out = await tools.out('write_file', { file_path: name, content: 'literal' });
        expect(out.file_path).toBe(path.join(tree.ws, name));
        expect(fs.readFileSync(path.join(tree.ws, name), 'utf8')).toBe('literal');
      }
      // ~ expands, then is contained: HOME is outside the root.
      const tilde = await tools.call('write_file', { file_path: '~/secret.txt', content: 'x' });
      expect(tilde.error?.message).toBe(
        `Access denied: ${path.join(tree.outside, 'secret.txt')} is not within allowed write paths`,
      );
      // Redundant separators and dots stay inside.
      fs.mkdirSync(path.join(tree.ws, 'sub'));
      await tools.out('write_file', { file_path: `${tree.ws}//./sub///f`, content: 'f' });
      expect(fs.readFileSync(path.join(tree.ws, 'sub', 'f'), 'utf8')).toBe('f');
      expect((await tools.out('read_file', { file_path: 'sub/.' })).is_directory).toBe(true);
      expect((await tools.out('read_file', { file_path: '.' })).is_directory).toBe(true);
      expect((await tools.call('read_file', { file_path: '' })).error?.message).toBe('file_path is required');
      expect((await tools.call('write_file', { file_path: '.', content: 'x' })).error?.message).toBe(
        'Cannot write to directory: .',
      );
    } finally {
      process.env.HOME = saved;
    }
    expect(fs.existsSync(home)).toBe(false);
    expect(outsideState()).toBe(before);
  });

  it('FS-04 NUL, newline, CR and bidi characters in paths are refused with a clear error by every tool', async () => {
    for (const [bad, code] of [
      ['a\u0000/../../etc/passwd', '0000'],
      ['name\nwith-newline', '000A'],
      ['name\rwith-cr', '000D'],
      ['evil\u202etxt.exe', '202E'],
    ] as const) {
      const results = [
        await tools.call('read_file', { file_path: bad }),
        await tools.call('write_file', { file_path: bad, content: 'x' }),
        await tools.call('edit_file', { file_path: bad, old_string: 'a', new_string: 'b' }),
        await tools.call('glob', { pattern: '*', path: bad }),
        await tools.call('grep', { pattern: 'x', path: bad }),
        await tools.call('glob', { pattern: bad }),
      ];
      for (const [i, result] of results.entries()) {
        const field = i === 5 ? 'pattern' : i >= 3 ? 'path' : 'file_path';
        expect(result.error?.message).toMatch(
          new RegExp(`^Invalid ${field}: contains the control character U\\+${code} at position \\d+;`),
        );
      }
    }
    expect(fs.readdirSync(tree.ws)).toEqual([]);
    expect(outsideState()).toBe(before);
  });

  it('FS-05 a symlinked file pointing outside: reads refused, writes never modify the target', async () => {
    fs.symlinkSync(tree.secret, path.join(tree.ws, 'leak'));
    const results = await everyToolRefuses('leak');
    expect(results[0]!.error?.message).toBe(
      `Access denied: leak is not within allowed read paths (it resolves to ${tree.secret})`,
    );
    const listing = await tools.out('glob', { pattern: '**' });
    expect(listing.total_files).toBe(0);
    const search = await tools.out('grep', { pattern: 'MARKER' });
    expect(search.total_matches).toBe(0);
    expect(outsideState()).toBe(before);
  });

  it('FS-06 a symlinked intermediate directory (to outside, or to ..) is refused for read, write and glob', async () => {
    fs.symlinkSync(tree.outside, path.join(tree.ws, 'd'));
    fs.symlinkSync('..', path.join(tree.ws, 'up'));
    for (const target of ['d/secret.txt', 'd/new.txt', 'up/outside/secret.txt', 'd', 'up']) {
      await everyToolRefuses(target);
    }
    expect(fs.existsSync(path.join(tree.outside, 'new.txt'))).toBe(false);
    expect(outsideState()).toBe(before);
  });

  it('FS-07 a dangling symlink to outside is refused for writes; nothing is created outside', async () => {
    fs.symlinkSync(path.join(tree.outside, 'created.txt'), path.join(tree.ws, 'dangle'));
    fs.symlinkSync(path.join(tree.outside, 'newdir'), path.join(tree.ws, 'nd'));
    const dangle = await tools.call('write_file', { file_path: 'dangle', content: 'x' });
    expect(dangle.error?.message).toBe(
      `Access denied: ${path.join(tree.ws, 'dangle')} is not within allowed write paths (it resolves to ${path.join(tree.outside, 'created.txt')})`,
    );
    const nested = await tools.call('write_file', { file_path: 'nd/f.txt', content: 'x' });
    expect(nested.success).toBe(false);
    expect(fs.existsSync(path.join(tree.outside, 'created.txt'))).toBe(false);
    expect(fs.existsSync(path.join(tree.outside, 'newdir'))).toBe(false);
    expect(outsideState()).toBe(before);
  });

  it('FS-08 link chains are followed to their final target, loops give a clean ELOOP error, walkers terminate', async () => {
    // ws/a -> ws/b -> outside/secret.txt: refused.
    fs.symlinkSync(tree.secret, path.join(tree.ws, 'b'));
    fs.symlinkSync(path.join(tree.ws, 'b'), path.join(tree.ws, 'a'));
    await everyToolRefuses('a');
    // ws/out-and-back -> outside/l1 -> ws/target: the real path decides (inside), as documented.
    fs.writeFileSync(path.join(tree.ws, 'target'), 'home again\n');
    fs.symlinkSync(path.join(tree.ws, 'target'), path.join(tree.outside, 'l1'));
    fs.symlinkSync(path.join(tree.outside, 'l1'), path.join(tree.ws, 'out-and-back'));
    before = outsideState();
    expect((await tools.out('read_file', { file_path: 'out-and-back' })).content).toBe('     1\thome again');
    // ws/x <-> ws/y: a loop.
    fs.symlinkSync(path.join(tree.ws, 'y'), path.join(tree.ws, 'x'));
    fs.symlinkSync(path.join(tree.ws, 'x'), path.join(tree.ws, 'y'));
    for (const result of [
      await tools.call('read_file', { file_path: 'x' }),
      await tools.call('write_file', { file_path: 'x', content: 'z' }),
      await tools.call('write_file', { file_path: 'y/child', content: 'z' }),
    ]) {
      expect(result.error?.message).toMatch(
        /^Too many levels of symbolic links: (x|y\/child) \(a symlink loop\?\)$/,
      );
    }
    // ws/self -> . : a directory loop the walkers never enter.
    fs.symlinkSync('.', path.join(tree.ws, 'self'));
    const listing = await tools.out('glob', { pattern: '**' });
    expect((listing.matches as { path: string }[]).map((m) => path.basename(m.path))).toEqual(['target']);
    const search = await tools.out('grep', { pattern: 'home', output_mode: 'count' });
    expect(search.counts).toEqual({ [path.join(tree.ws, 'target')]: 1 });
    expect(outsideState()).toBe(before);
  });

  it('FS-11 a root given through a symlink, relative, or with a trailing slash still works and still refuses outside', async () => {
    fs.symlinkSync(tree.ws, path.join(tree.root, 'wslink'));
    fs.writeFileSync(path.join(tree.ws, 'f.txt'), 'ok\n');
    before = outsideState();
    for (const root of [
      path.join(tree.root, 'wslink'),
      `${path.join(tree.root, 'wslink')}/`,
      '../wslink',
      '.',
    ]) {
      const rooted = await mountTools({
        working_dir: tree.ws,
        allowed_read_paths: [root],
        allowed_write_paths: [root],
      });
      try {
        expect(
          (await rooted.out('read_file', { file_path: path.join(tree.root, 'wslink', 'f.txt') })).content,
        ).toBe('     1\tok');
        expect((await rooted.out('read_file', { file_path: path.join(tree.ws, 'f.txt') })).content).toBe(
          '     1\tok',
        );
        await rooted.out('write_file', { file_path: path.join(tree.root, 'wslink', 'g.txt'), content: 'g' });
        expect((await rooted.call('read_file', { file_path: tree.secret })).success).toBe(false);
        expect(
          (await rooted.call('write_file', { file_path: path.join(tree.outside, 'n'), content: 'x' }))
            .success,
        ).toBe(false);
      } finally {
        await rooted.cleanup();
      }
    }
    expect(outsideState()).toBe(before);
  });

  it('FS-14 /proc magic links (root, environ, cwd) are refused', async () => {
    fs.symlinkSync('/proc/self/root', path.join(tree.ws, 'r'));
    fs.symlinkSync('/proc/self/environ', path.join(tree.ws, 'e'));
    fs.symlinkSync('/proc/self/cwd', path.join(tree.ws, 'c'));
    for (const target of ['r/etc/passwd', 'e', 'c/../outside/secret.txt', '/proc/self/environ']) {
      const results = await everyToolRefuses(target);
      for (const result of results) expect(JSON.stringify(result)).not.toContain('root:x:0:0');
    }
    expect(outsideState()).toBe(before);
  });
});

describe('security.md 5.1: sizes, types and names', () => {
  it('FS-15 huge files: a 3 GB sparse file and a 30 MB text file give bounded answers', async () => {
    execFileSync('truncate', ['-s', '3G', path.join(tree.ws, 'big')]);
    const sparse = await tools.call('read_file', { file_path: 'big' });
    expect(sparse.error?.type).toBe('BinaryFile');
    expect(sparse.error?.size).toBe(3 * 1024 ** 3);
    const text = path.join(tree.ws, 'big.txt');
    const fd = fs.openSync(text, 'w');
    const block = Buffer.from('some log line of text, numbered and long enough\n'.repeat(20_000));
    for (let written = 0; written < 30 * 1024 * 1024; written += block.length) fs.writeSync(fd, block);
    fs.closeSync(fd);
    const size = fs.statSync(text).size;
    const head = await tools.out('read_file', { file_path: 'big.txt', limit: 5 });
    expect(head).toMatchObject({
      lines_read: 5,
      truncated: true,
      bytes_read: 10 * 1024 * 1024,
      file_size: size,
    });
    expect(String(head.warning)).toContain(`of ${size} bytes`);
    const deeper = await tools.out('read_file', { file_path: 'big.txt', offset: 100_000, limit: 2 });
    expect(deeper.content).toBe(
      '100000\tsome log line of text, numbered and long enough\n100001\tsome log line of text, numbered and long enough',
    );
    const search = await tools.out('grep', { pattern: 'numbered' });
    expect(search).toMatchObject({
      total_matches: 0,
      files_skipped: { binary: 0, too_large: 2, unreadable: 0 },
    });
    expect(
      (await tools.call('edit_file', { file_path: 'big.txt', old_string: 'x', new_string: 'y' })).error?.type,
    ).toBe('FileTooLarge');
    expect(outsideState()).toBe(before);
  });

  it('FS-16 one 20 MB line is cut at the line limit and read only up to max_read_bytes', async () => {
    fs.writeFileSync(path.join(tree.ws, 'line'), 'a'.repeat(20 * 1024 * 1024));
    const out = await tools.out('read_file', { file_path: 'line', limit: 1 });
    expect(out.content).toBe(`     1\t${'a'.repeat(2000)}... [truncated]`);
    expect(out.bytes_read).toBe(10 * 1024 * 1024);
  });

  it('FS-17 binary files (an ELF binary, a PNG, an early NUL) are reported, not dumped, and not edited', async () => {
    fs.copyFileSync('/bin/ls', path.join(tree.ws, 'ls.bin'));
    fs.writeFileSync(path.join(tree.ws, 'img.png'), Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'));
    fs.writeFileSync(path.join(tree.ws, 'nul.txt'), 'text\u0000more');
    for (const name of ['ls.bin', 'img.png', 'nul.txt']) {
      const read = await tools.call('read_file', { file_path: name });
      expect(read.error?.type).toBe('BinaryFile');
      expect(String(read.output)).toMatch(
        new RegExp(
          `^Cannot read binary file: ${name.replace('.', '\\.')} \\(\\d+ bytes, NUL byte at offset \\d+\\)`,
        ),
      );
      expect(String(read.output)).not.toMatch(/[\u0000-\u0008]/);
      const edit = await tools.call('edit_file', { file_path: name, old_string: 'a', new_string: 'b' });
      expect(edit.error?.message).toBe(`Cannot edit binary file: ${name}`);
    }
  });

  it.skipIf(isRoot)(
    'FS-24 permission errors are clean and leave content intact (needs a non-root user: root bypasses modes)',
    async () => {
      const ro = path.join(tree.ws, 'ro.txt');
      fs.writeFileSync(ro, 'keep\n');
      fs.chmodSync(ro, 0o444);
      const roResult = await tools.call('write_file', { file_path: 'ro.txt', content: 'x' });
      expect(roResult.error?.message).toMatch(/^OS error writing file: EACCES/);
      expect(fs.readFileSync(ro, 'utf8')).toBe('keep\n');
      const dir = path.join(tree.ws, 'locked');
      fs.mkdirSync(dir);
      fs.chmodSync(dir, 0o555);
      const inLocked = await tools.call('write_file', { file_path: 'locked/new.txt', content: 'x' });
      expect(inLocked.error?.message).toMatch(/^OS error writing file: EACCES/);
      expect(fs.readdirSync(dir)).toEqual([]);
      fs.chmodSync(dir, 0o755);
    },
  );

  it('FS-26 glob escapes: ../, absolute, **/../.., {..,.} and a brace bomb stay inside; symlinked dirs are not traversed', async () => {
    fs.writeFileSync(path.join(tree.ws, 'a.txt'), '');
    fs.symlinkSync(tree.outside, path.join(tree.ws, 'outlink'));
    for (const pattern of ['../**', '**/../../**', '{..,.}/**']) {
      expect((await tools.call('glob', { pattern })).error?.message).toMatch(/must not contain '\.\.'/);
    }
    const absolute = await tools.call('glob', { pattern: '/etc/*' });
    expect(absolute.error?.message).toBe('Access denied: /etc is not within allowed read paths');
    const bomb = await tools.out('glob', { pattern: '{a,b}'.repeat(20) });
    expect(bomb.total_files).toBe(0);
    const all = await tools.out('glob', { pattern: '**', include_ignored: true });
    const paths = (all.matches as { path: string }[]).map((m) => m.path);
    expect(paths).toEqual([path.join(tree.ws, 'a.txt')]);
    for (const p of paths) expect(isInside(fs.realpathSync(tree.ws), fs.realpathSync(p))).toBe(true);
    const controller = new AbortController();
    controller.abort();
    const cancelled = await tools.call('glob', { pattern: '**' }, { signal: controller.signal });
    expect(cancelled.error?.message).toBe('Glob search cancelled');
    expect(outsideState()).toBe(before);
  });

  it('FS-30 type confusion gives clean errors and creates nothing', async () => {
    fs.writeFileSync(path.join(tree.ws, 'f'), 'file\n');
    fs.mkdirSync(path.join(tree.ws, 'dir'));
    expect((await tools.out('read_file', { file_path: 'dir' })).is_directory).toBe(true);
    expect((await tools.call('glob', { pattern: '*', path: 'f' })).error?.message).toBe(
      'Not a directory: f; path must be a directory',
    );
    expect((await tools.call('write_file', { file_path: 'f/child', content: 'x' })).error?.message).toBe(
      'Not a directory: a parent of f/child is a file',
    );
    expect((await tools.call('write_file', { file_path: 'dir', content: 'x' })).error?.message).toBe(
      'Cannot write to directory: dir',
    );
    const long = `${'n'.repeat(5000)}/f.txt`;
    const tooLong = await tools.call('write_file', { file_path: long, content: 'x' });
    expect(tooLong.error?.message).toMatch(/^File name too long: n{200}\.\.\.$/);
    const deep = `${Array.from({ length: 300 }, () => 'd').join('/')}/f.txt`;
    const nested = await tools.call('write_file', { file_path: deep, content: 'deep' });
    expect(nested.success).toBe(true);
    expect(fs.readFileSync(path.join(tree.ws, deep), 'utf8')).toBe('deep');
    expect(fs.readdirSync(tree.ws).sort()).toEqual(['d', 'dir', 'f']);
    expect(outsideState()).toBe(before);
  });

  it('FS-31 NFC and NFD names are distinct files, resolved byte for byte', async () => {
    const nfc = 'caf\u00e9.txt';
    const nfd = 'cafe\u0301.txt';
    fs.writeFileSync(path.join(tree.ws, nfc), 'nfc\n');
    fs.writeFileSync(path.join(tree.ws, nfd), 'nfd\n');
    expect((await tools.out('read_file', { file_path: nfc })).content).toBe('     1\tnfc');
    expect((await tools.out('read_file', { file_path: nfd })).content).toBe('     1\tnfd');
    await tools.out('write_file', { file_path: nfd, content: 'changed\n' });
    expect(fs.readFileSync(path.join(tree.ws, nfc), 'utf8')).toBe('nfc\n');
    expect(outsideState()).toBe(before);
  });
});
