// Benchmarks for @amplifier/tool-filesystem against GNU grep and find on the same
// generated tree. Needs a build first (`pnpm turbo run build --filter @amplifier/tool-filesystem`).
//
//   node bench/run.mjs [--files 20000] [--mb 200] [--runs 5] [--dir /tmp/amp-fs-bench]
//
// Prints a markdown table; figures in bench/RESULTS.md come from this script.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '20000' },
    mb: { type: 'string', default: '200' },
    runs: { type: 'string', default: '5' },
    dir: { type: 'string', default: path.join(os.tmpdir(), 'amp-fs-bench') },
    child: { type: 'string' },
  },
});
const here = path.dirname(fileURLToPath(import.meta.url));
const print = (text) => process.stdout.write(`${text}\n`);
const { mount } = await import(path.join(here, '..', 'dist', 'index.js'));
const { createTestCoordinator } = await import('@amplifier/core/testing');

async function tools(config) {
  const coordinator = createTestCoordinator({ bare: true });
  const cleanup = await mount(coordinator, config);
  return { get: (name) => coordinator.get('tools', name), cleanup };
}

// Child mode: one read_file call in a fresh process, reporting time and RSS growth.
if (values.child) {
  const [file, offset, limit, maxBytes] = values.child.split(',');
  const t = await tools({ working_dir: path.dirname(file), max_read_bytes: Number(maxBytes) });
  const baseline = process.memoryUsage().rss;
  const start = performance.now();
  const result = await t
    .get('read_file')
    .execute({ file_path: file, offset: Number(offset), limit: Number(limit) });
  const ms = performance.now() - start;
  const peakKb = process.resourceUsage().maxRSS;
  process.stdout.write(
    JSON.stringify({
      ms,
      ok: result.success,
      lines: result.output?.lines_read,
      peakMb: peakKb / 1024,
      baseMb: baseline / 2 ** 20,
    }),
  );
  await t.cleanup();
  process.exit(0);
}

const FILES = Number(values.files);
const TARGET_BYTES = Number(values.mb) * 2 ** 20;
const RUNS = Number(values.runs);
const root = values.dir;
const tree = path.join(root, 'tree');

// ------------------------------------------------------------------ the tree
let seed = 42; // mulberry32
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const WORDS =
  'const let function return import export from class extends async await value result error index data item list map filter reduce string number boolean object array promise handler request response config options'.split(
    ' ',
  );
function makeFile(bytes, n) {
  const lines = [];
  let size = 0;
  while (size < bytes) {
    let line = '';
    const words = 4 + Math.floor(rand() * 10);
    for (let w = 0; w < words; w++)
      line += `${WORDS[Math.floor(rand() * WORDS.length)]}${rand() < 0.2 ? Math.floor(rand() * 100) : ''} `;
    const r = rand();
    if (r < 0.0004) line += 'TODO_FIXME_MARKER';
    else if (r < 0.001) line += 'function loadHandler() {';
    lines.push(line);
    size += line.length + 1;
  }
  if (n % 500 === 0) lines.push('TODO_FIXME_MARKER at the end');
  return `${lines.join('\n')}\n`;
}
if (!fs.existsSync(path.join(tree, '.done'))) {
  fs.rmSync(tree, { recursive: true, force: true });
  const perFile = Math.floor(TARGET_BYTES / FILES);
  for (let i = 0; i < FILES; i++) {
    const dir = path.join(tree, `pkg${i % 40}`, `mod${Math.floor(i / 40) % 25}`);
    fs.mkdirSync(dir, { recursive: true });
    const ext = ['ts', 'js', 'py', 'md', 'txt'][i % 5];
    fs.writeFileSync(path.join(dir, `file${i}.${ext}`), makeFile(perFile * (0.5 + rand()), i));
  }
  fs.writeFileSync(path.join(tree, '.done'), '');
}
const big = path.join(root, 'big.txt');
if (!fs.existsSync(big)) {
  const fd = fs.openSync(big, 'w');
  const block = Buffer.from(makeFile(1 << 20, 1));
  for (let i = 0; i < 100; i++) fs.writeSync(fd, block);
  fs.closeSync(fd);
}
const treeBytes = Number(execFileSync('du', ['-sb', tree]).toString().split('\t')[0]);
spawnSync('grep', ['-r', '-c', 'warm-the-page-cache', tree], { stdio: 'ignore' });
spawnSync('cat', [big], { stdio: 'ignore' });

// ---------------------------------------------------------------- measuring
// GNU and ours alternate run by run, so both see the same machine load; medians of warm runs.
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
function runCmd(cmd, args) {
  const start = performance.now();
  const r = spawnSync(cmd, args, { maxBuffer: 1 << 30 });
  return { ms: performance.now() - start, out: r.stdout.toString() };
}
async function runTool(tool, input) {
  const start = performance.now();
  const result = await tool.execute(input);
  const ms = performance.now() - start;
  if (!result.success) throw new Error(JSON.stringify(result.error));
  return { ms, output: result.output };
}
async function compare(tool, input, cmd, args) {
  const first = await runTool(tool, input);
  runCmd(cmd, args);
  const ours = [];
  const theirs = [];
  let output = first.output;
  let out = '';
  for (let i = 0; i < RUNS; i++) {
    const a = runCmd(cmd, args);
    const b = await runTool(tool, input);
    theirs.push(a.ms);
    ours.push(b.ms);
    out = a.out;
    output = b.output;
  }
  return { ours: median(ours), theirs: median(theirs), first: first.ms, output, out };
}

const t = await tools({ working_dir: tree });
const rows = [];
const row = (what, ours, theirs, note = '') =>
  rows.push(
    `| ${what} | ${ours.toFixed(0)} | ${theirs.toFixed(0)} | ${(ours / theirs).toFixed(2)}× | ${note} |`,
  );

for (const [label, pattern, extended] of [
  ['literal `TODO_FIXME_MARKER`', 'TODO_FIXME_MARKER', false],
  ['regex `function\\s+\\w+Handler`', 'function\\s+\\w+Handler', true],
]) {
  const gnu = extended ? ['-E', 'function[[:space:]]+[[:alnum:]_]+Handler'] : [pattern];
  const content = await compare(t.get('grep'), { pattern, output_mode: 'content', head_limit: 0 }, 'grep', [
    '-rn',
    ...gnu,
    tree,
  ]);
  const lines = content.out.split('\n').filter(Boolean).length;
  if (content.output.total_matches !== lines)
    throw new Error(`content: ${content.output.total_matches} != ${lines}`);
  row(
    `grep content, all lines, ${label}`,
    content.ours,
    content.theirs,
    `${lines} lines; \`grep -rn\`; our first call ${content.first.toFixed(0)} ms`,
  );
  const files = await compare(t.get('grep'), { pattern, head_limit: 0 }, 'grep', ['-rl', ...gnu, tree]);
  row(
    `grep files_with_matches, ${label}`,
    files.ours,
    files.theirs,
    `${files.output.total_matches} files; \`grep -rl\``,
  );
  const count = await compare(t.get('grep'), { pattern, output_mode: 'count', head_limit: 0 }, 'grep', [
    '-rc',
    ...gnu,
    tree,
  ]);
  row(`grep count, ${label}`, count.ours, count.theirs, '`grep -rc`');
  const head = await compare(t.get('grep'), { pattern, output_mode: 'content' }, 'grep', [
    '-rn',
    ...gnu,
    tree,
  ]);
  row(`grep content, default head_limit 500, ${label}`, head.ours, head.theirs, '`grep -rn` (all lines)');
}
const globbed = await compare(t.get('glob'), { pattern: '**/*.ts', type: 'file' }, 'find', [
  tree,
  '-name',
  '*.ts',
  '-type',
  'f',
]);
row(
  'glob `**/*.ts`',
  globbed.ours,
  globbed.theirs,
  `${globbed.output.total_files} files, stat + mtime sort; \`find -name '*.ts' -type f\``,
);
await t.cleanup();
const reads = [];
for (const [offset, limit, maxBytes] of [
  [1, 2000, 10 * 2 ** 20],
  [500_000, 100, 128 * 2 ** 20],
  [1_400_000, 100, 128 * 2 ** 20],
]) {
  const r = spawnSync(process.execPath, [
    fileURLToPath(import.meta.url),
    '--child',
    `${big},${offset},${limit},${maxBytes}`,
  ]);
  const m = JSON.parse(r.stdout.toString());
  reads.push(
    `| offset ${offset}, limit ${limit}, max_read_bytes ${maxBytes / 2 ** 20} MiB | ${m.ms.toFixed(0)} | ${m.lines} | ${m.baseMb.toFixed(0)} | ${m.peakMb.toFixed(0)} |`,
  );
}

print(
  `Load average at the end: ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
print(
  `Tree: ${FILES} files, ${(treeBytes / 2 ** 20).toFixed(0)} MiB; Node ${process.version}; ${os.cpus().length} CPUs; LANG=${process.env.LANG ?? ''} LC_ALL=${process.env.LC_ALL ?? ''}; median of ${RUNS} warm runs (page cache warm).\n`,
);
print('| what | ours (ms) | GNU (ms) | ratio | note |\n|---|---:|---:|---:|---|');
print(rows.join('\n'));
print(
  `\nread_file on a ${(fs.statSync(big).size / 2 ** 20).toFixed(0)} MiB text file (fresh process per row):\n`,
);
print('| call | time (ms) | lines | RSS before (MiB) | peak RSS (MiB) |\n|---|---:|---:|---:|---:|');
print(reads.join('\n'));
