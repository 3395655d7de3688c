import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { removeTempDirs, scriptedRun, tempDir } from '../__fixtures__/scripted-run.js';
import type { LiveUpdate, SessionDetail, SessionSummary } from '../model/summary.js';
import { basePath, startViewer, type Viewer } from './server.js';

const PYTHON_HOME = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '__fixtures__',
  'amplifier-home',
);

const viewers: Viewer[] = [];
afterEach(async () => {
  for (const v of viewers.splice(0)) await v.close();
  removeTempDirs();
});

async function viewer(home: string): Promise<Viewer> {
  const v = await startViewer({ home });
  viewers.push(v);
  return v;
}

/** fetch with the bearer token of the viewer the URL belongs to. */
function fetchAs(url: string, init: RequestInit = {}): Promise<Response> {
  const v = viewers.find((x) => url.startsWith(x.url));
  const headers = { ...(init.headers as Record<string, string> | undefined) };
  if (v !== undefined) headers.authorization = `Bearer ${v.token}`;
  return fetch(url, { ...init, headers });
}

async function getJson<T>(url: string): Promise<{ status: number; body: T }> {
  const response = await fetchAs(url);
  return { status: response.status, body: (await response.json()) as T };
}

/** A GET with a chosen Host header (fetch does not let a caller set it); `pathname` is relative to the viewer's base (`/api/...` is `<base>api/...`). */
function rawGet(
  port: number,
  pathname: string,
  host: string,
  method = 'GET',
  headers: Record<string, string> = {},
): Promise<number> {
  const v = viewers.find((x) => x.port === port);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path: v === undefined ? pathname : `${v.base}${pathname.slice(1)}`,
        method,
        headers: { host, ...(v !== undefined && { authorization: `Bearer ${v.token}` }), ...headers },
      },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on('error', reject);
    request.end();
  });
}

/** Reads server-sent events until `until` says enough; returns them all. */
async function readLive(
  url: string,
  until: (updates: LiveUpdate[]) => boolean,
  act: () => void,
): Promise<LiveUpdate[]> {
  const controller = new AbortController();
  const response = await fetchAs(url, { signal: controller.signal });
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const updates: LiveUpdate[] = [];
  let buffer = '';
  let acted = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end !== -1) {
        const chunk = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (chunk.startsWith('data: ')) updates.push(JSON.parse(chunk.slice(6)) as LiveUpdate);
        end = buffer.indexOf('\n\n');
      }
      // The first summary says the server follows the files: then the test writes.
      if (!acted && updates.some((u) => u.kind === 'summary')) {
        acted = true;
        act();
      }
      if (acted && until(updates)) break;
    }
  } finally {
    controller.abort();
  }
  return updates;
}

describe('the viewer server (real HTTP on 127.0.0.1)', () => {
  it('lists our sessions and Python Amplifier sessions, newest first, and serves one session', async () => {
    const home = tempDir();
    fs.cpSync(PYTHON_HOME, home, { recursive: true });
    const run = await scriptedRun(home);
    const v = await viewer(home);
    expect(v.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v\/[0-9a-f]{32}\/$/);
    expect(v.url).toBe(`http://127.0.0.1:${v.port}${v.base}`);
    const list = await getJson<{ home: string; sessions: SessionSummary[] }>(`${v.url}api/sessions`);
    expect(list.status).toBe(200);
    expect(list.body.sessions.map((s) => s.id)[0]).toBe(run.id);
    expect(list.body.sessions.map((s) => s.writer).sort()).toEqual([
      'amplifier',
      'amplifier',
      'amplifier-ts',
    ]);
    const detail = await getJson<SessionDetail>(`${v.url}api/sessions/${run.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.summary.toolCalls).toBe(5);
    expect(detail.body.messages.length).toBeGreaterThan(4);
    expect(detail.body.offsets.events).toBe(fs.statSync(path.join(run.dir, 'events.jsonl')).size);
    const python = list.body.sessions.find((s) => s.writer === 'amplifier' && s.parentId === null)!;
    const parent = await getJson<SessionDetail>(`${v.url}api/sessions/${encodeURIComponent(python.id)}`);
    expect(parent.body.children.map((c) => c.agent)).toEqual(['explorer']);
  });

  it('the page carries a CSP with a nonce for its import map; assets come from the package', async () => {
    const v = await viewer(tempDir());
    const response = await fetchAs(v.url);
    const csp = response.headers.get('content-security-policy') ?? '';
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeDefined();
    expect(csp).toContain("default-src 'self'");
    expect(await response.text()).toContain(`<script type="importmap" nonce="${nonce}">`);
    for (const asset of [
      'client/app.js',
      'vendor/preact.mjs',
      'vendor/hooks.mjs',
      'vendor/htm.mjs',
      'model/session-fold.js',
    ]) {
      const r = await fetchAs(`${v.url}assets/${asset}`);
      expect(r.status, asset).toBe(200);
      expect(r.headers.get('content-type')).toContain('javascript');
    }
  });

  it('refuses other hosts (DNS rebinding), other methods, paths out of the assets, unknown sessions', async () => {
    const home = tempDir();
    const v = await viewer(home);
    expect(await rawGet(v.port, '/api/sessions', 'evil.example:80')).toBe(403);
    expect(await rawGet(v.port, '/api/sessions', `[::1]:${v.port}`)).toBe(200);
    expect(await rawGet(v.port, '/api/sessions', `localhost:${v.port}`)).toBe(200);
    expect(await rawGet(v.port, '/api/sessions', `127.0.0.1:${v.port}`, 'POST')).toBe(405);
    expect(await rawGet(v.port, '/assets/client/../../package.json', `127.0.0.1:${v.port}`)).toBe(404);
    expect(await rawGet(v.port, '/assets/%2e%2e/package.json', `127.0.0.1:${v.port}`)).toBe(404);
    expect(await rawGet(v.port, '/assets/reader/session-reader.js', `127.0.0.1:${v.port}`)).toBe(404);
    // Other spellings of a way out of the asset folders: never a file outside them.
    for (const trick of [
      '/assets/client/%2e%2e/%2e%2e/package.json',
      '/assets/client%2f..%2f..%2fpackage.json',
      '/assets/client/..%2f..%2fpackage.json',
      '/assets/client/%2E%2E/%2E%2E/package.json',
      '/assets/client/..%5c..%5cpackage.json',
      '/assets/client//app.js',
      '/assets//etc/passwd',
      '/assets/%2fetc%2fpasswd.js',
      '/assets/client/app.js%00.html',
      '/assets/client/../../../../../../etc/passwd',
    ]) {
      expect(await rawGet(v.port, trick, `127.0.0.1:${v.port}`), trick).toBe(404);
    }
    // Malformed escapes are the client's error (400), not the server's (500).
    for (const bad of [
      '/assets/client/%',
      '/assets/client/%E0%A4%A.js',
      '/api/sessions/%zz',
      '/api/sessions/%E0/live',
    ]) {
      expect(await rawGet(v.port, bad, `127.0.0.1:${v.port}`), bad).toBe(400);
    }
    const missing = await getJson<{ error: string }>(`${v.url}api/sessions/..%2F..%2Fetc`);
    expect(missing.status).toBe(404);
    expect(missing.body.error).toContain("No session '../../etc'");
  });

  it('live: records appended to events.jsonl and transcript.jsonl arrive once, a line written in two parts once it is whole, garbage as a problem', async () => {
    const home = tempDir();
    const run = await scriptedRun(home, { status: 'running' });
    const v = await viewer(home);
    const detail = await getJson<SessionDetail>(`${v.url}api/sessions/${run.id}`);
    const { events, transcript } = detail.body.offsets;
    const line = JSON.stringify({
      ts: new Date().toISOString(),
      lvl: 'INFO',
      event: 'tool:pre',
      session_id: run.id,
      data: { tool_name: 'bash', tool_call_id: 'live_1', tool_input: { command: 'echo live' } },
    });
    const eventsFile = path.join(run.dir, 'events.jsonl');
    const updates = await readLive(
      `${v.url}api/sessions/${run.id}/live?events=${events}&transcript=${transcript}`,
      (us) =>
        us.some((u) => u.kind === 'problem') &&
        us.some((u) => u.kind === 'messages') &&
        us.some((u) => u.kind === 'events' && JSON.stringify(u.records).includes('live_1')),
      () => {
        fs.appendFileSync(eventsFile, line.slice(0, 40));
        fs.appendFileSync(eventsFile, `${line.slice(40)}\n{"broken\n`);
        fs.appendFileSync(path.join(run.dir, 'transcript.jsonl'), '{"role":"user","content":"and now?"}\n');
      },
    );
    const records = updates.flatMap((u) => (u.kind === 'events' ? u.records : []));
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ event: 'tool:pre', data: { tool_call_id: 'live_1' } });
    expect(updates.flatMap((u) => (u.kind === 'messages' ? u.messages : []))).toEqual([
      { role: 'user', content: 'and now?' },
    ]);
    expect(updates.find((u) => u.kind === 'problem')).toMatchObject({
      text: expect.stringContaining('is not valid JSON'),
    });
    // The server is still fine.
    expect((await fetchAs(`${v.url}api/sessions`)).status).toBe(200);
  });
});

/** A raw request to a viewer without any credential unless given: status and headers. */
function bare(
  v: Viewer,
  pathname: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port: v.port,
        path: pathname,
        method,
        headers: { host: `127.0.0.1:${v.port}`, ...headers },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (c: string) => {
          body += c;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        );
      },
    );
    request.on('error', reject);
    request.end();
  });
}

describe('the viewer behind its gate (attacks)', () => {
  async function withSession(): Promise<{ v: Viewer; routes: string[] }> {
    const home = tempDir();
    const run = await scriptedRun(home);
    const v = await viewer(home);
    const routes = [
      '',
      'index.html',
      'assets/client/app.js',
      'assets/vendor/preact.mjs',
      'assets/client/style.css',
      'api/sessions',
      `api/sessions/${run.id}`,
      `api/sessions/${run.id}/live?events=0&transcript=0`,
      'nowhere',
    ].map((route) => `${v.base}${route}`);
    // The routes as they were before the base path, and the base without its slash.
    routes.push('/', '/api/sessions', '/assets/client/app.js', v.base.slice(0, -1));
    return { v, routes };
  }

  it('without the token every route, static assets and the live stream included, is 401 and leaks nothing', async () => {
    const { v, routes } = await withSession();
    for (const route of routes) {
      for (const method of ['GET', 'HEAD', 'POST']) {
        const answer = await bare(v, route, {}, method);
        expect(answer.status, `${method} ${route}`).toBe(401);
        expect(answer.body).not.toContain('session');
      }
    }
    for (const authorization of [`Bearer ${v.token.slice(0, -2)}`, 'Bearer x', `Basic ${v.token}`, v.token]) {
      expect((await bare(v, `${v.base}api/sessions`, { authorization })).status, authorization).toBe(401);
    }
    const upgrade = await new Promise<number>((resolve, reject) => {
      const request = http.request({
        host: '127.0.0.1',
        port: v.port,
        path: `${v.base}api/sessions`,
        headers: { host: `127.0.0.1:${v.port}`, connection: 'Upgrade', upgrade: 'websocket' },
      });
      request.on('upgrade', (response, socket) => {
        socket.destroy();
        resolve(response.statusCode ?? 0);
      });
      request.on('response', (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
      request.end();
    });
    expect(upgrade).toBe(401);
  });

  it('a foreign Host is 403 even with the token, foreign Origins are 403 and nothing is reflected', async () => {
    const { v, routes } = await withSession();
    const authorization = `Bearer ${v.token}`;
    for (const route of routes.slice(0, 6)) {
      for (const host of [
        'evil.example',
        `evil.example:${v.port}`,
        '1.2.3.4',
        `127.0.0.1.evil.example:${v.port}`,
      ]) {
        expect((await bare(v, route, { host, authorization })).status, `${host} ${route}`).toBe(403);
      }
      for (const origin of [
        'http://evil.example',
        'http://1.2.3.4',
        'null',
        `http://localhost:${v.port + 1}`,
      ]) {
        const answer = await bare(v, route, { origin, authorization });
        expect(answer.status, `${origin} ${route}`).toBe(403);
        expect(Object.keys(answer.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
      }
    }
    const preflight = await bare(
      v,
      `${v.base}api/sessions`,
      { origin: 'http://evil.example', 'access-control-request-method': 'GET' },
      'OPTIONS',
    );
    expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('the printed ?token= URL is traded for an HttpOnly SameSite=Strict cookie scoped to the secret base path, and a wrong one is 401', async () => {
    const { v } = await withSession();
    expect(v.base).toMatch(/^\/v\/[0-9a-f]{32}\/$/);
    expect(v.tokenUrl).toBe(`${v.url}?token=${v.token}`);
    const trade = await bare(v, `${v.base}?token=${v.token}`);
    expect(trade.status).toBe(302);
    expect(trade.headers.location).toBe(v.base);
    const cookie = trade.headers['set-cookie']![0]!;
    expect(cookie).toMatch(new RegExp(`^amplifier-view-${v.port}=`));
    const attributes = cookie.split(';').map((part) => part.trim());
    expect(attributes).toContain('HttpOnly');
    expect(attributes).toContain('SameSite=Strict');
    // Cookies are shared by every port of a host: the Path keeps this one from a server on another port.
    expect(attributes.filter((a) => a.startsWith('Path='))).toEqual([`Path=${v.base}`]);
    const pair = cookie.split(';')[0]!;
    expect((await bare(v, `${v.base}assets/client/app.js`, { cookie: pair })).status).toBe(200);
    expect((await bare(v, `${v.base}api/sessions`, { cookie: pair })).status).toBe(200);
    expect((await bare(v, `${v.base}?token=${v.token.slice(1)}`)).status).toBe(401);
    expect((await bare(v, `${v.base}api/sessions`, { cookie: `amplifier-view-${v.port}=nope` })).status).toBe(
      401,
    );
  });

  it('outside the base path even the token gets a 404 that names nothing secret; the base without its slash redirects', async () => {
    const { v } = await withSession();
    const authorization = `Bearer ${v.token}`;
    const hex = v.base.split('/')[2]!;
    for (const outside of [
      '/',
      '/index.html',
      '/api/sessions',
      '/assets/client/app.js',
      '/v/',
      `/v/${hex.slice(0, -1)}/`,
      `/v/${hex.slice(0, -1)}${hex.endsWith('0') ? '1' : '0'}/api/sessions`,
      `/v/${hex.toUpperCase()}/api/sessions`,
      `/v/${hex}x/`,
      `/V/${hex}/`,
      `${v.base}../api/sessions`,
      `/x${v.base}`,
    ]) {
      const answer = await bare(v, outside, { authorization });
      expect(answer.status, outside).toBe(404);
      expect(answer.body, outside).not.toContain(hex);
      expect(answer.body, outside).not.toContain(v.token);
      expect(answer.headers.location, outside).toBeUndefined();
    }
    const redirect = await bare(v, `${v.base.slice(0, -1)}?x=1`, { authorization });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.location).toBe(`${v.base}?x=1`);
    // Without the token the base is no different from any other path.
    expect((await bare(v, v.base.slice(0, -1))).status).toBe(401);
  });

  it('the token differs per start unless given', async () => {
    const a = await viewer(tempDir());
    const b = await viewer(tempDir());
    expect(a.token).not.toBe(b.token);
    expect(Buffer.from(a.token, 'base64url')).toHaveLength(32);
    const given = await startViewer({ home: tempDir(), token: 'my-own-token' });
    viewers.push(given);
    expect(given.token).toBe('my-own-token');
    expect(
      (await bare(given, `${given.base}api/sessions`, { authorization: 'Bearer my-own-token' })).status,
    ).toBe(200);
    // The base path is the token's: a given token keeps its URL, another token gets another path.
    const again = await startViewer({ home: tempDir(), token: 'my-own-token' });
    viewers.push(again);
    expect(again.base).toBe(given.base);
    expect(basePath('my-own-token')).toBe(given.base);
    expect(basePath('my-own-token')).toBe(
      `/v/${createHmac('sha256', 'my-own-token').update('amplifier-view-path').digest('hex').slice(0, 32)}/`,
    );
    expect(a.base).not.toBe(b.base);
    expect(a.base).not.toContain(a.token);
  });
});
