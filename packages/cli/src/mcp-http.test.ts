import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { skipUnless } from '@amplifier/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { CliProcess, cliEnv, removeTempDirs, runCli, tempDir } from './__fixtures__/cli.js';
import { mcpProject } from './__fixtures__/mcp.js';
import { otherUser, probeScript } from './__fixtures__/other-user.js';

afterEach(removeTempDirs);

const running: CliProcess[] = [];
afterEach(async () => {
  for (const cli of running.splice(0)) {
    cli.kill('SIGTERM');
    await cli.exited;
  }
});

interface Serving {
  url: URL;
  token: string;
  cli: CliProcess;
  project: ReturnType<typeof mcpProject>;
  runtimeDir: string;
}

/** Start `amplifier mcp serve --http --port 0` and return its URL and token (from the stderr lines). */
async function serve(extra: string[] = [], env: Record<string, string | undefined> = {}): Promise<Serving> {
  const project = mcpProject();
  // A runtime dir other users may enter: what protects the file is its own 0700 dir and 0600 mode.
  const runtimeDir = tempDir('amp-xdg-');
  fs.chmodSync(runtimeDir, 0o755);
  const cli = new CliProcess(['mcp', 'serve', '--plan', project.plan, '--http', '--port', '0', ...extra], {
    cwd: project.cwd,
    env: cliEnv(project.home, { AMPLIFIER_MCP_TOKEN: undefined, XDG_RUNTIME_DIR: runtimeDir, ...env }),
  });
  running.push(cli);
  await cli.waitFor('stderr', /Authorization: Bearer \S+\n/);
  const url = new URL(/listening on (http:\S+\/mcp)/.exec(cli.stderr)![1]!);
  const token = /Authorization: Bearer (\S+)\n/.exec(cli.stderr)![1]!;
  return { url, token, cli, project, runtimeDir };
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A raw request (default: POST of an initialize request) with the given headers. */
function call(
  url: URL,
  headers: Record<string, string>,
  options: { method?: string; body?: string; path?: string; socketPath?: string } = {},
): Promise<Answer> {
  const method = options.method ?? 'POST';
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        ...(options.socketPath === undefined
          ? { host: url.hostname, port: url.port }
          : { socketPath: options.socketPath }),
        path: options.path ?? url.pathname,
        method,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        // An SSE answer stays open: the first chunk is enough.
        res.once('data', () => {
          if (String(res.headers['content-type']).startsWith('text/event-stream')) res.destroy();
        });
        const done = () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        res.on('end', done);
        res.on('close', done);
      },
    );
    req.on('error', reject);
    req.end(method === 'POST' ? (options.body ?? INITIALIZE) : undefined);
  });
}

async function post(url: URL, headers: Record<string, string>): Promise<number> {
  return (await call(url, headers)).status;
}

function noCors(answer: Answer): void {
  for (const name of Object.keys(answer.headers)) expect(name).not.toMatch(/^access-control-/);
}

describe('amplifier mcp serve --http', () => {
  it('serves the tools over Streamable HTTP on 127.0.0.1 to the SDK client, in MCP sessions', async () => {
    const { url, project, token } = await serve();
    expect(url.hostname).toBe('127.0.0.1');
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
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
    expect(await post(url, { 'mcp-session-id': 'no-such-session', authorization: `Bearer ${token}` })).toBe(
      404,
    );
  });

  it('refuses a foreign Origin and a foreign Host (DNS rebinding) with 403', async () => {
    const { url, token } = await serve();
    const authorization = `Bearer ${token}`;
    expect(await post(url, { origin: 'https://evil.example', authorization })).toBe(403);
    expect(await post(url, { host: `evil.example:${url.port}`, authorization })).toBe(403);
    expect(
      await post(url, {
        host: `localhost:${url.port}`,
        origin: `http://localhost:${url.port}`,
        authorization,
      }),
    ).toBe(200);
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
    expect(open.stderr).toContain('give a token of your own with --token or AMPLIFIER_MCP_TOKEN');

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

describe('amplifier mcp serve --http: attacks', () => {
  const routes = [
    '/mcp',
    '/',
    '/mcp/',
    '/MCP',
    '/mcp?x=1',
    '/.well-known/oauth-protected-resource',
    '/favicon.ico',
  ];

  it('answers 401 without the token or with a wrong one, on every path and method, before routing', async () => {
    const { url, token } = await serve();
    for (const path of routes) {
      for (const method of ['POST', 'GET', 'DELETE', 'PUT']) {
        const answer = await call(url, {}, { method, path });
        expect(answer.status, `${method} ${path}`).toBe(401);
        expect(answer.headers['www-authenticate']).toMatch(/^Bearer/);
      }
    }
    for (const authorization of [
      `Bearer ${token.slice(1)}`,
      `Bearer ${token}0`,
      `Basic ${token}`,
      token,
      'Bearer',
    ]) {
      expect(await post(url, { authorization }), authorization).toBe(401);
    }
    // The token only in the query string is no credential.
    expect((await call(url, {}, { path: `/mcp?token=${token}` })).status).toBe(401);
  });

  it('a foreign Host gets 403 even with the token; foreign Origins (names, IP literals, null) get 403 and no CORS', async () => {
    const { url, token } = await serve();
    const authorization = `Bearer ${token}`;
    for (const host of [
      'evil.example',
      `evil.example:${url.port}`,
      `127.0.0.1.nip.io:${url.port}`,
      '1.2.3.4',
      `0.0.0.0:${url.port}`,
    ]) {
      expect(await post(url, { host, authorization }), host).toBe(403);
    }
    for (const origin of [
      'http://evil.example',
      'http://1.2.3.4',
      'http://1.2.3.4:80',
      'null',
      `http://127.0.0.1:${Number(url.port) + 1}`,
      'https://localhost.evil.example',
    ]) {
      const answer = await call(url, { origin, authorization });
      expect(answer.status, origin).toBe(403);
      noCors(answer);
      expect(JSON.stringify(answer.headers)).not.toContain(origin === 'null' ? '"null"' : origin);
    }
    for (const origin of ['http://evil.example', `http://127.0.0.1:${url.port}`]) {
      const preflight = await call(
        url,
        {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        },
        { method: 'OPTIONS' },
      );
      noCors(preflight);
      expect(preflight.status).not.toBe(200);
    }
  });

  it('MCP session ids are 256 random bits, and a known session id without the token is rejected', async () => {
    const { url, token } = await serve();
    const authorization = `Bearer ${token}`;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const answer = await call(url, { authorization });
      expect(answer.status).toBe(200);
      ids.push(String(answer.headers['mcp-session-id']));
    }
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(Buffer.from(id, 'base64url').length).toBeGreaterThanOrEqual(16);
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const known = { 'mcp-session-id': ids[0]!, 'mcp-protocol-version': '2025-06-18' };
    expect((await call(url, known, { body: list })).status).toBe(401);
    expect((await call(url, { ...known, authorization: `Bearer ${token}x` }, { body: list })).status).toBe(
      401,
    );
    expect((await call(url, known, { method: 'GET' })).status).toBe(401);
    expect((await call(url, known, { method: 'DELETE' })).status).toBe(401);
    // With the token the session still works: the refusals did not end it.
    const listed = await call(url, { ...known, authorization }, { body: list });
    expect(listed.status).toBe(200);
    expect(listed.body).toContain('read_file');
  });

  it('the token differs per start and its runtime file is 0600 in a 0700 dir, removed on stop', async () => {
    const first = await serve();
    const second = await serve();
    expect(first.token).not.toBe(second.token);
    expect(Buffer.from(first.token, 'base64url')).toHaveLength(32);
    const file = path.join(first.runtimeDir, 'amplifier', `mcp-${first.url.port}.json`);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({
      url: first.url.href,
      token: first.token,
    });
    running.splice(running.indexOf(first.cli), 1);
    first.cli.kill('SIGTERM');
    expect((await first.cli.done()).code).toBe(0);
    expect(fs.existsSync(file)).toBe(false);
  });

  it('refuses every non-loopback bind without a token before binding (the port it would take is held: the error is not EADDRINUSE)', async () => {
    const project = mcpProject();
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '0.0.0.0', resolve));
    const { port } = blocker.address() as net.AddressInfo;
    try {
      for (const host of ['0.0.0.0', '::', '192.0.2.1', '10.1.2.3']) {
        const result = await runCli(
          ['mcp', 'serve', '--plan', project.plan, '--http', '--host', host, '--port', String(port)],
          { cwd: project.cwd, env: cliEnv(project.home, { AMPLIFIER_MCP_TOKEN: undefined }) },
        );
        expect(result.code, host).toBe(2);
        expect(result.stderr).toContain(`--host ${host} is not a loopback address`);
        expect(result.stderr).not.toContain('already in use');
      }
    } finally {
      blocker.close();
    }
  });

  it('--unix serves on a 0600 socket without a token and refuses a group- or world-writable parent', async () => {
    const dir = tempDir('amp-sock-');
    const socketPath = path.join(dir, 'run', 'mcp.sock');
    const project = mcpProject();
    const cli = new CliProcess(['mcp', 'serve', '--plan', project.plan, '--http', '--unix', socketPath], {
      cwd: project.cwd,
      env: cliEnv(project.home, { AMPLIFIER_MCP_TOKEN: undefined, XDG_RUNTIME_DIR: undefined }),
    });
    running.push(cli);
    await cli.waitFor('stderr', /over the unix socket/);
    expect(fs.statSync(socketPath).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(socketPath)).mode & 0o777).toBe(0o700);
    const url = new URL('http://localhost/mcp');
    expect((await call(url, { host: 'localhost' }, { socketPath })).status).toBe(200);
    expect((await call(url, { host: 'evil.example' }, { socketPath })).status).toBe(403);
    expect(
      (await call(url, { host: 'localhost', origin: 'http://evil.example' }, { socketPath })).status,
    ).toBe(403);

    for (const mode of [0o777, 0o1777, 0o775]) {
      const open = tempDir('amp-sock-');
      fs.chmodSync(open, mode);
      const result = await runCli(
        ['mcp', 'serve', '--plan', project.plan, '--http', '--unix', path.join(open, 'mcp.sock')],
        { cwd: project.cwd, env: cliEnv(project.home) },
      );
      expect(result.code, mode.toString(8)).toBe(2);
      expect(result.stderr).toContain('writable by');
      expect(fs.existsSync(path.join(open, 'mcp.sock'))).toBe(false);
    }
  });

  const other = otherUser();
  const noOther = skipUnless(
    other !== undefined,
    'a second local user',
    'run the tests as root to create one',
  );
  it.skipIf(noOther)(
    'another local uid cannot call it without the token, nor read its runtime file',
    async () => {
      const { url, token, runtimeDir } = await serve();
      const file = path.join(runtimeDir, 'amplifier', `mcp-${url.port}.json`);
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const probe = await other!.node(probeScript(url.href, { headers, body: INITIALIZE, file }));
      expect(probe.stdout).toContain('status 401');
      expect(probe.stdout).toContain('file EACCES');
      // The same client with the token gets in: the refusal was the missing token, not the uid.
      const allowed = await other!.node(
        probeScript(url.href, {
          headers: { ...headers, authorization: `Bearer ${token}` },
          body: INITIALIZE,
        }),
      );
      expect(allowed.stdout).toContain('status 200');
    },
  );

  it.skipIf(noOther)('another local uid cannot connect to the --unix socket at all', async () => {
    const socketPath = path.join(tempDir('amp-sock-'), 'mcp.sock');
    // Even in a directory others may enter, the socket's own 0600 mode keeps them out.
    fs.chmodSync(path.dirname(socketPath), 0o755);
    const project = mcpProject();
    const cli = new CliProcess(['mcp', 'serve', '--plan', project.plan, '--http', '--unix', socketPath], {
      cwd: project.cwd,
      env: cliEnv(project.home, { AMPLIFIER_MCP_TOKEN: undefined }),
    });
    running.push(cli);
    await cli.waitFor('stderr', /over the unix socket/);
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      host: 'localhost',
    };
    const probe = await other!.node(
      probeScript('http://localhost/mcp', { socketPath, headers, body: INITIALIZE }),
    );
    expect(probe.stdout).toContain('error EACCES');
  });
});
