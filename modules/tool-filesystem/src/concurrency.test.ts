/**
 * Concurrent mutations of one file (issue 16, point 9): calls made at the same
 * time through this module, by any spelling of the path, queue on one lock
 * keyed on the real path, each applies to the content current when it runs,
 * and none is lost. The read-before-edit tracker learns this session's own
 * writes, so they never look stale, while a change by another process still does.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ToolResult } from '@amplifier/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Mounted, makeTree, mountTools, type Tree } from './__fixtures__/helpers.js';
import { ReadTracker, sha256 } from './read-tracker.js';

let tree: Tree;
let tools: Mounted;
let file: string;

beforeEach(async () => {
  tree = makeTree();
  tools = await mountTools({ working_dir: tree.ws });
  fs.mkdirSync(path.join(tree.ws, 'sub'));
  file = path.join(tree.ws, 'a.txt');
});
afterEach(async () => {
  await tools.cleanup();
  tree.cleanup();
});

const markers = (n: number, prefix = 'M'): string[] =>
  Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(3, '0')}`);

/** Every spelling of `<ws>/a.txt` the module must treat as one file. */
function spellings(): string[] {
  fs.symlinkSync('a.txt', path.join(tree.ws, 'link.txt'));
  fs.symlinkSync('.', path.join(tree.ws, 'here'));
  return [
    'a.txt',
    './a.txt',
    'sub/../a.txt',
    file,
    `${tree.ws}//./a.txt`,
    'link.txt',
    'here/a.txt',
    'here/sub/../link.txt',
  ];
}

/** The temp files write_file and edit_file create next to their target (none may be left). */
const leftovers = (): string[] => fs.readdirSync(tree.ws).filter((name) => name.endsWith('.tmp'));

describe('concurrent edits of one file', () => {
  it('50 concurrent edit_file calls all apply, each to the current content', async () => {
    const names = markers(50);
    fs.writeFileSync(file, `${names.join('\n')}\n`);
    await tools.out('read_file', { file_path: 'a.txt' });
    const results = await Promise.all(
      names.map((m) => tools.call('edit_file', { file_path: 'a.txt', old_string: m, new_string: `E-${m}` })),
    );
    expect(results.filter((r) => !r.success).map((r) => r.error?.message)).toEqual([]);
    expect(fs.readFileSync(file, 'utf8')).toBe(`${names.map((m) => `E-${m}`).join('\n')}\n`);
    expect(leftovers()).toEqual([]);
  });

  it('edits through every spelling of the path (relative, ./, .., absolute, //, symlinks) serialise', async () => {
    const names = markers(48);
    fs.writeFileSync(file, `${names.join(' ')}\n`);
    const ways = spellings();
    await tools.out('read_file', { file_path: 'a.txt' });
    const results = await Promise.all(
      names.map((m, i) =>
        tools.call('edit_file', { file_path: ways[i % ways.length]!, old_string: m, new_string: `E-${m}` }),
      ),
    );
    expect(results.filter((r) => !r.success).map((r) => r.error?.message)).toEqual([]);
    expect(fs.readFileSync(file, 'utf8')).toBe(`${names.map((m) => `E-${m}`).join(' ')}\n`);
    expect(fs.lstatSync(path.join(tree.ws, 'link.txt')).isSymbolicLink()).toBe(true);
  });

  it('write_file and edit_file mixed through different spellings: all succeed, no update is lost', async () => {
    const names = markers(20);
    const initial = `${names.join(' ')}\n`;
    fs.writeFileSync(file, initial);
    const ways = spellings();
    await tools.out('read_file', { file_path: 'link.txt' });
    // The write keeps every marker, so each edit finds its marker whichever runs first.
    const written = `${initial}TAIL\n`;
    const calls: Promise<ToolResult>[] = [];
    names.forEach((m, i) => {
      if (i === 7) calls.push(tools.call('write_file', { file_path: 'here/a.txt', content: written }));
      calls.push(
        tools.call('edit_file', { file_path: ways[i % ways.length]!, old_string: m, new_string: `E-${m}` }),
      );
    });
    const results = await Promise.all(calls);
    expect(results.filter((r) => !r.success).map((r) => r.error?.message)).toEqual([]);
    const final = fs.readFileSync(file, 'utf8');
    // A serial order: the write replaced whatever edits ran before it; the ones after it all apply.
    expect(final.endsWith('TAIL\n')).toBe(true);
    const words = final.slice(0, -'TAIL\n'.length).trim().split(' ');
    expect(words.map((w) => w.replace(/^E-/, ''))).toEqual(names);
    // And every edit that ran after the write is in the file: edit again now, nothing is stale.
    await tools.out('edit_file', { file_path: file, old_string: 'TAIL', new_string: 'END' });
    expect(leftovers()).toEqual([]);
  });

  it('concurrent write_file calls through different spellings leave exactly one of the contents', async () => {
    const ways = spellings();
    fs.writeFileSync(file, 'start\n');
    const contents = Array.from({ length: 24 }, (_, i) => `content ${i}\n`.repeat(200));
    const results = await Promise.all(
      contents.map((content, i) => tools.call('write_file', { file_path: ways[i % ways.length]!, content })),
    );
    expect(results.filter((r) => !r.success).map((r) => r.error?.message)).toEqual([]);
    expect(contents).toContain(fs.readFileSync(file, 'utf8'));
    expect(fs.lstatSync(path.join(tree.ws, 'link.txt')).isSymbolicLink()).toBe(true);
    expect(leftovers()).toEqual([]);
    // The session's last write is what is on disk: an edit needs no new read.
    const now = fs.readFileSync(file, 'utf8');
    const first = now.split('\n')[0]!;
    await tools.out('edit_file', {
      file_path: 'link.txt',
      old_string: first,
      new_string: 'edited',
      replace_all: true,
    });
  });

  it('read_file running beside edits neither fails nor makes the next edit stale', async () => {
    const names = markers(30);
    fs.writeFileSync(file, `${names.join('\n')}\n`);
    spellings();
    await tools.out('read_file', { file_path: 'a.txt' });
    const calls = names.flatMap((m, i) => [
      tools.call('edit_file', {
        file_path: i % 2 ? 'link.txt' : 'a.txt',
        old_string: m,
        new_string: `E-${m}`,
      }),
      tools.call('read_file', { file_path: i % 2 ? 'a.txt' : './here/link.txt' }),
    ]);
    const results = await Promise.all(calls);
    expect(results.filter((r) => !r.success).map((r) => r.error?.message)).toEqual([]);
    await tools.out('edit_file', { file_path: 'a.txt', old_string: 'E-M000', new_string: 'last' });
    expect(fs.readFileSync(file, 'utf8').split('\n')[0]).toBe('last');
  });

  it('a change by another process since the last read still gives the stale error', async () => {
    const names = markers(10);
    fs.writeFileSync(file, `${names.join('\n')}\n`);
    await tools.out('read_file', { file_path: 'a.txt' });
    const results = await Promise.all(
      names
        .slice(0, 5)
        .map((m) => tools.call('edit_file', { file_path: './a.txt', old_string: m, new_string: `E-${m}` })),
    );
    expect(results.every((r) => r.success)).toBe(true);
    // Another process appends a line (a real write, not through the module).
    fs.appendFileSync(file, 'outside\n');
    const stale = await Promise.all(
      names
        .slice(5)
        .map((m) => tools.call('edit_file', { file_path: 'sub/../a.txt', old_string: m, new_string: 'x' })),
    );
    for (const result of stale) {
      expect(result.error?.type).toBe('StaleRead');
      expect(result.error?.message).toBe(
        'File has changed on disk since it was read (its size changed): sub/../a.txt. Read it again with read_file, then retry the edit.',
      );
    }
    expect(fs.readFileSync(file, 'utf8').endsWith('M009\noutside\n')).toBe(true);
  });

  it('hard links: each name is edited in turn; the first replace separates them (documented)', async () => {
    fs.writeFileSync(file, 'one two\n');
    const other = path.join(tree.ws, 'hard.txt');
    fs.linkSync(file, other);
    await tools.out('read_file', { file_path: 'a.txt' });
    await tools.out('read_file', { file_path: 'hard.txt' });
    const results = await Promise.all([
      tools.call('edit_file', { file_path: 'a.txt', old_string: 'one', new_string: '1' }),
      tools.call('edit_file', { file_path: 'hard.txt', old_string: 'two', new_string: '2' }),
    ]);
    expect(results.map((r) => r.success)).toEqual([true, true]);
    expect(fs.readFileSync(file, 'utf8')).toBe('1 two\n');
    expect(fs.readFileSync(other, 'utf8')).toBe('one 2\n');
  });
});

describe('ReadTracker: own writes and reads that overlap them', () => {
  const record = (text: string) => ({
    size: Buffer.byteLength(text),
    mtimeMs: 1,
    sha256: sha256(Buffer.from(text)),
    complete: true,
  });
  const now = (text: string) => ({ size: Buffer.byteLength(text), mtimeMs: 2, bytes: Buffer.from(text) });

  it('a read that began before the session wrote the file does not replace what the write recorded', () => {
    const tracker = new ReadTracker();
    const started = tracker.readStarted('/f');
    tracker.recordWrite('/f', record('new'));
    tracker.recordRead('/f', started, record('old'));
    expect(tracker.staleReason('/f', now('new'))).toBeUndefined();
  });

  it('a read that began after the write is recorded (and then an outside change is stale)', () => {
    const tracker = new ReadTracker();
    tracker.recordWrite('/f', record('new'));
    tracker.recordRead('/f', tracker.readStarted('/f'), record('outside'));
    expect(tracker.staleReason('/f', now('outside'))).toBeUndefined();
    expect(tracker.staleReason('/f', now('outsidE'))).toBe('has changed on disk since it was read');
  });
});
