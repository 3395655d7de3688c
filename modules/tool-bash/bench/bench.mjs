// tool-bash benchmarks: spawn overhead, memory under an output flood, and how
// fast a timed-out call returns. Run after a build: `pnpm --filter
// @amplifier/tool-bash build && pnpm --filter @amplifier/tool-bash bench`.
// Ratios taken in one run matter; absolute numbers depend on the machine.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestCoordinator } from '@amplifier/core/testing';
import { mount } from '../dist/index.js';

const execFileAsync = promisify(execFile);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tool-bash-bench-'));
const coordinator = createTestCoordinator();
const cleanup = await mount(coordinator, { working_dir: dir, timeout: 120 });
const bash = coordinator.get('tools', 'bash');

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const mb = (bytes) => (bytes / 1024 / 1024).toFixed(1);

// 1. Spawn overhead per `echo hi`, the two interleaved so both see the same machine load.
const CALLS = 200;
const viaTool = [];
const viaExecFile = [];
for (let i = 0; i < 20; i++) await bash.execute({ command: 'echo hi' }); // warm-up
for (let round = 0; round < 5; round++) {
  let tool = 0;
  let exec = 0;
  for (let i = 0; i < CALLS; i++) {
    let started = performance.now();
    await execFileAsync('/bin/bash', ['-c', 'echo hi']);
    exec += performance.now() - started;
    started = performance.now();
    await bash.execute({ command: 'echo hi' });
    tool += performance.now() - started;
  }
  viaExecFile.push((exec * 1000) / CALLS);
  viaTool.push((tool * 1000) / CALLS);
}
const toolUs = median(viaTool);
const execUs = median(viaExecFile);

// 2. Peak RSS while a command prints 1 GB (one long line, and short lines).
async function flood(command) {
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  const started = performance.now();
  const result = await bash.execute({ command });
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  if (result.output.stdout_total_bytes !== 1_000_000_000)
    throw new Error(`unexpected: ${JSON.stringify(result).slice(0, 300)}`);
  return { baseline, peak, growth: peak - baseline, mbPerSecond: 1000 / 1.048576 / seconds };
}
// The first flood of a fresh process also moves V8's heap and external-memory GC
// thresholds (nothing is retained); report it apart from the steady state.
const cold = await flood("yes 'a line of output' | head -c 1000000000");
const zeros = await flood('head -c 1000000000 /dev/zero');
const lines = await flood("yes 'a line of output' | head -c 1000000000");

// 3. From the deadline to the call returning.
async function lateness(command, timeout, config = {}) {
  const samples = [];
  const coordinator2 = createTestCoordinator();
  const cleanup2 = await mount(coordinator2, { working_dir: dir, ...config });
  const tool = coordinator2.get('tools', 'bash');
  for (let i = 0; i < 10; i++) {
    const started = performance.now();
    const result = await tool.execute({ command, timeout });
    samples.push(performance.now() - started - timeout * 1000);
    if (!result.output?.timed_out) throw new Error(`expected a timeout: ${JSON.stringify(result)}`);
  }
  await cleanup2();
  return median(samples);
}
const plain = await lateness('sleep 100', 0.2);
const grandchildren = await lateness('sleep 100 & sleep 100 & bash -c "sleep 100" & wait', 0.2);
const ignoresTerm = await lateness("trap '' TERM; sleep 100 & wait", 0.2, { kill_grace: 0.5 });

// 4. A command that leaves a child holding stdout: from the shell's exit to the return.
const leftovers = [];
for (let i = 0; i < 10; i++) {
  const started = performance.now();
  await bash.execute({ command: 'sleep 100 & echo started' });
  leftovers.push(performance.now() - started);
}

await cleanup();
fs.rmSync(dir, { recursive: true, force: true });

const rows = [
  [
    'spawn + capture, `echo hi`, tool',
    `${toolUs.toFixed(0)} µs/call`,
    `${(toolUs / execUs).toFixed(2)}× execFile`,
  ],
  ['spawn + capture, `echo hi`, execFile(bash -c)', `${execUs.toFixed(0)} µs/call`, '1.00×'],
  [
    '1 GB on stdout, first flood of a fresh process: RSS growth',
    `${mb(cold.growth)} MB`,
    `peak ${mb(cold.peak)} MB`,
  ],
  [
    '1 GB on stdout, one line (/dev/zero): RSS growth',
    `${mb(zeros.growth)} MB`,
    `peak ${mb(zeros.peak)} MB, ${zeros.mbPerSecond.toFixed(0)} MiB/s`,
  ],
  [
    '1 GB on stdout, short lines (yes): RSS growth',
    `${mb(lines.growth)} MB`,
    `peak ${mb(lines.peak)} MB, ${lines.mbPerSecond.toFixed(0)} MiB/s`,
  ],
  ['timeout -> return, `sleep 100`', `${plain.toFixed(0)} ms`, 'median of 10'],
  ['timeout -> return, 3 grandchildren', `${grandchildren.toFixed(0)} ms`, 'median of 10'],
  ['timeout -> return, ignores SIGTERM (grace 0.5 s)', `${ignoresTerm.toFixed(0)} ms`, 'median of 10'],
  ['`sleep 100 & echo started` -> return', `${median(leftovers).toFixed(0)} ms`, 'drain 250 ms + group kill'],
];
const out = [
  `node ${process.version}, ${os.cpus().length} CPUs, ${os.platform()} ${os.release()}`,
  '| what | value | note |',
  '|---|---:|---|',
  ...rows.map((row) => `| ${row.join(' | ')} |`),
];
process.stdout.write(`${out.join('\n')}\n`);
