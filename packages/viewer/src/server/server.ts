/**
 * The viewer's HTTP server (node:http, 127.0.0.1 only): the page, its
 * assets, and a small JSON API over the sessions on disk, all under a secret
 * base path `<base>` = `/v/<hex>/` (see `basePath`). Routes, relative to it:
 *
 * - `GET <base>`: the page (a nonce per response for its import map; the
 *   Content-Security-Policy allows scripts from this server only).
 * - `GET <base>assets/...`: the page's files (see static-assets.ts).
 * - `GET <base>api/sessions`: every session's summary, newest first.
 * - `GET <base>api/sessions/<id>`: one session (metadata, transcript, events,
 *   offsets for the live view, its agent sessions).
 * - `GET <base>api/sessions/<id>/live?events=<n>&transcript=<n>`: server-sent
 *   events from those byte offsets on.
 *
 * Every request, on every route (the page and its assets included) and
 * every upgrade, passes @amplifier/server's gate first: a Host other than a
 * loopback name gets 403 (DNS rebinding), a foreign Origin 403, and a
 * request without the token 401. The token is new at each start (or given);
 * the browser opens `<base>?token=<token>`, which is traded for an `HttpOnly;
 * SameSite=Strict; Path=<base>` cookie and dropped from the URL. Browsers
 * send a host's cookies to every port of it, so the cookie's Path is the
 * secret base: a server on another local port never receives it. After the
 * gate, a path outside the base is a 404 and `<base without the slash>`
 * redirects to the base.
 */
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createGate, newToken } from '@amplifier/server';
import { amplifierHome } from '@amplifier/sessions';
import type { SessionSummary } from '../model/summary.js';
import { type ReadLimits, SessionReader } from '../reader/session-reader.js';
import { streamSession } from './live-session.js';
import { SessionIndex } from './session-index.js';
import { assetRoot, readAsset } from './static-assets.js';

export interface ViewerOptions {
  /** Where the sessions are: `<home>/projects/<slug>/sessions/<id>/`. Default: AMPLIFIER_HOME, else ~/.amplifier. */
  home?: string;
  /** 0 (default): a free port. */
  port?: number;
  /** Limits of what a page gets from one session. */
  limits?: Partial<ReadLimits>;
  /** How often the live view polls the files besides watching them, ms. Default 500. */
  pollMs?: number;
  /** The credential (default: 256 new random bits). */
  token?: string;
  /** Host names accepted besides `localhost`, `127.0.0.1` and `[::1]` (a proxy's name). */
  allowedHosts?: readonly string[];
  /** Browser origins accepted besides the viewer's own. */
  allowedOrigins?: readonly string[];
}

export interface Viewer {
  /** `http://127.0.0.1:<port>/v/<hex>/` (every route needs the token). */
  url: string;
  /** The secret base path every route is under: `/v/<hex>/`. */
  base: string;
  /** The credential: `Authorization: Bearer <token>`, or open `tokenUrl` in a browser. */
  token: string;
  /** `http://127.0.0.1:<port>/v/<hex>/?token=<token>`: what to open in a browser (the token becomes a cookie). */
  tokenUrl: string;
  port: number;
  home: string;
  close(): Promise<void>;
}

function json(response: http.ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  response.end(JSON.stringify(body));
}

function byNewest(a: SessionSummary, b: SessionSummary): number {
  return (Date.parse(b.updated ?? '') || 0) - (Date.parse(a.updated ?? '') || 0);
}

function offset(value: string | null): number {
  const n = Number(value);
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
}

/** `decodeURIComponent`, or undefined for malformed escapes (`%`, `%E0`): a 400, not a 500. */
function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * The viewer's base path for a token: `/v/` + the first 16 bytes (32 hex
 * digits) of HMAC-SHA256(token, "amplifier-view-path") + `/`. Stable for a
 * given token (a `--token` user keeps the URL), unguessable without it.
 */
export function basePath(token: string): string {
  const hex = createHmac('sha256', token)
    .update('amplifier-view-path')
    .digest()
    .subarray(0, 16)
    .toString('hex');
  return `/v/${hex}/`;
}

export async function startViewer(options: ViewerOptions = {}): Promise<Viewer> {
  const home = path.resolve(options.home ?? amplifierHome());
  const root = assetRoot();
  const page = fs.readFileSync(path.join(root, 'client', 'index.html'), 'utf8');
  const index = new SessionIndex(home);
  const reader = new SessionReader(options.limits);
  const streams = new Set<() => void>();
  const token = options.token ?? newToken();
  const base = basePath(token);
  let port = 0;
  // The cookie name carries the port: cookies are shared by every port of a host.
  let gate = createGate({ token, boundHost: '127.0.0.1' });

  const summaries = async (): Promise<SessionSummary[]> => {
    const out: SessionSummary[] = [];
    for (const folder of index.scan()) out.push(await reader.summary(folder));
    return out.sort(byNewest);
  };

  const handle = async (request: http.IncomingMessage, response: http.ServerResponse): Promise<void> => {
    if (!gate.admit(request, response)) return;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      json(response, 405, { error: 'Only GET is supported.' });
      return;
    }
    const url = new URL(request.url ?? '/', `http://127.0.0.1:${port}`);
    if (url.pathname === base.slice(0, -1)) {
      response.writeHead(301, { location: `${base}${url.search}`, 'cache-control': 'no-store' });
      response.end();
      return;
    }
    if (!url.pathname.startsWith(base)) {
      json(response, 404, {
        error: "Nothing here: the viewer's pages are under the URL it printed at start.",
      });
      return;
    }
    // Routes are relative to the base; `route` is the same path seen from `/`.
    const route = `/${url.pathname.slice(base.length)}`;
    if (route === '/' || route === '/index.html') {
      const nonce = randomBytes(16).toString('base64');
      response.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'content-security-policy': `default-src 'self'; script-src 'self' 'nonce-${nonce}'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'`,
        'x-content-type-options': 'nosniff',
      });
      response.end(page.replaceAll('%NONCE%', nonce));
      return;
    }
    if (route.startsWith('/assets/')) {
      const rel = decoded(route.slice('/assets/'.length));
      if (rel === undefined) {
        json(response, 400, {
          error: `Malformed percent-encoding in ${route.slice(1)}: send a path with valid %XX escapes.`,
        });
        return;
      }
      const asset = readAsset(root, rel);
      if (asset === undefined) {
        json(response, 404, { error: `No asset ${route.slice(1)}.` });
        return;
      }
      response.writeHead(200, { 'content-type': asset.type, 'x-content-type-options': 'nosniff' });
      response.end(asset.body);
      return;
    }
    if (route === '/api/sessions') {
      json(response, 200, { home, sessions: await summaries() });
      return;
    }
    const match = /^\/api\/sessions\/([^/]+)(\/live)?$/.exec(route);
    if (match !== null) {
      const id = decoded(match[1]!);
      if (id === undefined) {
        json(response, 400, {
          error: `Malformed percent-encoding in ${route.slice(1)}: send a session id with valid %XX escapes.`,
        });
        return;
      }
      const folder = index.get(id);
      if (folder === undefined) {
        json(response, 404, { error: `No session '${id}' under ${path.join(home, 'projects')}.` });
        return;
      }
      if (match[2] === undefined) {
        const children = (await summaries()).filter((s) => s.parentId === id);
        json(response, 200, await reader.detail(folder, children));
        return;
      }
      response.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      response.write(': live\n\n');
      const stop = streamSession(response, {
        folder,
        offsets: {
          events: offset(url.searchParams.get('events')),
          transcript: offset(url.searchParams.get('transcript')),
        },
        summary: () => reader.summary(folder),
        pollMs: options.pollMs ?? 500,
      });
      streams.add(stop);
      request.on('close', () => {
        stop();
        streams.delete(stop);
      });
      return;
    }
    json(response, 404, { error: `Nothing at ${route.slice(1)}.` });
  };

  const server = http.createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      // A bug or an unreadable file: this request fails, the server goes on.
      if (!response.headersSent) json(response, 500, { error: (error as Error).message });
      else response.end();
    });
  });
  server.on('upgrade', (request: http.IncomingMessage, socket) => {
    if (!gate.admitUpgrade(request, socket)) return;
    socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  gate = createGate({
    token,
    boundHost: '127.0.0.1',
    cookieName: `amplifier-view-${port}`,
    cookiePath: base,
    allowedHosts: options.allowedHosts ?? [],
    allowedOrigins: options.allowedOrigins ?? [],
  });
  return {
    url: `http://127.0.0.1:${port}${base}`,
    base,
    token,
    tokenUrl: `http://127.0.0.1:${port}${base}?token=${encodeURIComponent(token)}`,
    port,
    home,
    close: async () => {
      for (const stop of streams) stop();
      streams.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
