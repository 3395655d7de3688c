/**
 * The OS sandbox: the latency one `echo hi` call of the `bash` tool gains
 * when it runs under bubblewrap (`sandbox: required`: bwrap, the pids cgroup,
 * a fresh PID/network/IPC namespace, the private /tmp) against the same tool
 * with `sandbox: off`, interleaved in the same process, median of N samples.
 * Two rows: calls 100 ms apart (as calls come in a session: a model turn lies
 * between them, and the sandbox of the next call is started ahead, see
 * @amplifier/process spare.ts), and calls back to back (the next sandbox is
 * still starting when the call comes).
 */

import { performance } from 'node:perf_hooks';
import { setTimeout as pause } from 'node:timers/promises';
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
/** The pause before each call of the first row: shorter than any model turn. */
const GAP_MS = 100;

async function bashTool(sandbox: 'required' | 'off') {
  const { Coordinator, silentLogger } = await import('@amplifier/core');
  const { mount } = await import('@amplifier/tool-bash');
  const coordinator = new Coordinator({ sessionId: 'bench', logger: silentLogger });
  const cleanup = await mount(coordinator, { sandbox });
  return { tool: coordinator.get('tools', 'bash')!, cleanup };
}

/** Child task: ms per call, confined vs unconfined, `runs` interleaved samples of `calls` calls each. */
async function echoLatency(args: { runs: number; calls: number; gapMs: number }) {
  const confined = await bashTool('required');
  const plain = await bashTool('off');
  const sample = async (tool: typeof plain.tool): Promise<number> => {
    let total = 0;
    for (let i = 0; i < args.calls; i++) {
      // Untimed: the model's turn between two calls.
      if (args.gapMs > 0) await pause(args.gapMs);
      const start = performance.now();
      const r = await tool.execute({ command: 'echo hi' });
      total += performance.now() - start;
      if (!r.success) throw new Error(`echo failed: ${JSON.stringify(r.output)}`);
    }
    return total / args.calls;
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
  const rows: Row[] = [];
  for (const [gapMs, calls, label] of [
    [GAP_MS, 5, `calls ${GAP_MS} ms apart (a model turn between them: the next sandbox is started ahead)`],
    [0, 20, 'calls back to back (the next sandbox is still starting)'],
  ] as const) {
    options.log(`sandbox: echo through bubblewrap vs without, ${label}`);
    const { withSandbox, without } = (
      await runChild<{ withSandbox: number[]; without: number[] }>('child.js', [
        GROUP,
        'echoLatency',
        JSON.stringify({ runs, calls, gapMs }),
      ])
    ).value;
    const s = summarize(withSandbox);
    const u = summarize(without);
    // Per-round differences: the two runs of a round share the machine's load.
    const added = summarize(withSandbox.map((x, i) => x - without[i]!));
    rows.push({
      group: GROUP,
      what: `\`bash\` tool, \`echo hi\`, ${label}: latency added by the sandbox (sandbox: required − sandbox: off)`,
      value: `${fmt(added.median)} ms`,
      range: `${fmt(added.min)}–${fmt(added.max)}`,
      target: `≤ ${TARGET_MS} ms`,
      meets: meets(added.median, TARGET_MS),
      note: `median of ${runs} rounds of ${calls} calls; confined ${fmt(s.median)} ms (${fmt(s.min)}–${fmt(s.max)}), unconfined ${fmt(u.median)} ms (${fmt(u.min)}–${fmt(u.max)}) per call`,
    });
  }
  return rows;
}

export const group: Group = { name: GROUP, title: 'OS sandbox (bubblewrap)', run };
