/**
 * The headline comparison: the same scripted conversation (see
 * adapters/scenario.ts) run by a hand-written loop, Amplifier and the peers.
 * Timings are taken in one child process with every system loaded, warmed up
 * and measured interleaved (round r measures every system before round r+1);
 * peak RSS and cold start are taken in a fresh process per system.
 */
import { SYSTEMS, systemById } from './adapters/index.js';
import { type Adapter, measure } from './adapters/scenario.js';
import {
  fmt,
  type Group,
  type GroupOptions,
  meets,
  type Row,
  runChild,
  type Summary,
  summarize,
} from './stats.js';

const GROUP = 'peers';

interface Cell {
  key: string;
  steps: number;
  tools: number;
  /** Fresh conversations per sample (short conversations are timed in batches). */
  conversations: number;
  label: string;
}

const CELLS: readonly Cell[] = [
  { key: '1x1000', steps: 1000, tools: 1, conversations: 1, label: 'µs/step, 1 tool call/step, 1,000 steps' },
  {
    key: '8x1000',
    steps: 1000,
    tools: 8,
    conversations: 1,
    label: 'µs/step, 8 tool calls/step, 1,000 steps',
  },
  { key: '1x10', steps: 10, tools: 1, conversations: 20, label: 'µs/step, 1 tool call/step, 10 steps' },
  { key: '8x10', steps: 10, tools: 8, conversations: 20, label: 'µs/step, 8 tool calls/step, 10 steps' },
];

/** The targets of bench/README.md, by system and measurement. */
const TARGETS: Record<string, Record<string, { text: string; bound: number }>> = {
  amplifier: {
    '1x1000': { text: '≤ 5 µs/step', bound: 5 },
    '8x1000': { text: '≤ 25 µs/step', bound: 25 },
    growth: { text: '≤ 1.5×', bound: 1.5 },
    cold: { text: '≤ 100 ms', bound: 100 },
  },
  // Issue 23: the observability tax (hooks-logging, redaction on).
  'amplifier-logging': {
    '1x1000': { text: '≤ 6 µs/step', bound: 6 },
    '8x1000': { text: '≤ 40 µs/step', bound: 40 },
  },
};

interface CellResult {
  steps: number;
  /** µs per step, one per round. */
  samples: number[];
}
type Timing = Record<string, Record<string, CellResult>>;

/**
 * The most steps (of `wanted`, 500, 300, 200, 100) one run can take within
 * `budgetMs`, from the per-step costs measured over 10 and 100 steps, assuming
 * the cost of a step grows linearly with the history before it.
 */
export function fitSteps(avg10: number, avg100: number, wanted: number, budgetMs: number): number {
  const slope = Math.max(0, (avg100 - avg10) / 45);
  const base = Math.max(0, avg10 - 5 * slope);
  for (const steps of [wanted, 500, 300, 200, 100]) {
    if (steps > wanted) continue;
    if ((steps * (base + (slope * steps) / 2)) / 1000 <= budgetMs) return steps;
  }
  return 100;
}

const stamp = (): string => new Date().toISOString().slice(11, 19);

/** Child task: warm up every system, then measure every cell in interleaved rounds. */
async function timing(args: { systems: string[]; runs: number; budgetMs: number }): Promise<Timing> {
  const adapters = new Map<string, Adapter>();
  for (const id of args.systems) adapters.set(id, await systemById(id).load());
  const result: Timing = {};
  for (const [id, adapter] of adapters) {
    result[id] = {};
    for (const tools of [1, 8]) {
      await measure(adapter, 10, tools, 3); // warm-up
      const avg10 = await measure(adapter, 10, tools, 3);
      const avg100 = await measure(adapter, 100, tools, 1);
      const steps = fitSteps(avg10, avg100, 1000, args.budgetMs);
      result[id][`${tools}x1000`] = { steps, samples: [] };
      result[id][`${tools}x10`] = { steps: 10, samples: [] };
      console.error(`[${stamp()}] peers: ${id} warmed up (${tools} tool/step: ${steps} steps per long run)`);
    }
  }
  for (const cell of CELLS) {
    for (let round = 0; round < args.runs; round++) {
      for (const [id, adapter] of adapters) {
        const entry = result[id]![cell.key]!;
        entry.samples.push(await measure(adapter, entry.steps, cell.tools, cell.conversations));
      }
    }
    console.error(`[${stamp()}] peers: ${cell.key} measured`);
  }
  return result;
}

/** Child task: one long conversation in a fresh process (for its peak RSS). */
async function rss(args: { system: string; steps: number; tools: number }): Promise<number> {
  const adapter = await systemById(args.system).load();
  await measure(adapter, 10, args.tools, 1);
  return measure(adapter, args.steps, args.tools, 1);
}

export const tasks = { timing, rss };

const COLD_IDS: Record<string, string> = { amplifier: 'amplifier-cold' };

async function run(options: GroupOptions): Promise<Row[]> {
  const systems = SYSTEMS.map((s) => s.id);
  const runs = Math.max(5, options.runs);
  const budgetMs = options.quick ? 1500 : 8000;
  options.log(`peers: timing ${systems.length} systems in one process (${runs} interleaved rounds)`);
  const timing = (
    await runChild<Timing>('child.js', [GROUP, 'timing', JSON.stringify({ systems, runs, budgetMs })])
  ).value;

  options.log('peers: peak RSS, one fresh process per system');
  const peak: Record<string, number> = {};
  for (const id of systems) {
    const steps = timing[id]!['1x1000']!.steps;
    const report = await runChild<number>('child.js', [
      GROUP,
      'rss',
      JSON.stringify({ system: id, steps, tools: 1 }),
    ]);
    peak[id] = report.peakRssMb;
  }

  options.log('peers: cold start, fresh processes, interleaved');
  const coldSystems = systems.filter((id) => id !== 'amplifier-logging' && id !== 'amplifier-typed');
  const cold: Record<string, number[]> = Object.fromEntries(coldSystems.map((id) => [id, []]));
  let coldModules = '';
  for (let round = 0; round < runs; round++) {
    for (const id of coldSystems) {
      const report = await runChild<{ modules: string }>('cold.js', [COLD_IDS[id] ?? id]);
      cold[id]!.push(report.readyMs ?? report.wallMs);
      if (id === 'amplifier') coldModules = report.value.modules;
    }
  }
  return rows(timing, peak, cold, coldModules);
}

function targetOf(id: string, key: string, value: number): Pick<Row, 'target' | 'meets'> {
  const target = TARGETS[id]?.[key];
  return target === undefined ? {} : { target: target.text, meets: meets(value, target.bound) };
}

function rows(
  timing: Timing,
  peak: Record<string, number>,
  cold: Record<string, number[]>,
  coldModules: string,
): Row[] {
  const out: Row[] = [];
  const summaries = (key: string): Map<string, Summary> =>
    new Map(SYSTEMS.map((s) => [s.id, summarize(timing[s.id]![key]!.samples)]));
  for (const cell of CELLS) {
    const all = summaries(cell.key);
    const plain = all.get('plain')!.median;
    for (const system of SYSTEMS) {
      const s = all.get(system.id)!;
      const steps = timing[system.id]![cell.key]!.steps;
      out.push({
        group: GROUP,
        what: `${system.label}: ${cell.label}`,
        value: `${fmt(s.median)} µs`,
        range: `${fmt(s.min)}–${fmt(s.max)}`,
        ratio: `${fmt(s.median / plain)}×`,
        ...(cell.key === '1x1000' && { rss: `${fmt(peak[system.id]!)} MiB` }),
        ...targetOf(system.id, cell.key, s.median),
        ...(steps !== cell.steps && {
          note: `measured over ${steps} steps, not ${cell.steps}, to keep a run under the time budget; this system's cost per step grows with the history, so 1,000 steps would cost more per step`,
        }),
      });
    }
  }
  const long = summaries('1x1000');
  const short = summaries('1x10');
  for (const system of SYSTEMS) {
    const growth = long.get(system.id)!.median / short.get(system.id)!.median;
    const steps = timing[system.id]!['1x1000']!.steps;
    out.push({
      group: GROUP,
      what: `${system.label}: growth of µs/step from 10 to ${fmt(steps)} steps, 1 tool call/step`,
      value: `${fmt(growth)}×`,
      ...targetOf(system.id, 'growth', growth),
    });
  }
  const plainCold = summarize(cold.plain!).median;
  for (const system of SYSTEMS) {
    const samples = cold[system.id];
    if (samples === undefined) continue;
    const s = summarize(samples);
    out.push({
      group: GROUP,
      what: `${system.label}: cold start (new process → imports → first step done)`,
      value: `${fmt(s.median)} ms`,
      range: `${fmt(s.min)}–${fmt(s.max)}`,
      ratio: `${fmt(s.median / plainCold)}×`,
      ...targetOf(system.id, 'cold', s.median),
      ...(system.id === 'plain' && { note: 'bare node plus the scenario file' }),
      ...(system.id === 'amplifier' && {
        note: `modules loaded by the loader from a mount plan: ${coldModules}, plus the echo tool`,
      }),
    });
  }
  for (const key of ['1x1000', '8x1000']) {
    const all = summaries(key);
    const overhead = all.get('amplifier')!.median - all.get('plain')!.median;
    out.push({
      group: GROUP,
      what: `loop-basic + context-simple overhead per step over the plain loop, ${key.startsWith('8') ? 8 : 1} tool call(s)/step, 1,000 steps`,
      value: `${fmt(overhead)} µs`,
      note: 'session median minus plain-loop median, same run',
    });
  }
  // Issue 40: what typing a tool costs (defineTool + zod validation on top of the loop's own checks).
  for (const key of ['1x1000', '8x1000']) {
    const all = summaries(key);
    const ratio = all.get('amplifier-typed')!.median / all.get('amplifier')!.median;
    out.push({
      group: GROUP,
      what: `typed tool (defineTool + zod) over the module echo tool, per step, ${key.startsWith('8') ? 8 : 1} tool call(s)/step`,
      value: `${fmt(ratio)}×`,
      target: '≤ 1.10×',
      meets: meets(ratio, 1.1),
      note: 'amplifier-typed median over amplifier median, same run',
    });
  }
  return out;
}

export const group: Group = {
  name: GROUP,
  title: 'Headline: the same scripted agent conversation, Amplifier vs a hand-written loop vs the peers',
  run,
};
