/**
 * The gate in front of a real node:http server on 127.0.0.1, attacked with
 * raw requests: no token, a wrong one, foreign Host names (DNS rebinding),
 * foreign Origins (web pages, IP literals, `null`), CORS preflights, the
 * `?token=` to cookie trade, and upgrades.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createGate, type GateOptions, hostNameOf, tokenEquals } from './gate.js';
import { newToken } from './token.js';

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** A server whose every route (page, asset, API) answers 200 behind the gate, and refuses upgrades it has not passed. */
async function gated(options: Partial<GateOptions> = {}): Promise<{ port: number; token: string }> {
  const token = newToken();
  const gate = createGate({ token, boundHost: '127.0.0.1', ...options });
  const server = http.createServer((request, response) => {
    if (!gate.admit(request, response)) return;
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end(`route ${request.url}`);
  });
  server.on('upgrade', (request, socket) => {
    if (!gate.admitUpgrade(request, socket)) return;
    socket.end('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, token };
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function request(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path, method, headers: { host: `127.0.0.1:${port}`, ...headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
    });
    req.on('error', reject);
    req.end();
  });
}

function noCors(answer: Answer): void {
  for (const name of Object.keys(answer.headers)) expect(name).not.toMatch(/^access-control-/);
}

const ROUTES = [
  '/',
  '/index.html',
  '/assets/app.js',
  '/assets/../../etc/passwd',
  '/api/sessions',
  '/mcp',
  '/nowhere',
];

describe('the token', () => {
  it('without it every route, static assets included, answers 401 and shows nothing', async () => {
    const { port } = await gated();
    for (const route of ROUTES) {
      const answer = await request(port, route);
      expect(answer.status, route).toBe(401);
      expect(answer.body).not.toContain('route');
      expect(answer.headers['www-authenticate']).toMatch(/^Bearer/);
    }
  });

  it('a wrong, truncated, longer, empty or differently-schemed token is refused; the right one passes', async () => {
    const { port, token } = await gated();
    const wrong = [
      `Bearer ${newToken()}`,
      `Bearer ${token.slice(0, -1)}`,
      `Bearer ${token}x`,
      'Bearer ',
      `Basic ${token}`,
      `Token ${token}`,
      token,
      `Bearer ${token} ${token}`,
    ];
    for (const authorization of wrong) {
      expect((await request(port, '/api/sessions', { authorization })).status, authorization).toBe(401);
    }
    expect((await request(port, '/api/sessions', { authorization: `Bearer ${token}` })).status).toBe(200);
    expect((await request(port, '/api/sessions', { authorization: `bearer ${token}` })).status).toBe(200);
  });

  it('a token in the query string is not a credential for an API client without the cookie trade', async () => {
    const { port, token } = await gated();
    expect((await request(port, `/api/sessions?token=${token}`)).status).toBe(401);
  });

  it('compares in constant time over digests: equal strings only', () => {
    expect(tokenEquals('abc', 'abc')).toBe(true);
    expect(tokenEquals('abc', 'abd')).toBe(false);
    expect(tokenEquals('abc', 'abcd')).toBe(false);
    expect(tokenEquals('', 'abc')).toBe(false);
  });

  it('refuses an empty token and a cookie name that would break the header', () => {
    expect(() => createGate({ token: '' })).toThrow(/non-empty token/);
    expect(() => createGate({ token: 'x', cookieName: 'a;b=c' })).toThrow(/cookie name/);
  });
});

describe('the Host check (DNS rebinding)', () => {
  const foreign = [
    'evil.example',
    'evil.example:80',
    '127.0.0.1.evil.example',
    'localhost.evil.example',
    'localhost@evil.example',
    '1.2.3.4',
    '0.0.0.0',
    '[::ffff:127.0.0.1].evil',
    '127.0.0.2',
    'localhost:abc',
  ];

  it('answers 403 to a foreign Host before routing, even with the right token', async () => {
    const { port, token } = await gated();
    for (const host of foreign) {
      const answer = await request(port, '/api/sessions', { host, authorization: `Bearer ${token}` });
      expect(answer.status, host).toBe(403);
      expect(answer.body).not.toContain('route');
      noCors(answer);
    }
  });

  it('accepts the loopback names on any port, the bound address and configured names', async () => {
    const { port, token } = await gated({ allowedHosts: ['box.internal', 'proxy.example:8443'] });
    const authorization = `Bearer ${token}`;
    for (const host of [
      'localhost',
      `LOCALHOST:${port}`,
      `127.0.0.1:${port}`,
      '[::1]:9',
      'box.internal:1',
      'proxy.example:8443',
    ]) {
      expect((await request(port, '/', { host, authorization })).status, host).toBe(200);
    }
    expect((await request(port, '/', { host: 'proxy.example:9', authorization })).status).toBe(403);
  });

  it('reads host names the way a Host header is written', () => {
    expect(hostNameOf('LocalHost:80')).toBe('localhost');
    expect(hostNameOf('[::1]:80')).toBe('[::1]');
    expect(hostNameOf('[::1]x')).toBeUndefined();
    expect(hostNameOf('a:b:c')).toBeUndefined();
    expect(hostNameOf('')).toBeUndefined();
  });
});

describe('the Origin check and CORS', () => {
  const hostile = [
    'http://evil.example',
    'https://evil.example',
    'http://1.2.3.4',
    'http://1.2.3.4:8080',
    'http://127.0.0.1.evil.example',
    'null',
    'file://',
    'chrome-extension://abcdef',
    'http://localhost:1',
    'not a url',
  ];

  it('answers 403 to a foreign Origin even with the token, and reflects nothing', async () => {
    const { port, token } = await gated();
    for (const origin of hostile) {
      const answer = await request(port, '/api/sessions', { origin, authorization: `Bearer ${token}` });
      expect(answer.status, origin).toBe(403);
      expect(answer.body).not.toContain('route');
      noCors(answer);
    }
  });

  it('a CORS preflight never gets Access-Control-* (no Allow-Credentials, no reflected Origin)', async () => {
    const { port, token } = await gated();
    for (const origin of ['http://evil.example', `http://127.0.0.1:${port}`]) {
      for (const authorization of [undefined, `Bearer ${token}`]) {
        const answer = await request(
          port,
          '/api/sessions',
          {
            origin,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'authorization',
            ...(authorization && { authorization }),
          },
          'OPTIONS',
        );
        noCors(answer);
      }
    }
  });

  it('its own origin (the Host it was asked for) and configured origins pass with the token', async () => {
    const { port, token } = await gated({ allowedOrigins: ['https://app.example'] });
    const authorization = `Bearer ${token}`;
    expect((await request(port, '/', { origin: `http://127.0.0.1:${port}`, authorization })).status).toBe(
      200,
    );
    expect(
      (
        await request(port, '/', {
          host: `localhost:${port}`,
          origin: `http://localhost:${port}`,
          authorization,
        })
      ).status,
    ).toBe(200);
    expect((await request(port, '/', { origin: 'https://app.example', authorization })).status).toBe(200);
    // Its own origin without the token is still a 401.
    expect((await request(port, '/', { origin: `http://127.0.0.1:${port}` })).status).toBe(401);
    // Another loopback port is another web app.
    expect((await request(port, '/', { origin: `http://127.0.0.1:${port + 1}`, authorization })).status).toBe(
      403,
    );
  });
});

describe('the browser UI cookie', () => {
  it('?token= on a GET is traded for an HttpOnly SameSite=Strict cookie and dropped from the URL', async () => {
    const { port, token } = await gated({ cookieName: `amplifier-test-${process.pid}` });
    const answer = await request(port, `/session/abc?x=1&token=${token}`);
    expect(answer.status).toBe(302);
    expect(answer.headers.location).toBe('/session/abc?x=1');
    const cookie = answer.headers['set-cookie']![0]!;
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).toContain('Path=/');
    const pair = cookie.split(';')[0]!;
    expect((await request(port, '/assets/app.js', { cookie: pair })).status).toBe(200);
    expect((await request(port, '/api/sessions', { cookie: `other=1; ${pair}` })).status).toBe(200);
  });

  it('a wrong cookie, a wrong ?token= and a ?token= on a POST are refused', async () => {
    const name = `amplifier-test-${process.pid}`;
    const { port, token } = await gated({ cookieName: name });
    expect((await request(port, '/', { cookie: `${name}=${newToken()}` })).status).toBe(401);
    expect((await request(port, `/?token=${newToken()}`)).status).toBe(401);
    expect((await request(port, `/?token=${token}`, {}, 'POST')).status).toBe(401);
    // The cookie never stands in for a foreign Host or Origin.
    expect((await request(port, '/', { cookie: `${name}=${token}`, host: 'evil.example' })).status).toBe(403);
    expect(
      (await request(port, '/', { cookie: `${name}=${token}`, origin: 'http://evil.example' })).status,
    ).toBe(403);
  });
});

describe('upgrades', () => {
  it('an upgrade without the token gets 401, with a foreign Host 403, with the token it goes on', async () => {
    const { port, token } = await gated();
    const upgrade = { connection: 'Upgrade', upgrade: 'websocket' };
    expect((await request(port, '/ws', upgrade)).status).toBe(401);
    expect(
      (await request(port, '/ws', { ...upgrade, host: 'evil.example', authorization: `Bearer ${token}` }))
        .status,
    ).toBe(403);
    expect((await request(port, '/ws', { ...upgrade, authorization: `Bearer ${token}` })).status).toBe(101);
  });
});

describe('a unix socket gate (token null)', () => {
  it('still checks Host and Origin', async () => {
    const { port } = await gated({ token: null });
    expect((await request(port, '/')).status).toBe(200);
    expect((await request(port, '/', { host: 'evil.example' })).status).toBe(403);
    expect((await request(port, '/', { origin: 'http://evil.example' })).status).toBe(403);
  });
});
