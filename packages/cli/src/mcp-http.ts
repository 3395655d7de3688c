/**
 * Streamable HTTP for `amplifier mcp serve --http`: `/mcp` on node:http, one
 * SDK server and transport per MCP session (`MCP-Session-Id`; unknown ⇒ 404,
 * DELETE ends one). Before the SDK sees a request: the `Host` header must name
 * this server when it is bound to loopback (DNS rebinding), a browser `Origin`
 * must be a loopback origin or an allowed one (403), and the bearer token must
 * match when one is set (401); a token is required to bind off loopback.
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { CliError, EXIT_USAGE } from './errors.js';
import { createMcpServer, type ServeBackend } from './mcp-server.js';

export interface HttpServeOptions {
  host: string;
  port: number;
  /** Required bearer token (`Authorization: Bearer <token>`); required off loopback. */
  token?: string | undefined;
  /** Browser origins allowed besides loopback ones (`--allow-origin`). */
  allowedOrigins?: readonly string[];
  /** Host header values allowed besides this server's own address (`--allow-host`). */
  allowedHosts?: readonly string[];
  /** Aborts every call when the server stops. */
  stopping: AbortSignal;
  log(message: string): void;
}

/** The largest request body read (JSON-RPC messages are small; tool arguments stay under this). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export function isLoopback(host: string): boolean {
  return LOOPBACK_HOSTS.has(host.toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** `localhost:8080` → `localhost`; `[::1]:80` → `[::1]`. */
function hostName(hostHeader: string): string {
  if (hostHeader.startsWith('[')) return hostHeader.slice(0, hostHeader.indexOf(']') + 1);
  const colon = hostHeader.lastIndexOf(':');
  return colon < 0 ? hostHeader : hostHeader.slice(0, colon);
}

function originAllowed(origin: string, allowed: readonly string[]): boolean {
  if (allowed.includes(origin)) return true;
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopback(url.hostname);
  } catch {
    return false;
  }
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
  if (!match) return false;
  const given = Buffer.from(match[1]!.trim());
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

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
  url: string;
  close(): Promise<void>;
}

export async function serveHttp(backend: ServeBackend, options: HttpServeOptions): Promise<HttpServing> {
  const loopback = isLoopback(options.host);
  if (!loopback && !options.token) {
    throw new CliError(
      `--host ${options.host} is not a loopback address: set a token (AMPLIFIER_MCP_TOKEN or --token) so only your clients can call the tools.`,
      EXIT_USAGE,
    );
  }
  const transports = new Map<string, StreamableHTTPServerTransport>();
  let port = options.port;

  const hostAllowed = (header: string | undefined): boolean => {
    if (header === undefined) return false;
    if (options.allowedHosts?.includes(header)) return true;
    // Off loopback the token protects the server; on loopback the Host must be ours (DNS rebinding).
    if (!loopback) return true;
    const name = hostName(header);
    const given = header.slice(name.length + 1);
    return isLoopback(name.replace(/^\[|\]$/g, '')) && (given === '' || given === String(port));
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://placeholder');
    if (url.pathname !== '/mcp') return reject(res, 404, 'Not found: the MCP endpoint is /mcp');
    if (!hostAllowed(req.headers.host)) {
      return reject(res, 403, `Forbidden: Host ${req.headers.host ?? '(none)'} is not this server`);
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !originAllowed(origin, options.allowedOrigins ?? [])) {
      return reject(res, 403, `Forbidden: Origin ${origin} is not allowed (see --allow-origin)`);
    }
    if (options.token && !tokenMatches(req.headers.authorization, options.token)) {
      return reject(res, 401, 'Unauthorized: send Authorization: Bearer <token>', {
        'www-authenticate': 'Bearer',
      });
    }
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
      sessionIdGenerator: () => randomUUID(),
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
    const principal = `http:${randomUUID()}`;
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
  port = (httpServer.address() as AddressInfo).port;
  const shown = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${shown}:${port}/mcp`,
    async close() {
      await Promise.all([...transports.values()].map((t) => t.close().catch(() => undefined)));
      transports.clear();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
