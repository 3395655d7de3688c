import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Mounted, makeTree, mountTools, type Tree } from './__fixtures__/helpers.js';

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

function write(rel: string, content = '', mtimeSeconds?: number): string {
  const file = path.join(tree.ws, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  if (mtimeSeconds !== undefined) fs.utimesSync(file, mtimeSeconds, mtimeSeconds);
  return file;
}

type Match = { path: string; type: string; size: number | null };

describe('glob (reference checklist, tool-search)', () => {
  it('#2 "**/*.py" leaves out node_modules, .git, .venv ... components unless include_ignored', async () => {
    write('a.py', '', 1000);
    write('pkg/b.py', '', 900);
    write('node_modules/x/c.py');
    write('.git/hooks/d.py');
    write('.venv/lib/e.py');
    write('src/venv_tools/f.py', '', 800); // a prefix of an excluded name is not excluded
    write('src/build', '', 700); // a file named like an excluded directory is kept
    const out = await tools.out('glob', { pattern: '**/*.py' });
    expect((out.matches as Match[]).map((m) => m.path)).toEqual(
      ['a.py', 'pkg/b.py', 'src/venv_tools/f.py'].map((f) => path.join(tree.ws, f)),
    );
    const all = await tools.out('glob', { pattern: '**/*.py', include_ignored: true });
    expect(all.total_files).toBe(6);
    const any = await tools.out('glob', { pattern: '**', type: 'any' });
    expect((any.matches as Match[]).map((m) => path.relative(tree.ws, m.path)).sort()).toEqual([
      'a.py',
      'pkg',
      'pkg/b.py',
      'src',
      'src/build',
      'src/venv_tools',
      'src/venv_tools/f.py',
    ]);
  });

  it('#3 newest first, capped at 500 with results_capped, total_files counts every match', async () => {
    for (let i = 0; i < 510; i++) write(`f${i}.txt`, 'x', 1_000_000 + i);
    const out = await tools.out('glob', { pattern: '*.txt' });
    const matches = out.matches as Match[];
    expect(out).toMatchObject({ total_files: 510, count: 500, results_capped: true, base_path: tree.ws });
    expect(matches).toHaveLength(500);
    expect(matches[0]).toEqual({ path: path.join(tree.ws, 'f509.txt'), type: 'file', size: 1 });
    expect(matches[499]!.path).toBe(path.join(tree.ws, 'f10.txt'));
  });
});

describe('glob: filters and shapes', () => {
  it('type file|dir|any; directories have size null', async () => {
    write('src/a.ts', 'abc', 100);
    fs.mkdirSync(path.join(tree.ws, 'src', 'lib.ts'));
    fs.utimesSync(path.join(tree.ws, 'src', 'lib.ts'), 50, 50);
    const any = await tools.out('glob', { pattern: 'src/*.ts' });
    expect(any.matches).toEqual([
      { path: path.join(tree.ws, 'src/a.ts'), type: 'file', size: 3 },
      { path: path.join(tree.ws, 'src/lib.ts'), type: 'dir', size: null },
    ]);
    const files = await tools.out('glob', { pattern: 'src/*.ts', type: 'file' });
    expect((files.matches as Match[]).map((m) => m.type)).toEqual(['file']);
    const dirs = await tools.out('glob', { pattern: '**', type: 'dir' });
    expect((dirs.matches as Match[]).map((m) => m.path).sort()).toEqual(
      [path.join(tree.ws, 'src'), path.join(tree.ws, 'src/lib.ts')].sort(),
    );
  });

  it('exclude patterns match names anywhere and relative paths', async () => {
    write('a.test.ts');
    write('src/b.test.ts');
    write('src/c.ts');
    write('gen/d.ts');
    const out = await tools.out('glob', { pattern: '**/*.ts', exclude: ['*.test.ts', 'gen/**'] });
    expect((out.matches as Match[]).map((m) => m.path)).toEqual([path.join(tree.ws, 'src/c.ts')]);
  });

  it('an absolute pattern is split into base and pattern; path defaults to the working dir', async () => {
    write('conf/a.conf');
    const out = await tools.out('glob', { pattern: `${tree.ws}/conf/*.conf` });
    expect(out.base_path).toBe(path.join(tree.ws, 'conf'));
    expect((out.matches as Match[]).map((m) => m.path)).toEqual([path.join(tree.ws, 'conf/a.conf')]);
  });

  it('errors: no pattern, missing base, base is a file, bad type', async () => {
    write('f.txt');
    expect((await tools.call('glob', {})).error?.message).toBe('Pattern is required');
    expect((await tools.call('glob', { pattern: '*', path: 'nope' })).error?.message).toBe(
      'Path not found: nope',
    );
    expect((await tools.call('glob', { pattern: '*', path: 'f.txt' })).error?.message).toBe(
      'Not a directory: f.txt; path must be a directory',
    );
    expect((await tools.call('glob', { pattern: '*', type: 'link' })).error?.message).toBe(
      'type must be one of "file", "dir", "any"',
    );
  });

  it('~ in path is expanded', async () => {
    const home = path.join(tree.root, 'home');
    fs.mkdirSync(path.join(home, 'x'), { recursive: true });
    fs.writeFileSync(path.join(home, 'x', 'h.md'), '');
    const saved = process.env.HOME;
    process.env.HOME = home;
    try {
      const out = await tools.out('glob', { pattern: '*.md', path: '~/x' });
      expect((out.matches as Match[]).map((m) => m.path)).toEqual([path.join(home, 'x', 'h.md')]);
    } finally {
      process.env.HOME = saved;
    }
  });

  it('denied directories are neither listed nor entered', async () => {
    write('private/key.pem');
    write('public/a.pem');
    const denied = await mountTools({ working_dir: tree.ws, denied_paths: ['private'] });
    try {
      const out = await denied.out('glob', { pattern: '**' });
      expect((out.matches as Match[]).map((m) => m.path).sort()).toEqual(
        [path.join(tree.ws, 'public'), path.join(tree.ws, 'public/a.pem')].sort(),
      );
    } finally {
      await denied.cleanup();
    }
  });

  it('declares a read key on its base directory', async () => {
    const tool = tools.coordinator.get('tools', 'glob')!;
    expect(tool.executionProfile?.resourceKeys?.({ pattern: '*', path: tree.ws })).toEqual([
      { key: `file:${tree.ws}`, mode: 'read' },
    ]);
  });
});
