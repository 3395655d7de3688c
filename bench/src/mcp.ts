/**
 * MCP client (tool-mcp): the latency one tool call gains through tool-mcp
 * (`mcp_everything_echo`: the kernel Tool, result mapping, the process-kit
 * stdio transport) against the same call with the bare SDK client
 * (`Client` + `StdioClientTransport`), both on server-everything over stdio,
 * interleaved in one process; and the time from mount to tools mounted.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
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

const GROUP = 'mcp';
const TARGET_RATIO = 1.2;

function everythingBin(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('@modelcontextprotocol/server-everything/package.json');
  const { bin } = require(manifest) as { bin: Record<string, string> };
  return path.join(path.dirname(manifest), Object.values(bin)[0]!);
}

async function viaToolMcp() {
  const { Coordinator, silentLogger } = await import('@amplifier/core');
  const { mount } = await import('@amplifier/tool-mcp');
  const coordinator = new Coordinator({ sessionId: 'bench', logger: silentLogger });
  const start = performance.now();
  const cleanup = await mount(coordinator, {
    config_files: false,
    sandbox: 'off',
    verbose_servers: true,
    mcpServers: { everything: { command: process.execPath, args: [everythingBin(), 'stdio'] } },
  });
  const mountMs = performance.now() - start;
  const tool = coordinator.get('tools', 'mcp_everything_echo');
  if (!tool) throw new Error('tool-mcp did not mount mcp_everything_echo');
  return { call: () => tool.execute({ message: 'hello' }).then((r) => r.success), cleanup, mountMs };
}

async function viaSdk() {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const start = performance.now();
  const client = new Client({ name: 'bench', version: '0.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [everythingBin(), 'stdio'],
      stderr: 'ignore',
    }),
  );
  await client.listTools();
  const connectMs = performance.now() - start;
  return {
    call: () =>
      client.callTool({ name: 'echo', arguments: { message: 'hello' } }).then((r) => r.isError !== true),
    cleanup: () => client.close(),
    connectMs,
  };
}

/** Child task: ms per call through tool-mcp and through the bare SDK, `runs` interleaved samples of `calls` calls. */
async function callLatency(args: { runs: number; calls: number }) {
  const mcp = await viaToolMcp();
  const sdk = await viaSdk();
  const sample = async (call: () => Promise<boolean>): Promise<number> => {
    const start = performance.now();
    for (let i = 0; i < args.calls; i++) if (!(await call())) throw new Error('echo failed');
    return (performance.now() - start) / args.calls;
  };
  await sample(mcp.call);
  await sample(sdk.call);
  const through: number[] = [];
  const bare: number[] = [];
  for (let r = 0; r < args.runs; r++) {
    through.push(await sample(mcp.call));
    bare.push(await sample(sdk.call));
  }
  await mcp.cleanup();
  await sdk.cleanup();
  return { through, bare };
}

/** Child task: one mount of tool-mcp (server start to tools mounted) and one bare SDK connect + list, in ms. */
async function startTime() {
  const sdk = await viaSdk();
  await sdk.cleanup();
  const mcp = await viaToolMcp();
  await mcp.cleanup();
  return { mountMs: mcp.mountMs, connectMs: sdk.connectMs };
}

export const tasks = { callLatency, startTime };

async function run(options: GroupOptions): Promise<Row[]> {
  const reason =
    (await missing('@amplifier/tool-mcp')) ?? (await missing('@modelcontextprotocol/sdk/client/index.js'));
  if (reason !== undefined) return [notAvailable(GROUP, 'tool-mcp', reason)];
  const runs = Math.max(5, options.runs);
  options.log('mcp: echo through tool-mcp vs the bare SDK client');
  const { through, bare } = (
    await runChild<{ through: number[]; bare: number[] }>('child.js', [
      GROUP,
      'callLatency',
      JSON.stringify({ runs, calls: options.quick ? 50 : 200 }),
    ])
  ).value;
  // Per-round ratios: the two samples of a round share the machine's load.
  const ratios = summarize(through.map((x, i) => x / bare[i]!));
  const t = summarize(through);
  const b = summarize(bare);
  options.log('mcp: server start to tools mounted');
  const starts: { mountMs: number; connectMs: number }[] = [];
  for (let i = 0; i < Math.min(runs, 5); i++) {
    starts.push(
      (await runChild<{ mountMs: number; connectMs: number }>('child.js', [GROUP, 'startTime', '{}'])).value,
    );
  }
  const mount = summarize(starts.map((s) => s.mountMs));
  const connect = summarize(starts.map((s) => s.connectMs));
  return [
    {
      group: GROUP,
      what: 'one `echo` call of server-everything (stdio): tool-mcp ÷ bare SDK client',
      value: `${fmt(ratios.median)}×`,
      range: `${fmt(ratios.min)}–${fmt(ratios.max)}`,
      target: `≤ ${TARGET_RATIO}×`,
      meets: meets(ratios.median, TARGET_RATIO),
      note: `median of ${runs} rounds; tool-mcp ${fmt(t.median)} ms (${fmt(t.min)}–${fmt(t.max)}), bare SDK ${fmt(b.median)} ms (${fmt(b.min)}–${fmt(b.max)}) per call`,
    },
    {
      group: GROUP,
      what: 'server-everything (stdio): mount start to tools mounted',
      value: `${fmt(mount.median)} ms`,
      range: `${fmt(mount.min)}–${fmt(mount.max)}`,
      note: `fresh process each; the bare SDK's connect + tools/list ${fmt(connect.median)} ms (${fmt(connect.min)}–${fmt(connect.max)}); sandbox off`,
    },
  ];
}

export const group: Group = { name: GROUP, title: 'MCP client (tool-mcp)', run };
