/**
 * Durable sessions on Restate (@amplifier/durable-restate) against a local
 * restate-server from the npm binary: the latency a journaled step adds
 * (turns of 1 and 10 one-tool steps through Restate, next to the same turns
 * run in-process without durability, same run: the difference of the slopes
 * over the 18 extra steps), and turns/s for 100 sessions started at once on
 * two worker processes behind a load balancer, each a one-tool scripted turn.
 * Skipped, with the reason printed, when the server binary is missing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { FINAL_TEXT, PROMPT, Script } from './adapters/scenario.js';
import {
  fmt,
  type Group,
  type GroupOptions,
  missing,
  notAvailable,
  type Row,
  sampleRow,
  summarize,
} from './stats.js';

const GROUP = 'durable';
const here = path.dirname(fileURLToPath(import.meta.url));

function startWorkerProcess(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [path.join(here, 'durable-worker.js')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      out += chunk;
      const end = out.indexOf('\n');
      if (end !== -1) resolve({ url: (JSON.parse(out.slice(0, end)) as { url: string }).url, child });
    });
    child.once('exit', (code) => reject(new Error(`durable worker exited (${code}) before it was ready`)));
  });
}

async function run(options: GroupOptions): Promise<Row[]> {
  const reason =
    (await missing('@amplifier/durable-restate')) ??
    ((await import('@amplifier/durable-restate')).findRestateServerBinary() === undefined
      ? `no restate-server binary for ${process.platform}-${process.arch} (optional dependency @restatedev/restate-server not installed)`
      : undefined);
  if (reason !== undefined) {
    options.log(`durable: skipped: ${reason}`);
    return [notAvailable(GROUP, 'added latency per journaled step; turns/s on two workers', reason)];
  }
  const durable = await import('@amplifier/durable-restate');
  const { startBalancer } = await import('@amplifier/durable-restate/testing');
  const { createAdapter } = await import('./adapters/amplifier.js');

  const dir = mkdtempSync(path.join(os.tmpdir(), 'amp-bench-restate-'));
  const server = await durable.startLocalRestate({ baseDir: dir, partitions: 4 });
  const workers = [await startWorkerProcess(), await startWorkerProcess()];
  const balancer = await startBalancer(workers.map((w) => w.url));
  try {
    await durable.registerDeployment(server.adminUrl, balancer.url);
    const client = new durable.TurnClient({ ingressUrl: server.ingressUrl });
    const plain = await createAdapter();
    let id = 0;
    const durableTurn = async (steps: number): Promise<number> => {
      const n = id++;
      const start = performance.now();
      const result = await client.run(`lat-${steps}-${n}`, PROMPT, `k${n}`);
      const ms = performance.now() - start;
      if (result.answer !== FINAL_TEXT)
        throw new Error(`durable turn answered ${JSON.stringify(result.answer)}`);
      return ms;
    };
    const plainTurn = async (steps: number): Promise<number> => {
      const script = new Script(steps, 1);
      const turn = await plain.prepare(script);
      const start = performance.now();
      const text = await turn();
      const ms = performance.now() - start;
      script.check(text);
      await plain.finish?.();
      return ms;
    };
    // Warm-up: connections, JIT, the server's partitions.
    for (let i = 0; i < 5; i++) {
      await durableTurn(1);
      await plainTurn(1);
    }
    const runs = Math.max(options.quick ? 3 : 5, options.runs);
    const samples = { d1: [] as number[], d10: [] as number[], p1: [] as number[], p10: [] as number[] };
    for (let r = 0; r < runs; r++) {
      samples.d1.push(await durableTurn(1));
      samples.d10.push(await durableTurn(10));
      samples.p1.push(await plainTurn(1));
      samples.p10.push(await plainTurn(10));
    }
    const med = (xs: number[]) => summarize(xs).median;
    const extraSteps = 2 * 10 + 1 - (2 * 1 + 1);
    const perStep = (med(samples.d10) - med(samples.d1) - (med(samples.p10) - med(samples.p1))) / extraSteps;
    options.log(`durable: per-step ${fmt(perStep)} ms; now 100 concurrent sessions`);

    const sessions = options.quick ? 50 : 100;
    const rates: number[] = [];
    for (let r = 0; r < runs; r++) {
      const start = performance.now();
      const results = await Promise.all(
        Array.from({ length: sessions }, () => {
          const n = id++;
          return client.run(`tp-1-${n}`, PROMPT, `k${n}`);
        }),
      );
      const ms = performance.now() - start;
      if (results.some((x) => x.answer !== FINAL_TEXT)) throw new Error('a concurrent durable turn failed');
      rates.push(sessions / (ms / 1000));
    }
    const routed = [...balancer.routed.values()].join(' / ');
    return [
      sampleRow(GROUP, 'a 1-tool turn (3 steps) through Restate', samples.d1, 'ms', {
        ratio: `${fmt(med(samples.d1) / med(samples.p1))}× the same turn in-process (${fmt(med(samples.p1))} ms)`,
      }),
      {
        group: GROUP,
        what: 'added latency per journaled step (slope, 1 vs 10 tool steps, minus the in-process slope)',
        value: `${fmt(perStep)} ms`,
        note: `durable ${fmt(med(samples.d1))} / ${fmt(med(samples.d10))} ms, in-process ${fmt(med(samples.p1))} / ${fmt(med(samples.p10))} ms for 3 / 21 steps`,
      },
      sampleRow(
        GROUP,
        `turns/s, ${sessions} sessions at once, 2 workers, a 1-tool turn each`,
        rates,
        'turns/s',
        {
          note: `invocation attempts per worker: ${routed}`,
        },
      ),
    ];
  } finally {
    await balancer.close();
    for (const w of workers) w.child.kill('SIGKILL');
    await server.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

export const group: Group = { name: GROUP, title: 'Durable sessions on Restate', run };
