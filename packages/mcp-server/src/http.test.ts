/**
 * The HTTP half: an app (no CLI) serves its session's tools, or its agent,
 * over Streamable HTTP on 127.0.0.1 or a 0600 unix socket, to the SDK's
 * client; every request passes @amplifier/server's gate (token, Host,
 * Origin) before anything else, on every path, method and upgrade.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { AmplifierSession } from '@amplifier/core';
import { newToken, ServiceSetupError } from '@amplifier/server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type AppState, openAppSession } from './__fixtures__/app-session.mjs';
import { AGENT_TOOL, sessionConversation } from './agent.js';
import { createMcpServer, type McpServer } from './mcp-server.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function app(): Promise<{ session: AmplifierSession; state: AppState }> {
  const opened = await openAppSession();
  cleanups.push(() => opened.session.cleanup());
  return opened;
}

function served(mcp: McpServer): McpServer {
  cleanups.push(() => mcp.close());
  return mcp;
}

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'amp-mcp-server-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function connect(url: string | URL, token: string | null): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    ...(token !== null && { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  });
  const client = new Client({ name: 'http-test', version: '1' });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return client;
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

/** A raw request (default: POST of an initialize request) with exactly these headers. */
function call(
  target: { host: string; port: number } | { socketPath: string },
  headers: Record<string, string>,
  options: { method?: string; path?: string; body?: string } = {},
): Promise<Answer> {
  const method = options.method ?? 'POST';
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        ...target,
        path: options.path ?? '/mcp',
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

/** A raw upgrade request; resolves with the status line the server wrote. */
function upgrade(port: number, headers: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      const lines = Object.entries({ host: `127.0.0.1:${port}`, ...headers }).map(([k, v]) => `${k}: ${v}`);
      socket.write(
        `GET /mcp HTTP/1.1\r\n${lines.join('\r\n')}\r\nconnection: upgrade\r\nupgrade: websocket\r\n\r\n`,
      );
    });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('close', () => resolve(text.split('\r\n')[0] ?? ''));
    socket.on('error', reject);
  });
}

function noCors(answer: Answer): void {
  for (const name of Object.keys(answer.headers)) expect(name).not.toMatch(/^access-control-/);
}

/** The app's tools on 127.0.0.1 (a free port) behind a fresh token. */
async function listening() {
  const { session, state } = await app();
  const token = newToken();
  const mcp = served(createMcpServer({ expose: 'tools', session }));
  const serving = await mcp.listen({ token, port: 0 });
  const url = new URL(serving.url);
  return { mcp, serving, url, token, state, target: { host: '127.0.0.1', port: Number(url.port) } };
}

describe('an app serving its session over HTTP', () => {
  it("serves the session's tools to the SDK client through the session's hooks", async () => {
    const { url, token, state } = await listening();
    expect(url.hostname).toBe('127.0.0.1');
    expect(url.pathname).toBe('/mcp');
    const client = await connect(url, token);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['echo', 'slow']);
    expect(await client.callTool({ name: 'echo', arguments: { text: 'over http' } })).toMatchObject({
      content: [{ type: 'text', text: 'echo: over http' }],
      isError: false,
    });
    expect(await client.callTool({ name: 'echo', arguments: { text: 'forbidden' } })).toMatchObject({
      isError: true,
    });
    expect(state.events).toEqual(['tool:pre echo', 'tool:pre echo']);
  });

  it("mounts on the app's own server (httpHandler) next to its routes, gated the same", async () => {
    const { session } = await app();
    const token = newToken();
    const mcp = served(createMcpServer({ expose: 'tools', session, allow: ['echo'] }));
    const handler = mcp.httpHandler({ token, boundHost: '127.0.0.1', path: '/tools/mcp' });
    const server = http.createServer((req, res) => {
      if (req.url === '/health') return void res.end('ok');
      handler.handle(req, res);
    });
    server.on('upgrade', handler.handleUpgrade);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    cleanups.push(() => server.closeAllConnections());
    const port = (server.address() as net.AddressInfo).port;
    const client = await connect(`http://127.0.0.1:${port}/tools/mcp`, token);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    expect(handler.sessions).toBe(1);
    const target = { host: '127.0.0.1', port };
    expect((await call(target, {}, { path: '/tools/mcp' })).status).toBe(401);
    expect((await call(target, { authorization: `Bearer ${token}` }, { path: '/mcp' })).status).toBe(404);
    expect((await call(target, { host: 'evil.example' }, { path: '/tools/mcp' })).status).toBe(403);
    expect(await upgrade(port, {})).toMatch(/^HTTP\/1\.1 401/);
  });

  it('close() aborts running calls and ends the MCP sessions', async () => {
    const { mcp, url, token, state } = await listening();
    const client = await connect(url, token);
    let progressed!: () => void;
    const seen = new Promise<void>((resolve) => {
      progressed = resolve;
    });
    const running = client.callTool({ name: 'slow', arguments: { steps: 1 } }, undefined, {
      onprogress: () => progressed(),
    });
    running.catch(() => undefined);
    await seen;
    await mcp.close();
    expect(state.aborted).toBe(1);
    expect(mcp.signal.aborted).toBe(true);
  });

  it('serves the agent as one tool: an answer, a session_id to continue, and no other client may use it', async () => {
    const { session } = await app();
    let opened = 0;
    const token = newToken();
    const mcp = served(
      createMcpServer({
        expose: 'agent',
        open: async ({ resume }) => {
          if (resume !== undefined) throw new Error(`no stored session ${resume}`);
          opened++;
          return sessionConversation(session);
        },
      }),
    );
    const serving = await mcp.listen({ token, port: 0 });
    const client = await connect(serving.url, token);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([AGENT_TOOL]);
    const first = await client.callTool({ name: AGENT_TOOL, arguments: { prompt: 'hello' } });
    const id = (first.structuredContent as { session_id: string }).session_id;
    expect(first.structuredContent).toEqual({ text: 'echo: hello (turn 1)', session_id: session.sessionId });
    const next = await client.callTool({ name: AGENT_TOOL, arguments: { prompt: 'again', session_id: id } });
    expect((next.structuredContent as { text: string }).text).toBe('echo: again (turn 2)');
    expect(opened).toBe(1);
    const other = await connect(serving.url, token);
    const stolen = await other.callTool({ name: AGENT_TOOL, arguments: { prompt: 'x', session_id: id } });
    expect(stolen).toMatchObject({ isError: true });
    expect(JSON.stringify(stolen.content)).toContain('belongs to another client');
    const unknown = await other.callTool({
      name: AGENT_TOOL,
      arguments: { prompt: 'x', session_id: 'nope' },
    });
    expect(JSON.stringify(unknown.content)).toContain('no session nope in this connection');
    const failed = await client.callTool({ name: AGENT_TOOL, arguments: { prompt: 'fail', session_id: id } });
    expect(failed).toMatchObject({ isError: true });
    expect(JSON.stringify(failed.content)).toContain('the model is away');
    for (const bad of [{}, { prompt: '' }, { prompt: 'x', session_id: 3 }, { prompt: 'x', extra: 1 }]) {
      expect(await client.callTool({ name: AGENT_TOOL, arguments: bad })).toMatchObject({ isError: true });
    }
  });
});

describe('the HTTP gate: attacks', () => {
  it('answers 401 without the token or with a wrong one, on every path and method and on upgrades, before routing', async () => {
    const { token, target } = await listening();
    const wrong: Record<string, string>[] = [
      {},
      { authorization: 'Bearer ' },
      { authorization: `Bearer ${token}x` },
      { authorization: `Bearer ${token.slice(1)}` },
      { authorization: `bearer${token}` },
      { authorization: `Basic ${Buffer.from(`x:${token}`).toString('base64')}` },
      { authorization: token },
    ];
    for (const headers of wrong) {
      for (const [method, where] of [
        ['POST', '/mcp'],
        ['GET', '/mcp'],
        ['DELETE', '/mcp'],
        ['GET', '/'],
        ['POST', '/nope'],
        ['OPTIONS', '/mcp'],
      ] as const) {
        const answer = await call(target, headers, { method, path: where });
        expect(answer.status, `${method} ${where} ${JSON.stringify(headers)}`).toBe(401);
        expect(answer.headers['www-authenticate']).toMatch(/^Bearer/);
        noCors(answer);
      }
      expect(await upgrade(target.port, headers)).toMatch(/^HTTP\/1\.1 401/);
    }
    expect((await call(target, { authorization: `Bearer ${token}` })).status).toBe(200);
  });

  it('a foreign Host gets 403 even with the token; foreign Origins get 403 and no CORS header', async () => {
    const { token, target } = await listening();
    const auth = { authorization: `Bearer ${token}` };
    for (const host of [
      'evil.example',
      `evil.example:${target.port}`,
      '127.0.0.1.evil.example',
      'localhost.',
      '127.1',
      '0x7f000001',
      '[::ffff:127.0.0.1]',
    ]) {
      const answer = await call(target, { ...auth, host });
      expect(answer.status, host).toBe(403);
      noCors(answer);
    }
    for (const origin of [
      'https://evil.example',
      'null',
      'file://',
      `http://127.0.0.1:${target.port + 1}`,
      `http://localhost:${target.port}`,
      'http://192.168.1.5',
      `http://127.0.0.1:${target.port}/`,
    ]) {
      const answer = await call(target, { ...auth, origin });
      expect(answer.status, origin).toBe(403);
      noCors(answer);
      expect(JSON.stringify(answer.headers)).not.toContain(origin === 'null' ? '"null"' : origin);
    }
    expect(await upgrade(target.port, { ...auth, origin: 'https://evil.example' })).toMatch(
      /^HTTP\/1\.1 403/,
    );
    expect((await call(target, { ...auth, origin: `http://127.0.0.1:${target.port}` })).status).toBe(200);
  });

  it('MCP session ids are 256 random bits and never a credential; an unknown one is a 404', async () => {
    const { token, target } = await listening();
    const auth = { authorization: `Bearer ${token}` };
    const ids = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const answer = await call(target, auth);
      const id = String(answer.headers['mcp-session-id']);
      expect(Buffer.from(id, 'base64url')).toHaveLength(32);
      ids.add(id);
    }
    expect(ids.size).toBe(3);
    const [id] = ids;
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect((await call(target, { 'mcp-session-id': id! }, { body: list })).status).toBe(401);
    expect((await call(target, { ...auth, 'mcp-session-id': 'A'.repeat(43) }, { body: list })).status).toBe(
      404,
    );
  });

  it('refuses TCP without a token, a port in use, and a path that is not one', async () => {
    const { session } = await app();
    const mcp = served(createMcpServer({ expose: 'tools', session }));
    await expect(mcp.listen({ token: null, port: 0 })).rejects.toThrow(ServiceSetupError);
    await expect(mcp.listen({ token: null, port: 0 })).rejects.toThrow(/needs a token on TCP/);
    const { target } = await listening();
    await expect(mcp.listen({ token: newToken(), port: target.port })).rejects.toThrow(
      `port ${target.port} is already in use on 127.0.0.1`,
    );
    expect(() => mcp.httpHandler({ token: newToken(), path: 'mcp' })).toThrow(/path must start with "\/"/);
    expect(() => createMcpServer({ expose: 'everything' } as never)).toThrow(
      /expose must be 'tools', 'agent' or 'backend'; found "everything"/,
    );
  });

  it('a unix socket is 0600 and needs no token; a group- or world-writable parent is refused', async () => {
    const { session } = await app();
    const dir = tempDir();
    const mcp = served(createMcpServer({ expose: 'tools', session }));
    const socketPath = path.join(dir, 'run', 'mcp.sock');
    const serving = await mcp.listen({ token: null, unix: socketPath });
    expect(serving.socket).toBe(socketPath);
    expect(fs.statSync(socketPath).mode & 0o777).toBe(0o600);
    const answer = await call({ socketPath }, { host: 'localhost' });
    expect(answer.status).toBe(200);
    expect((await call({ socketPath }, { host: 'evil.example' })).status).toBe(403);
    for (const mode of [0o777, 0o775, 0o757]) {
      const open = path.join(dir, `open-${mode.toString(8)}`);
      fs.mkdirSync(open);
      fs.chmodSync(open, mode);
      await expect(mcp.listen({ token: null, unix: path.join(open, 'mcp.sock') })).rejects.toThrow(
        /writable by/,
      );
    }
  });
});
