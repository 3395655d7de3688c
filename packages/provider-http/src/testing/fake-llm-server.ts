/**
 * A real HTTP server on 127.0.0.1 (port 0) that stands in for an LLM API in
 * provider tests: it answers each request with the next queued reply,
 * records every request (JSON bodies parsed), and can answer with JSON, SSE
 * sent in pieces, any status with headers, a connection dropped mid-stream,
 * a stream held open, or no answer at all. Plus `llmErrorOf` for the failures.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { LLMError } from '@amplifier/core';

/** A request as the server received it. */
export interface RecordedRequest {
  method: string;
  /** Path and query. */
  url: string;
  headers: http.IncomingHttpHeaders;
  /** The body parsed as JSON; the text when it is not JSON; undefined when empty. */
  // biome-ignore lint/suspicious/noExplicitAny: request bodies of any shape, read freely by tests
  body: any;
}

/** Answers one request. */
export type FakeReply = (request: RecordedRequest, response: http.ServerResponse) => void | Promise<void>;

/** A reply plus a promise that resolves when the client goes away. */
export interface HeldReply {
  handler: FakeReply;
  closed: Promise<void>;
}

export class FakeLlmServer {
  /** Every request so far, in arrival order. */
  readonly requests: RecordedRequest[] = [];
  /** `http://127.0.0.1:<port>` once started. */
  url = '';
  readonly #queue: FakeReply[] = [];
  #fallback: FakeReply | undefined;
  readonly #waiters: ((request: RecordedRequest) => void)[] = [];
  readonly #server: http.Server;

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
          res.writeHead(599, { 'content-type': 'text/plain' }).end('fake server: no reply queued');
          return;
        }
        Promise.resolve(handler(recorded, res)).catch((error: unknown) => {
          res.destroy(error as Error);
        });
      });
    });
  }

  /** A server listening on 127.0.0.1, a free port. */
  static async start(): Promise<FakeLlmServer> {
    const server = new FakeLlmServer();
    await new Promise<void>((resolve) => server.#server.listen(0, '127.0.0.1', resolve));
    server.url = `http://127.0.0.1:${(server.#server.address() as AddressInfo).port}`;
    return server;
  }

  /** Answer the next requests with these replies, in order. */
  enqueue(...replies: FakeReply[]): this {
    this.#queue.push(...replies);
    return this;
  }

  /** Answer every request the queue does not cover with this reply (otherwise: HTTP 599). */
  fallback(reply: FakeReply): this {
    this.#fallback = reply;
    return this;
  }

  /** Resolves with the next request that arrives. */
  nextRequest(): Promise<RecordedRequest> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Drop every connection and stop listening. */
  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** One SSE message: an `event:` line when named, then `data:` (objects as JSON). */
export function sseEvent(data: unknown, name?: string): string {
  const text = typeof data === 'string' ? data : JSON.stringify(data);
  return `${name === undefined ? '' : `event: ${name}\n`}data: ${text}\n\n`;
}

/** The text's UTF-8 bytes cut into pieces of `size` (SSE split inside lines and inside characters). */
export function splitBytes(text: string, size: number): Uint8Array[] {
  const bytes = Buffer.from(text);
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) pieces.push(bytes.subarray(i, i + size));
  return pieces;
}

/** What a streaming reply writes: text, or raw bytes (see `splitBytes`). */
export type ReplyPiece = string | Uint8Array;

function held(start: (res: http.ServerResponse) => void): HeldReply {
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  return {
    closed,
    handler: (_req, res) => {
      res.on('close', () => resolveClosed());
      start(res);
    },
  };
}

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
const nextMacrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Ready-made replies. */
export const reply: {
  /** A JSON body (a string is sent as it is) with a status and extra headers (`retry-after`...). */
  json(status: number, body: unknown, headers?: Record<string, string>): FakeReply;
  /** Raw text with a status and content type (HTML pages, malformed JSON). */
  raw(status: number, text: string, contentType?: string): FakeReply;
  /** A 200 SSE stream: each piece its own write, a macrotask apart; then the end. */
  sse(pieces: readonly ReplyPiece[], headers?: Record<string, string>): FakeReply;
  /** The pieces, then the socket destroyed: a connection dropped mid-stream. */
  sseThenDrop(pieces: readonly ReplyPiece[]): FakeReply;
  /** The pieces, then the stream held open until the client goes away (a slow stream). */
  sseThenHang(pieces: readonly ReplyPiece[]): HeldReply;
  /** No answer at all until the client goes away. */
  hang(): HeldReply;
} = {
  json:
    (status, body, headers = {}) =>
    (_req, res) => {
      res
        .writeHead(status, { 'content-type': 'application/json', ...headers })
        .end(typeof body === 'string' ? body : JSON.stringify(body));
    },
  raw:
    (status, text, contentType = 'application/json') =>
    (_req, res) => {
      res.writeHead(status, { 'content-type': contentType }).end(text);
    },
  sse:
    (pieces, headers = {}) =>
    async (_req, res) => {
      res.writeHead(200, { ...SSE_HEADERS, ...headers });
      for (const piece of pieces) {
        res.write(piece);
        await nextMacrotask();
      }
      res.end();
    },
  sseThenDrop: (pieces) => async (_req, res) => {
    res.writeHead(200, SSE_HEADERS);
    for (const piece of pieces) res.write(piece);
    await nextMacrotask();
    res.socket?.destroy();
  },
  sseThenHang: (pieces) =>
    held((res) => {
      res.writeHead(200, SSE_HEADERS);
      for (const piece of pieces) res.write(piece);
    }),
  hang: () => held(() => {}),
};

/** The LLMError `promise` rejects with; throws when it resolves or rejects with anything else. */
export async function llmErrorOf(promise: Promise<unknown>): Promise<LLMError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!LLMError.is(error)) throw new Error(`expected an LLMError, got ${String(error)}`);
  return error;
}
