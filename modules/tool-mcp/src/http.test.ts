import { childEnvironment, type ServiceProcess, startService } from '@amplifier/process';
import { createTestCoordinator, EventRecorder } from '@amplifier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { EVERYTHING_BIN, freePort } from './__fixtures__/servers.js';
import { MCP_EVENTS, mount } from './index.js';
import { probeMcpServer } from './probe.js';
import type { McpToolOutput } from './result.js';

const stops: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

/** server-everything in `mode` on a free port, ready once it says it listens. */
async function everything(
  mode: 'streamableHttp' | 'sse',
  port?: number,
): Promise<{ port: number; service: ServiceProcess }> {
  const chosen = port ?? (await freePort());
  const service = await startService(process.execPath, [EVERYTHING_BIN, mode], {
    env: childEnvironment(process.env, { set: { PORT: String(chosen) } }).env,
  });
  stops.push(() => service.stop({ stdinGraceMs: 0, termGraceMs: 1000 }));
  await new Promise<void>((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer): void => {
      text += chunk.toString();
      if (/running on port|listening on port/i.test(text)) resolve();
    };
    service.stderr.on('data', onData);
    service.stdout.on('data', onData);
    void service.exited.then(() => reject(new Error(`server-everything ${mode} exited: ${text}`)));
  });
  return { port: chosen, service };
}

describe('HTTP transports with server-everything', () => {
  it('a server that restarted and forgot the session (404): initialize again and retry once', async () => {
    const { port, service } = await everything('streamableHttp');
    const coordinator = createTestCoordinator({ bare: true });
    const cleanup = await mount(coordinator, {
      config_files: false,
      mcpServers: { web: { url: `http://127.0.0.1:${port}/mcp` } },
    });
    stops.push(cleanup);
    await service.stop({ stdinGraceMs: 0, termGraceMs: 1000 });
    await everything('streamableHttp', port);
    const result = await coordinator.get('tools', 'mcp_web_echo')!.execute({ message: 'new session' });
    expect(result.success, JSON.stringify(result.error)).toBe(true);
    expect((result.output as McpToolOutput).content).toContain('new session');
  });

  it('Streamable HTTP: mounts, calls, streams progress', async () => {
    const { port } = await everything('streamableHttp');
    const coordinator = createTestCoordinator({ bare: true });
    const recorder = new EventRecorder();
    recorder.attach(coordinator.hooks, MCP_EVENTS);
    const cleanup = await mount(coordinator, {
      config_files: false,
      mcpServers: { web: { type: 'streamable-http', url: `http://127.0.0.1:${port}/mcp` } },
    });
    stops.push(cleanup);
    expect(recorder.getEvents('mcp:server_started')[0]![1]).toMatchObject({ transport: 'http' });
    const echo = await coordinator.get('tools', 'mcp_web_echo')!.execute({ message: 'over http' });
    expect((echo.output as McpToolOutput).content).toContain('over http');
    const progress: unknown[] = [];
    const long = await coordinator
      .get('tools', 'mcp_web_trigger-long-running-operation')!
      .execute({ duration: 0.2, steps: 2 }, { onProgress: (p) => progress.push(p) });
    expect(long.success).toBe(true);
    expect(progress.length).toBeGreaterThanOrEqual(1);
  });

  it('falls back to legacy SSE when Streamable HTTP is refused (4xx)', async () => {
    const { port } = await everything('sse');
    const result = await probeMcpServer('legacy', {
      type: 'http',
      url: `http://127.0.0.1:${port}/sse`,
      enabled: true,
      startup_timeout_ms: 20_000,
      tool_timeout_ms: 20_000,
      required: false,
    });
    expect(result.transport).toBe('sse');
    expect(result.tools.map((tool) => tool.mountedName)).toContain('mcp_legacy_echo');
  });

  it('a lost HTTP server fails the call clearly; the next call after it is back reconnects', async () => {
    const { port, service } = await everything('streamableHttp');
    const coordinator = createTestCoordinator({ bare: true });
    const cleanup = await mount(coordinator, {
      config_files: false,
      mcpServers: { web: { url: `http://127.0.0.1:${port}/mcp`, tool_timeout_sec: 5 } },
    });
    stops.push(cleanup);
    const echo = coordinator.get('tools', 'mcp_web_echo')!;
    await service.stop({ stdinGraceMs: 0, termGraceMs: 1000 });
    const lost = await echo.execute({ message: 'x' });
    expect(lost.success).toBe(false);
    expect(lost.error?.type).toBe('mcp_server_unavailable');
    await everything('streamableHttp', port);
    const back = await echo.execute({ message: 'back' });
    expect(back.success, JSON.stringify(back.error)).toBe(true);
  });
});
