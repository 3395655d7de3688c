import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { CliProcess, cliEnv, removeTempDirs, runCli } from './__fixtures__/cli.js';
import { mcpProject } from './__fixtures__/mcp.js';
import { isLoopback } from './mcp-http.js';

afterEach(removeTempDirs);

const running: CliProcess[] = [];
afterEach(async () => {
  for (const cli of running.splice(0)) {
    cli.kill('SIGTERM');
    await cli.exited;
  }
});

/** Start `amplifier mcp serve --http --port 0` and return its URL (from the stderr line). */
async function serve(
  extra: string[] = [],
  env: Record<string, string> = {},
): Promise<{ url: URL; cli: CliProcess; project: ReturnType<typeof mcpProject> }> {
  const project = mcpProject();
  const cli = new CliProcess(['mcp', 'serve', '--plan', project.plan, '--http', '--port', '0', ...extra], {
    cwd: project.cwd,
    env: cliEnv(project.home, env),
  });
  running.push(cli);
  await cli.waitFor('stderr', /listening on http:\S+\/mcp/);
  const url = new URL(/listening on (http:\S+\/mcp)/.exec(cli.stderr)![1]!);
  return { url, cli, project };
}

/** A raw POST of an initialize request with the given headers: the status code. */
function post(url: URL, headers: Record<string, string>): Promise<number> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('amplifier mcp serve --http', () => {
  it('serves the tools over Streamable HTTP on 127.0.0.1 to the SDK client, in MCP sessions', async () => {
    const { url, project } = await serve();
    expect(url.hostname).toBe('127.0.0.1');
    const transport = new StreamableHTTPClientTransport(url);
    const client = new Client({ name: 'http-test', version: '1' });
    await client.connect(transport);
    try {
      expect(transport.sessionId).toMatch(/./);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('read_file');
      const result = await client.callTool({
        name: 'read_file',
        arguments: { file_path: path.join(project.cwd, 'hello.txt') },
      });
      expect(JSON.stringify(result.content)).toContain('hello from the project');
      const progress: number[] = [];
      await client.callTool(
        { name: 'slow_progress', arguments: { steps: 2, finish: true, wait_seen: true } },
        undefined,
        {
          onprogress: (p) => {
            progress.push(p.progress);
            fs.writeFileSync(project.seen, 'seen');
          },
        },
      );
      expect(progress[0]).toBe(1);
    } finally {
      await transport.terminateSession();
      await client.close();
    }
    // A session that was ended is unknown.
    expect(await post(url, { 'mcp-session-id': 'no-such-session' })).toBe(404);
  });

  it('refuses a foreign Origin and a foreign Host (DNS rebinding) with 403', async () => {
    const { url } = await serve();
    expect(await post(url, { origin: 'https://evil.example' })).toBe(403);
    expect(await post(url, { host: `evil.example:${url.port}` })).toBe(403);
    expect(await post(url, { origin: `http://localhost:${url.port}` })).toBe(200);
  });

  it('with a token, a request without the bearer token gets 401 and the SDK client with it works', async () => {
    const { url } = await serve([], { AMPLIFIER_MCP_TOKEN: 's3cret-token' });
    expect(await post(url, {})).toBe(401);
    expect(await post(url, { authorization: 'Bearer wrong-token' })).toBe(401);
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: 'Bearer s3cret-token' } },
    });
    const client = new Client({ name: 'http-test', version: '1' });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it('refuses to bind off loopback without a token, and says when the port is taken (exit 2)', async () => {
    const project = mcpProject();
    const env = cliEnv(project.home, { AMPLIFIER_MCP_TOKEN: undefined });
    const open = await runCli(['mcp', 'serve', '--plan', project.plan, '--http', '--host', '0.0.0.0'], {
      cwd: project.cwd,
      env,
    });
    expect(open.code).toBe(2);
    expect(open.stderr).toContain('set a token');

    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as net.AddressInfo;
    try {
      const taken = await runCli(['mcp', 'serve', '--plan', project.plan, '--http', '--port', String(port)], {
        cwd: project.cwd,
        env,
      });
      expect(taken.code).toBe(2);
      expect(taken.stderr).toContain(`port ${port} is already in use`);
    } finally {
      blocker.close();
    }
  });

  it('stops on SIGTERM with exit 0', async () => {
    const { cli } = await serve();
    running.splice(running.indexOf(cli), 1);
    cli.kill('SIGTERM');
    expect((await cli.done()).code).toBe(0);
  });
});

describe('isLoopback', () => {
  it('knows the loopback names and addresses', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'])
      expect(isLoopback(host)).toBe(true);
    for (const host of ['0.0.0.0', '192.168.1.2', 'example.com', '::']) expect(isLoopback(host)).toBe(false);
  });
});
