/**
 * Real servers for the tests, on loopback addresses only, with a request log
 * and connection tracking (so a test can wait for the client to hang up).
 */
import http from 'node:http';
import net from 'node:net';

export interface TestServer {
  host: string;
  port: number;
  /** `http://host:port` (IPv6 hosts bracketed). */
  origin: string;
  /** Request paths seen (raw servers log one entry per connection). */
  readonly hits: string[];
  /** Resolves when some connection to the server has closed since the last call. */
  nextClose(): Promise<void>;
  /** Number of connections currently open. */
  openConnections(): number;
  close(): Promise<void>;
}

function track(server: net.Server, host: string, port: number, hits: string[]): TestServer {
  const sockets = new Set<net.Socket>();
  let waiters: (() => void)[] = [];
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      const w = waiters;
      waiters = [];
      for (const resolve of w) resolve();
    });
  });
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    host,
    port,
    origin: `http://${shown}:${port}`,
    hits,
    nextClose: () => new Promise<void>((resolve) => waiters.push(resolve)),
    openConnections: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function listen(server: net.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as net.AddressInfo).port));
  });
}

/** An HTTP server; `handler` may be async. Every request path is logged in `hits`. */
export async function httpServer(
  handler: http.RequestListener,
  host = '127.0.0.1',
  port = 0,
): Promise<TestServer> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    handler(req, res);
  });
  server.keepAliveTimeout = 30_000;
  const bound = await listen(server, host, port);
  return track(server, host, bound, hits);
}

/** A raw TCP server for malformed HTTP; each connection is logged as `conn`. */
export async function rawServer(
  onSocket: (socket: net.Socket) => void,
  host = '127.0.0.1',
): Promise<TestServer> {
  const hits: string[] = [];
  const server = net.createServer((socket) => {
    hits.push('conn');
    socket.on('error', () => {});
    onSocket(socket);
  });
  const bound = await listen(server, host, 0);
  return track(server, host, bound, hits);
}

/** An HTTP server answering every request with `marker` (an "internal" service that must never be reached). */
export function internalServer(host: string, port = 0): Promise<TestServer> {
  return httpServer(
    (_req, res) => {
      res.setHeader('content-type', 'text/plain');
      res.end('SECRET-INTERNAL');
    },
    host,
    port,
  );
}

/** Write `total` bytes of `byte` honouring backpressure; stops when the client goes away. */
export function writeBytes(res: http.ServerResponse, total: number, chunkSize = 64 * 1024): Promise<number> {
  return new Promise((resolve) => {
    let sent = 0;
    const chunk = Buffer.alloc(chunkSize, 'a');
    const pump = (): void => {
      while (sent < total && !res.destroyed) {
        const n = Math.min(chunkSize, total - sent);
        sent += n;
        if (!res.write(n === chunkSize ? chunk : chunk.subarray(0, n))) {
          res.once('drain', pump);
          return;
        }
      }
      if (!res.destroyed) res.end();
      resolve(sent);
    };
    res.on('close', () => resolve(sent));
    pump();
  });
}
