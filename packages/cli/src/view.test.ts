import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { skipUnless } from '@amplifier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cliEnv, removeTempDirs, runCli, tempDir, writeMockPlan } from './__fixtures__/cli.js';
import { otherUser, probeScript } from './__fixtures__/other-user.js';

/** Start `amplifier view --no-open --port 0` over `home`: its token URL, the child, and its runtime dir. */
async function startView(
  home: string,
  cwd: string,
  extra: string[] = [],
  env: Record<string, string | undefined> = {},
): Promise<{
  url: URL;
  child: ReturnType<typeof spawn>;
  runtimeDir: string;
  exited: Promise<number | null>;
}> {
  const runtimeDir = tempDir('amp-xdg-');
  fs.chmodSync(runtimeDir, 0o755);
  const child = spawn(process.execPath, [BIN, 'view', '--no-open', '--port', '0', ...extra], {
    cwd,
    env: cliEnv(home, { AMPLIFIER_VIEW_TOKEN: undefined, XDG_RUNTIME_DIR: runtimeDir, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /Viewer: (http:\/\/127\.0\.0\.1:\d+\/v\/[0-9a-f]{32}\/\?token=\S+)/.exec(stderr);
      if (match && stderr.includes('mode 0600')) resolve(match[1]!);
    });
    child.on('exit', (code) => reject(new Error(`view exited with ${code}: ${stderr}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { url: new URL(url), child, runtimeDir, exited };
}

afterEach(removeTempDirs);

describe('amplifier view', () => {
  it('serves the stored sessions on 127.0.0.1 until Ctrl+C, without opening a browser with --no-open', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, ['Viewed answer.']);
    const ran = await runCli(['run', '--plan', plan, 'look at me'], { cwd, env: cliEnv(home) });
    expect(ran.code, ran.stderr).toBe(0);

    const { url: tokenUrl, child, exited } = await startView(home, cwd);
    const token = tokenUrl.searchParams.get('token')!;
    // Everything is under a secret base path (the viewer's cookie is scoped to it).
    expect(tokenUrl.pathname).toMatch(/^\/v\/[0-9a-f]{32}\/$/);
    const url = `${tokenUrl.origin}${tokenUrl.pathname}`;
    const auth = { headers: { authorization: `Bearer ${token}` } };
    const list = (await (await fetch(`${url}api/sessions`, auth)).json()) as {
      sessions: { name: string; status: string }[];
    };
    expect(list.sessions).toMatchObject([{ name: 'look at me', status: 'completed' }]);
    expect((await fetch(url, auth)).headers.get('content-type')).toContain('text/html');
    // Without the token: nothing, the page and its assets included.
    for (const route of ['', 'api/sessions', 'assets/client/app.js']) {
      expect((await fetch(`${url}${route}`)).status, route).toBe(401);
    }
    // With the token, outside the base: a 404 that does not name the base.
    const outside = await fetch(`${tokenUrl.origin}/api/sessions`, auth);
    expect(outside.status).toBe(404);
    expect(await outside.text()).not.toContain(tokenUrl.pathname);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  it('a new token per start (or the given one), in a 0600 runtime file in a 0700 dir', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const first = await startView(home, cwd);
    const second = await startView(home, cwd);
    const given = await startView(home, cwd, [], { AMPLIFIER_VIEW_TOKEN: 'from-the-env' });
    const flag = await startView(home, cwd, ['--token', 'from-the-flag'], {
      AMPLIFIER_VIEW_TOKEN: 'from-the-env',
    });
    try {
      const tokens = [first, second].map((v) => v.url.searchParams.get('token')!);
      expect(tokens[0]).not.toBe(tokens[1]);
      expect(given.url.searchParams.get('token')).toBe('from-the-env');
      expect(flag.url.searchParams.get('token')).toBe('from-the-flag');
      const file = path.join(first.runtimeDir, 'amplifier', `view-${first.url.port}.json`);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
      expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({
        url: first.url.href,
        token: tokens[0],
      });
    } finally {
      for (const v of [first, second, given, flag]) {
        v.child.kill('SIGINT');
        await v.exited;
      }
    }
  });

  const other = otherUser();
  const noOther = skipUnless(
    other !== undefined,
    'a second local user',
    'run the tests as root to create one',
  );
  it.skipIf(noOther)(
    'another local uid cannot read the sessions without the token, nor the runtime file',
    async () => {
      const home = tempDir();
      const cwd = tempDir();
      const plan = writeMockPlan(cwd, ['Secret answer.']);
      expect(
        (await runCli(['run', '--plan', plan, 'a secret prompt'], { cwd, env: cliEnv(home) })).code,
      ).toBe(0);
      const view = await startView(home, cwd);
      try {
        const base = `${view.url.origin}${view.url.pathname}`;
        const file = path.join(view.runtimeDir, 'amplifier', `view-${view.url.port}.json`);
        for (const route of ['api/sessions', '', 'assets/client/app.js']) {
          const probe = await other!.node(probeScript(`${base}${route}`, { file }));
          expect(probe.stdout, route).toContain('status 401');
          expect(probe.stdout).toContain('file EACCES');
        }
        // With the token the same uid gets in: the refusal was the missing token.
        const token = view.url.searchParams.get('token')!;
        const allowed = await other!.node(
          probeScript(`${base}api/sessions`, { headers: { authorization: `Bearer ${token}` } }),
        );
        expect(allowed.stdout).toContain('status 200');
      } finally {
        view.child.kill('SIGINT');
        await view.exited;
      }
    },
  );

  it('a bad --port is a usage error', async () => {
    const result = await runCli(['view', '--no-open', '--port', 'eighty'], {
      cwd: tempDir(),
      env: cliEnv(tempDir()),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('a port number from 0 to 65535');
  });
});
