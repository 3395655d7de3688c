import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ToolResult } from '@amplifier/core';
import { createTestCoordinator, EventRecorder } from '@amplifier/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVERYTHING_BIN } from './__fixtures__/servers.js';
import { MCP_EVENTS, mount } from './index.js';
import type { McpToolOutput } from './result.js';

const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tool-mcp-everything-'));
const coordinator = createTestCoordinator({ bare: true });
const recorder = new EventRecorder();
recorder.attach(coordinator.hooks, MCP_EVENTS);
let cleanup: () => Promise<void> | void = () => {};

beforeAll(async () => {
  process.env.ANTHROPIC_API_KEY = 'sk-ant-test-secret';
  process.env.OPENAI_API_KEY = 'sk-openai-test-secret';
  cleanup = await mount(coordinator, {
    config_files: false,
    server_log_dir: logDir,
    sandbox: 'off',
    mcpServers: {
      everything: {
        command: process.execPath,
        args: [EVERYTHING_BIN, 'stdio'],
        env: { MCP_TEST_SET: 'yes' },
      },
    },
  });
}, 60_000);

afterAll(async () => {
  await cleanup();
  delete process.env.ANTHROPIC_API_KEY;
  delete process.env.OPENAI_API_KEY;
  fs.rmSync(logDir, { recursive: true, force: true });
});

async function call(name: string, input: Record<string, unknown>, options = {}): Promise<ToolResult> {
  const tool = coordinator.get('tools', name);
  expect(tool, `${name} is mounted`).toBeDefined();
  return tool!.execute(input, options);
}

describe('server-everything over stdio', () => {
  it('mounts its tools as mcp_everything_<tool> with the Claude Code alias and reports the start', () => {
    const echo = coordinator.get('tools', 'mcp_everything_echo');
    expect(echo?.aliases).toEqual(['mcp__everything__echo']);
    expect(echo?.inputSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } } });
    const started = recorder.getEvents('mcp:server_started');
    expect(started).toHaveLength(1);
    expect(started[0]![1]).toMatchObject({ server: 'everything', transport: 'stdio' });
  });

  it('calls echo and maps text', async () => {
    const result = await call('mcp_everything_echo', { message: 'hi there' });
    expect(result.success).toBe(true);
    const output = result.output as McpToolOutput;
    expect(output).toMatchObject({ mcp_server: 'everything', mcp_tool: 'echo', content_truncated: false });
    expect(output.content).toContain('hi there');
  });

  it('maps an image to a placeholder, never base64', async () => {
    const result = await call('mcp_everything_get-tiny-image', {});
    const output = result.output as McpToolOutput;
    expect(output.content).toMatch(/\[image image\/png, [\d.]+ (B|KB)\]/);
    expect(output.content).not.toMatch(/[A-Za-z0-9+/]{100,}/);
  });

  it('surfaces structuredContent', async () => {
    const result = await call('mcp_everything_get-structured-content', { location: 'New York' });
    expect(result.success).toBe(true);
    expect((result.output as McpToolOutput).structured_content).toMatchObject({
      temperature: expect.any(Number),
    });
  });

  it('maps resource links and embedded resources', async () => {
    const links = await call('mcp_everything_get-resource-links', { count: 2 });
    expect((links.output as McpToolOutput).content).toMatch(/\[resource link .+: .+\]/);
    const ref = await call('mcp_everything_get-resource-reference', { resourceType: 'Text', resourceId: 1 });
    expect((ref.output as McpToolOutput).content).toMatch(/\[resource \S+\]/);
  });

  it('forwards progress with server and tool to onProgress', async () => {
    const progress: unknown[] = [];
    const result = await call(
      'mcp_everything_trigger-long-running-operation',
      { duration: 0.3, steps: 3 },
      { onProgress: (p: unknown) => progress.push(p) },
    );
    expect(result.success).toBe(true);
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress[0]).toMatchObject({
      progress: expect.any(Number),
      mcp_server: 'everything',
      mcp_tool: 'trigger-long-running-operation',
    });
  });

  it('cancels a long call through the signal', async () => {
    const controller = new AbortController();
    const pending = call(
      'mcp_everything_trigger-long-running-operation',
      { duration: 60, steps: 60 },
      {
        signal: controller.signal,
        onProgress: () => controller.abort(),
      },
    );
    const result = await pending;
    expect(result.success).toBe(false);
    expect(result.error?.type).toBe('cancelled');
    // The server still answers after the cancellation.
    expect((await call('mcp_everything_echo', { message: 'after' })).success).toBe(true);
  });

  it('gives the server no provider key (the secret policy), but its own env', async () => {
    const result = await call('mcp_everything_get-env', {});
    const content = (result.output as McpToolOutput).content;
    expect(content).toContain('MCP_TEST_SET');
    expect(content).not.toContain('ANTHROPIC_API_KEY');
    expect(content).not.toContain('OPENAI_API_KEY');
    expect(content).not.toContain('sk-ant-test-secret');
  });

  it('returns a typed protocol error for an unknown tool argument shape', async () => {
    const result = await call('mcp_everything_get-sum', { a: 'not a number', b: 2 });
    expect(result.success).toBe(false);
    expect(['mcp_tool_error', 'mcp_protocol_error']).toContain(result.error?.type);
  });
});

describe('timeouts with progress', () => {
  it('the idle timeout is reset by progress; the total cap still ends the call', async () => {
    const local = createTestCoordinator({ bare: true });
    const stop = await mount(local, {
      config_files: false,
      server_log_dir: logDir,
      sandbox: 'off',
      max_tool_timeout: 4,
      mcpServers: {
        everything: { command: process.execPath, args: [EVERYTHING_BIN, 'stdio'], tool_timeout_sec: 2 },
      },
    });
    try {
      const tool = local.get('tools', 'mcp_everything_trigger-long-running-operation')!;
      // 2.5 s of work, progress every 0.1 s: longer than the 2 s idle timeout, shorter than the 4 s cap.
      const reset = await tool.execute({ duration: 2.5, steps: 25 }, { onProgress: () => {} });
      expect(reset.success, JSON.stringify(reset.error)).toBe(true);
      // 20 s of work with progress: the 4 s total cap ends it.
      const capped = await tool.execute({ duration: 20, steps: 200 }, { onProgress: () => {} });
      expect(capped.success).toBe(false);
      expect(capped.error?.type).toBe('mcp_timeout');
    } finally {
      await stop();
    }
  });
});
