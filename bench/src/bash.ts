/**
 * tool-bash: the cost of one `echo` call through the tool against
 * `child_process.execFile('bash', ['-c', 'echo hi'])` (the same shell work,
 * without the tool's process group, capture, safety check and result); the
 * RSS growth of a process whose command prints 1 GiB, for the first such
 * flood of a fresh process and for later ones (short lines, and one 1 GiB
 * line); the time from a command's timeout to the call returning (a plain
 * command, one with grandchildren, one that ignores SIGTERM); and the return
 * of a call whose background child keeps stdout open.
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
  peakRssMb,
  type Row,
  runChild,
  sampleRow,
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

interface Flood {
  /** RSS growth (MiB): peak RSS during the call minus RSS just before it. */
  growth: number;
  ms: number;
  /** Characters of the result the tool kept. */
  returned: number;
}

/**
 * Child task: three commands printing `bytes` bytes through the tool in this
 * fresh process: the first flood (its peak from maxRSS), then a second one of
 * short lines and one of a single line of NULs (each peak sampled every 10 ms).
 */
async function flood(args: { bytes: number }): Promise<{ before: number; floods: Flood[] }> {
  const { tool, cleanup } = await bashTool({ timeout: 600 });
  const rss = (): number => process.memoryUsage().rss / 2 ** 20;
  const call = async (command: string, peak: () => number): Promise<Flood> => {
    const before = rss();
    const start = performance.now();
    const r = await tool.execute({ command, timeout: 600 });
    const ms = performance.now() - start;
    const total = (r.output as { stdout_total_bytes?: number } | undefined)?.stdout_total_bytes;
    if (!r.success || total !== args.bytes) throw new Error(`flood: ${JSON.stringify(r).slice(0, 300)}`);
    return { growth: peak() - before, ms, returned: JSON.stringify(r.output).length };
  };
  const sampled = async (command: string): Promise<Flood> => {
    let max = rss();
    const timer = setInterval(() => {
      max = Math.max(max, rss());
    }, 10);
    try {
      return await call(command, () => Math.max(max, rss()));
    } finally {
      clearInterval(timer);
    }
  };
  const before = rss();
  const lines = `yes 'a line of command output, 40 bytes...' | head -c ${args.bytes}`;
  const floods = [
    await call(lines, peakRssMb),
    await sampled(lines),
    await sampled(`head -c ${args.bytes} /dev/zero`),
  ];
  await cleanup();
  return { before, floods };
}

/**
 * Child task: time from the timeout to the call returning (a plain command, one
 * with grandchildren, one that ignores SIGTERM), and the whole call of a
 * command that leaves a child holding stdout.
 */
async function timeoutLag(args: { runs: number }) {
  const { tool, cleanup } = await bashTool();
  const lag = async (command: string): Promise<number> => {
    const start = performance.now();
    const r = await tool.execute({ command, timeout: 0.5 });
    if (r.success) throw new Error(`'${command}' did not time out`);
    return performance.now() - start - 500;
  };
  const plain: number[] = [];
  const grandchildren: number[] = [];
  const stubborn: number[] = [];
  const leftover: number[] = [];
  for (let i = 0; i < args.runs; i++) {
    plain.push(await lag('sleep 30'));
    grandchildren.push(await lag('sleep 30 & sleep 30 & bash -c "sleep 30" & wait'));
    stubborn.push(await lag("trap '' TERM; sleep 30; sleep 30"));
    const start = performance.now();
    await tool.execute({ command: 'sleep 30 & echo started' });
    leftover.push(performance.now() - start);
  }
  await cleanup();
  return { plain, grandchildren, stubborn, leftover };
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
  const size = bytes === GIB ? '1 GiB' : `${fmt(bytes / 2 ** 20)} MiB`;
  options.log(`bash: commands printing ${size}, three fresh processes`);
  const reports: { before: number; floods: Flood[] }[] = [];
  for (let i = 0; i < 3; i++) {
    reports.push(
      (
        await runChild<{ before: number; floods: Flood[] }>('child.js', [
          GROUP,
          'flood',
          JSON.stringify({ bytes }),
        ])
      ).value,
    );
  }
  const floodRow = (k: number, what: string, note: string, extra: Partial<Row> = {}): Row => {
    const growth = summarize(reports.map((r) => r.floods[k]!.growth));
    const ms = summarize(reports.map((r) => r.floods[k]!.ms)).median;
    return {
      group: GROUP,
      what: `\`bash\` tool, ${what}: RSS growth of the process running the tool`,
      value: `${fmt(growth.median)} MiB`,
      range: `${fmt(growth.min)}–${fmt(growth.max)}`,
      note: `${note}; a call took ${fmt(ms / 1000)} s (${fmt(bytes / 2 ** 20 / (ms / 1000))} MiB/s); the result kept ${fmt(reports[0]!.floods[k]!.returned)} characters`,
      ...extra,
    };
  };
  rows.push(
    floodRow(
      0,
      `a command printing ${size} (\`yes ... | head -c\`), the first of a fresh process`,
      `3 fresh processes; growth = peak RSS (maxRSS) − RSS just before the call (${fmt(reports[0]!.before)} MiB)`,
      {
        target: '≤ 50 MB RSS growth',
        meets: meets(summarize(reports.map((r) => r.floods[0]!.growth)).median * 1.048576, 50),
      },
    ),
    floodRow(
      1,
      `the same command again in that process`,
      'peak RSS sampled every 10 ms during the call, minus RSS just before it',
    ),
    floodRow(
      2,
      `then ${size} as one line (\`head -c ... /dev/zero\`)`,
      'peak RSS sampled every 10 ms during the call, minus RSS just before it',
    ),
  );
  options.log('bash: timeout lag');
  const lag = (
    await runChild<{ plain: number[]; grandchildren: number[]; stubborn: number[]; leftover: number[] }>(
      'child.js',
      [GROUP, 'timeoutLag', JSON.stringify({ runs })],
    )
  ).value;
  const lagRow = (samples: number[], what: string, note?: string): Row =>
    sampleRow(GROUP, what, samples, 'ms', note === undefined ? {} : { note });
  rows.push(
    lagRow(lag.plain, '`bash` tool, timeout 0.5 s on `sleep 30`: from the timeout to the call returning'),
    lagRow(
      lag.grandchildren,
      'the same with three grandchildren (`sleep 30 & sleep 30 & bash -c "sleep 30" & wait`)',
    ),
    lagRow(
      lag.stubborn,
      "the same for a command that ignores SIGTERM (`trap '' TERM; sleep 30`)",
      'tool-bash sends SIGTERM to the process group, then SIGKILL after kill_grace (default 0.5 s)',
    ),
    lagRow(
      lag.leftover,
      '`sleep 30 & echo started` (a background child keeps stdout open): the whole call',
      'the shell exits at once; the tool reads what is left for up to 250 ms, then stops what the command left in its group',
    ),
  );
  return rows;
}

export const group: Group = { name: GROUP, title: 'tool-bash', run };
