/**
 * Bounded by default (issue 37): a hostile MCP server with thousands of
 * tools, huge schemas, and terminal escape sequences in its names and
 * descriptions, started for real by each test.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AmplifierError, type Coordinator } from '@amplifier/core';
import { createTestCoordinator } from '@amplifier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { hostile } from './__fixtures__/servers.js';
import { definitionBytes, mount, probeMcpServer } from './index.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Anything a terminal would act on: ESC, C0 but LF and tab, DEL, C1, bidi controls. */
const TERMINAL_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const flood = (...args: string[]) => ({ command: process.execPath, args: [hostile('flood'), ...args] });

async function mountFlood(servers: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const logs: string[] = [];
  const log = (m: string) => logs.push(m);
  const coordinator = createTestCoordinator({
    bare: true,
    logger: { debug: log, info: log, warn: log, error: log },
  });
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tool-mcp-bounds-'));
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
  return { coordinator, logs };
}

function mcpTools(coordinator: Coordinator, server: string) {
  return [...coordinator.get('tools').values()].filter((tool) => tool.name.startsWith(`mcp_${server}_`));
}

function totalBytes(coordinator: Coordinator): number {
  return [...coordinator.get('tools').values()].reduce((sum, tool) => sum + definitionBytes(tool), 0);
}

describe('caps on what a server mounts', () => {
  it('a server with 20,000 tools mounts 128 by default, and one log line names the server and what was dropped', async () => {
    const { coordinator, logs } = await mountFlood({ big: flood('--tools', '20000') });
    expect(mcpTools(coordinator, 'big')).toHaveLength(128);
    expect(totalBytes(coordinator)).toBeLessThanOrEqual(256 * 1024);
    const lines = logs.filter((line) => line.includes('max_tools_per_server'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /server 'big' lists 20000 tools; 19872 are not mounted \(max_tools_per_server is 128\): 'tool_123', .*and 19867 more/,
    );
    // The server's order is kept: the first tools are the ones mounted.
    expect(coordinator.get('tools', 'mcp_big_grow')).toBeDefined();
    expect(coordinator.get('tools', 'mcp_big_tool_122')).toBeDefined();
    expect(coordinator.get('tools', 'mcp_big_tool_123')).toBeUndefined();
  });

  it('max_tools_per_server and enabled_tools choose what mounts', async () => {
    const { coordinator, logs } = await mountFlood(
      {
        few: flood('--tools', '500'),
        picked: { ...flood('--tools', '500'), enabled_tools: ['tool_400', 'tool_401', 'tool_402'] },
      },
      { max_tools_per_server: 5 },
    );
    expect(mcpTools(coordinator, 'few')).toHaveLength(5);
    expect(mcpTools(coordinator, 'picked').map((tool) => tool.name)).toEqual([
      'mcp_picked_tool_400',
      'mcp_picked_tool_401',
      'mcp_picked_tool_402',
    ]);
    expect(logs.filter((line) => line.includes("server 'few' lists 500 tools; 495"))).toHaveLength(1);
    expect(logs.some((line) => line.includes("'picked'") && line.includes('not mounted'))).toBe(false);
  });

  it('max_definition_bytes bounds the definitions of every server together, and says which were dropped', async () => {
    const cap = 16 * 1024;
    const { coordinator, logs } = await mountFlood(
      { one: flood('--tools', '300', '--desc', '900'), two: flood('--tools', '300', '--desc', '900') },
      { max_definition_bytes: cap },
    );
    expect(totalBytes(coordinator)).toBeLessThanOrEqual(cap);
    // Servers are served in the order of the config: the first fills the budget.
    expect(mcpTools(coordinator, 'one').length).toBeGreaterThan(5);
    const dropped = logs.filter((line) => line.includes('max_definition_bytes'));
    expect(dropped.length).toBeGreaterThanOrEqual(1);
    expect(dropped.join('\n')).toMatch(
      /tools of server '(one|two)' are not mounted: their definitions would pass max_definition_bytes \(16384 bytes/,
    );
  });

  it('one tool whose schema alone is over the byte budget is dropped, the others mount', async () => {
    const { coordinator, logs } = await mountFlood({ huge: flood('--tools', '20', '--big') });
    expect(coordinator.get('tools', 'mcp_huge_huge_schema')).toBeUndefined();
    expect(coordinator.get('tools', 'mcp_huge_tool_0')).toBeDefined();
    expect(logs.join('\n')).toMatch(/1 tools of server 'huge' are not mounted: .*'huge_schema'/);
  });

  it('tools added later through list_changed stay within the cap', async () => {
    const { coordinator, logs } = await mountFlood(
      { grows: flood('--tools', '40') },
      { max_tools_per_server: 50 },
    );
    expect(mcpTools(coordinator, 'grows')).toHaveLength(40);
    const changed = new Promise<void>((resolve) => {
      coordinator.hooks.register('mcp:tools_changed', () => resolve());
    });
    const grow = coordinator.get('tools', 'mcp_grows_grow');
    expect((await grow!.execute({})).success).toBe(true);
    await changed;
    expect(mcpTools(coordinator, 'grows')).toHaveLength(50);
    expect(logs.some((line) => /server 'grows' lists 80 tools; 30 are not mounted/.test(line))).toBe(true);
  });

  it.each([
    ['max_tool_per_server', 5],
    ['max_definitions_bytes', 1000],
  ])('refuses the misspelt cap %s rather than mount everything', async (key, value) => {
    const error = await mount(createTestCoordinator({ bare: true }), {
      config_files: false,
      [key]: value,
    }).catch((e: unknown) => e);
    expect(AmplifierError.is(error, 'CONFIG_REFUSED')).toBe(true);
  });

  it.each([
    ['max_tools_per_server', 0],
    ['max_tools_per_server', 'many'],
    ['max_definition_bytes', -1],
    ['max_definition_bytes', 1.5],
  ])('rejects %s: %j with an error naming the key', async (key, value) => {
    const error = await mount(createTestCoordinator({ bare: true }), {
      config_files: false,
      [key]: value,
    }).catch((e: unknown) => e);
    expect(AmplifierError.is(error, 'MOUNT_FAILED')).toBe(true);
    expect((error as Error).message).toContain(key);
  });
});

describe('hostile names and descriptions', () => {
  it('never reach the log or the model with escape sequences, controls or bidi overrides', async () => {
    // A cap of 3 drops the hostile tools into the log line that names them.
    const { coordinator, logs } = await mountFlood(
      { 'e\u001b]0;x\u0007vil': flood('--tools', '8'), second: flood('--tools', '8') },
      { max_tools_per_server: 3 },
    );
    const tools = [...coordinator.get('tools').values()];
    expect(tools.length).toBe(6);
    for (const tool of tools) {
      expect(tool.name).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(tool.description).not.toMatch(TERMINAL_CONTROL);
    }
    // The titles' text stays readable, only the controls are gone.
    expect(tools.map((tool) => tool.description).join('\n')).toContain('sets the title');
    expect(logs.join('\n')).toContain("server 'evil' lists 8 tools; 5 are not mounted");
    expect(logs.join('\n')).toContain("'rtlexe.txt', 'crspoof', 'tool_0'");
    for (const line of logs) expect(line).not.toMatch(TERMINAL_CONTROL);
  });

  it('probeMcpServer (amplifier mcp test) returns the names, descriptions and server info stripped', async () => {
    const result = await probeMcpServer(
      'flood',
      { type: 'stdio', enabled: true, ...flood('--tools', '6') },
      { sandbox: 'off' },
    );
    expect(result.tools).toHaveLength(6);
    const text = JSON.stringify(result);
    expect(JSON.parse(text)).toEqual(result);
    for (const value of [
      result.serverInfo.name,
      result.serverInfo.version,
      ...result.tools.flatMap((t) => [t.name, t.mountedName, t.description ?? '']),
    ])
      expect(value).not.toMatch(TERMINAL_CONTROL);
    expect(result.serverInfo).toEqual({ name: 'flood', version: '1.0' });
    expect(result.tools.map((t) => t.name)).toContain('title');
    expect(result.tools.map((t) => t.name)).toContain('rtlexe.txt');
    expect(result.tools.map((t) => t.name)).toContain('crspoof');
  });
});
