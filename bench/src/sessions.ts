/**
 * Many sessions in one process (an app serving many users): heap per idle
 * session and the time to create one, with the six modules of the cold start
 * (loop-basic, context-simple, provider-mock, tool-filesystem, tool-bash,
 * hooks-logging, plus the echo tool) and one shared loader, as a server would
 * keep it; and 10,000 sessions each running a one-tool turn concurrently
 * (throughput and peak RSS). Next to the hand-written loop doing the same
 * (an idle loop holds its tool map and history; a turn is one echo call).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  collectGarbage,
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

const GROUP = 'sessions';

/** The per-session numbers of one child run. */
interface IdleSample {
  /** Bytes of heap per idle session (after a full GC), ours and the plain loop's. */
  heapPerSession: number;
  plainHeapPerSession: number;
  /** ms per `new AmplifierSession` + `initialize()`, in batches. */
  createMs: number[];
  /** Heap per session at a quarter of the count and at the full count: per-session cost must not grow. */
  heapAtQuarter: number;
}

async function sessionKit() {
  const core = await import('@amplifier/core');
  const { BENCH_DIR, coldPlan } = await import('./adapters/amplifier.js');
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'amp-bench-sessions-'));
  process.once('exit', () => rmSync(logDir, { recursive: true, force: true }));
  const plan = core.parseMountPlan(coldPlan(logDir));
  const loader = new core.ModuleLoader({ baseDir: BENCH_DIR, logger: core.silentLogger });
  const create = async () => {
    const session = new core.AmplifierSession(plan, { loader, logger: core.silentLogger });
    await session.initialize();
    if (session.failures.length > 0) {
      throw new Error(`modules failed to load: ${session.failures.map((f) => f.module).join(', ')}`);
    }
    return session;
  };
  return { create, logDir };
}

const heapUsed = (): number => {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
};

/** Child task: `count` idle sessions kept alive; heap per session and creation time. */
async function idle(args: { count: number }): Promise<IdleSample> {
  const { create } = await sessionKit();
  const plain = await import('./adapters/plain.js');
  const { Script } = await import('./adapters/scenario.js');
  // Warm up: modules imported, schemas compiled, code optimised.
  for (let i = 0; i < 50; i++) await (await create()).cleanup();

  const kept: unknown[] = [];
  const base = heapUsed();
  const createMs: number[] = [];
  const batch = Math.max(1, Math.floor(args.count / 20));
  let heapAtQuarter = 0;
  for (let i = 0; i < args.count; i += batch) {
    const start = performance.now();
    for (let k = i; k < Math.min(args.count, i + batch); k++) kept.push(await create());
    createMs.push((performance.now() - start) / Math.min(batch, args.count - i));
    if (heapAtQuarter === 0 && kept.length >= args.count / 4) {
      heapAtQuarter = (heapUsed() - base) / kept.length;
    }
  }
  const heapPerSession = (heapUsed() - base) / kept.length;
  kept.length = 0;

  const plainBase = heapUsed();
  const plainKept: unknown[] = [];
  const adapter = await plain.createAdapter();
  for (let i = 0; i < args.count; i++) plainKept.push(await adapter.prepare(new Script(1, 1)));
  const plainHeapPerSession = (heapUsed() - plainBase) / plainKept.length;
  return { heapPerSession, plainHeapPerSession, createMs, heapAtQuarter };
}

interface ConcurrentSample {
  /** Sessions per second, from the first create to the last cleanup. */
  rate: number;
  /** The same for the hand-written loop (in its own process). */
  ms: number;
  sessions: number;
}

/** Child task: `count` sessions created, each running one one-tool turn, all at once, then cleaned up. */
async function concurrent(args: { count: number; plain: boolean }): Promise<ConcurrentSample> {
  const { Script, FINAL_TEXT, PROMPT } = await import('./adapters/scenario.js');
  if (args.plain) {
    const adapter = await (await import('./adapters/plain.js')).createAdapter();
    await adapter.prepare(new Script(1, 1)).then((run) => run());
    const start = performance.now();
    await Promise.all(
      Array.from({ length: args.count }, async () => {
        const script = new Script(1, 1);
        const text = await (await adapter.prepare(script))();
        script.check(text);
      }),
    );
    const ms = performance.now() - start;
    return { rate: args.count / (ms / 1000), ms, sessions: args.count };
  }
  const { create } = await sessionKit();
  for (let i = 0; i < 20; i++) {
    const session = await create();
    await session.execute(PROMPT);
    await session.cleanup();
  }
  const start = performance.now();
  let completed = 0;
  await Promise.all(
    Array.from({ length: args.count }, async () => {
      const session = await create();
      const text = await session.execute(PROMPT);
      if (text === FINAL_TEXT) completed++;
      await session.cleanup();
    }),
  );
  const ms = performance.now() - start;
  if (completed !== args.count)
    throw new Error(`${args.count - completed} sessions did not finish their turn`);
  return { rate: args.count / (ms / 1000), ms, sessions: args.count };
}

export const tasks = { idle, concurrent };

async function run(options: GroupOptions): Promise<Row[]> {
  for (const id of ['@amplifier/hooks-logging', '@amplifier/tool-bash', '@amplifier/tool-filesystem']) {
    const reason = await missing(id);
    if (reason !== undefined) return [notAvailable(GROUP, 'many sessions', reason)];
  }
  const count = options.quick ? 1_000 : 10_000;
  const runs = Math.max(3, Math.min(options.runs, 5));
  options.log(`sessions: ${fmt(count)} idle sessions, ${runs} processes`);
  const idleSamples: IdleSample[] = [];
  for (let r = 0; r < runs; r++) {
    idleSamples.push(
      (await runChild<IdleSample>('child.js', [GROUP, 'idle', JSON.stringify({ count })])).value,
    );
  }
  options.log(`sessions: ${fmt(count)} concurrent one-tool turns, ${runs} processes each`);
  const ours: { rate: number; rss: number }[] = [];
  const plain: { rate: number; rss: number }[] = [];
  for (let r = 0; r < runs; r++) {
    for (const isPlain of [false, true]) {
      const report = await runChild<ConcurrentSample>('child.js', [
        GROUP,
        'concurrent',
        JSON.stringify({ count, plain: isPlain }),
      ]);
      (isPlain ? plain : ours).push({ rate: report.value.rate, rss: report.peakRssMb });
    }
  }
  const kb = (bytes: number): number => bytes / 1024;
  const heap = summarize(idleSamples.map((s) => kb(s.heapPerSession)));
  const plainHeap = summarize(idleSamples.map((s) => kb(s.plainHeapPerSession)));
  const quarter = summarize(idleSamples.map((s) => kb(s.heapAtQuarter)));
  const create = summarize(idleSamples.map((s) => summarize(s.createMs).median));
  const rate = summarize(ours.map((o) => o.rate));
  const plainRate = summarize(plain.map((o) => o.rate));
  const rss = summarize(ours.map((o) => o.rss));
  const plainRss = summarize(plain.map((o) => o.rss));
  const modules =
    'six modules (loop-basic, context-simple, provider-mock, tool-filesystem, tool-bash, hooks-logging) plus the echo tool, one shared loader';
  return [
    {
      group: GROUP,
      what: `heap per idle session, ${fmt(count)} sessions in one process`,
      value: `${fmt(heap.median)} KB`,
      range: `${fmt(heap.min)}–${fmt(heap.max)}`,
      ratio: `${fmt(heap.median / plainHeap.median)}×`,
      target: '≤ 64 KB',
      meets: meets(heap.median, 64),
      note: `${modules}; heap used after a full GC, over the count; the hand-written loop holds ${fmt(plainHeap.median)} KB per idle conversation (its tool map and first message); per session at a quarter of the count: ${fmt(quarter.median)} KB (nothing per session grows with the number of sessions)`,
    },
    {
      group: GROUP,
      what: 'create a session (`new AmplifierSession` + `initialize()`), six modules, the loader warm',
      value: `${fmt(create.median)} ms`,
      range: `${fmt(create.min)}–${fmt(create.max)}`,
    },
    {
      group: GROUP,
      what: `${fmt(count)} concurrent sessions, each created, running a one-tool turn and cleaned up: sessions/s`,
      value: `${fmt(rate.median)} /s`,
      range: `${fmt(rate.min)}–${fmt(rate.max)}`,
      ratio: `${fmt(plainRate.median / rate.median)}×`,
      rss: `${fmt(rss.median)} MiB`,
      note: `the hand-written loop, ${fmt(count)} one-tool conversations at once in its own process: ${fmt(plainRate.median)} /s, peak RSS ${fmt(plainRss.median)} MiB; the ratio is its rate over ours; hooks-logging writes one file per session`,
    },
  ];
}

export const group: Group = { name: GROUP, title: 'Many sessions in one process', run };
