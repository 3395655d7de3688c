/**
 * tool-filesystem against GNU tools on the same generated tree (20,000 files,
 * 200 MB of code-like text in 1,000 folders; generated once and cached):
 * `grep` in each output mode, for a literal and a regex, vs `grep -rn` / `-rl`
 * / `-rc` (result counts checked against GNU's), `glob` vs `find`, and
 * `read_file` of a 100 MB file with offset/limit in a fresh process (time and
 * peak RSS). Runs are interleaved and the page cache is warm.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { cached } from './cache.js';
import {
  fmt,
  type Group,
  type GroupOptions,
  meets,
  missing,
  notAvailable,
  type Row,
  runChild,
  summarize,
} from './stats.js';

const GROUP = 'filesystem';
const MARKER = 'TODO_FIXME_MARKER';
const WORDS =
  'const let function return import export from class extends async await value result error index data item list map filter reduce string number boolean object array promise handler request response config options'.split(
    ' ',
  );

/** A deterministic generator of code-like text (a few rare markers to find). */
function textGenerator(seed: number): (bytes: number) => string {
  let state = seed;
  const rand = (): number => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
  return (bytes) => {
    const lines: string[] = [];
    let size = 0;
    while (size < bytes) {
      let line = '';
      const words = 4 + Math.floor(rand() * 10);
      for (let w = 0; w < words; w++) line += `${WORDS[Math.floor(rand() * WORDS.length)]} `;
      const r = rand();
      if (r < 0.0004) line += MARKER;
      else if (r < 0.001) line += 'function loadHandler() {';
      lines.push(line);
      size += line.length + 1;
    }
    return `${lines.join('\n')}\n`;
  };
}

/** `files` files of `totalMb` MB together, 40 × 25 folders, five extensions. */
function writeTree(dir: string, files: number, totalMb: number): void {
  const text = textGenerator(42);
  const perFile = Math.floor((totalMb * 2 ** 20) / files);
  for (let i = 0; i < files; i++) {
    const folder = path.join(dir, `pkg${i % 40}`, `mod${Math.floor(i / 40) % 25}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, `file${i}.${['ts', 'js', 'py', 'md', 'txt'][i % 5]}`), text(perFile));
  }
}

function writeBigFile(file: string, mb: number): void {
  const block = Buffer.from(textGenerator(7)(2 ** 20));
  const fd = openSync(file, 'w');
  for (let i = 0; i < mb; i++) writeSync(fd, block);
  closeSync(fd);
}

async function mountTools(config: Record<string, unknown>) {
  const { Coordinator, silentLogger } = await import('@amplifier/core');
  const { mount } = await import('@amplifier/tool-filesystem');
  const coordinator = new Coordinator({ sessionId: 'bench', logger: silentLogger });
  const cleanup = await mount(coordinator, config);
  const call = async (name: string, input: Record<string, unknown>) => {
    const tool = coordinator.get('tools', name)!;
    const result = await tool.execute(input);
    if (!result.success) throw new Error(`${name} failed: ${JSON.stringify(result.error)}`);
    return result.output as Record<string, unknown>;
  };
  return { call, cleanup };
}

interface Pair {
  label: string;
  gnu: string;
  ours: number[];
  theirs: number[];
  count: string;
  /** Our first call of the process (it starts the grep workers), for the first case. */
  first?: number;
}

interface Case {
  label: string;
  /** The GNU command, the tree's place in it marked by `TREE`. */
  gnu: string[];
  tool: 'grep' | 'glob';
  input: Record<string, unknown>;
  /** Our result count must equal GNU's line count (every matching line or file listed). */
  sameCount?: boolean;
}

const TREE = '<tree>';
const PATTERNS = [
  { label: `literal \`${MARKER}\``, pattern: MARKER, gnu: [MARKER] },
  {
    label: 'regex `function\\s+\\w+Handler`',
    pattern: 'function\\s+\\w+Handler',
    gnu: ['-E', 'function[[:space:]]+[[:alnum:]_]+Handler'],
  },
];
const MODES = [
  {
    label: 'content (every matching line)',
    flag: '-rn',
    input: { output_mode: 'content', head_limit: 0 },
    same: true,
  },
  { label: 'files_with_matches', flag: '-rl', input: { head_limit: 0 }, same: true },
  { label: 'count', flag: '-rc', input: { output_mode: 'count', head_limit: 0 }, same: false },
  {
    label: 'content, default head_limit (500 lines returned)',
    flag: '-rn',
    input: { output_mode: 'content' },
    same: false,
  },
];
const CASES: Case[] = [
  ...PATTERNS.flatMap((p) =>
    MODES.map((m) => ({
      label: `grep ${m.label}, ${p.label}`,
      gnu: ['grep', m.flag, ...p.gnu, TREE],
      tool: 'grep' as const,
      input: { pattern: p.pattern, ...m.input },
      sameCount: m.same,
    })),
  ),
  {
    label: 'glob `**/*.ts` (files)',
    gnu: ['find', TREE, '-name', '*.ts', '-type', 'f'],
    tool: 'glob',
    input: { pattern: '**/*.ts', type: 'file' },
    sameCount: true,
  },
];

/** Child task: every grep mode and glob against its GNU counterpart, interleaved rounds. */
async function searchTimes(args: { tree: string; runs: number }): Promise<Pair[]> {
  const t = await mountTools({ working_dir: args.tree, glob: { max_results: 1_000_000 } });
  const pairs: Pair[] = CASES.map((c) => ({
    label: c.label,
    gnu: c.gnu.join(' '),
    ours: [],
    theirs: [],
    count: '',
  }));
  const runOne = async (c: Case): Promise<{ ours: number; theirs: number; count: string }> => {
    const [cmd, ...argv] = c.gnu.map((a) => (a === TREE ? args.tree : a));
    let start = performance.now();
    const gnu = spawnSync(cmd!, argv, { maxBuffer: 1 << 30 });
    const theirs = performance.now() - start;
    start = performance.now();
    const output = await t.call(c.tool, c.input);
    const ours = performance.now() - start;
    const found = Number(output.total_matches ?? output.total_files ?? -1);
    const lines = gnu.stdout.toString().split('\n').filter(Boolean).length;
    if (c.sameCount && found !== lines) throw new Error(`${c.label}: ${found} results, GNU ${lines} lines`);
    return { ours, theirs, count: `${found} (GNU: ${lines} lines)` };
  };
  for (let i = 0; i < CASES.length; i++) {
    const warm = await runOne(CASES[i]!); // warm-up (page cache, grep workers)
    if (i === 0) pairs[0]!.first = warm.ours;
  }
  for (let round = 0; round < args.runs; round++) {
    for (let i = 0; i < CASES.length; i++) {
      const r = await runOne(CASES[i]!);
      pairs[i]!.ours.push(r.ours);
      pairs[i]!.theirs.push(r.theirs);
      pairs[i]!.count = r.count;
    }
  }
  await t.cleanup();
  return pairs;
}

/** Child task: one read_file call in this fresh process. */
async function readOnce(args: { file: string; offset: number; limit: number; maxBytes?: number }) {
  const t = await mountTools({
    working_dir: path.dirname(args.file),
    ...(args.maxBytes !== undefined && { max_read_bytes: args.maxBytes }),
  });
  const before = process.memoryUsage().rss / 2 ** 20;
  const start = performance.now();
  const output = await t.call('read_file', { file_path: args.file, offset: args.offset, limit: args.limit });
  const ms = performance.now() - start;
  await t.cleanup();
  return { ms, before, lines: output.lines_read ?? output.total_lines };
}

export const tasks = { searchTimes, readOnce };

async function run(options: GroupOptions): Promise<Row[]> {
  const reason = await missing('@amplifier/tool-filesystem');
  if (reason !== undefined) return [notAvailable(GROUP, 'tool-filesystem grep/glob/read', reason)];
  const [files, mb] = options.quick ? [2_000, 20] : [20_000, 200];
  options.log(`filesystem: tree of ${files} files, ${mb} MB (generated once)`);
  const tree = await cached(`fs-tree-${files}-${mb}`, (dir) => writeTree(dir, files, mb));
  const bigDir = await cached('fs-big-100mb', (dir) => writeBigFile(path.join(dir, 'big.txt'), 100));
  const big = path.join(bigDir, 'big.txt');
  spawnSync('grep', ['-rc', 'warm-the-page-cache', tree]);
  spawnSync('cat', [big], { stdio: 'ignore' });

  const rows: Row[] = [];
  const { value: pairs } = await runChild<Pair[]>('child.js', [
    GROUP,
    'searchTimes',
    JSON.stringify({ tree, runs: Math.max(5, options.runs) }),
  ]);
  for (const p of pairs) {
    const ours = summarize(p.ours);
    const theirs = summarize(p.theirs);
    const ratio = ours.median / theirs.median;
    const isGrep = p.label.startsWith('grep');
    rows.push({
      group: GROUP,
      what: `${p.label} over ${fmt(files)} files / ${mb} MB`,
      value: `${fmt(ours.median)} ms`,
      range: `${fmt(ours.min)}–${fmt(ours.max)}`,
      ratio: `${fmt(ratio)}×`,
      ...(isGrep && { target: 'within 3× of GNU grep', meets: meets(ratio, 3) }),
      note: `ratio to \`${p.gnu}\` in the same rounds: ${fmt(theirs.median)} ms (${fmt(theirs.min)}–${fmt(theirs.max)}); results: ${p.count}${p.first === undefined ? '' : `; our first call of the process (starts the grep workers): ${fmt(p.first)} ms`}; LC_ALL=${process.env.LC_ALL ?? ''} LANG=${process.env.LANG ?? ''}`,
    });
  }
  for (const read of [
    { offset: 1, limit: 2000 },
    { offset: 700_000, limit: 100, maxBytes: 128 * 2 ** 20 },
    { offset: 1_400_000, limit: 100, maxBytes: 128 * 2 ** 20 },
  ]) {
    const samples: number[] = [];
    const peaks: number[] = [];
    let lines: unknown;
    let before = 0;
    for (let i = 0; i < Math.max(5, options.runs); i++) {
      const r = await runChild<{ ms: number; before: number; lines: unknown }>('child.js', [
        GROUP,
        'readOnce',
        JSON.stringify({ file: big, ...read }),
      ]);
      samples.push(r.value.ms);
      peaks.push(r.peakRssMb);
      lines = r.value.lines;
      before = r.value.before;
    }
    const s = summarize(samples);
    rows.push({
      group: GROUP,
      what: `read_file of a 100 MB file, offset ${read.offset.toLocaleString('en-US')}, limit ${read.limit.toLocaleString('en-US')}${read.maxBytes ? `, max_read_bytes ${read.maxBytes / 2 ** 20} MiB` : ' (default config)'}`,
      value: `${fmt(s.median)} ms`,
      range: `${fmt(s.min)}–${fmt(s.max)}`,
      rss: `${fmt(summarize(peaks).median)} MiB`,
      note: `fresh process per call; RSS before the call ${fmt(before)} MiB; lines returned: ${String(lines)}`,
    });
  }
  return rows;
}

export const group: Group = { name: GROUP, title: 'tool-filesystem vs GNU grep and find', run };
