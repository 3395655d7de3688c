/**
 * The gate every local Amplifier HTTP service puts in front of every route
 * (pages, static assets, APIs, upgrades), in this order:
 *
 * 1. Host: exactly one Host header naming a loopback name (`localhost`,
 *    `127.0.0.1`, `[::1]`, any valid port), the address the server is bound
 *    to, or a configured name; an absolute-form request target
 *    (`GET http://name/ HTTP/1.1`) must name one too; else 403, even with a
 *    valid token (DNS rebinding). Other spellings (`localhost.`, `127.1`,
 *    `0x7f.1`, `[::ffff:127.0.0.1]`) are refused, not normalized.
 * 2. Origin: absent is a non-browser client (it still needs the token);
 *    present (once) must be exactly, as a browser serializes it, this
 *    server's own origin (`http://` + the Host it asked for) or a configured
 *    one, else 403. `null` and IP literals get
 *    no special trust.
 * 3. Token: `Authorization: Bearer <token>`, or (when the service enables
 *    it for a browser UI) the cookie that `?token=` was traded for; compared
 *    in constant time; else 401.
 *
 * The gate never writes CORS headers: no Origin is reflected, no `*`, no
 * `Access-Control-Allow-Credentials`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import os from 'node:os';
import { isLoopbackHost } from './addresses.js';

export interface GateOptions {
  /**
   * The credential. A string: every request must carry it. `null`: the
   * transport already authenticates the peer (a 0600 unix socket), so only
   * Host and Origin are checked.
   */
  token: string | null;
  /**
   * The address the server binds (`127.0.0.1`, `192.168.1.5`), accepted as a
   * Host name; for `0.0.0.0` or `::`, the machine's interface addresses are.
   */
  boundHost?: string;
  /** More Host names accepted (`--allow-host`), with or without a port; compared case-insensitively. */
  allowedHosts?: readonly string[];
  /** More browser origins accepted (`--allow-origin`): `scheme://host[:port]`. */
  allowedOrigins?: readonly string[];
  /**
   * For a browser UI: the cookie name that `GET <path>?token=<token>` is
   * traded for (`HttpOnly; SameSite=Strict; Path=<cookiePath>`), then accepted as the
   * credential. Unset: bearer header only.
   */
  cookieName?: string;
  /**
   * The cookie's `Path` (default `/`). Cookies are not isolated by port, so
   * a UI served under a secret base path (`/v/<hex>/`) scopes its cookie to
   * it: a server on another port of the same host never receives it. Must
   * start and end with `/` and hold only unreserved URL path characters
   * (letters, digits, `-._~`, `/`); a malformed one is refused.
   */
  cookiePath?: string;
}

/** Why a request was refused: the status, a sentence for the client, headers to send. */
export interface GateRefusal {
  status: 401 | 403;
  message: string;
  headers: Record<string, string>;
}

/** What the gate decided for one request. */
export type GateDecision =
  | { kind: 'pass' }
  /** `?token=` was right: send this redirect (it sets the cookie and drops the token from the URL). */
  | { kind: 'redirect'; location: string; headers: Record<string, string> }
  | { kind: 'refuse'; refusal: GateRefusal };

export interface Gate {
  /** Decide for one request (no side effects). */
  check(request: http.IncomingMessage): GateDecision;
  /**
   * For a `request` handler: true when the request may go on; otherwise the
   * refusal or the cookie redirect is written (with `render` for the body of
   * a refusal, default `{"error": message}` JSON) and false is returned.
   */
  admit(
    request: http.IncomingMessage,
    response: http.ServerResponse,
    render?: (response: http.ServerResponse, refusal: GateRefusal) => void,
  ): boolean;
  /** For an `upgrade` handler: true when the upgrade may go on; otherwise a raw 401/403 is written and the socket closed. */
  admitUpgrade(request: http.IncomingMessage, socket: NodeJS.WritableStream & { destroy(): void }): boolean;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Constant-time comparison that leaks neither the content nor the length of the wanted token. */
export function tokenEquals(given: string, wanted: string): boolean {
  return timingSafeEqual(digest(given), digest(wanted));
}

/** `localhost:8080` → `localhost`; `[::1]:80` → `[::1]`; lowercased. Undefined for a malformed header. */
export function hostNameOf(hostHeader: string): string | undefined {
  const header = hostHeader.trim().toLowerCase();
  if (header === '') return undefined;
  if (header.startsWith('[')) {
    const end = header.indexOf(']');
    if (end < 0) return undefined;
    const rest = header.slice(end + 1);
    if (rest !== '' && !isPort(rest)) return undefined;
    return header.slice(0, end + 1);
  }
  const colon = header.indexOf(':');
  if (colon < 0) return header;
  if (!isPort(header.slice(colon))) return undefined;
  return header.slice(0, colon);
}

/** `:8080`: a colon and a TCP port (1 to 65535). */
function isPort(text: string): boolean {
  const match = /^:(\d{1,5})$/.exec(text);
  return match !== null && Number(match[1]) >= 1 && Number(match[1]) <= 65535;
}

/** How many times the request carried header `name` (Node keeps only the first Host, Authorization or Origin). */
function headerCount(request: http.IncomingMessage, name: string): number {
  let count = 0;
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    if (request.rawHeaders[i]!.toLowerCase() === name) count++;
  }
  return count;
}

/**
 * The authority of an absolute-form request target (`GET http://evil/ HTTP/1.1`),
 * which HTTP says wins over the Host header; `null` for the usual origin
 * form (`/path`) and `*`; undefined when it cannot be read.
 */
function targetAuthority(target: string): string | null | undefined {
  if (target.startsWith('/') || target === '*') return null;
  const match = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(target);
  return match === null ? undefined : match[1];
}

function bracketed(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function cookieValue(cookieHeader: string | undefined, name: string): string | undefined {
  if (cookieHeader === undefined) return undefined;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function normalizeOrigin(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

/**
 * An Origin header as a browser sends it: exactly its serialized form
 * (`scheme://host[:port]`, lowercase, no default port, no path, user or
 * trailing slash); anything else is not an origin and is refused.
 */
function exactOrigin(header: string): string | undefined {
  const normal = normalizeOrigin(header);
  return normal === header ? normal : undefined;
}

const COOKIE_NAME = /^[A-Za-z0-9_-]+$/;
/** `/`, or `/a/b/`: unreserved characters in segments, no empty, `.` or `..` segment. */
const COOKIE_PATH = /^\/(?:[A-Za-z0-9._~-]+\/)*$/;

function cookiePathOk(value: string): boolean {
  return COOKIE_PATH.test(value) && !value.split('/').some((segment) => segment === '.' || segment === '..');
}

/** Headers a request may carry once (lowercase name, name in messages). */
const SINGLE_HEADERS: readonly (readonly [string, string])[] = [
  ['host', 'Host'],
  ['origin', 'Origin'],
  ['authorization', 'Authorization'],
];

/** Make the gate of one server. Throws for a malformed option (a cookie name that is not a token, a malformed cookie path). */
export function createGate(options: GateOptions): Gate {
  if (options.token !== null && options.token.length === 0) {
    throw new TypeError('The gate needs a non-empty token, or null for a unix socket (got an empty string).');
  }
  if (options.cookieName !== undefined && !COOKIE_NAME.test(options.cookieName)) {
    throw new TypeError(
      `The gate's cookie name must be letters, digits, '-' or '_' (got '${options.cookieName}').`,
    );
  }
  const cookiePath = options.cookiePath ?? '/';
  if (!cookiePathOk(cookiePath)) {
    throw new TypeError(
      `The gate's cookie path must start and end with '/' and hold only letters, digits, '-', '.', '_', '~' and '/' (no '.' or '..' segment), like '/v/abc/' (got '${cookiePath}').`,
    );
  }
  const hosts = new Set<string>();
  const bound = options.boundHost?.toLowerCase();
  if (bound === '0.0.0.0' || bound === '::' || bound === '[::]') {
    // Every address: the machine's own interface addresses name it (a host name still needs allowedHosts).
    for (const list of Object.values(os.networkInterfaces())) {
      for (const info of list ?? []) hosts.add(bracketed(info.address.toLowerCase()));
    }
  } else if (bound !== undefined) {
    hosts.add(bracketed(bound));
  }
  const hostsWithPort = new Set<string>();
  for (const allowed of options.allowedHosts ?? []) {
    const lower = allowed.trim().toLowerCase();
    if (hostNameOf(lower) === lower) hosts.add(bracketed(lower));
    else hostsWithPort.add(lower);
  }
  const origins = new Set<string>();
  for (const origin of options.allowedOrigins ?? []) {
    const normal = normalizeOrigin(origin);
    if (normal !== undefined) origins.add(normal);
  }

  const hostAllowed = (header: string): boolean => {
    if (hostsWithPort.has(header.trim().toLowerCase())) return true;
    const name = hostNameOf(header);
    if (name === undefined) return false;
    return isLoopbackHost(name) || hosts.has(name);
  };

  const refuse = (
    status: 401 | 403,
    message: string,
    headers: Record<string, string> = {},
  ): GateDecision => ({
    kind: 'refuse',
    refusal: { status, message, headers },
  });

  const check = (request: http.IncomingMessage): GateDecision => {
    for (const [name, shown] of SINGLE_HEADERS) {
      // Two of them are two answers to one question: a proxy or another parser may pick the other one.
      if (headerCount(request, name) > 1) {
        return refuse(403, `Forbidden: the request carries more than one ${shown} header. Send one.`);
      }
    }
    const authority = targetAuthority(request.url ?? '/');
    if (authority !== null && (authority === undefined || !hostAllowed(authority))) {
      return refuse(
        403,
        `Forbidden: this server does not answer for the request target '${request.url ?? ''}'. Send a path (GET /...), not a URL for another host.`,
      );
    }
    const hostHeader = request.headers.host;
    if (hostHeader === undefined || !hostAllowed(hostHeader)) {
      return refuse(
        403,
        `Forbidden: this server does not answer for Host '${hostHeader ?? '(none)'}'. Use its loopback URL, or allow the name when starting it (--allow-host).`,
      );
    }
    const originHeader = request.headers.origin;
    if (originHeader !== undefined) {
      const host = hostHeader.trim().toLowerCase();
      const own = [normalizeOrigin(`http://${host}`), normalizeOrigin(`https://${host}`)];
      const normal = exactOrigin(originHeader);
      const ok = normal !== undefined && (own.includes(normal) || origins.has(normal));
      if (!ok) {
        return refuse(
          403,
          `Forbidden: requests from the web page at Origin '${originHeader}' are not allowed. Open this server's own URL, or allow that origin when starting it (--allow-origin).`,
        );
      }
    }
    if (options.token === null) return { kind: 'pass' };
    const token = options.token;
    const authorization = request.headers.authorization;
    if (authorization !== undefined) {
      const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
      if (match !== null && tokenEquals(match[1]!, token)) return { kind: 'pass' };
      return refuse(
        401,
        "Unauthorized: the bearer token is not this server's. Use the token it printed at start.",
        {
          'www-authenticate': 'Bearer error="invalid_token"',
        },
      );
    }
    if (options.cookieName !== undefined) {
      const cookie = cookieValue(request.headers.cookie, options.cookieName);
      if (cookie !== undefined && tokenEquals(cookie, token)) return { kind: 'pass' };
      const url = new URL(request.url ?? '/', 'http://gate.invalid');
      const query = url.searchParams.get('token');
      if (query !== null && (request.method === 'GET' || request.method === 'HEAD')) {
        if (!tokenEquals(query, token)) {
          return refuse(
            401,
            "Unauthorized: the token in the URL is not this server's. Open the URL it printed at start.",
          );
        }
        url.searchParams.delete('token');
        const location = `${url.pathname}${url.search}`;
        return {
          kind: 'redirect',
          location,
          headers: {
            location,
            'set-cookie': `${options.cookieName}=${token}; HttpOnly; SameSite=Strict; Path=${cookiePath}`,
            'cache-control': 'no-store',
          },
        };
      }
    }
    return refuse(
      401,
      options.cookieName === undefined
        ? 'Unauthorized: send Authorization: Bearer <token> with the token this server printed at start.'
        : 'Unauthorized: open the URL with ?token= that this server printed at start, or send Authorization: Bearer <token>.',
      { 'www-authenticate': 'Bearer' },
    );
  };

  const renderJson = (response: http.ServerResponse, refusal: GateRefusal): void => {
    response.writeHead(refusal.status, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      ...refusal.headers,
    });
    response.end(JSON.stringify({ error: refusal.message }));
  };

  return {
    check,
    admit(request, response, render = renderJson) {
      const decision = check(request);
      if (decision.kind === 'pass') return true;
      if (decision.kind === 'redirect') {
        response.writeHead(302, decision.headers);
        response.end();
        return false;
      }
      render(response, decision.refusal);
      return false;
    },
    admitUpgrade(request, socket) {
      const decision = check(request);
      if (decision.kind === 'pass') return true;
      const status = decision.kind === 'refuse' ? decision.refusal.status : 401;
      const reason = status === 403 ? 'Forbidden' : 'Unauthorized';
      const body =
        decision.kind === 'refuse' ? decision.refusal.message : 'Unauthorized: send the bearer token.';
      socket.write(
        `HTTP/1.1 ${status} ${reason}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
      socket.destroy();
      return false;
    },
  };
}
