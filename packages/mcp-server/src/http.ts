/**
 * Streamable HTTP: one endpoint (`/mcp` by default) on node:http, one SDK
 * server and transport per MCP session (`MCP-Session-Id`: 256 random bits;
 * unknown ⇒ 404, DELETE ends one). Every request, on every path and upgrade,
 * passes @amplifier/server's gate first: the Host must name this server (DNS
 * rebinding), a browser Origin must be its own or allowed (403), and the
 * bearer token must match (401). Over a unix socket (0600) the kernel checks
 * the peer, so the token is not needed there.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { errorMessage } from '@amplifier/core';
import { terminalSafe } from '@amplifier/process/terminal';
import { createGate, type GateRefusal, listenUnix, ServiceSetupError, urlHost } from '@amplifier/server';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createProtocolServer, type ServeBackend, type ServerInfo } from './protocol.js';

/** What the gate and the endpoint of an HTTP handler need. */
export interface HttpHandlerOptions {
  /** The bearer token (`Authorization: Bearer <token>`); null only behind a 0600 unix socket. */
  token: string | null;
  /** The address the server is bound to (its Host is accepted; `0.0.0.0`/`::` mean the machine's addresses). */
  boundHost?: string | undefined;
  /** Browser origins allowed besides the server's own. */
  allowedOrigins?: readonly string[] | undefined;
  /** Host header values allowed besides loopback names and the bound address (`name` or `name:port`). */
  allowedHosts?: readonly string[] | undefined;
  /** The endpoint's path (default `/mcp`); every other path is a 404 (after the gate). */
  path?: string | undefined;
  /** Aborts every running call (`McpServer.close()` does it). */
  stopping: AbortSignal;
  /** One line for the operator: a request that failed inside the server (terminal-safe). */
  log?: ((message: string) => void) | undefined;
  /** `serverInfo` in `initialize`. */
  info?: ServerInfo | undefined;
}

/** A gated Streamable HTTP endpoint an app mounts on its own `node:http` server. */
export interface McpHttpHandler {
  /** Handle one request (`server.on('request', handler.handle)`); never rejects. */
  handle(req: http.IncomingMessage, res: http.ServerResponse): void;
  /** Handle an upgrade (`server.on('upgrade', handler.handleUpgrade)`): the gate, then 404 (none are served). */
  handleUpgrade(req: http.IncomingMessage, socket: Duplex): void;
  /** The MCP sessions open now. */
  readonly sessions: number;
  /** End every MCP session (running calls abort through `stopping`). */
  close(): Promise<void>;
}

/** Where and how `listenHttp` listens. */
export interface HttpListenOptions extends Omit<HttpHandlerOptions, 'boundHost'> {
  /** Default `127.0.0.1`. */
  host?: string | undefined;
  /** Default 8808; 0 picks a free port. */
  port?: number | undefined;
  /** Listen on this unix socket (0600, in a directory only the user can write) instead of TCP. */
  unix?: string | undefined;
}

/** The default TCP port of `listenHttp`. */
export const DEFAULT_HTTP_PORT = 8808;

/** The largest request body read (JSON-RPC messages are small; tool arguments stay under this). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

function reject(
  res: http.ServerResponse,
  status: number,
  message: string,
  headers: http.OutgoingHttpHeaders = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A running HTTP server: its URL and how to stop it. */
export interface HttpServing {
  /** The URL to call (over `socket` when there is one: `http://localhost/mcp`). */
  url: string;
  /** The unix socket's full path (`unix`). */
  socket?: string;
  /** The `node:http` server (for an app that adds its own routes in front, or reads its address). */
  server: http.Server;
  /** End the MCP sessions, drop the connections and stop listening. */
  close(): Promise<void>;
}

/** A new MCP session id: 256 random bits (the spec wants them unguessable; they are never a credential). */
export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The gated Streamable HTTP endpoint over `backend`, to mount on an app's own
 * server. `token: null` is only for a server behind a 0600 unix socket (the
 * app's choice: the handler cannot see how it is reached). Throws
 * `ServiceSetupError` for a `path` that does not start with `/`.
 */
export function createHttpHandler(backend: ServeBackend, options: HttpHandlerOptions): McpHttpHandler {
  const endpoint = options.path ?? '/mcp';
  if (!endpoint.startsWith('/')) {
    throw new ServiceSetupError(`path must start with "/" (the MCP endpoint, e.g. /mcp); found ${endpoint}`);
  }
  const log = options.log ?? (() => {});
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const gate = createGate({
    token: options.token,
    ...(options.boundHost !== undefined && { boundHost: options.boundHost }),
    allowedHosts: options.allowedHosts ?? [],
    allowedOrigins: options.allowedOrigins ?? [],
  });
  const renderRefusal = (res: http.ServerResponse, refusal: GateRefusal): void =>
    reject(res, refusal.status, refusal.message, refusal.headers);

  const route = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    if (!gate.admit(req, res, renderRefusal)) return;
    const url = new URL(req.url ?? '/', 'http://placeholder');
    if (url.pathname !== endpoint) return reject(res, 404, `Not found: the MCP endpoint is ${endpoint}`);
    const sessionHeader = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
    if (sessionId !== undefined) {
      const transport = transports.get(sessionId);
      if (transport === undefined) return reject(res, 404, 'Session not found: initialize a new one');
      return transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') {
      return reject(res, 400, 'Bad request: no MCP-Session-Id (initialize with a POST first)');
    }
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch (error) {
      return reject(res, 400, `Bad request: the body is not JSON (${(error as Error).message})`);
    }
    const initializing = Array.isArray(body)
      ? body.some((m) => isInitializeRequest(m))
      : isInitializeRequest(body);
    if (!initializing)
      return reject(res, 400, 'Bad request: no MCP-Session-Id and not an initialize request');
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: newSessionId,
      onsessioninitialized: (id) => {
        transports.set(id, transport);
      },
      onsessionclosed: (id) => {
        transports.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) transports.delete(transport.sessionId);
    };
    const principal = `http:${newSessionId()}`;
    const server = createProtocolServer(backend, {
      principal,
      stopping: options.stopping,
      info: options.info,
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  return {
    handle(req, res) {
      route(req, res).catch((error: unknown) => {
        log(terminalSafe(`mcp http: ${errorMessage(error)}`));
        if (!res.headersSent) reject(res, 500, 'Internal error');
        else res.end();
      });
    },
    // No upgrades are served; a caller the gate refuses learns nothing more than that.
    handleUpgrade(req, socket) {
      if (!gate.admitUpgrade(req, socket)) return;
      socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    },
    get sessions() {
      return transports.size;
    },
    async close() {
      await Promise.all([...transports.values()].map((t) => t.close().catch(() => undefined)));
      transports.clear();
    },
  };
}

/**
 * Listen on TCP (`host`:`port`, a token required) or a 0600 unix socket
 * (`unix`, no token needed) and serve the gated endpoint. Throws
 * `ServiceSetupError` with what to change when it cannot listen.
 */
export async function listenHttp(backend: ServeBackend, options: HttpListenOptions): Promise<HttpServing> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? DEFAULT_HTTP_PORT;
  if (options.token === null && options.unix === undefined) {
    throw new ServiceSetupError(
      'The MCP HTTP server needs a token on TCP (only a unix socket may go without one).',
    );
  }
  const handler = createHttpHandler(backend, { ...options, boundHost: host });
  const httpServer = http.createServer(handler.handle);
  httpServer.on('upgrade', handler.handleUpgrade);
  let url: string;
  let socket: string | undefined;
  if (options.unix !== undefined) {
    try {
      socket = await listenUnix(httpServer, options.unix);
    } catch (error) {
      if (error instanceof ServiceSetupError) throw error;
      throw new ServiceSetupError(
        `Cannot start the MCP HTTP server on the unix socket ${options.unix}: ${errorMessage(error)}`,
      );
    }
    url = `http://localhost${options.path ?? '/mcp'}`;
  } else {
    await new Promise<void>((resolve, fail) => {
      httpServer.once('error', (error: NodeJS.ErrnoException) => {
        const what =
          error.code === 'EADDRINUSE'
            ? `port ${port} is already in use on ${host}: choose another port (0 picks a free one)`
            : error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND'
              ? `cannot listen on ${host}: not an address of this machine`
              : error.code === 'EACCES'
                ? `no permission to listen on port ${port} (use a port above 1023)`
                : error.message;
        fail(new ServiceSetupError(`Cannot start the MCP HTTP server: ${what}`));
      });
      httpServer.listen(port, host, () => resolve());
    });
    const bound = (httpServer.address() as AddressInfo).port;
    url = `http://${urlHost(host)}:${bound}${options.path ?? '/mcp'}`;
  }
  return {
    url,
    ...(socket !== undefined && { socket }),
    server: httpServer,
    async close() {
      await handler.close();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
