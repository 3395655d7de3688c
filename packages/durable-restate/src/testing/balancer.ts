/**
 * A small HTTP/2 (cleartext) load balancer for tests and benchmarks: each
 * request stream Restate opens (one per invocation attempt) goes to the next
 * worker, round robin, and its bytes are piped both ways. A worker that
 * cannot be reached, or dies mid-stream, resets the stream, so Restate
 * retries the attempt, which the balancer sends to another worker: what a
 * real load balancer in front of N workers does.
 */
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';

export interface Balancer {
  /** `http://127.0.0.1:<port>`: register this URL with Restate. */
  readonly url: string;
  /** Streams sent to each target so far (by URL). */
  readonly routed: Map<string, number>;
  /** Replace the workers streams go to. */
  setTargets(urls: readonly string[]): void;
  close(): Promise<void>;
}

const HOP_HEADERS = new Set([
  ':scheme',
  ':authority',
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
]);

export async function startBalancer(targets: readonly string[]): Promise<Balancer> {
  let current = [...targets];
  let next = 0;
  const clients = new Map<string, http2.ClientHttp2Session>();
  const routed = new Map<string, number>();
  const server = http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });

  const clientFor = (url: string): http2.ClientHttp2Session => {
    const known = clients.get(url);
    if (known !== undefined && !known.closed && !known.destroyed) return known;
    const client = http2.connect(url);
    client.on('error', () => clients.delete(url));
    client.on('close', () => {
      if (clients.get(url) === client) clients.delete(url);
    });
    clients.set(url, client);
    return client;
  };

  server.on('stream', (stream, headers) => {
    if (current.length === 0) {
      stream.respond({ ':status': 503 });
      stream.end('no worker');
      return;
    }
    const target = current[next++ % current.length]!;
    routed.set(target, (routed.get(target) ?? 0) + 1);
    const forwarded: http2.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(headers)) {
      if (!HOP_HEADERS.has(name) && value !== undefined) forwarded[name] = value;
    }
    const fail = (): void => {
      if (!stream.destroyed) stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
    };
    let upstream: http2.ClientHttp2Stream;
    try {
      upstream = clientFor(target).request(forwarded);
    } catch {
      fail();
      return;
    }
    upstream.on('response', (responseHeaders) => {
      const out: http2.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(responseHeaders)) {
        if (!HOP_HEADERS.has(name) && value !== undefined) out[name] = value;
      }
      if (!stream.destroyed) stream.respond(out);
      upstream.pipe(stream);
    });
    upstream.on('error', fail);
    upstream.on('close', () => {
      if (upstream.rstCode !== undefined && upstream.rstCode !== http2.constants.NGHTTP2_NO_ERROR) fail();
    });
    stream.on('error', () => upstream.destroy());
    stream.on('close', () => {
      if (!upstream.closed) upstream.close(http2.constants.NGHTTP2_CANCEL);
    });
    stream.pipe(upstream);
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    routed,
    setTargets(urls) {
      current = [...urls];
      for (const [target, client] of clients) {
        if (!current.includes(target)) client.destroy();
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of clients.values()) client.destroy();
        for (const session of sessions) session.destroy();
        server.close(() => resolve());
      }),
  };
}
