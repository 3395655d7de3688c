/**
 * `amplifier serve --durable` as a real process: a local restate-server from
 * the npm binary, the worker, a turn through Restate's ingress with the
 * offline mock provider, and a clean stop that takes the server down.
 */
import fs, { rmSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import path from 'node:path';
import { findRestateServerBinary, startLocalRestate } from '@amplifier/durable-restate';
import { skipUnless, tcpListenPorts } from '@amplifier/testing';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CliProcess, cliEnv, removeTempDirs, runCli, tempDir } from './__fixtures__/cli.js';
import { otherUser, probeScript } from './__fixtures__/other-user.js';

afterAll(removeTempDirs);

const missing = skipUnless(
  findRestateServerBinary() !== undefined,
  'the restate-server binary for this platform',
);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(missing)('amplifier serve --durable', () => {
  it('starts a local server and a worker, runs a turn sent to the gated front, and stops both on SIGTERM', async () => {
    const { cli, ready } = await startDurable();
    expect(alive(ready.restate_pid)).toBe(true);
    const response = await fetch(`${ready.ingress_url}/${ready.object}/demo/turn`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'idempotency-key': 'turn-1',
        authorization: `Bearer ${ready.token}`,
      },
      body: JSON.stringify({ prompt: 'hello durable' }),
    });
    expect(response.status).toBe(200);
    const turn = (await response.json()) as { session_id: string; answer: string };
    expect(turn.session_id).toBe('demo');
    expect(turn.answer).toContain('hello durable');
    cli.kill('SIGTERM');
    const exit = await cli.done();
    expect(exit.code).toBe(0);
    expect(alive(ready.restate_pid)).toBe(false);
    expect(fs.existsSync(ready.runtime_file)).toBe(false);
  });
});

interface Ready {
  ingress_url: string;
  token: string;
  admin_url: string | null;
  admin_socket: string;
  worker_url: string;
  object: string;
  restate_pid: number;
  runtime_file: string;
}

const started: CliProcess[] = [];
afterEach(async () => {
  for (const cli of started.splice(0)) {
    cli.kill('SIGTERM');
    await cli.done();
  }
});

async function startDurable(
  extra: string[] = [],
  env: Record<string, string | undefined> = {},
): Promise<{ cli: CliProcess; ready: Ready; home: string }> {
  const home = tempDir();
  const runtimeDir = tempDir('amp-xdg-');
  fs.chmodSync(runtimeDir, 0o755);
  const cli = new CliProcess(['serve', '--durable', '--provider', 'mock', '--json', ...extra], {
    cwd: home,
    env: cliEnv(home, { AMPLIFIER_DURABLE_TOKEN: undefined, XDG_RUNTIME_DIR: runtimeDir, ...env }),
  });
  await cli.waitFor('stdout', /\n/);
  const ready = JSON.parse(cli.stdout.split('\n')[0]!) as Ready;
  return { cli, ready, home };
}

/** A raw request: status, headers and body. */
function request(
  url: string,
  headers: Record<string, string>,
  method = 'POST',
  body = '{"prompt":"x"}',
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(method === 'GET' || method === 'OPTIONS' ? undefined : body);
  });
}

describe.skipIf(missing)('amplifier serve --durable: attacks', () => {
  it('the front needs the token on every path, checks Host and Origin, and sends no CORS', async () => {
    const { cli, ready } = await startDurable();
    started.push(cli);
    const base = ready.ingress_url;
    const paths = [
      `/${ready.object}/demo/turn`,
      `/${ready.object}/demo/turn/send`,
      '/restate/health',
      '/restate/invocation/inv_1/attach',
      '/',
    ];
    for (const p of paths) {
      expect((await request(`${base}${p}`, {})).status, p).toBe(401);
      expect((await request(`${base}${p}`, { authorization: `Bearer ${ready.token}x` })).status, p).toBe(401);
    }
    const authorization = `Bearer ${ready.token}`;
    for (const host of ['evil.example', `evil.example:${new URL(base).port}`, '1.2.3.4']) {
      expect((await request(`${base}/restate/health`, { host, authorization }, 'GET')).status, host).toBe(
        403,
      );
    }
    for (const origin of ['http://evil.example', 'http://1.2.3.4', 'null']) {
      const answer = await request(`${base}/${ready.object}/demo/turn`, { origin, authorization });
      expect(answer.status, origin).toBe(403);
      expect(Object.keys(answer.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    }
    // Restate's own ingress reflects Origin with credentials; through the front nothing of it shows.
    const own = new URL(base).origin;
    for (const origin of ['http://evil.example', own]) {
      const preflight = await request(
        `${base}/${ready.object}/demo/turn`,
        { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
        'OPTIONS',
      );
      expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    }
    const health = await request(`${base}/restate/health`, { authorization, origin: own }, 'GET');
    expect(health.status).toBe(200);
    expect(Object.keys(health.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it("Restate's admin API and /query are on no TCP address: not through the front, not with the token; only on its socket in the 0700 data dir", async () => {
    const { cli, ready } = await startDurable();
    started.push(cli);
    expect(ready.admin_url).toBeNull();
    const authorization = `Bearer ${ready.token}`;
    for (const p of ['/query', '/deployments', '/health', '/invocations/inv_1/cancel', '/v1/query']) {
      const answer = await request(
        `${ready.ingress_url}${p}`,
        { authorization },
        'POST',
        '{"query":"SELECT * FROM state"}',
      );
      expect(answer.status, p).not.toBe(200);
      expect(answer.body, p).not.toContain('"rows"');
      expect(answer.body, p).not.toMatch(/"deployments"\s*:/);
    }
    // The admin socket lives under the 0700 data directory (Restate's node folder inside it is 0755).
    expect(fs.statSync(path.dirname(path.dirname(ready.admin_socket))).mode & 0o777).toBe(0o700);
    // restate-server listens on no TCP port at all.
    expect(tcpListenPorts(ready.restate_pid)).toEqual([]);
  });

  it('the worker takes only calls Restate signed', async () => {
    const { cli, ready } = await startDurable();
    started.push(cli);
    const status = await new Promise<number>((resolve, reject) => {
      const session = http2.connect(ready.worker_url);
      session.on('error', reject);
      const req = session.request({
        ':path': '/discover',
        accept: 'application/vnd.restate.endpointmanifest.v3+json',
      });
      req.on('response', (h) => {
        resolve(Number(h[':status']));
        session.destroy();
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(401);
  });

  it('the token differs per start, its runtime file is 0600 in a 0700 dir; an off-loopback --host without a token is refused before binding', async () => {
    const a = await startDurable();
    started.push(a.cli);
    const b = await startDurable();
    started.push(b.cli);
    expect(a.ready.token).not.toBe(b.ready.token);
    expect(Buffer.from(a.ready.token, 'base64url')).toHaveLength(32);
    expect(fs.statSync(a.ready.runtime_file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(a.ready.runtime_file)).mode & 0o777).toBe(0o700);
    expect(JSON.parse(fs.readFileSync(a.ready.runtime_file, 'utf8'))).toMatchObject({ token: a.ready.token });

    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '0.0.0.0', resolve));
    const { port } = blocker.address() as net.AddressInfo;
    try {
      for (const host of ['0.0.0.0', '::', '192.0.2.7']) {
        const home = tempDir();
        const refused = await runCli(
          ['serve', '--durable', '--provider', 'mock', '--host', host, '--port', String(port)],
          {
            cwd: home,
            env: cliEnv(home, { AMPLIFIER_DURABLE_TOKEN: undefined }),
          },
        );
        expect(refused.code, host).toBe(2);
        expect(refused.stderr).toContain(`--host ${host} is not a loopback address`);
        expect(refused.stderr).not.toContain('already in use');
      }
    } finally {
      blocker.close();
    }
  });

  const other = otherUser();
  const noOther = skipUnless(
    other !== undefined,
    'a second local user',
    'run the tests as root to create one',
  );
  it.skipIf(noOther)('another local uid cannot run a turn without the token', async () => {
    const { cli, ready } = await startDurable();
    started.push(cli);
    const url = `${ready.ingress_url}/${ready.object}/demo/turn`;
    const probe = await other!.node(
      probeScript(url, {
        headers: { 'content-type': 'application/json', 'idempotency-key': 'x' },
        body: '{"prompt":"pwn"}',
        file: ready.runtime_file,
      }),
    );
    expect(probe.stdout).toContain('status 401');
    expect(probe.stdout).toContain('file EACCES');
    // Restate's own sockets (admin with /query, ingress) are in the 0700 data dir: not even a connection.
    for (const socketPath of [
      ready.admin_socket,
      ready.admin_socket.replace(/admin\.sock$/, 'ingress.sock'),
    ]) {
      const direct = await other!.node(
        probeScript('http://localhost/query', { socketPath, body: '{"query":"SELECT * FROM state"}' }),
      );
      expect(direct.stdout, socketPath).toContain('error EACCES');
    }
  });
});

describe.skipIf(missing)('amplifier serve --durable against an existing cluster', () => {
  it('starts no server, registers with the given admin API and serves turns from its ingress', async () => {
    const home = tempDir();
    const restate = await startLocalRestate({ baseDir: `${home}/restate` });
    try {
      const cli = new CliProcess(['serve', '--durable', '--provider', 'mock', '--json'], {
        cwd: home,
        env: cliEnv(home, { RESTATE_ADMIN_URL: restate.adminUrl, RESTATE_INGRESS_URL: restate.ingressUrl }),
      });
      await cli.waitFor('stdout', /\n/);
      const ready = JSON.parse(cli.stdout.split('\n')[0]!) as {
        ingress_url: string;
        restate_pid: number | null;
      };
      expect(ready).toMatchObject({ ingress_url: restate.ingressUrl, restate_pid: null });
      const response = await fetch(`${restate.ingressUrl}/amplifier-session/remote/turn`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'r1' },
        body: JSON.stringify({ prompt: 'hello cluster' }),
      });
      expect(((await response.json()) as { answer: string }).answer).toContain('hello cluster');
      cli.kill('SIGTERM');
      expect((await cli.done()).code).toBe(0);
      expect(alive(restate.pid)).toBe(true); // not ours to stop
    } finally {
      await restate.kill();
      rmSync(`${home}/restate`, { recursive: true, force: true });
    }
  });
});

describe('amplifier serve', () => {
  it('without a restate-server binary, says so and how to use an existing cluster', async () => {
    const home = tempDir();
    const result = await runCli(['serve', '--durable', '--provider', 'mock'], {
      cwd: home,
      env: cliEnv(home, { AMPLIFIER_RESTATE_SERVER_BIN: `${home}/no-such-binary` }),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('No restate-server binary');
    expect(result.stderr).toContain('--restate-admin-url');
  });

  it("against an existing cluster, an off-loopback worker needs the cluster's request identity key, and --token is refused", async () => {
    const home = tempDir();
    const cluster = [
      '--restate-admin-url',
      'http://127.0.0.1:9',
      '--restate-ingress-url',
      'http://127.0.0.1:9',
    ];
    for (const host of ['0.0.0.0', '10.0.0.5']) {
      const open = await runCli(['serve', '--durable', '--provider', 'mock', ...cluster, '--host', host], {
        cwd: home,
        env: cliEnv(home),
      });
      expect(open.code, host).toBe(2);
      expect(open.stderr).toContain('--restate-identity-key');
    }
    const token = await runCli(['serve', '--durable', '--provider', 'mock', ...cluster, '--token', 'abc'], {
      cwd: home,
      env: cliEnv(home),
    });
    expect(token.code).toBe(2);
    expect(token.stderr).toContain("--token protects the local server's front");
  });

  it('refuses half a cluster address and a serve without --durable', async () => {
    const home = tempDir();
    const half = await runCli(['serve', '--durable', '--restate-admin-url', 'http://127.0.0.1:9070'], {
      cwd: home,
      env: cliEnv(home),
    });
    expect(half.code).toBe(2);
    expect(half.stderr).toContain('--restate-ingress-url');
    const plain = await runCli(['serve'], { cwd: home, env: cliEnv(home) });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('serve --durable');
  });
});
