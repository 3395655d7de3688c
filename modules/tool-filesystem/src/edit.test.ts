import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashTree, type Mounted, makeTree, mountTools, type Tree } from './__fixtures__/helpers.js';

let tree: Tree;
let tools: Mounted;

let outsideHash: string;

beforeEach(async () => {
  tree = makeTree();
  outsideHash = hashTree(tree.outside);
  tools = await mountTools({ working_dir: tree.ws });
});
afterEach(async () => {
  expect(hashTree(tree.outside)).toBe(outsideHash); // nothing outside the root changed
  await tools.cleanup();
  tree.cleanup();
});

/** Write a file and read it through the tool (edits need a prior read). */
async function prepare(name: string, content: string | Buffer): Promise<string> {
  const file = path.join(tree.ws, name);
  fs.writeFileSync(file, content);
  await tools.out('read_file', { file_path: name });
  return file;
}

describe('edit_file (reference checklist, tool-filesystem)', () => {
  it('#16 (edit) a successful edit emits artifact:write {path, bytes}', async () => {
    const file = await prepare('a.txt', 'hello world\n');
    await tools.out('edit_file', { file_path: 'a.txt', old_string: 'world', new_string: 'wörld' });
    expect(
      tools.events.getEvents('artifact:write').map(([, d]) => ({ path: d.path, bytes: d.bytes })),
    ).toEqual([{ path: file, bytes: 13 }]);
  });

  it('#17 old_string occurring twice without replace_all fails with the count', async () => {
    await prepare('a.txt', 'foo bar foo\n');
    const result = await tools.call('edit_file', {
      file_path: 'a.txt',
      old_string: 'foo',
      new_string: 'baz',
    });
    expect(result.error?.message).toBe(
      'old_string appears 2 times in file. Either provide more context to make it unique or set replace_all=true',
    );
    expect(result.error?.occurrences).toBe(2);
    expect(result.error?.old_string).toBe('foo');
  });

  it('#18 replace_all replaces every occurrence and reports the count', async () => {
    const file = await prepare('a.txt', 'foo bar foo foo\n');
    const out = await tools.out('edit_file', {
      file_path: 'a.txt',
      old_string: 'foo',
      new_string: 'baz',
      replace_all: true,
    });
    expect(out).toEqual({ file_path: file, replacements_made: 3, bytes_written: 16 });
    expect(fs.readFileSync(file, 'utf8')).toBe('baz bar baz baz\n');
  });

  it('#19 old == new and an empty old_string are refused', async () => {
    await prepare('a.txt', 'x\n');
    const same = await tools.call('edit_file', { file_path: 'a.txt', old_string: 'x', new_string: 'x' });
    expect(same.error?.message).toBe('old_string and new_string must be different (no changes to make)');
    const empty = await tools.call('edit_file', { file_path: 'a.txt', old_string: '', new_string: 'y' });
    expect(empty.error?.message).toBe('old_string is required');
  });

  it('#20 old_string not in the file fails with "old_string not found in file: <file_path>"', async () => {
    await prepare('a.txt', 'alpha\n');
    const result = await tools.call('edit_file', { file_path: 'a.txt', old_string: 'zzz', new_string: 'y' });
    expect(result.success).toBe(false);
    expect(result.error?.message.split('\n')[0]).toBe('old_string not found in file: a.txt');
  });
});

describe('edit_file: diagnostics when nothing matches', () => {
  it('shows the closest lines with their line numbers', async () => {
    await prepare(
      'code.ts',
      'import x from "y";\n\nfunction add(a, b) {\n  return a + b;\n}\n\nfunction sub(a, b) {\n  return a - b;\n}\n',
    );
    const result = await tools.call('edit_file', {
      file_path: 'code.ts',
      old_string: 'function sub(a, c) {\n  return a - c;\n}',
      new_string: 'x',
    });
    const message = result.error?.message ?? '';
    expect(message).toContain('The closest match is at lines 7-9');
    expect(message).toContain('     7\tfunction sub(a, b) {\n     8\t  return a - b;\n     9\t}');
    expect(result.error?.closest_match).toMatchObject({ start_line: 7, end_line: 9, whitespace_only: false });
    expect(result.output).toBe(message);
  });

  it('says when the only difference is whitespace', async () => {
    await prepare('p.py', 'def f():\n    return 1\n');
    const result = await tools.call('edit_file', {
      file_path: 'p.py',
      old_string: 'def f():\n  return 1',
      new_string: 'def f():\n  return 2',
    });
    expect(result.error?.message).toContain('differs only in whitespace');
    expect(result.error?.message).toContain('     2\t    return 1');
  });

  it('spots line-number prefixes copied from read_file output', async () => {
    await prepare('a.txt', 'one\ntwo\n');
    const result = await tools.call('edit_file', {
      file_path: 'a.txt',
      old_string: '     2\ttwo',
      new_string: '2',
    });
    expect(result.error?.message).toContain('line-number prefixes');
  });

  it('says when nothing is similar', async () => {
    await prepare('a.txt', 'one\ntwo\n');
    const result = await tools.call('edit_file', {
      file_path: 'a.txt',
      old_string: 'completely unrelated text',
      new_string: '2',
    });
    expect(result.error?.message).toContain('No similar lines were found');
  });
});

describe('edit_file: require_read_before_edit', () => {
  it('refuses a file that was not read in this session, saying to read it', async () => {
    fs.writeFileSync(path.join(tree.ws, 'a.txt'), 'x\n');
    const result = await tools.call('edit_file', { file_path: 'a.txt', old_string: 'x', new_string: 'y' });
    expect(result.error?.message).toBe(
      'File has not been read in this session: a.txt. Read it again with read_file, then retry the edit.',
    );
    expect(fs.readFileSync(path.join(tree.ws, 'a.txt'), 'utf8')).toBe('x\n');
  });

  it('refuses a file changed on disk since it was read, also when the size is the same', async () => {
    const file = await prepare('a.txt', 'abc\n');
    fs.writeFileSync(file, 'abd\n');
    const result = await tools.call('edit_file', { file_path: 'a.txt', old_string: 'abd', new_string: 'y' });
    expect(result.error?.message).toBe(
      'File has changed on disk since it was read: a.txt. Read it again with read_file, then retry the edit.',
    );
    expect(result.error?.type).toBe('StaleRead');
    await tools.out('read_file', { file_path: 'a.txt' });
    await tools.out('edit_file', { file_path: 'a.txt', old_string: 'abd', new_string: 'y' });
    expect(fs.readFileSync(file, 'utf8')).toBe('y\n');
  });

  it('accepts a file whose mtime moved but whose content did not (touch)', async () => {
    const file = await prepare('a.txt', 'abc\n');
    fs.utimesSync(file, new Date(2001, 1, 1), new Date(2001, 1, 1));
    await tools.out('edit_file', { file_path: 'a.txt', old_string: 'abc', new_string: 'x' });
    expect(fs.readFileSync(file, 'utf8')).toBe('x\n');
  });

  it('a file the session wrote itself, or just edited, can be edited again without a read', async () => {
    await tools.out('write_file', { file_path: 'n.txt', content: 'one two\n' });
    await tools.out('edit_file', { file_path: 'n.txt', old_string: 'one', new_string: '1' });
    await tools.out('edit_file', { file_path: 'n.txt', old_string: 'two', new_string: '2' });
    expect(fs.readFileSync(path.join(tree.ws, 'n.txt'), 'utf8')).toBe('1 2\n');
  });

  it('require_read_before_edit: false allows editing an unread file', async () => {
    const relaxed = await mountTools({ working_dir: tree.ws, require_read_before_edit: false });
    try {
      fs.writeFileSync(path.join(tree.ws, 'a.txt'), 'x\n');
      await relaxed.out('edit_file', { file_path: 'a.txt', old_string: 'x', new_string: 'y' });
      expect(fs.readFileSync(path.join(tree.ws, 'a.txt'), 'utf8')).toBe('y\n');
    } finally {
      await relaxed.cleanup();
    }
  });
});

describe('edit_file: bytes on disk', () => {
  it('FS-19 CRLF stays CRLF (a "\\n" in old/new_string means the file\'s "\\r\\n"), BOM and missing final newline stay', async () => {
    const file = await prepare('w.txt', Buffer.from('\ufeffone\r\ntwo\r\nthree', 'utf8'));
    await tools.out('edit_file', {
      file_path: 'w.txt',
      old_string: 'one\ntwo',
      new_string: 'ONE\nTWO\nextra',
    });
    expect(fs.readFileSync(file)).toEqual(Buffer.from('\ufeffONE\r\nTWO\r\nextra\r\nthree', 'utf8'));
  });

  it('FS-20 $&, $1, $$ and $` in new_string are inserted literally', async () => {
    const file = await prepare('a.txt', 'price: X\n');
    await tools.out('edit_file', { file_path: 'a.txt', old_string: 'X', new_string: "$& $1 $$ $` $'" });
    expect(fs.readFileSync(file, 'utf8')).toBe("price: $& $1 $$ $` $'\n");
    await tools.out('edit_file', {
      file_path: 'a.txt',
      old_string: '$&',
      new_string: '$$',
      replace_all: true,
    });
    expect(fs.readFileSync(file, 'utf8')).toBe("price: $$ $1 $$ $` $'\n");
  });

  it('FS-21 refused edits (ambiguous, empty, not found, no-op) do not touch the file', async () => {
    const file = await prepare('a.txt', 'dup dup\n');
    fs.utimesSync(file, new Date(2001, 1, 1), new Date(2001, 1, 1));
    const mtime = fs.statSync(file).mtimeMs;
    for (const [oldString, newString] of [
      ['dup', 'x'],
      ['', 'x'],
      ['missing', 'x'],
      ['dup', 'dup'],
    ]) {
      const result = await tools.call('edit_file', {
        file_path: 'a.txt',
        old_string: oldString,
        new_string: newString,
      });
      expect(result.success).toBe(false);
    }
    expect(fs.statSync(file).mtimeMs).toBe(mtime);
    expect(fs.readFileSync(file, 'utf8')).toBe('dup dup\n');
  });

  it('keeps the mode of an executable script', async () => {
    const file = await prepare('run.sh', '#!/bin/sh\necho old\n');
    fs.chmodSync(file, 0o755);
    await tools.out('edit_file', { file_path: 'run.sh', old_string: 'old', new_string: 'new' });
    expect(fs.statSync(file).mode & 0o7777).toBe(0o755);
  });

  it('FS-17 a binary file is not edited', async () => {
    const file = path.join(tree.ws, 'ls.bin');
    fs.copyFileSync('/bin/ls', file);
    const before = fs.readFileSync(file);
    const result = await tools.call('edit_file', {
      file_path: 'ls.bin',
      old_string: 'ELF',
      new_string: 'FLE',
    });
    expect(result.success).toBe(false);
    expect(result.error?.message).toMatch(/binary file|has not been read/);
    const relaxed = await mountTools({ working_dir: tree.ws, require_read_before_edit: false });
    try {
      const direct = await relaxed.call('edit_file', {
        file_path: 'ls.bin',
        old_string: 'ELF',
        new_string: 'FLE',
      });
      expect(direct.error?.message).toBe('Cannot edit binary file: ls.bin');
    } finally {
      await relaxed.cleanup();
    }
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });

  it('a missing new_string is refused; an empty one deletes', async () => {
    const file = await prepare('a.txt', 'keep drop keep\n');
    expect((await tools.call('edit_file', { file_path: 'a.txt', old_string: ' drop' })).error?.message).toBe(
      'new_string is required (use "" to delete old_string)',
    );
    await tools.out('edit_file', { file_path: 'a.txt', old_string: ' drop', new_string: '' });
    expect(fs.readFileSync(file, 'utf8')).toBe('keep keep\n');
  });

  it('a missing file and a directory are refused with the reference wording', async () => {
    fs.mkdirSync(path.join(tree.ws, 'd'));
    expect(
      (await tools.call('edit_file', { file_path: 'nope', old_string: 'a', new_string: 'b' })).error?.message,
    ).toBe('File not found: nope');
    expect(
      (await tools.call('edit_file', { file_path: 'd', old_string: 'a', new_string: 'b' })).error?.message,
    ).toBe('Cannot edit directory: d');
  });

  it('a file over max_read_bytes is refused', async () => {
    const small = await mountTools({
      working_dir: tree.ws,
      max_read_bytes: 100,
      require_read_before_edit: false,
    });
    try {
      fs.writeFileSync(path.join(tree.ws, 'big.txt'), 'x'.repeat(200));
      const result = await small.call('edit_file', {
        file_path: 'big.txt',
        old_string: 'x',
        new_string: 'y',
      });
      expect(result.error?.message).toBe(
        'File is too large to edit: big.txt (200 bytes; max_read_bytes is 100)',
      );
    } finally {
      await small.cleanup();
    }
  });
});
