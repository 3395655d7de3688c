import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashTree, type Mounted, makeTree, mkfifo, mountTools, type Tree } from './__fixtures__/helpers.js';

let tree: Tree;
let tools: Mounted;

beforeEach(async () => {
  tree = makeTree();
  tools = await mountTools({ working_dir: tree.ws });
});
afterEach(async () => {
  await tools.cleanup();
  tree.cleanup();
});

describe('read_file (reference checklist, tool-filesystem)', () => {
  it('#3 no file_path fails with "file_path is required" and error.message equals output', async () => {
    const result = await tools.call('read_file', {});
    expect(result.success).toBe(false);
    expect(result.output).toBe('file_path is required');
    expect(result.error?.message).toBe(result.output);
  });

  it('#4 a 3-line file comes back numbered cat -n style with totals', async () => {
    fs.writeFileSync(path.join(tree.ws, 'three.txt'), 'L1\nL2\nL3\n');
    const out = await tools.out('read_file', { file_path: 'three.txt' });
    expect(out.content).toBe('     1\tL1\n     2\tL2\n     3\tL3');
    expect(out).toMatchObject({
      total_lines: 3,
      lines_read: 3,
      offset: 1,
      file_path: path.join(tree.ws, 'three.txt'),
    });
  });

  it('#5 offset=2, limit=1 returns only line 2 numbered 2', async () => {
    fs.writeFileSync(path.join(tree.ws, 'three.txt'), 'L1\nL2\nL3');
    const out = await tools.out('read_file', { file_path: 'three.txt', offset: 2, limit: 1 });
    expect(out.content).toBe('     2\tL2');
    expect(out).toMatchObject({ total_lines: 3, lines_read: 1, offset: 2 });
  });

  it('#6 a 2001-char line is cut to 2000 chars + "... [truncated]"', async () => {
    const long = `${'a'.repeat(2000)}b`;
    fs.writeFileSync(path.join(tree.ws, 'long.txt'), `${long}\nshort\n`);
    const out = await tools.out('read_file', { file_path: 'long.txt' });
    expect(out.content).toBe(`     1\t${'a'.repeat(2000)}... [truncated]\n     2\tshort`);
  });

  it('#7 an empty file succeeds with zero lines and the empty-contents warning', async () => {
    fs.writeFileSync(path.join(tree.ws, 'empty.txt'), '');
    const out = await tools.out('read_file', { file_path: 'empty.txt' });
    expect(out).toMatchObject({
      lines_read: 0,
      total_lines: 0,
      warning: 'File exists but has empty contents',
      content: '',
    });
  });

  it('#8 a directory lists directories first, then files, with is_directory and entry_count', async () => {
    fs.mkdirSync(path.join(tree.ws, 'zdir'));
    fs.mkdirSync(path.join(tree.ws, 'Adir'));
    fs.writeFileSync(path.join(tree.ws, 'b.txt'), '');
    fs.writeFileSync(path.join(tree.ws, 'a.txt'), '');
    const out = await tools.out('read_file', { file_path: tree.ws });
    expect(out.is_directory).toBe(true);
    expect(out.entry_count).toBe(4);
    expect(out.content).toBe(`Directory: ${tree.ws}\n\n  DIR  Adir\n  DIR  zdir\n  FILE a.txt\n  FILE b.txt`);
  });

  it('#9 a missing path fails with "Path not found: <file_path>"', async () => {
    const result = await tools.call('read_file', { file_path: 'nope.txt' });
    expect(result.success).toBe(false);
    expect(result.error?.message).toBe('Path not found: nope.txt');
  });

  it('#10 a non-UTF-8 file fails with error.type UnicodeDecodeError', async () => {
    fs.writeFileSync(path.join(tree.ws, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    const result = await tools.call('read_file', { file_path: 'latin1.txt' });
    expect(result.success).toBe(false);
    expect(result.error?.type).toBe('UnicodeDecodeError');
    expect(result.error?.message).toBe('Cannot read file: latin1.txt (not a text file or encoding issue)');
  });

  it('#11 allowed_read_paths=[/a]: /b/x is refused with the reference message, /a/sub/x is read', async () => {
    const a = path.join(tree.root, 'a');
    const b = path.join(tree.root, 'b');
    fs.mkdirSync(path.join(a, 'sub'), { recursive: true });
    fs.mkdirSync(b);
    fs.writeFileSync(path.join(a, 'sub', 'x'), 'inside\n');
    fs.writeFileSync(path.join(b, 'x'), 'outside\n');
    const limited = await mountTools({ working_dir: tree.ws, allowed_read_paths: [a] });
    try {
      const denied = await limited.call('read_file', { file_path: path.join(b, 'x') });
      expect(denied.success).toBe(false);
      expect(denied.error?.message).toBe(
        `Access denied: ${path.join(b, 'x')} is not within allowed read paths`,
      );
      expect(JSON.stringify(denied)).not.toContain('outside');
      const allowed = await limited.out('read_file', { file_path: path.join(a, 'sub', 'x') });
      expect(allowed.content).toBe('     1\tinside');
    } finally {
      await limited.cleanup();
    }
  });

  it('#16 (read) a successful read emits artifact:read {path, bytes}', async () => {
    fs.writeFileSync(path.join(tree.ws, 'e.txt'), 'héllo\n');
    await tools.out('read_file', { file_path: 'e.txt' });
    expect(
      tools.events.getEvents('artifact:read').map(([, d]) => ({ path: d.path, bytes: d.bytes })),
    ).toEqual([{ path: path.join(tree.ws, 'e.txt'), bytes: 7 }]);
  });
});

describe('read_file (beyond the reference)', () => {
  it('offset 0 is clamped to 1 and numbering starts at 1', async () => {
    fs.writeFileSync(path.join(tree.ws, 'f.txt'), 'a\nb\n');
    const out = await tools.out('read_file', { file_path: 'f.txt', offset: 0 });
    expect(out.content).toBe('     1\ta\n     2\tb');
    expect(out.offset).toBe(1);
  });

  it('universal newlines: \\r\\n, \\r and \\n all end lines, also across read chunks', async () => {
    const body = `${'x'.repeat(1024 * 1024 - 1)}\r\nsecond\rthird\nfourth`; // \r ends the first 1 MiB chunk
    fs.writeFileSync(path.join(tree.ws, 'nl.txt'), body);
    const out = await tools.out('read_file', { file_path: 'nl.txt', offset: 2 });
    expect(out.content).toBe('     2\tsecond\n     3\tthird\n     4\tfourth');
    expect(out.total_lines).toBe(4);
  });

  it('a character split by a chunk boundary decodes whole; a BOM is not shown; a cut-off last character is an encoding error', async () => {
    fs.writeFileSync(path.join(tree.ws, 'u.txt'), `\ufeff${'x'.repeat(1024 * 1024 - 2)}é\nnext\n`);
    const out = await tools.out('read_file', { file_path: 'u.txt' });
    expect(out.content).toBe(`     1\t${'x'.repeat(2000)}... [truncated]\n     2\tnext`);
    const whole = await tools.out('read_file', { file_path: 'u.txt', offset: 1, limit: 1 });
    expect(String(whole.content).startsWith('     1\txxx')).toBe(true);
    fs.writeFileSync(path.join(tree.ws, 'split.txt'), `${'y'.repeat(1024 * 1024 - 1)}é\n`);
    const split = await tools.out('read_file', { file_path: 'split.txt', offset: 1, limit: 1 });
    expect(split.total_lines).toBe(1);
    fs.writeFileSync(
      path.join(tree.ws, 'cut.txt'),
      Buffer.concat([Buffer.from('ok\n'), Buffer.from('é').subarray(0, 1)]),
    );
    expect((await tools.call('read_file', { file_path: 'cut.txt' })).error?.type).toBe('UnicodeDecodeError');
  });

  it('an offset past the end returns no lines and says so', async () => {
    fs.writeFileSync(path.join(tree.ws, 'f.txt'), 'a\nb\n');
    const out = await tools.out('read_file', { file_path: 'f.txt', offset: 10 });
    expect(out.lines_read).toBe(0);
    expect(out.warning).toBe('offset 10 is past the end of the file (2 lines)');
  });

  it('bad offset/limit types are refused', async () => {
    fs.writeFileSync(path.join(tree.ws, 'f.txt'), 'a\n');
    expect((await tools.call('read_file', { file_path: 'f.txt', offset: 'x' })).error?.message).toBe(
      'offset must be an integer',
    );
    expect((await tools.call('read_file', { file_path: 'f.txt', limit: 0 })).error?.message).toBe(
      'limit must be at least 1',
    );
  });

  it('a binary file is reported with its size, not dumped', async () => {
    fs.writeFileSync(
      path.join(tree.ws, 'img.png'),
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
    );
    const result = await tools.call('read_file', { file_path: 'img.png' });
    expect(result.success).toBe(false);
    expect(result.error?.type).toBe('BinaryFile');
    expect(result.error?.message).toBe(
      'Cannot read binary file: img.png (12 bytes, NUL byte at offset 8); read_file returns text only',
    );
  });

  it('reading stops at max_read_bytes: bytes_read is bounded and the truncation is reported', async () => {
    const small = await mountTools({ working_dir: tree.ws, max_read_bytes: 1000 });
    try {
      fs.writeFileSync(path.join(tree.ws, 'big.txt'), 'line of text\n'.repeat(10_000));
      const out = await small.out('read_file', { file_path: 'big.txt', limit: 3 });
      expect(out.content).toBe('     1\tline of text\n     2\tline of text\n     3\tline of text');
      expect(out.truncated).toBe(true);
      expect(out.bytes_read).toBe(1000);
      expect(out.file_size).toBe(130_000);
      expect(out.total_lines).toBe(77); // 76 whole lines + the cut one
      expect(String(out.warning)).toContain('max_read_bytes');
    } finally {
      await small.cleanup();
    }
  });

  it('a FIFO is refused without blocking (no writer is ever attached)', async () => {
    mkfifo(path.join(tree.ws, 'pipe'));
    const result = await tools.call('read_file', { file_path: 'pipe' });
    expect(result.success).toBe(false);
    expect(result.error?.message).toBe(
      'Cannot read pipe: it is a FIFO (named pipe); only regular files can be read',
    );
  });

  it('a unix socket is refused', async () => {
    const sock = path.join(tree.ws, 's.sock');
    const server = net.createServer().listen(sock);
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const result = await tools.call('read_file', { file_path: 's.sock' });
      expect(result.success).toBe(false);
      expect(result.error?.message).toBe(
        'Cannot read s.sock: it is a socket; only regular files can be read',
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a character device (/dev/zero) is refused instead of read without end', async () => {
    const result = await tools.call('read_file', { file_path: '/dev/zero' });
    expect(result.success).toBe(false);
    expect(result.error?.message).toBe(
      'Cannot read /dev/zero: it is a character device; only regular files can be read',
    );
  });

  it('directory listings mark symlinks LINK (not followed) and hide denied entries', async () => {
    fs.mkdirSync(path.join(tree.ws, 'private'));
    fs.symlinkSync(tree.outside, path.join(tree.ws, 'out'));
    fs.writeFileSync(path.join(tree.ws, 'f.txt'), '');
    const denied = await mountTools({ working_dir: tree.ws, denied_paths: ['private'] });
    try {
      const out = await denied.out('read_file', { file_path: '.' });
      expect(out.content).toBe(`Directory: ${tree.ws}\n\n  FILE f.txt\n  LINK out`);
      expect(out.entry_count).toBe(2);
    } finally {
      await denied.cleanup();
    }
  });

  it('denied_paths refuse reads even when reads are allowed anywhere', async () => {
    const before = hashTree(tree.root);
    const denied = await mountTools({ working_dir: tree.ws, denied_paths: [tree.outside] });
    try {
      const result = await denied.call('read_file', { file_path: tree.secret });
      expect(result.error?.message).toBe(`Access denied: ${tree.secret} is within denied directories`);
      expect(JSON.stringify(result)).not.toContain(tree.marker);
    } finally {
      await denied.cleanup();
    }
    expect(hashTree(tree.root)).toBe(before);
  });

  it('declares a read resource key on the real path (symlinked spellings share it)', async () => {
    fs.writeFileSync(path.join(tree.ws, 'f.txt'), '');
    fs.symlinkSync(path.join(tree.ws, 'f.txt'), path.join(tree.ws, 'alias.txt'));
    const tool = tools.coordinator.get('tools', 'read_file')!;
    const keys = tool.executionProfile?.resourceKeys?.({ file_path: 'alias.txt' });
    expect(keys).toEqual([{ key: `file:${path.join(tree.ws, 'f.txt')}`, mode: 'read' }]);
  });
});
