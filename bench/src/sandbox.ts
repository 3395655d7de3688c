/**
 * The OS sandbox: the latency one `echo hi` call of the `bash` tool gains
 * when it runs under bubblewrap (`sandbox: required`: bwrap, the pids cgroup,
 * a fresh PID/network/IPC namespace, the private /tmp) against the same tool
 * with `sandbox: off`, interleaved in the same process, median of N samples.
 */
import { performance } from 'node:perf_hooks';
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

const GROUP = 'sandbox';
const TARGET_MS = 15;

async function bashTool(sandbox: 'required' | 'off') {
  const { Coordinator, silentLogger } = await import('@amplifier/core');
  const { mount } = await import('@amplifier/tool-bash');
  const coordinator = new Coordinator({ sessionId: 'bench', logger: silentLogger });
  const cleanup = await mount(coordinator, { sandbox });
  return { tool: coordinator.get('tools', 'bash')!, cleanup };
}

/** Child task: ms per call, confined vs unconfined, `runs` interleaved samples of `calls` calls each. */
async function echoLatency(args: { runs: number; calls: number }) {
  const confined = await bashTool('required');
  const plain = await bashTool('off');
  const sample = async (tool: typeof plain.tool): Promise<number> => {
    const start = performance.now();
    for (let i = 0; i < args.calls; i++) {
      const r = await tool.execute({ command: 'echo hi' });
      if (!r.success) throw new Error(`echo failed: ${JSON.stringify(r.output)}`);
    }
    return (performance.now() - start) / args.calls;
  };
  await sample(confined.tool);
  await sample(plain.tool);
  const withSandbox: number[] = [];
  const without: number[] = [];
  for (let r = 0; r < args.runs; r++) {
    withSandbox.push(await sample(confined.tool));
    without.push(await sample(plain.tool));
  }
  await confined.cleanup();
  await plain.cleanup();
  return { withSandbox, without };
}

export const tasks = { echoLatency };

async function run(options: GroupOptions): Promise<Row[]> {
  const reason = await missing('@amplifier/tool-bash');
  if (reason !== undefined) return [notAvailable(GROUP, 'tool-bash', reason)];
  const { sandboxSupport } = await import('@amplifier/process');
  const support = sandboxSupport();
  if (!support.available) return [notAvailable(GROUP, 'bubblewrap', support.reason ?? 'unavailable')];
  const runs = Math.max(5, options.runs);
  options.log('sandbox: echo through bubblewrap vs without');
  const { withSandbox, without } = (
    await runChild<{ withSandbox: number[]; without: number[] }>('child.js', [
      GROUP,
      'echoLatency',
      JSON.stringify({ runs, calls: 20 }),
    ])
  ).value;
  const s = summarize(withSandbox);
  const u = summarize(without);
  // Per-round differences: the two runs of a round share the machine's load.
  const added = summarize(withSandbox.map((x, i) => x - without[i]!));
  return [
    {
      group: GROUP,
      what: '`bash` tool, `echo hi`: latency added by the sandbox (sandbox: required − sandbox: off)',
      value: `${fmt(added.median)} ms`,
      range: `${fmt(added.min)}–${fmt(added.max)}`,
      target: `≤ ${TARGET_MS} ms`,
      meets: meets(added.median, TARGET_MS),
      note: `median of ${runs} rounds of 20 calls; confined ${fmt(s.median)} ms (${fmt(s.min)}–${fmt(s.max)}), unconfined ${fmt(u.median)} ms (${fmt(u.min)}–${fmt(u.max)}) per call`,
    },
  ];
}

export const group: Group = { name: GROUP, title: 'OS sandbox (bubblewrap)', run };
