/**
 * Cost per step of this checkout against another build (a `git worktree` of an
 * earlier commit, installed and built), each in processes of its own, the two
 * alternating: `node bench/dist/compare/builds.js <other checkout> [configs]`.
 * Each process runs `harness.js` copied under the checkout's
 * `bench/node_modules/.compare/`, so it loads that checkout's packages; the
 * scripted model and echo tool are this checkout's, the same for both.
 *
 * Configs: `tools:steps:mode` separated by commas, or `startup` (each
 * checkout's CLI running the six-module plan, with bare node in the same
 * rounds); default: issue 23's table.
 * Environment: `COMPARE_NODE` (another node binary), `COMPARE_PAIRS` (process
 * pairs per config, default 5), `COMPARE_ROUNDS` (conversations per process, 9).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT_CONFIGS =
  '1:1000:window,8:100:budget,8:500:budget,8:1000:budget,8:2000:budget,1:1000:log,8:1000:log-budget,startup';
/** The start-up plan of the bench's `startup` group (issue 23's six modules). */
const STARTUP_PLAN = {
  session: { orchestrator: 'loop-basic', context: 'context-simple' },
  providers: [{ module: 'provider-mock', config: { script: ['Hello!'] } }],
  tools: [{ module: 'tool-filesystem' }, { module: 'tool-bash' }],
  hooks: [{ module: 'hooks-logging' }],
};
const STARTUP_ANSWER = 'Hello!';

/** Copy the harness and the scenario's modules into `checkout`'s bench; returns the harness path. */
function install(checkout: string): string {
  const target = path.join(checkout, 'bench', 'node_modules', '.compare');
  fs.rmSync(target, { recursive: true, force: true });
  for (const file of [
    'compare/harness.js',
    'adapters/scenario.js',
    'modules/scripted-provider.js',
    'modules/echo-tool.js',
  ]) {
    fs.mkdirSync(path.dirname(path.join(target, file)), { recursive: true });
    fs.copyFileSync(path.join(dist, file), path.join(target, file));
  }
  return path.join(target, 'compare', 'harness.js');
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

const USAGE =
  'usage: node bench/dist/compare/builds.js <other checkout, installed and built> [tools:steps:mode,...|startup]\n' +
  '  mode: window, budget, log or log-budget; e.g. 1:1000:window,8:1000:log-budget,startup';
const CONFIG = /^(?:startup|[1-9]\d*:[1-9]\d*:(?:window|budget|log|log-budget))$/;

const other = process.argv[2];
if (other === undefined || !fs.existsSync(path.join(other, 'bench', 'node_modules', '@amplifier', 'core'))) {
  console.error(
    other === undefined
      ? USAGE
      : `${other} has no installed bench package (bench/node_modules/@amplifier/core)\n${USAGE}`,
  );
  process.exit(2);
}
const configs = (process.argv[3] ?? DEFAULT_CONFIGS).split(',');
const badConfig = configs.find((config) => !CONFIG.test(config));
if (badConfig !== undefined) {
  console.error(`not a config: '${badConfig}'\n${USAGE}`);
  process.exit(2);
}
const node = process.env.COMPARE_NODE ?? process.execPath;
const pairs = Number(process.env.COMPARE_PAIRS ?? 5);
const rounds = process.env.COMPARE_ROUNDS ?? '9';
const checkouts = { other: path.resolve(other), this: path.resolve(dist, '..', '..') };
const harness = { other: install(checkouts.other), this: install(checkouts.this) };
const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();

/** Wall time of one process (ms); throws when it fails. */
function wall(args: string[], cwd: string, env: NodeJS.ProcessEnv, expect?: string): number {
  const start = performance.now();
  const run = spawnSync(node, args, { cwd, env, encoding: 'utf8' });
  const elapsed = performance.now() - start;
  if (run.status !== 0 || (expect !== undefined && !run.stdout.includes(expect)))
    throw new Error(`${node} ${args.join(' ')} failed (${run.status}): ${run.stderr}`);
  return elapsed;
}

/**
 * `amplifier run --plan <six modules> "hello"` of each checkout's CLI and bare `node -e 0`, one
 * after the other in `3 × pairs` rounds (after one unmeasured round).
 */
function startup(): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'amp-compare-startup-'));
  try {
    const plan = path.join(dir, 'plan.json');
    fs.writeFileSync(plan, JSON.stringify(STARTUP_PLAN));
    const env = { ...process.env, AMPLIFIER_HOME: path.join(dir, 'home') };
    const cli = (build: 'other' | 'this') => [
      path.join(checkouts[build], 'packages', 'cli', 'dist', 'bin.js'),
      'run',
      '--plan',
      plan,
      'hello',
    ];
    const times: Record<'bare' | 'other' | 'this', number[]> = { bare: [], other: [], this: [] };
    for (let round = -1; round < 3 * pairs; round++) {
      const order =
        round % 2 === 0 ? (['bare', 'other', 'this'] as const) : (['this', 'other', 'bare'] as const);
      for (const what of order) {
        const ms = what === 'bare' ? wall(['-e', '0'], dir, env) : wall(cli(what), dir, env, STARTUP_ANSWER);
        if (round >= 0) times[what].push(ms);
      }
    }
    const bare = median(times.bare);
    const paired = median(times.this.map((t, i) => t / (times.other[i] as number)));
    const ms = (what: 'other' | 'this') =>
      `${median(times[what]).toFixed(0)} ms (${(median(times[what]) / bare).toFixed(2)}× bare)`;
    console.log(
      `${version} start-up, six modules: bare node ${bare.toFixed(0)} ms, other ${ms('other')}, this ${ms('this')}, this/other ${paired.toFixed(2)} (paired)`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

for (const config of configs) {
  if (config === 'startup') {
    startup();
    continue;
  }
  const [tools, steps, mode] = config.split(':') as [string, string, string];
  const times: Record<'other' | 'this', number[]> = { other: [], this: [] };
  for (let pair = 0; pair < pairs; pair++) {
    const order = pair % 2 === 0 ? (['other', 'this'] as const) : (['this', 'other'] as const);
    for (const build of order) {
      const run = spawnSync(node, [harness[build], tools, steps, mode, rounds], {
        cwd: path.join(checkouts[build], 'bench'),
        encoding: 'utf8',
        env: { ...process.env, COMPARE_BASE_DIR: path.join(checkouts[build], 'bench') },
      });
      if (run.status !== 0) throw new Error(`${build} ${config} failed (${run.status}): ${run.stderr}`);
      times[build].push(
        (JSON.parse(run.stdout.trim().split('\n').at(-1) as string) as { median: number }).median,
      );
    }
  }
  const paired = median(times.this.map((t, i) => t / (times.other[i] as number)));
  const fmt = (values: number[]) => values.map((v) => v.toFixed(1)).join(' ');
  console.log(
    `${version} ${tools} call(s)/step, N = ${steps}, ${mode}: other ${median(times.other).toFixed(1)} µs, this ${median(times.this).toFixed(1)} µs, this/other ${paired.toFixed(2)} (paired) [other ${fmt(times.other)}] [this ${fmt(times.this)}]`,
  );
}
