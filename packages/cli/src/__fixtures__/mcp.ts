/**
 * Test helpers for `amplifier mcp serve`: a project with a plan whose tools
 * include a small local tool module that reports progress and waits for its
 * signal, and an MCP SDK client connected to a real `amplifier mcp serve` child.
 */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, cliEnv, tempDir, writeFile } from './cli.js';

export interface McpProject {
  cwd: string;
  home: string;
  plan: string;
  /** Written by slow_progress when its signal aborted. */
  aborted: string;
  /** Written by a test when its host has seen a progress update: slow_progress with `wait_seen` returns only then. */
  seen: string;
}

/**
 * slow_progress reports `steps` progress updates, then returns (`finish`; with
 * `wait_seen`, once the test says its host saw an update: otherwise the result
 * can reach the host in the same read as the updates, and the SDK client drops
 * notifications that arrive after their request ended) or waits for its signal
 * and writes the marker; mcp_other_echo stands for a proxied MCP tool.
 */
const SLOW_TOOL = `import fs from 'node:fs';
export async function mount(coordinator, config) {
  coordinator.mount('tools', {
    name: 'slow_progress',
    description: 'Reports progress, then waits until it is cancelled (or finishes).',
    inputSchema: {
      type: 'object',
      properties: { steps: { type: 'integer' }, finish: { type: 'boolean' }, wait_seen: { type: 'boolean' } },
    },
    async execute(input, options) {
      const steps = input.steps ?? 3;
      for (let i = 1; i <= steps; i++) options.onProgress?.({ progress: i, total: steps, message: 'step ' + i });
      if (input.finish) {
        // Bounded wait for the test's marker (written by its onprogress): an event, not a delay.
        const until = Date.now() + 20000;
        while (input.wait_seen && !fs.existsSync(config.seen) && Date.now() < until)
          await new Promise((resolve) => setTimeout(resolve, 5));
        return { success: true, output: 'finished' };
      }
      await new Promise((resolve) => {
        if (options.signal.aborted) return resolve();
        options.signal.addEventListener('abort', resolve, { once: true });
      });
      fs.writeFileSync(config.marker, 'aborted');
      return { success: false, error: { message: 'aborted' } };
    },
  }, { name: 'slow_progress' });
  coordinator.mount('tools', {
    name: 'mcp_other_echo',
    description: 'A tool another MCP server gave this session.',
    execute: async (input) => ({ success: true, output: input }),
  }, { name: 'mcp_other_echo' });
}
`;

/** A project: hello.txt, the slow tool, and a plan with tool-filesystem, tool-bash, hooks-logging and hooks-approval. */
export function mcpProject(extraPlan: string[] = []): McpProject {
  const cwd = tempDir('amp-mcp-');
  const home = tempDir('amp-mcp-home-');
  writeFile(path.join(cwd, 'hello.txt'), 'hello from the project\n');
  writeFile(path.join(cwd, 'slow-tool', 'index.js'), SLOW_TOOL);
  const aborted = path.join(cwd, 'aborted.txt');
  const seen = path.join(cwd, 'progress-seen.txt');
  const plan = writeFile(
    path.join(cwd, 'plan.yaml'),
    [
      'session: { orchestrator: loop-basic, context: context-simple }',
      'tools:',
      '  - module: tool-filesystem',
      '  - module: tool-bash',
      '  - module: slow-tool',
      '    source: ./slow-tool',
      `    config: { marker: ${JSON.stringify(aborted)}, seen: ${JSON.stringify(seen)} }`,
      'hooks:',
      '  - module: hooks-logging',
      '  - module: hooks-approval',
      '    config:',
      '      rules:',
      '        - { tool: bash, when: { command: "rm*" }, action: deny, reason: "no deletions" }',
      '        - { tool: bash, action: allow }',
      '        - { tool: write_file, action: ask }',
      '      default_action: allow',
      ...extraPlan,
    ].join('\n'),
  );
  return { cwd, home, plan, aborted, seen };
}

/** An SDK client over stdio to `amplifier <args>` (a real child process). */
export async function connectStdio(
  args: readonly string[],
  project: { cwd: string; home: string },
  env: Record<string, string | undefined> = {},
): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const childEnv = cliEnv(project.home, env);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, ...args],
    cwd: project.cwd,
    env: Object.fromEntries(
      Object.entries(childEnv).filter((e): e is [string, string] => e[1] !== undefined),
    ),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'amplifier-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}
