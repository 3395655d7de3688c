/**
 * Streamable HTTP for `amplifier mcp serve --http`: `/mcp` on node:http, one
 * SDK server and transport per MCP session (`MCP-Session-Id`: 256 random
 * bits; unknown ⇒ 404, DELETE ends one). Every request, on every path and
 * upgrade, passes @amplifier/server's gate first: the Host must name this
 * server (DNS rebinding), a browser Origin must be its own or allowed (403),
 * and the bearer token must match (401). Over a unix socket (`--unix`, 0600)
 * the kernel checks the peer, so the token is not needed there.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGate, type GateRefusal, listenUnix, ServiceSetupError, urlHost } from '@amplifier/server';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { CliError, EXIT_USAGE } from './errors.js';
import { createMcpServer, type ServeBackend } from './mcp-server.js';

export interface HttpServeOptions {
  host: string;
  port: number;
  /** Listen on this unix socket (0600, in a directory only the user can write) instead of TCP. */
  unix?: string | undefined;
  /** The bearer token (`Authorization: Bearer <token>`); null only with `unix`. */
  token: string | null;
  /** Browser origins allowed besides this server's own (`--allow-origin`). */
  allowedOrigins?: readonly string[];
  /** Host header values allowed besides loopback names and the bound address (`--allow-host`). */
  allowedHosts?: readonly string[];
  /** Aborts every call when the server stops. */
  stopping: AbortSignal;
  log(message: string): void;
}

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
  /** The unix socket's full path (`--unix`). */
  socket?: string;
  close(): Promise<void>;
}

/** A new MCP session id: 256 random bits (the spec wants them unguessable; they are never a credential). */
export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

export async function serveHttp(backend: ServeBackend, options: HttpServeOptions): Promise<HttpServing> {
  if (options.token === null && options.unix === undefined) {
    throw new CliError('mcp serve --http needs a token on TCP (only --unix may go without one).', EXIT_USAGE);
  }
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const gate = createGate({
    token: options.token,
    boundHost: options.host,
    allowedHosts: options.allowedHosts ?? [],
    allowedOrigins: options.allowedOrigins ?? [],
  });
  const renderRefusal = (res: http.ServerResponse, refusal: GateRefusal): void =>
    reject(res, refusal.status, refusal.message, refusal.headers);

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    if (!gate.admit(req, res, renderRefusal)) return;
    const url = new URL(req.url ?? '/', 'http://placeholder');
    if (url.pathname !== '/mcp') return reject(res, 404, 'Not found: the MCP endpoint is /mcp');
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
    const server = createMcpServer(backend, { principal, stopping: options.stopping });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const httpServer = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.log(`mcp http: ${(error as Error).message ?? String(error)}`);
      if (!res.headersSent) reject(res, 500, 'Internal error');
      else res.end();
    });
  });
  // No upgrades are served; a caller the gate refuses learns nothing more than that.
  httpServer.on('upgrade', (req: http.IncomingMessage, socket) => {
    if (!gate.admitUpgrade(req, socket)) return;
    socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
  });
  let url: string;
  let socket: string | undefined;
  if (options.unix !== undefined) {
    let socketPath: string;
    try {
      socketPath = await listenUnix(httpServer, options.unix);
    } catch (error) {
      if (error instanceof ServiceSetupError) throw new CliError(error.message, EXIT_USAGE);
      throw new CliError(
        `Cannot start the MCP HTTP server on --unix ${options.unix}: ${(error as Error).message}`,
        EXIT_USAGE,
      );
    }
    socket = socketPath;
    url = 'http://localhost/mcp';
  } else {
    await new Promise<void>((resolve, reject) => {
      httpServer.once('error', (error: NodeJS.ErrnoException) => {
        const what =
          error.code === 'EADDRINUSE'
            ? `port ${options.port} is already in use on ${options.host}: choose another with --port (0 picks a free one)`
            : error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND'
              ? `cannot listen on ${options.host}: not an address of this machine (--host)`
              : error.code === 'EACCES'
                ? `no permission to listen on port ${options.port} (use a port above 1023)`
                : error.message;
        reject(new CliError(`Cannot start the MCP HTTP server: ${what}`, EXIT_USAGE));
      });
      httpServer.listen(options.port, options.host, () => resolve());
    });
    const port = (httpServer.address() as AddressInfo).port;
    url = `http://${urlHost(options.host)}:${port}/mcp`;
  }
  return {
    url,
    ...(socket !== undefined && { socket }),
    async close() {
      await Promise.all([...transports.values()].map((t) => t.close().catch(() => undefined)));
      transports.clear();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
