import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AmplifierError, type Tool } from '@amplifier/core';
import { createTestCoordinator, EventRecorder } from '@amplifier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { hostile } from './__fixtures__/servers.js';
import { MCP_EVENTS, mount } from './index.js';
import type { McpToolOutput } from './result.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Running (a zombie nobody reaps does not count). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function mountServers(servers: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const coordinator = createTestCoordinator({ bare: true });
  const recorder = new EventRecorder();
  recorder.attach(coordinator.hooks, MCP_EVENTS);
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tool-mcp-life-'));
  const cleanup = await mount(coordinator, {
    config_files: false,
    sandbox: 'off',
    server_log_dir: logDir,
    shutdown_grace: 0.2,
    mcpServers: servers,
    ...extra,
  });
  cleanups.push(async () => {
    await cleanup();
    fs.rmSync(logDir, { recursive: true, force: true });
  });
  const tool = (name: string): Tool => {
    const found = coordinator.get('tools', name);
    if (!found) throw new Error(`${name} not mounted: ${[...coordinator.get('tools').keys()].join(', ')}`);
    return found;
  };
  return { coordinator, recorder, cleanup, tool, logDir };
}

const node = (name: string, extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [hostile(name)],
  ...extra,
});

describe('hostile servers', () => {
  it('a server that crashes mid-call: the call fails with exit code and stderr, the next call restarts it', async () => {
    const { tool, recorder, logDir } = await mountServers({ crash: node('crash') });
    const first = Number(((await tool('mcp_crash_pid').execute({})).output as McpToolOutput).content);
    const result = await tool('mcp_crash_crash').execute({});
    expect(result.success).toBe(false);
    expect(result.error?.type).toBe('mcp_server_unavailable');
    expect(result.error?.message).toMatch(/exited with code 3/);
    expect(result.error?.message).toMatch(/the crash tool was called/);
    expect(recorder.getEvents('mcp:server_died')).toHaveLength(1);
    const again = await tool('mcp_crash_pid').execute({});
    expect(again.success).toBe(true);
    expect(Number((again.output as McpToolOutput).content)).not.toBe(first);
    // stderr went to the server's log file.
    expect(fs.readFileSync(path.join(logDir, 'crash.log'), 'utf8')).toContain('the crash tool was called');
  });

  it('a server that writes garbage to stdout still works (bad lines skipped)', async () => {
    const { tool } = await mountServers({ garbage: node('garbage') });
    const result = await tool('mcp_garbage_hello').execute({});
    expect(result).toMatchObject({ success: true, output: { content: 'hello back' } });
  });

  it('a server that never answers initialize fails with a clear error and an event, the rest mounts', async () => {
    const { recorder, coordinator } = await mountServers({
      silent: node('silent', { startup_timeout_ms: 300 }),
      garbage: node('garbage'),
    });
    const failed = recorder.getEvents('mcp:server_failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]![1]).toMatchObject({ server: 'silent', required: false });
    expect(String(failed[0]![1].error)).toMatch(/did not answer initialize within 0.3 s/);
    expect(coordinator.get('tools', 'mcp_garbage_hello')).toBeDefined();
  });

  it('a required server that fails fails the mount', async () => {
    const coordinator = createTestCoordinator({ bare: true });
    const error = await mount(coordinator, {
      config_files: false,
      sandbox: 'off',
      shutdown_grace: 0.1,
      mcpServers: { silent: node('silent', { startup_timeout_ms: 200, required: true }) },
    }).catch((e: unknown) => e);
    expect(AmplifierError.is(error, 'MOUNT_FAILED')).toBe(true);
    expect(String((error as Error).message)).toMatch(/required MCP server failed to start.*silent/);
  });

  it('a command that does not exist fails that server, naming it', async () => {
    const { recorder } = await mountServers({ nope: { command: 'definitely-not-a-command-xyz' } });
    expect(String(recorder.getEvents('mcp:server_failed')[0]![1].error)).toMatch(
      /'nope' failed to start.*definitely-not-a-command-xyz/,
    );
  });

  it('a server ignoring stdin EOF and SIGTERM is SIGKILLed with its whole group at cleanup', async () => {
    const { tool, cleanup } = await mountServers({ stubborn: node('stubborn') });
    const result = await tool('mcp_stubborn_pids').execute({});
    const [server, child] = (result.output as McpToolOutput).content.split(' ').map(Number) as [
      number,
      number,
    ];
    expect(alive(server)).toBe(true);
    expect(alive(child)).toBe(true);
    await cleanup();
    expect(alive(server)).toBe(false);
    expect(alive(child)).toBe(false);
  });
});

describe('call semantics against a changing server', () => {
  it('follows the "" cursor, remounts on list_changed, and flags a definition change after use', async () => {
    const { tool, coordinator, recorder } = await mountServers(
      { changing: node('changing') },
      { on_tool_change: 'disable' },
    );
    // Both pages were read.
    expect(coordinator.get('tools', 'mcp_changing_target')).toBeDefined();
    const changed = new Promise<void>((resolve) => {
      coordinator.hooks.register('mcp:tools_changed', () => resolve());
    });
    await tool('mcp_changing_grow').execute({});
    await changed;
    expect(coordinator.get('tools', 'mcp_changing_extra')).toBeDefined();

    await tool('mcp_changing_target').execute({});
    const definition = new Promise<void>((resolve) => {
      coordinator.hooks.register('mcp:tool_definition_changed', () => resolve());
    });
    await tool('mcp_changing_mutate').execute({});
    await definition;
    expect(recorder.getEvents('mcp:tool_definition_changed')[0]![1]).toMatchObject({
      server: 'changing',
      tool: 'target',
      action: 'disable',
    });
    expect(coordinator.get('tools', 'mcp_changing_target')).toBeUndefined();
  });

  it('a per-call timeout and an abort send notifications/cancelled', async () => {
    const { tool } = await mountServers({ changing: node('changing', { tool_timeout_ms: 200 }) });
    const timedOut = await tool('mcp_changing_wait').execute({});
    expect(timedOut.success).toBe(false);
    expect(timedOut.error?.type).toBe('mcp_timeout');
    const controller = new AbortController();
    const pending = tool('mcp_changing_wait').execute({}, { signal: controller.signal });
    // Requests go over one pipe in order: once this answer is back, `wait` has reached the server.
    const before = await tool('mcp_changing_cancelled').execute({});
    expect((before.output as McpToolOutput).content).toBe('1');
    controller.abort();
    expect((await pending).error?.type).toBe('cancelled');
    const count = await tool('mcp_changing_cancelled').execute({});
    expect((count.output as McpToolOutput).content).toBe('2');
  });

  it('checks structuredContent against outputSchema', async () => {
    const { tool } = await mountServers({ changing: node('changing') });
    const good = await tool('mcp_changing_structured').execute({});
    expect(good).toMatchObject({
      success: true,
      output: { structured_content: { n: 1 }, content: '{"n":1}' },
    });
    const bad = await tool('mcp_changing_structured').execute({ bad: true });
    expect(bad.success).toBe(false);
    expect(bad.error?.type).toBe('mcp_output_schema_mismatch');
  });

  it('a tool whose input schema does not compile is still callable, its schema given as text', async () => {
    const { tool } = await mountServers({ changing: node('changing') });
    const odd = tool('mcp_changing_odd');
    expect(odd.inputSchema).toEqual({ type: 'object' });
    expect(odd.description).toMatch(/Input schema \(not validated locally.*no-such-type/);
    expect((await odd.execute({ x: 1 })).success).toBe(true);
  });

  it('mounts only enabled_tools minus disabled_tools', async () => {
    const { coordinator } = await mountServers({
      changing: node('changing', { enabled_tools: ['grow', 'wait', 'target'], disabled_tools: ['wait'] }),
    });
    const names = [...coordinator.get('tools').keys()].sort();
    expect(names).toEqual(['mcp_changing_grow', 'mcp_changing_target']);
  });

  it('does not start a disabled server', async () => {
    const { coordinator, recorder } = await mountServers({ changing: node('changing', { enabled: false }) });
    expect(coordinator.get('tools').size).toBe(0);
    expect(recorder.getEvents('mcp:server_started')).toHaveLength(0);
  });
});
