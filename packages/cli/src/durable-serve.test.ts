/**
 * `amplifier serve --durable` as a real process: a local restate-server from
 * the npm binary, the worker, a turn through Restate's ingress with the
 * offline mock provider, and a clean stop that takes the server down.
 */
import { rmSync } from 'node:fs';
import { findRestateServerBinary, startLocalRestate } from '@amplifier/durable-restate';
import { afterAll, describe, expect, it } from 'vitest';
import { CliProcess, cliEnv, removeTempDirs, runCli, tempDir } from './__fixtures__/cli.js';

afterAll(removeTempDirs);

const missing = findRestateServerBinary() === undefined;
if (missing) console.log('serve --durable tests skipped: no restate-server binary for this platform');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(missing)('amplifier serve --durable', () => {
  it('starts a local server and a worker, runs a turn sent to the ingress, and stops both on SIGTERM', async () => {
    const home = tempDir();
    const cli = new CliProcess(['serve', '--durable', '--provider', 'mock', '--json'], {
      cwd: home,
      env: cliEnv(home),
    });
    await cli.waitFor('stdout', /\n/);
    const ready = JSON.parse(cli.stdout.split('\n')[0]!) as {
      ingress_url: string;
      object: string;
      restate_pid: number;
    };
    expect(alive(ready.restate_pid)).toBe(true);
    const response = await fetch(`${ready.ingress_url}/${ready.object}/demo/turn`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'turn-1' },
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
