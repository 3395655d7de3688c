/**
 * `pnpm bench [-- --only peers,grep] [--runs 5] [--quick] [--write]
 * [--also <label>=<path>]`: runs the benchmark groups one after the other,
 * prints one markdown table and, for a full run (or with --write), writes it
 * to bench/RESULTS.md with the Node version, the machine, the date and the
 * versions of our packages and the peers. `--also` (repeatable) names another
 * build of context-simple (its `dist/index.js`) that the context group
 * measures next to this workspace's.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Build, Group, GroupOptions, Row } from './stats.js';

const GROUPS: Record<string, { file: string; aliases: string[] }> = {
  peers: { file: './peers.js', aliases: ['headline', 'loop'] },
  hooks: { file: './hooks.js', aliases: ['emit'] },
  loader: { file: './loader.js', aliases: ['discovery'] },
  context: { file: './context.js', aliases: ['compaction'] },
  filesystem: { file: './filesystem.js', aliases: ['grep', 'glob', 'fs'] },
  bash: { file: './bash.js', aliases: [] },
  sandbox: { file: './sandbox.js', aliases: ['bwrap'] },
  web: { file: './web.js', aliases: ['fetch'] },
  logging: { file: './logging.js', aliases: ['hooks-logging'] },
  otel: { file: './otel.js', aliases: ['hooks-otel', 'spans'] },
  stream: { file: './stream.js', aliases: ['streaming', 'fragments'] },
  mcp: { file: './mcp.js', aliases: ['tool-mcp'] },
  providers: { file: './providers.js', aliases: ['provider', 'gemini'] },
  delegation: { file: './delegation.js', aliases: ['spawn', 'agents'] },
  sessions: { file: './sessions.js', aliases: ['many'] },
  startup: { file: './startup.js', aliases: ['cli'] },
  view: { file: './view.js', aliases: ['viewer'] },
  durable: { file: './durable.js', aliases: ['restate'] },
};

const benchDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PEERS = [
  'ai',
  '@ai-sdk/provider',
  '@openai/agents',
  'langchain',
  '@langchain/core',
  '@langchain/langgraph',
  'zod',
];

function log(message: string): void {
  console.error(`[${new Date().toISOString().slice(11, 19)}] ${message}`);
}

function selectGroups(only: readonly string[]): string[] {
  if (only.length === 0) return Object.keys(GROUPS);
  const wanted = new Set<string>();
  for (const name of only.flatMap((o) => o.split(','))) {
    const found = Object.entries(GROUPS).find(([key, g]) => key === name || g.aliases.includes(name));
    if (found === undefined)
      throw new Error(`unknown group '${name}' (groups: ${Object.keys(GROUPS).join(', ')})`);
    wanted.add(found[0]);
  }
  return Object.keys(GROUPS).filter((key) => wanted.has(key));
}

function versionOf(name: string): string {
  try {
    const pkg = JSON.parse(readFileSync(path.join(benchDir, 'node_modules', name, 'package.json'), 'utf8'));
    return String(pkg.version);
  } catch {
    return 'not installed';
  }
}

function gitCommit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: benchDir }).toString().trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', '..'], { cwd: benchDir }).toString();
    return dirty.trim() === '' ? head : `${head} (with uncommitted changes in the work tree)`;
  } catch {
    return 'unknown';
  }
}

const cell = (s: string | undefined): string => (s ?? '').replaceAll('|', '\\|');

/** The table, and the notes that rows point to. */
export function renderTable(rows: readonly Row[]): string {
  const lines = [
    '| group | what | median | min–max | ratio | peak RSS | target | meets | reproduce |',
    '|---|---|---:|---:|---:|---:|---|---|---|',
  ];
  const notes: string[] = [];
  for (const row of rows) {
    let what = row.what;
    if (row.note !== undefined) {
      notes.push(row.note);
      what += ` [${notes.length}]`;
    }
    const meets = row.meets === undefined ? '' : row.meets ? 'yes' : '**no**';
    const command = `\`pnpm bench -- --only ${row.group}\``;
    lines.push(
      `| ${[row.group, what, row.value, row.range, row.ratio, row.rss, row.target, meets, command].map(cell).join(' | ')} |`,
    );
  }
  if (notes.length > 0) lines.push('', ...notes.map((note, i) => `${i + 1}. ${note}`));
  return lines.join('\n');
}

function header(startLoad: number[], seconds: number, names: readonly string[]): string {
  const cpus = os.cpus();
  const ours = [
    'core',
    'loop-basic',
    'context-simple',
    'provider-mock',
    'hooks-logging',
    'hooks-otel',
    'tool-filesystem',
    'tool-bash',
    'tool-web',
  ];
  return [
    '# Benchmark results',
    '',
    'Produced by `pnpm bench` (see [README.md](README.md) for what each row measures and how each adapter is written).',
    'Ratios are taken within one run on one machine; absolute numbers move with the machine and its load.',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Node: ${process.version} (${process.platform} ${process.arch}, V8 ${process.versions.v8})`,
    `- Machine: ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory, ${os.type()} ${os.release()}`,
    `- Load average at start / end (1 min): ${startLoad[0]?.toFixed(2)} / ${os.loadavg()[0]?.toFixed(2)} (other work was running on the machine when this is well above 0)`,
    `- Groups: ${names.join(', ')}; whole run ${Math.round(seconds)} s`,
    `- Our packages (workspace, commit ${gitCommit()}): ${ours.map((id) => `@amplifier/${id} ${versionOf(`@amplifier/${id}`)}`).join(', ')}`,
    `- Peers: ${PEERS.map((name) => `${name} ${versionOf(name)}`).join(', ')}`,
    '',
  ].join('\n');
}

/** `--also <label>=<path>` values, each path an existing file. */
function parseBuilds(values: readonly string[]): Build[] {
  return values.map((value) => {
    const at = value.indexOf('=');
    const label = value.slice(0, at);
    const file = path.resolve(value.slice(at + 1));
    if (at <= 0 || !existsSync(file)) {
      throw new Error(`--also ${value}: expected <label>=<path of another build's dist/index.js>`);
    }
    return { label, path: file };
  });
}

/** Run one group; a group that throws becomes one "failed" row. */
async function runGroup(name: string, options: GroupOptions): Promise<Row[]> {
  log(`== ${name}`);
  try {
    const { group } = (await import(GROUPS[name]!.file)) as { group: Group };
    return await group.run(options);
  } catch (error) {
    log(`${name} failed: ${(error as Error).stack ?? String(error)}`);
    return [
      {
        group: name,
        what: 'the whole group',
        value: 'failed',
        note: (error as Error).message.split('\n')[0] ?? '',
      },
    ];
  }
}

/** A row that says the group could not run (failed, or a module's build output was missing). */
function interrupted(row: Row): boolean {
  return row.value === 'failed' || (row.value === 'not available' && /[\\/]dist[\\/]/.test(row.note ?? ''));
}

const USAGE = `Usage: pnpm bench [-- options]

  --only <group[,group]>  run only these groups (${Object.keys(GROUPS).join(', ')})
  --runs <n>              measured runs per row (default 5; at least 5 are always taken)
  --quick                 smaller sizes and budgets, for a look while developing (no RESULTS.md)
  --write                 write bench/RESULTS.md even for a partial run
  --also <label>=<path>   another build of context-simple (its dist/index.js), measured next to this one
  --help                  this text`;

function parseOptions(argv: string[]) {
  try {
    const { values } = parseArgs({
      args: argv,
      options: {
        only: { type: 'string', multiple: true, default: [] },
        runs: { type: 'string', default: '5' },
        quick: { type: 'boolean', default: false },
        write: { type: 'boolean', default: false },
        also: { type: 'string', multiple: true, default: [] },
        help: { type: 'boolean', default: false },
      },
    });
    const runs = Number(values.runs);
    if (!Number.isInteger(runs) || runs < 1)
      throw new Error(`--runs must be a whole number ≥ 1, got '${values.runs}'`);
    const help = values.help;
    return {
      ...values,
      runs,
      names: help ? [] : selectGroups(values.only),
      builds: help ? [] : parseBuilds(values.also),
    };
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n\n${USAGE}\n`);
    process.exit(2);
  }
}

async function main(): Promise<void> {
  const values = parseOptions(process.argv.slice(2).filter((a) => a !== '--'));
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const { names } = values;
  const options: GroupOptions = {
    runs: values.runs,
    quick: values.quick,
    also: values.builds,
    log,
  };
  const startLoad = os.loadavg();
  const started = Date.now();
  const rows: Row[] = [];
  for (const name of names) {
    let groupRows = await runGroup(name, options);
    if (groupRows.some(interrupted)) {
      // In a shared checkout another build may have emptied a dist/ folder under us: try once more.
      log(`${name}: a module was missing or a child failed; retrying the group once in 20 s`);
      await new Promise((resolve) => setTimeout(resolve, 20_000));
      groupRows = await runGroup(name, options);
    }
    rows.push(...groupRows);
  }
  const table = renderTable(rows);
  process.stdout.write(`${table}\n`);
  const full = values.only.length === 0;
  if ((full && !values.quick) || values.write) {
    const file = path.join(benchDir, 'RESULTS.md');
    writeFileSync(file, `${header(startLoad, (Date.now() - started) / 1000, names)}\n${table}\n`);
    log(`wrote ${file}`);
  }
}

await main();
