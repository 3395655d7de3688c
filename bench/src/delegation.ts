/**
 * The overhead of one delegation: from `spawner.spawn()` (the app layer's
 * `session.spawn`, what the delegate tool calls) to the child's first
 * provider call, with the six modules of the cold-start plan (loop-basic,
 * context-simple, provider-mock, tool-filesystem, tool-bash, hooks-logging)
 * already imported by the parent, and with the three a session needs
 * (loop-basic, context-simple, provider-mock). Child plan, session, module
 * resolution and mounts, system prompt and the first request are inside; the
 * model's answer and the child's cleanup are not.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fmt, type Group, type GroupOptions, meets, type Row, runChild, summarize } from './stats.js';

const GROUP = 'delegation';
const TARGET_MS = 2;

/** Child task: ms from spawn() to the first provider call, `runs` samples of the median of `spawns`. */
async function spawnOverhead(args: { runs: number; spawns: number; six: boolean }): Promise<number[]> {
  const { AmplifierSession } = await import('@amplifier/core');
  const { createSpawner, memoryChildStore } = await import('@amplifier/bundles');
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'amp-bench-delegation-'));
  process.once('exit', () => rmSync(logDir, { recursive: true, force: true }));
  let started = 0;
  let firstCall = 0;
  const respond = (): { content: { type: 'text'; text: string }[] } => {
    if (firstCall === 0) firstCall = performance.now();
    return { content: [{ type: 'text', text: 'done' }] };
  };
  const parent = new AmplifierSession(
    {
      session: { orchestrator: 'loop-basic', context: 'context-simple' },
      providers: [{ module: 'provider-mock' }],
      ...(args.six && {
        tools: [{ module: 'tool-filesystem' }, { module: 'tool-bash' }],
        hooks: [
          {
            module: 'hooks-logging',
            config: { session_log_template: path.join(logDir, '{session_id}', 'events.jsonl') },
          },
        ],
      }),
      agents: {
        helper: {
          description: 'answers',
          instruction: 'You are a helper.',
          providers: [{ module: 'provider-mock', config: { respond, use_streaming: false } }],
        },
      },
    },
    { baseDir: new URL('..', import.meta.url).pathname },
  );
  await parent.initialize();
  // An in-memory store: the CLI's writes two small files after the child ends, outside the timing.
  const spawner = createSpawner({ store: memoryChildStore() });
  let n = 0;
  const one = async (): Promise<number> => {
    firstCall = 0;
    started = performance.now();
    const result = await spawner.spawn(parent.coordinator, {
      agent_name: 'helper',
      instruction: 'hello',
      sub_session_id: `0000000000000000-${String(++n).padStart(16, '0')}_helper`,
      parent_session_id: parent.sessionId,
      self_delegation_depth: 0,
    });
    if (result.status !== 'success') throw new Error(`the child failed: ${result.error?.message}`);
    return firstCall - started;
  };
  for (let i = 0; i < 20; i++) await one(); // warm-up
  const out: number[] = [];
  for (let r = 0; r < args.runs; r++) {
    const times: number[] = [];
    for (let i = 0; i < args.spawns; i++) times.push(await one());
    out.push(summarize(times).median);
  }
  await parent.cleanup();
  return out;
}

export const tasks = { spawnOverhead };

async function run(options: GroupOptions): Promise<Row[]> {
  const spawns = options.quick ? 30 : 100;
  options.log(`delegation: ${spawns} spawns per sample`);
  const rows: Row[] = [];
  let three = 0;
  for (const six of [false, true]) {
    const report = await runChild<number[]>('child.js', [
      GROUP,
      'spawnOverhead',
      JSON.stringify({ runs: Math.max(5, options.runs), spawns, six }),
    ]);
    const s = summarize(report.value);
    if (!six) three = s.median;
    rows.push({
      group: GROUP,
      what: `one delegation: \`session.spawn\` to the child’s first provider call (${six ? 'six modules: + tool-filesystem, tool-bash, hooks-logging' : 'three modules: loop-basic, context-simple, provider-mock'}; already imported)`,
      value: `${fmt(s.median)} ms`,
      range: `${fmt(s.min)}–${fmt(s.max)}`,
      ratio: `${fmt(s.median / three)}×`,
      rss: `${fmt(report.peakRssMb)} MiB`,
      ...(six && { target: `≤ ${TARGET_MS} ms`, meets: meets(s.median, TARGET_MS) }),
      ...(!six && { note: 'ratio column: relative to the three-module delegation' }),
    });
  }
  return rows;
}

export const group: Group = { name: GROUP, title: 'Delegation (child session start)', run };
