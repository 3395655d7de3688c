/**
 * tool-bash: the cost of one `echo` call through the tool against
 * `child_process.execFile('bash', ['-c', 'echo hi'])` (the same shell work,
 * without the tool's process group, capture, safety check and result), the
 * peak RSS of a process whose command prints 1 GB, and the time from a
 * command's timeout to the call returning.
 */
import { execFile } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import {
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

const GROUP = 'bash';
const execFileAsync = promisify(execFile);
const GIB = 2 ** 30;

async function bashTool(config: Record<string, unknown> = {}) {
  const { Coordinator, silentLogger } = await import('@amplifier/core');
  const { mount } = await import('@amplifier/tool-bash');
  const coordinator = new Coordinator({ sessionId: 'bench', logger: silentLogger });
  const cleanup = await mount(coordinator, config);
  const tool = coordinator.get('tools', 'bash')!;
  return { tool, cleanup };
}

/** Child task: ms per call, tool vs execFile, `runs` interleaved samples of `calls` calls each. */
async function echoCost(args: { runs: number; calls: number }) {
  const { tool, cleanup } = await bashTool();
  const viaTool = async (): Promise<void> => {
    const r = await tool.execute({ command: 'echo hi' });
    if (!r.success) throw new Error(`bash failed: ${JSON.stringify(r.error ?? r.output)}`);
  };
  const viaExecFile = async (): Promise<void> => {
    await execFileAsync('bash', ['-c', 'echo hi']);
  };
  const sample = async (fn: () => Promise<void>): Promise<number> => {
    const start = performance.now();
    for (let i = 0; i < args.calls; i++) await fn();
    return (performance.now() - start) / args.calls;
  };
  await sample(viaTool);
  await sample(viaExecFile);
  const tool_: number[] = [];
  const direct: number[] = [];
  for (let r = 0; r < args.runs; r++) {
    tool_.push(await sample(viaTool));
    direct.push(await sample(viaExecFile));
  }
  await cleanup();
  return { tool: tool_, direct };
}

/** Child task: a command printing `bytes` bytes through the tool; RSS before, time, output kept. */
async function flood(args: { bytes: number }) {
  const { tool, cleanup } = await bashTool({ timeout: 600 });
  const before = process.memoryUsage().rss / 2 ** 20;
  const start = performance.now();
  const r = await tool.execute({
    command: `yes 'a line of command output, 40 bytes...' | head -c ${args.bytes}`,
    timeout: 600,
  });
  const ms = performance.now() - start;
  await cleanup();
  const output = JSON.stringify(r.output ?? r.error ?? '');
  return { before, ms, success: r.success, returned: output.length };
}

/** Child task: time from the timeout to the call returning, for a plain and a TERM-ignoring command. */
async function timeoutLag(args: { runs: number }) {
  const { tool, cleanup } = await bashTool();
  const lag = async (command: string): Promise<number> => {
    const start = performance.now();
    const r = await tool.execute({ command, timeout: 0.5 });
    if (r.success) throw new Error(`'${command}' did not time out`);
    return performance.now() - start - 500;
  };
  const plain: number[] = [];
  const stubborn: number[] = [];
  for (let i = 0; i < args.runs; i++) {
    plain.push(await lag('sleep 30'));
    stubborn.push(await lag("trap '' TERM; sleep 30; sleep 30"));
  }
  await cleanup();
  return { plain, stubborn };
}

export const tasks = { echoCost, flood, timeoutLag };

async function run(options: GroupOptions): Promise<Row[]> {
  const reason = await missing('@amplifier/tool-bash');
  if (reason !== undefined) return [notAvailable(GROUP, 'tool-bash', reason)];
  const runs = Math.max(5, options.runs);
  const rows: Row[] = [];
  options.log('bash: echo cost');
  const echo = (
    await runChild<{ tool: number[]; direct: number[] }>('child.js', [
      GROUP,
      'echoCost',
      JSON.stringify({ runs, calls: 20 }),
    ])
  ).value;
  const t = summarize(echo.tool);
  const d = summarize(echo.direct);
  rows.push({
    group: GROUP,
    what: '`bash` tool, `echo hi`, per call',
    value: `${fmt(t.median)} ms`,
    range: `${fmt(t.min)}–${fmt(t.max)}`,
    ratio: `${fmt(t.median / d.median)}×`,
    note: `ratio to \`execFile('bash', ['-c', 'echo hi'])\` in the same rounds: ${fmt(d.median)} ms (${fmt(d.min)}–${fmt(d.max)}); overhead ${fmt(t.median - d.median)} ms per call`,
  });
  const bytes = options.quick ? GIB / 16 : GIB;
  options.log(`bash: a command printing ${fmt(bytes / 2 ** 20)} MiB`);
  const floods: { growth: number; peak: number; before: number; ms: number; returned: number }[] = [];
  for (let i = 0; i < 3; i++) {
    const f = await runChild<{ before: number; ms: number; success: boolean; returned: number }>('child.js', [
      GROUP,
      'flood',
      JSON.stringify({ bytes }),
    ]);
    floods.push({
      growth: f.peakRssMb - f.value.before,
      peak: f.peakRssMb,
      before: f.value.before,
      ms: f.value.ms,
      returned: f.value.returned,
    });
  }
  const growth = summarize(floods.map((f) => f.growth));
  const ms = summarize(floods.map((f) => f.ms));
  rows.push({
    group: GROUP,
    what: `\`bash\` tool, a command printing ${bytes === GIB ? '1 GiB' : `${fmt(bytes / 2 ** 20)} MiB`}: RSS growth of the process running the tool`,
    value: `${fmt(growth.median)} MiB`,
    range: `${fmt(growth.min)}–${fmt(growth.max)}`,
    rss: `${fmt(summarize(floods.map((f) => f.peak)).median)} MiB`,
    target: '≤ 50 MB RSS growth',
    meets: meets(growth.median * 1.048576, 50),
    note: `3 fresh processes; growth = peak RSS − RSS just before the call (${fmt(floods[0]!.before)} MiB); a call took ${fmt(ms.median / 1000)} s (${fmt(bytes / 2 ** 20 / (ms.median / 1000))} MiB/s); the result kept ${fmt(floods[0]!.returned)} characters`,
  });
  options.log('bash: timeout lag');
  const lag = (
    await runChild<{ plain: number[]; stubborn: number[] }>('child.js', [
      GROUP,
      'timeoutLag',
      JSON.stringify({ runs }),
    ])
  ).value;
  const p = summarize(lag.plain);
  const s = summarize(lag.stubborn);
  rows.push({
    group: GROUP,
    what: '`bash` tool, timeout 0.5 s on `sleep 30`: from the timeout to the call returning',
    value: `${fmt(p.median)} ms`,
    range: `${fmt(p.min)}–${fmt(p.max)}`,
  });
  rows.push({
    group: GROUP,
    what: "the same for a command that ignores SIGTERM (`trap '' TERM; sleep 30`)",
    value: `${fmt(s.median)} ms`,
    range: `${fmt(s.min)}–${fmt(s.max)}`,
    note: 'tool-bash sends SIGTERM to the process group, then SIGKILL after kill_grace (default 0.5 s)',
  });
  return rows;
}

export const group: Group = { name: GROUP, title: 'tool-bash', run };
