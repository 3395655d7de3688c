/**
 * A real HTTP server on 127.0.0.1 (port 0) for tests: answers each request
 * with the next queued handler, records requests, and can stream SSE, drop
 * the connection mid-stream, or hold a stream open until the client aborts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  // biome-ignore lint/suspicious/noExplicitAny: test data of any shape
  body: any;
}

export type Handler = (request: RecordedRequest, response: http.ServerResponse) => void | Promise<void>;

export class FakeServer {
  readonly requests: RecordedRequest[] = [];
  readonly #queue: Handler[] = [];
  #fallback: Handler | undefined;
  readonly #waiters: ((request: RecordedRequest) => void)[] = [];
  readonly #server: http.Server;
  url = '';

  private constructor() {
    this.#server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          // keep the text
        }
        const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
        this.requests.push(recorded);
        for (const waiter of this.#waiters.splice(0)) waiter(recorded);
        const handler = this.#queue.shift() ?? this.#fallback;
        if (handler === undefined) {
          res.writeHead(599, { 'content-type': 'text/plain' }).end('fake server: no handler queued');
          return;
        }
        Promise.resolve(handler(recorded, res)).catch((error: unknown) => {
          res.destroy(error as Error);
        });
      });
    });
  }

  static async start(): Promise<FakeServer> {
    const server = new FakeServer();
    await new Promise<void>((resolve) => server.#server.listen(0, '127.0.0.1', resolve));
    server.url = `http://127.0.0.1:${(server.#server.address() as AddressInfo).port}`;
    return server;
  }

  /** Answer the next requests with these handlers, in order. */
  enqueue(...handlers: Handler[]): this {
    this.#queue.push(...handlers);
    return this;
  }

  /** Answer every request the queue does not cover with this handler. */
  fallback(handler: Handler): this {
    this.#fallback = handler;
    return this;
  }

  /** Resolves with the next request that arrives. */
  nextRequest(): Promise<RecordedRequest> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** A JSON response. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res
      .writeHead(status, { 'content-type': 'application/json', ...headers })
      .end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}

/** Raw text with a status and content type (HTML pages, malformed JSON). */
export function raw(status: number, text: string, contentType = 'application/json'): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': contentType }).end(text);
  };
}

/** One SSE event: `event:` line when named, `data:` (objects as JSON). */
export function event(data: unknown, name?: string): string {
  const text = typeof data === 'string' ? data : JSON.stringify(data);
  return `${name === undefined ? '' : `event: ${name}\n`}data: ${text}\n\n`;
}

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

/** Write the pieces one by one (each its own write, a macrotask apart), then end. */
export function sse(pieces: readonly string[], headers: Record<string, string> = {}): Handler {
  return async (_req, res) => {
    res.writeHead(200, { ...SSE_HEADERS, ...headers });
    for (const piece of pieces) {
      res.write(piece);
      await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
  };
}

/** Write the pieces, then destroy the socket (a connection dropped mid-stream). */
export function sseThenDrop(pieces: readonly string[]): Handler {
  return async (_req, res) => {
    res.writeHead(200, SSE_HEADERS);
    for (const piece of pieces) res.write(piece);
    await new Promise((resolve) => setImmediate(resolve));
    res.socket?.destroy();
  };
}

/** Write the pieces and keep the stream open until the client goes away; `closed` resolves then. */
export function sseThenHang(pieces: readonly string[]): { handler: Handler; closed: Promise<void> } {
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  return {
    closed,
    handler: (_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      for (const piece of pieces) res.write(piece);
      res.on('close', () => resolveClosed());
    },
  };
}

/** Never answer; `closed` resolves when the client goes away. */
export function hang(): { handler: Handler; closed: Promise<void> } {
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  return { closed, handler: (_req, res) => void res.on('close', () => resolveClosed()) };
}
