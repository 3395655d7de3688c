/**
 * The front of `amplifier serve --durable`'s local Restate: the only TCP
 * door to the ingress. It puts @amplifier/server's gate (token, Host,
 * Origin) before every request, then forwards it over the ingress's unix
 * socket. It never forwards to the admin API (which has its own socket, in
 * the same 0700 directory), never passes the caller's credential on (Restate
 * would keep it with the invocation), and drops Restate's CORS headers (its
 * ingress reflects any Origin with credentials).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGate, urlHost } from '@amplifier/server';
import { CliError, EXIT_USAGE } from './errors.js';

export interface IngressFrontOptions {
  host: string;
  port: number;
  token: string;
  /** The Restate ingress's unix socket. */
  ingressSocket: string;
  allowedHosts?: readonly string[];
  allowedOrigins?: readonly string[];
  log(message: string): void;
}

export interface IngressFront {
  /** `http://<host>:<port>`: where turns are sent (with the token). */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Request headers that are the caller's business, not Restate's. */
const DROPPED_REQUEST = new Set([
  'host',
  'authorization',
  'cookie',
  'origin',
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
const DROPPED_RESPONSE = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'trailer',
  'upgrade',
  'set-cookie',
]);

/** Start the gated front on `host:port`. */
export async function startIngressFront(options: IngressFrontOptions): Promise<IngressFront> {
  const gate = createGate({
    token: options.token,
    boundHost: options.host,
    allowedHosts: options.allowedHosts ?? [],
    allowedOrigins: options.allowedOrigins ?? [],
  });
  const server = http.createServer((request, response) => {
    if (!gate.admit(request, response)) return;
    const headers: http.OutgoingHttpHeaders = { host: 'localhost' };
    for (const [name, value] of Object.entries(request.headers)) {
      if (!DROPPED_REQUEST.has(name) && value !== undefined) headers[name] = value;
    }
    const upstream = http.request(
      { socketPath: options.ingressSocket, path: request.url ?? '/', method: request.method, headers },
      (answer) => {
        const out: http.OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(answer.headers)) {
          if (value === undefined || DROPPED_RESPONSE.has(name) || name.startsWith('access-control-'))
            continue;
          out[name] = value;
        }
        response.writeHead(answer.statusCode ?? 502, out);
        answer.pipe(response);
      },
    );
    upstream.on('error', (error) => {
      options.log(`durable front: ${error.message}`);
      if (!response.headersSent) {
        response.writeHead(502, { 'content-type': 'application/json; charset=utf-8' });
        response.end(JSON.stringify({ error: `Restate's ingress did not answer (${error.message}).` }));
      } else {
        response.destroy();
      }
    });
    response.on('close', () => {
      if (!response.writableFinished) upstream.destroy();
    });
    request.pipe(upstream);
  });
  server.on('upgrade', (request: http.IncomingMessage, socket) => {
    if (!gate.admitUpgrade(request, socket)) return;
    socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        new CliError(
          error.code === 'EADDRINUSE'
            ? `Cannot start the durable front: port ${options.port} is already in use on ${options.host}; choose another with --port (0 picks a free one).`
            : `Cannot start the durable front on ${options.host}:${options.port}: ${error.message}`,
          EXIT_USAGE,
        ),
      );
    });
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shown = options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host;
  return {
    url: `http://${urlHost(shown)}:${port}`,
    port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
