import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sandboxSupport } from '@amplifier/process';
import { createTestCoordinator } from '@amplifier/testing';
import { describe, expect, it } from 'vitest';
import { hostile } from './__fixtures__/servers.js';
import { mount } from './index.js';
import type { McpToolOutput } from './result.js';

const support = sandboxSupport();

/** Host pids of running stubborn servers started with working directory `cwd`. */
function hostPids(cwd: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (/^\d+ \(.*\) Z/.test(stat) || !cmdline.includes('stubborn-server.mjs')) continue;
      if (cmdline.startsWith('bwrap') || cmdline.includes('--unshare')) continue;
      if (fs.realpathSync(`/proc/${entry}/cwd`) === cwd) pids.push(Number(entry));
    } catch {
      // gone, or not ours
    }
  }
  return pids;
}
const required = process.env.AMPLIFIER_REQUIRE_SANDBOX === '1';
const title = support.available
  ? 'stdio servers in the sandbox'
  : `stdio servers in the sandbox (skipped: ${support.reason})`;

describe.skipIf(!support.available && !required)(title, () => {
  it('runs the server in its own PID namespace and ends it with the namespace', async () => {
    const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tool-mcp-sandbox-')));
    const coordinator = createTestCoordinator({ bare: true });
    const cleanup = await mount(coordinator, {
      config_files: false,
      working_dir: tmp,
      server_log_dir: path.join(tmp, 'logs'),
      sandbox: 'required',
      shutdown_grace: 0.2,
      mcpServers: { stubborn: { command: process.execPath, args: [hostile('stubborn')] } },
    });
    try {
      const result = await coordinator.get('tools', 'mcp_stubborn_pids')!.execute({});
      const [server, child] = (result.output as McpToolOutput).content.split(' ').map(Number) as [
        number,
        number,
      ];
      // Inside a fresh PID namespace: the pid the server sees is not its pid on the host.
      const onHost = hostPids(tmp);
      expect(onHost.length).toBeGreaterThanOrEqual(1);
      expect(onHost).not.toContain(server);
      expect(child).toBeGreaterThan(0);
    } finally {
      await cleanup();
    }
    expect(hostPids(tmp)).toEqual([]);
    fs.rmSync(tmp, { recursive: true, force: true });
  });
});
