import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AmplifierError } from '@amplifier/core';
import { createTestCoordinator, toolConformance } from '@amplifier/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { hostile } from './__fixtures__/servers.js';
import { mount, probeMcpServer } from './index.js';

const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tool-mcp-mount-'));
afterAll(() => fs.rmSync(logDir, { recursive: true, force: true }));

toolConformance({
  mount,
  config: {
    config_files: false,
    sandbox: 'off',
    server_log_dir: logDir,
    mcpServers: { garbage: { command: process.execPath, args: [hostile('garbage')] } },
  },
  tools: ['mcp_garbage_hello'],
});

describe('mount', () => {
  it('does not start a project server until the project is trusted, naming the command', async () => {
    const project = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tool-mcp-project-')));
    fs.mkdirSync(path.join(project, '.amplifier'));
    fs.writeFileSync(
      path.join(project, '.amplifier', 'mcp.json'),
      JSON.stringify({ mcpServers: { proj: { command: process.execPath, args: [hostile('garbage')] } } }),
    );
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, warn: (m: string) => warnings.push(m), error() {} };
    try {
      const untrusted = createTestCoordinator({ bare: true, logger });
      const off = await mount(untrusted, { working_dir: project, sandbox: 'off', server_log_dir: logDir });
      expect(untrusted.get('tools', 'mcp_proj_hello')).toBeUndefined();
      expect(warnings.join('\n')).toMatch(
        /server 'proj' from .*mcp\.json is not started.*garbage-server\.mjs.*trust_project: true/,
      );
      await off();
      const trusted = createTestCoordinator({ bare: true });
      const cleanup = await mount(trusted, {
        working_dir: project,
        trust_project: true,
        sandbox: 'off',
        server_log_dir: logDir,
      });
      expect(trusted.get('tools', 'mcp_proj_hello')).toBeDefined();
      await cleanup();
    } finally {
      fs.rmSync(project, { recursive: true, force: true });
    }
  });

  it('refuses a misspelt safety key', async () => {
    const error = await mount(createTestCoordinator({ bare: true }), {
      config_files: false,
      on_tool_chnage: 'disable',
    }).catch((e: unknown) => e);
    expect(AmplifierError.is(error, 'CONFIG_REFUSED')).toBe(true);
  });

  it('fails the mount with the key for a bad value', async () => {
    const error = await mount(createTestCoordinator({ bare: true }), {
      config_files: false,
      max_content_size: 'big',
    }).catch((e: unknown) => e);
    expect(AmplifierError.is(error, 'MOUNT_FAILED')).toBe(true);
    expect(String((error as Error).message)).toMatch(/max_content_size/);
  });

  it('probeMcpServer lists the tools of a server given in the minimal shape, and stops it', async () => {
    const result = await probeMcpServer(
      'garbage',
      { type: 'stdio', command: process.execPath, args: [hostile('garbage')], enabled: true },
      { sandbox: 'off', timeoutMs: 20_000 },
    );
    expect(result.serverInfo).toEqual({ name: 'garbage', version: '1.0.0' });
    expect(result.tools).toEqual([{ name: 'hello', mountedName: 'mcp_garbage_hello' }]);
  });

  it('probeMcpServer rejects with a clear error for a server that never answers', async () => {
    await expect(
      probeMcpServer(
        'silent',
        { type: 'stdio', command: process.execPath, args: [hostile('silent')], enabled: true },
        { sandbox: 'off', timeoutMs: 200 },
      ),
    ).rejects.toThrow(/'silent' did not answer initialize within 0.2 s/);
  });
});
