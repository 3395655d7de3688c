/**
 * `HookRegistry.emit` cost with 0, 1 and 10 handlers (each returns nothing,
 * i.e. continue), awaited one after the other as the loop does, with a
 * typical `tool:pre` payload. Measured in one child process, interleaved.
 */
import { performance } from 'node:perf_hooks';
import {
  collectGarbage,
  fmt,
  type Group,
  type GroupOptions,
  meets,
  type Row,
  runChild,
  summarize,
} from './stats.js';

const GROUP = 'hooks';
const COUNTS = [0, 1, 10] as const;

/** Child task: ns per emit for each handler count, `runs` interleaved samples each. */
async function emitCost(args: { runs: number; emits: number }): Promise<Record<string, number[]>> {
  const { HookRegistry } = await import('@amplifier/core');
  const registries = COUNTS.map((count) => {
    const hooks = new HookRegistry();
    for (let i = 0; i < count; i++) hooks.register('tool:pre', () => {}, { name: `h${i}` });
    return hooks;
  });
  const data = { tool_name: 'echo', tool_input: { text: 'hello' }, tool_call_id: 'call_1' };
  const sample = async (i: number, emits: number): Promise<number> => {
    const hooks = registries[i]!;
    collectGarbage();
    const start = performance.now();
    for (let n = 0; n < emits; n++) await hooks.emit('tool:pre', data);
    return ((performance.now() - start) * 1e6) / emits;
  };
  for (let i = 0; i < COUNTS.length; i++) await sample(i, args.emits); // warm-up
  const out: Record<string, number[]> = Object.fromEntries(COUNTS.map((count) => [count, []]));
  for (let round = 0; round < args.runs; round++) {
    for (let i = 0; i < COUNTS.length; i++) out[COUNTS[i]!]!.push(await sample(i, args.emits));
  }
  return out;
}

export const tasks = { emitCost };

async function run(options: GroupOptions): Promise<Row[]> {
  const emits = options.quick ? 20_000 : 200_000;
  options.log(`hooks: ${emits} emits per sample`);
  const report = await runChild<Record<string, number[]>>('child.js', [
    GROUP,
    'emitCost',
    JSON.stringify({ runs: Math.max(5, options.runs), emits }),
  ]);
  const targets: Record<number, { text: string; bound: number }> = {
    0: { text: '≤ 100 ns (0.1 µs)', bound: 100 },
    1: { text: '≤ 1,000 ns (1 µs)', bound: 1000 },
  };
  const none = summarize(report.value[0]!).median;
  return COUNTS.map((count) => {
    const s = summarize(report.value[count]!);
    const target = targets[count];
    return {
      group: GROUP,
      what: `\`hooks.emit('tool:pre', data)\` with ${count} handler${count === 1 ? '' : 's'}, awaited`,
      value: `${fmt(s.median)} ns`,
      range: `${fmt(s.min)}–${fmt(s.max)}`,
      ratio: `${fmt(s.median / none)}×`,
      ...(target && { target: target.text, meets: meets(s.median, target.bound) }),
      ...(count === 0 && { note: 'ratio column: relative to the emit with no handler' }),
    };
  });
}

export const group: Group = { name: GROUP, title: 'HookRegistry.emit', run };
