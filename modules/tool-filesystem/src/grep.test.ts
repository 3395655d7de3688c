import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Mounted, makeTree, mkfifo, mountTools, type Tree } from './__fixtures__/helpers.js';
import { compileRegex, requiredLiteral } from './grep.js';

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

function write(rel: string, content: string | Buffer): string {
  const file = path.join(tree.ws, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

describe('grep (reference checklist, tool-search)', () => {
  it('#4 defaults to files_with_matches capped at 200; content caps at 500; head_limit 0 means no cap', async () => {
    for (let i = 0; i < 250; i++)
      write(`f${String(i).padStart(3, '0')}.txt`, 'needle one\nhay\nneedle two\nneedle three\n');
    const files = await tools.out('grep', { pattern: 'needle' });
    expect(files).toMatchObject({
      output_mode: 'files_with_matches',
      total_matches: 250,
      matches_count: 200,
      results_capped: true,
    });
    expect((files.files as string[])[0]).toBe(path.join(tree.ws, 'f000.txt'));
    const content = await tools.out('grep', { pattern: 'needle', output_mode: 'content' });
    expect(content).toMatchObject({ total_matches: 750, matches_count: 500, results_capped: true });
    expect((content.results as unknown[])[0]).toEqual({
      file: path.join(tree.ws, 'f000.txt'),
      line_number: 1,
      content: 'needle one',
    });
    const all = await tools.out('grep', { pattern: 'needle', output_mode: 'content', head_limit: 0 });
    expect(all).toMatchObject({ total_matches: 750, matches_count: 750 });
    expect(all.results_capped).toBeUndefined();
    const allFiles = await tools.out('grep', { pattern: 'needle', head_limit: 0 });
    expect((allFiles.files as string[]).length).toBe(250);
  });

  it('#5 count mode on a single file returns its real count', async () => {
    const file = write('one.txt', 'a x\nb\nx x\nx\n');
    const out = await tools.out('grep', { pattern: 'x', path: file, output_mode: 'count' });
    expect(out).toMatchObject({ counts: { [file]: 3 }, total_matches: 3, matches_count: 3 });
  });

  it('#6 an unknown type is an "Unrecognized file type" error; typescript and python aliases work', async () => {
    write('a.ts', 'hit\n');
    write('b.tsx', 'hit\n');
    write('c.py', 'hit\n');
    write('d.go', 'hit\n');
    const bad = await tools.call('grep', { pattern: 'hit', type: 'cobol' });
    expect(bad.error?.message).toMatch(
      /^Unrecognized file type: 'cobol'\. Valid types: .*ts.* Also accepts aliases: .*typescript→ts/,
    );
    const ts = await tools.out('grep', { pattern: 'hit', type: 'typescript' });
    expect(ts.files).toEqual([path.join(tree.ws, 'a.ts'), path.join(tree.ws, 'b.tsx')]);
    const py = await tools.out('grep', { pattern: 'hit', type: 'python' });
    expect(py.files).toEqual([path.join(tree.ws, 'c.py')]);
  });

  it('#7 path "~/x" is expanded before searching', async () => {
    const home = path.join(tree.root, 'home');
    fs.mkdirSync(path.join(home, 'x'), { recursive: true });
    fs.writeFileSync(path.join(home, 'x', 'f.txt'), 'found\n');
    const saved = process.env.HOME;
    process.env.HOME = home;
    try {
      const out = await tools.out('grep', { pattern: 'found', path: '~/x' });
      expect(out.files).toEqual([path.join(home, 'x', 'f.txt')]);
    } finally {
      process.env.HOME = saved;
    }
  });
});

describe('grep: matching', () => {
  it('-i, -n false, and a leading (?i)', async () => {
    write('a.txt', 'Hello\nhello\nHELLO\n');
    expect((await tools.out('grep', { pattern: 'hello', output_mode: 'count' })).total_matches).toBe(1);
    expect(
      (await tools.out('grep', { pattern: 'hello', output_mode: 'count', '-i': true })).total_matches,
    ).toBe(3);
    expect((await tools.out('grep', { pattern: '(?i)hello', output_mode: 'count' })).total_matches).toBe(3);
    const plain = await tools.out('grep', { pattern: 'Hello', output_mode: 'content', '-n': false });
    expect(plain.results).toEqual([{ file: path.join(tree.ws, 'a.txt'), content: 'Hello' }]);
  });

  it('-A/-B/-C give context lines flagged is_match', async () => {
    write('a.txt', '1\n2\nhit\n4\n5\nhit\n');
    const out = await tools.out('grep', { pattern: 'hit', output_mode: 'content', '-B': 1, '-A': 2 });
    const results = out.results as { line_number: number; context: unknown[] }[];
    expect(results[0]!.context).toEqual([
      { line_number: 2, content: '2', is_match: false },
      { line_number: 3, content: 'hit', is_match: true },
      { line_number: 4, content: '4', is_match: false },
      { line_number: 5, content: '5', is_match: false },
    ]);
    expect(results[1]!.context).toEqual([
      { line_number: 5, content: '5', is_match: false },
      { line_number: 6, content: 'hit', is_match: true },
    ]);
    const around = await tools.out('grep', {
      pattern: 'hit',
      output_mode: 'content',
      '-C': 1,
      head_limit: 1,
    });
    expect(
      (around.results as { context: { line_number: number }[] }[])[0]!.context.map((c) => c.line_number),
    ).toEqual([2, 3, 4]);
  });

  it('a regex that could span lines (\\s, [^x]) only matches within a line unless multiline', async () => {
    write('a.txt', 'foo\nbar\nfoo bar\n');
    const single = await tools.out('grep', { pattern: 'foo\\sbar', output_mode: 'content' });
    expect(single.results).toEqual([
      { file: path.join(tree.ws, 'a.txt'), line_number: 3, content: 'foo bar' },
    ]);
    const multi = await tools.out('grep', { pattern: 'foo\\sbar', output_mode: 'content', multiline: true });
    expect(multi.results).toEqual([
      { file: path.join(tree.ws, 'a.txt'), line_number: 1, content: 'foo\nbar' },
      { file: path.join(tree.ws, 'a.txt'), line_number: 3, content: 'foo bar' },
    ]);
    const dotall = await tools.out('grep', { pattern: 'foo.bar', output_mode: 'count', multiline: true });
    expect(dotall.total_matches).toBe(2);
  });

  it('CRLF lines are reported without the \\r, and $ matches before it', async () => {
    write('w.txt', 'one end\r\ntwo\r\n');
    const out = await tools.out('grep', { pattern: 'end$', output_mode: 'content' });
    expect(out.results).toEqual([{ file: path.join(tree.ws, 'w.txt'), line_number: 1, content: 'one end' }]);
  });

  it('^ and empty patterns: one result per line, no phantom line after the final newline', async () => {
    write('a.txt', 'x\ny\n');
    expect((await tools.out('grep', { pattern: '^', output_mode: 'count' })).total_matches).toBe(2);
    expect((await tools.out('grep', { pattern: 'y*', output_mode: 'count' })).total_matches).toBe(2);
  });

  it('only plain case-sensitive literals take the raw-byte prefilter, with escapes undone', () => {
    const lit = (pattern: string, ignoreCase = false) => {
      const spec = compileRegex(pattern, ignoreCase, false);
      return typeof spec === 'string' ? spec : requiredLiteral(spec);
    };
    expect(lit('TODO_FIXME')).toBe('TODO_FIXME');
    expect(lit('a\\.b\\(c\\)')).toBe('a.b(c)');
    expect(lit('héllo wörld')).toBe('héllo wörld');
    for (const pattern of ['a.b', 'foo\\d', 'x|y', '^x', 'x$', 'a+', '[ab]', '(?i)x'])
      expect(lit(pattern)).toBeNull();
    expect(lit('abc', true)).toBeNull();
  });

  it('a literal with regex-special characters and a non-ASCII literal match through the prefilter', async () => {
    write('a.txt', 'call fn(x) here\nnaïve café\n');
    write('b.txt', 'call fn x here\n');
    expect((await tools.out('grep', { pattern: 'fn\\(x\\)' })).files).toEqual([path.join(tree.ws, 'a.txt')]);
    expect((await tools.out('grep', { pattern: 'café', output_mode: 'content' })).results).toEqual([
      { file: path.join(tree.ws, 'a.txt'), line_number: 2, content: 'naïve café' },
    ]);
  });

  it('an invalid regex is a clear error', async () => {
    write('a.txt', 'x\n');
    const result = await tools.call('grep', { pattern: 'foo(' });
    expect(result.success).toBe(false);
    expect(result.error?.message).toMatch(/^Invalid regex pattern: .*Unterminated group/);
  });

  it('offset and head_limit page through results', async () => {
    write('a.txt', 'm1\nm2\nm3\nm4\nm5\n');
    const page = await tools.out('grep', { pattern: 'm', output_mode: 'content', offset: 1, head_limit: 2 });
    expect((page.results as { content: string }[]).map((r) => r.content)).toEqual(['m2', 'm3']);
    expect(page).toMatchObject({ total_matches: 5, matches_count: 2, results_capped: true });
    const last = await tools.out('grep', { pattern: 'm', output_mode: 'content', offset: 3, head_limit: 2 });
    expect(last.results_capped).toBeUndefined();
  });

  it('count mode: total_matches sums every file, matches_count the returned ones', async () => {
    write('a.txt', 'x\nx\n');
    write('b.txt', 'x\n');
    write('c.txt', 'x\nx\nx\n');
    const out = await tools.out('grep', { pattern: 'x', output_mode: 'count', head_limit: 2 });
    expect(out.counts).toEqual({ [path.join(tree.ws, 'a.txt')]: 2, [path.join(tree.ws, 'b.txt')]: 1 });
    expect(out).toMatchObject({ total_matches: 6, matches_count: 3, results_capped: true });
  });

  it('long lines are cut in content results', async () => {
    write('min.js', `${'x'.repeat(5000)}needle${'y'.repeat(5000)}\n`);
    const out = await tools.out('grep', { pattern: 'needle', output_mode: 'content' });
    const content = (out.results as { content: string }[])[0]!.content;
    expect(content).toBe(`${'x'.repeat(2000)}... [truncated]`);
  });
});

describe('grep: what is searched', () => {
  it('glob filter: a name pattern matches anywhere, a path pattern matches the relative path', async () => {
    write('src/a.ts', 'hit\n');
    write('src/deep/b.tsx', 'hit\n');
    write('test/c.ts', 'hit\n');
    write('d.js', 'hit\n');
    const names = await tools.out('grep', { pattern: 'hit', glob: '*.{ts,tsx}' });
    expect(names.files).toEqual(
      ['src/a.ts', 'src/deep/b.tsx', 'test/c.ts'].map((f) => path.join(tree.ws, f)),
    );
    const paths = await tools.out('grep', { pattern: 'hit', glob: 'src/**/*.ts' });
    expect(paths.files).toEqual([path.join(tree.ws, 'src/a.ts')]);
    const negated = await tools.out('grep', { pattern: 'hit', glob: '!*.ts' });
    expect(negated.files).toEqual([path.join(tree.ws, 'd.js'), path.join(tree.ws, 'src/deep/b.tsx')]);
  });

  it('skips excluded directories (as whole path components) unless include_ignored', async () => {
    write('node_modules/pkg/i.js', 'hit\n');
    write('.git/config', 'hit\n');
    write('src/node_modules_not/k.js', 'hit\n');
    write('src/k.js', 'hit\n');
    write('src/build', 'hit\n'); // a file named like an excluded directory is searched
    const out = await tools.out('grep', { pattern: 'hit' });
    expect(out.files).toEqual(
      ['src/build', 'src/k.js', 'src/node_modules_not/k.js'].map((f) => path.join(tree.ws, f)),
    );
    const all = await tools.out('grep', { pattern: 'hit', include_ignored: true });
    expect((all.files as string[]).length).toBe(5);
  });

  it('skips binary files and files over max_file_size, and says how many', async () => {
    const small = await mountTools({ working_dir: tree.ws, max_file_size: 100 });
    try {
      write('bin.dat', Buffer.concat([Buffer.from('hit\n'), Buffer.from([0, 1, 2])]));
      write('big.txt', `hit\n${'x'.repeat(200)}\n`);
      write('ok.txt', 'hit\n');
      const out = await small.out('grep', { pattern: 'hit' });
      expect(out.files).toEqual([path.join(tree.ws, 'ok.txt')]);
      expect(out.files_skipped).toEqual({ binary: 1, too_large: 1, unreadable: 0 });
      expect(out.files_searched).toBe(1);
    } finally {
      await small.cleanup();
    }
  });

  it('does not follow symlinks (files or directories) and never enters denied directories', async () => {
    write('real.txt', 'hit\n');
    write('private/key.txt', 'hit\n');
    fs.symlinkSync(tree.secret, path.join(tree.ws, 'leak.txt'));
    fs.symlinkSync(tree.outside, path.join(tree.ws, 'outdir'));
    fs.writeFileSync(tree.secret, 'hit\n');
    const denied = await mountTools({ working_dir: tree.ws, denied_paths: ['private'] });
    try {
      const out = await denied.out('grep', { pattern: 'hit' });
      expect(out.files).toEqual([path.join(tree.ws, 'real.txt')]);
      const direct = await denied.call('grep', { pattern: 'hit', path: 'private' });
      expect(direct.error?.message).toBe('Access denied: private is within denied directories');
    } finally {
      await denied.cleanup();
    }
  });

  it('a missing pattern, a missing path and a FIFO path are refused', async () => {
    expect((await tools.call('grep', {})).error?.message).toBe('Pattern is required');
    expect((await tools.call('grep', { pattern: 'x', path: 'nope' })).error?.message).toBe(
      'Path not found: nope',
    );
    mkfifo(path.join(tree.ws, 'pipe'));
    expect((await tools.call('grep', { pattern: 'x', path: 'pipe' })).error?.message).toBe(
      'Cannot search pipe: it is a FIFO (named pipe)',
    );
  });

  it('declares a read key on its base directory', async () => {
    const tool = tools.coordinator.get('tools', 'grep')!;
    expect(tool.executionProfile?.resourceKeys?.({ pattern: 'x' })).toEqual([
      { key: `file:${tree.ws}`, mode: 'read' },
    ]);
  });
});

describe('grep: time limit and cancellation', () => {
  it('FS-28 a catastrophic regex is stopped at the time limit and the event loop keeps running meanwhile', async () => {
    const quick = await mountTools({ working_dir: tree.ws, timeout: 1 });
    try {
      write('evil.txt', `${'a'.repeat(5000)}!\n`.repeat(3));
      let ticks = 0;
      const timer = setInterval(() => ticks++, 10);
      const result = await quick.call('grep', { pattern: '(a+)+$' });
      clearInterval(timer);
      expect(result.error?.message).toBe(
        'Search timed out. Try narrowing your search or using more specific patterns.',
      );
      // The regex never finishes, so the loop can only have ticked if matching ran off the main thread.
      expect(ticks).toBeGreaterThan(0);
    } finally {
      await quick.cleanup();
    }
  });

  it('FS-28 a 10,000-character pattern compiles and runs', async () => {
    write('ok.txt', 'tok1499\n');
    const pattern = Array.from({ length: 1500 }, (_, i) => `tok${i}`).join('|');
    expect(pattern.length).toBeGreaterThan(10_000);
    const long = await tools.out('grep', { pattern, path: 'ok.txt', output_mode: 'count' });
    expect(long.total_matches).toBe(1);
  });

  it('an aborted signal stops a running search', async () => {
    write('evil.txt', `${'a'.repeat(5000)}!\n`);
    const controller = new AbortController();
    const running = tools.call('grep', { pattern: '(a+)+$' }, { signal: controller.signal });
    setImmediate(() => controller.abort());
    const result = await running;
    expect(result.error?.message).toBe('Search cancelled');
    // The tool still works afterwards (a fresh worker).
    write('ok.txt', 'fine\n');
    expect((await tools.out('grep', { pattern: 'fine' })).total_matches).toBe(1);
  });
});
