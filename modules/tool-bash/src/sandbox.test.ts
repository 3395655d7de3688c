/**
 * The OS sandbox through the `bash` tool, as an attacker would use it: the
 * safety checks are off (`unrestricted`) so that only the sandbox stands in
 * the way. Skipped without a working bubblewrap (the suite title says why),
 * failing instead when AMPLIFIER_REQUIRE_SANDBOX=1 (CI).
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Cleanup, ToolResult } from '@amplifier/core';
import { sandboxSupport } from '@amplifier/process';
import { createTestCoordinator, sandboxGate } from '@amplifier/testing';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killSleepers, marker, sleepers, tempDir } from './__fixtures__/processes.js';
import { mount } from './index.js';

const gate = sandboxGate(sandboxSupport());
const root = tempDir('tool-bash-sandbox-');
const cleanups: Cleanup[] = [];
const marks: string[] = [];
const realHome = process.env.HOME;
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  for (const m of marks.splice(0)) killSleepers(m);
  process.env.HOME = realHome;
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

let serial = 0;

/** A workspace, a fake home with secrets (HOME points at it while mounting), and a directory outside both. */
async function setup(config: Record<string, unknown> = {}) {
  const base = path.join(root, `case-${++serial}`);
  const workspace = path.join(base, 'ws');
  const home = path.join(base, 'home');
  const outside = path.join(base, 'outside');
  for (const dir of [workspace, path.join(home, '.ssh'), path.join(home, '.config', 'gcloud'), outside]) {
    fs.mkdirSync(dir, { recursive: true });
  }
  fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'SSH-KEY-MARKER');
  fs.writeFileSync(path.join(home, '.config', 'gcloud', 'credentials.db'), 'GCLOUD-MARKER');
  fs.writeFileSync(path.join(outside, 'file'), 'OUTSIDE-ORIGINAL');
  process.env.HOME = home;
  const coordinator = createTestCoordinator();
  const cleanup = (await mount(coordinator, {
    working_dir: workspace,
    safety_profile: 'unrestricted',
    ...config,
  })) as Cleanup;
  cleanups.push(cleanup);
  const bash = coordinator.get('tools', 'bash')!;
  const run = async (command: string, extra: Record<string, unknown> = {}) => {
    const result: ToolResult = await bash.execute({ command, ...extra });
    const output = result.output as { stdout?: string; stderr?: string };
    return { result, out: output.stdout ?? '', err: output.stderr ?? '' };
  };
  return { workspace, home, outside, run, coordinator };
}

function mark(): string {
  const m = marker();
  marks.push(m);
  return m;
}

// Always runs: fails only when AMPLIFIER_REQUIRE_SANDBOX=1 (CI) and the sandbox cannot run here.
it('the OS sandbox runs wherever AMPLIFIER_REQUIRE_SANDBOX=1 asks for it', () => {
  expect(gate.required).toBeUndefined();
});

describe.skipIf(!gate.run)(gate.title('bash in the sandbox (safety checks off)'), () => {
  it('writes the workspace; cannot write outside it, not even through a symlink it planted', async () => {
    const { run, outside, workspace } = await setup();
    const r = await run(
      `echo ok > mine; ln -s ${outside} link; echo pwned > link/file; echo "a=$?"; echo pwned > ${outside}/file; echo "b=$?"; touch /usr/amplifier-pwned; echo "c=$?"`,
    );
    expect(fs.readFileSync(path.join(workspace, 'mine'), 'utf8')).toBe('ok\n');
    expect(r.out).toMatch(/a=1\nb=1\nc=1/);
    expect(fs.readFileSync(path.join(outside, 'file'), 'utf8')).toBe('OUTSIDE-ORIGINAL');
    expect(fs.existsSync('/usr/amplifier-pwned')).toBe(false);
  });

  it('cannot read ~/.ssh/id_* or ~/.config/gcloud, directly or through a symlink in the workspace, nor /proc/1/environ of the host', async () => {
    const { run, home } = await setup();
    const r = await run(
      `cat ~/.ssh/id_* ~/.config/gcloud/*; ln -s ${home}/.ssh ssh; cat ssh/*; cat /proc/1/environ | tr '\\0' '\\n'`,
    );
    expect(r.out + r.err).not.toMatch(/SSH-KEY-MARKER|GCLOUD-MARKER/);
    expect(r.out).not.toContain(`HOME=${realHome}`);
  });

  it('reaches no host service on 127.0.0.1 and no private address; sandbox_policy.network: true does', async () => {
    const server = net.createServer((socket) => socket.end('HOST-SERVICE\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    try {
      const off = await setup();
      const r = await off.run(
        `(exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3) 2>&1; (exec 3<>/dev/tcp/192.168.77.1/80) 2>&1; curl -s --max-time 5 http://127.0.0.1:${port}/ ; echo done`,
      );
      expect(r.out).not.toContain('HOST-SERVICE');
      expect(r.out).toMatch(/unreachable/i);
      const on = await setup({ sandbox_policy: { network: true } });
      const s = await on.run(`exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`);
      expect(s.out).toContain('HOST-SERVICE');
    } finally {
      server.close();
    }
  });

  it('a fork bomb hits the process limit and leaves nothing behind', async () => {
    const { run } = await setup({ sandbox_policy: { max_processes: 24 } });
    const m = mark();
    const r = await run(
      `sh -c 'i=0; while [ $i -lt 100 ]; do sleep ${m} & i=$((i+1)); done; echo all-started'`,
    );
    expect(r.out).not.toContain('all-started');
    expect(r.err).toMatch(/Cannot fork|Resource temporarily unavailable/);
    expect(sleepers(m)).toEqual([]);
  });

  it('filling /tmp hits the bounded tmpfs, not the host disk', async () => {
    const { run } = await setup({ sandbox_policy: { tmp_size_mb: 1 } });
    const r = await run('head -c 4000000 /dev/zero > /tmp/fill; echo "rc=$?"');
    expect(r.out).toContain('rc=1');
    expect(r.err).toMatch(/No space left/);
  });

  it('setsid, nohup, double fork and disown: every process is gone when the call returns', async () => {
    const { run } = await setup();
    const [a, b, c, d] = [mark(), mark(), mark(), mark()];
    const r = await run(
      `setsid sleep ${a} & nohup sleep ${b} >/dev/null 2>&1 & (sleep ${c} &) ; sleep ${d} & disown -a
       for m in ${a} ${b} ${c} ${d}; do until pgrep -fx "sleep $m" >/dev/null; do :; done; done; echo all-up`,
    );
    expect(r.out).toContain('all-up');
    for (const m of [a, b, c, d]) expect(sleepers(m)).toEqual([]);
  });

  it("holds whoever runs the kernel (root too): no capabilities, the issue's umount/remount attacks fail, a 0666 unix socket in the workspace is unreachable", async () => {
    // In /var/tmp, not /tmp: the private /tmp would hide a home there anyway.
    const base = fs.mkdtempSync('/var/tmp/tool-bash-confine-');
    try {
      const home = path.join(base, 'home');
      const workspace = path.join(base, 'ws');
      fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
      fs.mkdirSync(workspace);
      fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'ISSUE-KEY-MARKER', { mode: 0o600 });
      const socket = path.join(workspace, 'docker.sock');
      const server = net.createServer((s) => s.end('DOCKER-API\n'));
      await new Promise<void>((resolve) => server.listen(socket, resolve));
      fs.chmodSync(socket, 0o666);
      process.env.HOME = home;
      const saved = { SSH_AUTH_SOCK: process.env.SSH_AUTH_SOCK, DOCKER_HOST: process.env.DOCKER_HOST };
      process.env.SSH_AUTH_SOCK = socket;
      process.env.DOCKER_HOST = `unix://${socket}`;
      cleanups.push(async () => {
        for (const [name, value] of Object.entries(saved)) {
          if (value === undefined) delete process.env[name];
          else process.env[name] = value;
        }
      });
      const coordinator = createTestCoordinator();
      cleanups.push(
        (await mount(coordinator, { working_dir: workspace, safety_profile: 'unrestricted' })) as Cleanup,
      );
      const bash = coordinator.get('tools', 'bash')!;
      try {
        const result = await bash.execute({
          command: [
            'grep -E "^(CapEff|CapBnd|NoNewPrivs|Seccomp):" /proc/self/status',
            'umount ~/.ssh 2>/dev/null; umount -l ~/.ssh 2>/dev/null; cat ~/.ssh/id_rsa 2>/dev/null',
            'mount -o remount,rw / 2>/dev/null && echo REMOUNTED',
            'umount -l /dev 2>/dev/null && echo DEV-UNMOUNTED',
            'mount -o remount,size=64m /tmp 2>/dev/null && echo TMP-GREW',
            `${JSON.stringify(process.execPath)} -e 'require("net").connect("docker.sock").on("data", (d) => process.stdout.write(d)).on("error", (e) => console.log("refused " + e.code))'`,
            'test -z "$SSH_AUTH_SOCK$DOCKER_HOST" && echo agent-vars-unset',
          ].join('; '),
        });
        const out = (result.output as { stdout?: string }).stdout ?? '';
        expect(out).toMatch(/^CapEff:\s+0{16}$/m);
        expect(out).toMatch(/^CapBnd:\s+0{16}$/m);
        expect(out).toMatch(/^NoNewPrivs:\s+1$/m);
        expect(out).toMatch(/^Seccomp:\s+2$/m);
        expect(out).not.toMatch(/ISSUE-KEY-MARKER|REMOUNTED|DEV-UNMOUNTED|TMP-GREW|DOCKER-API/);
        expect(out).toContain('refused EPERM');
        expect(out).toContain('agent-vars-unset');
      } finally {
        server.close();
      }
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });
});

describe("sandbox: 'off' (today's behaviour) still kills escapees", () => {
  it('a setsid escape that outlived its shell is killed at call end (marker found in /proc/*/environ)', async () => {
    const { run } = await setup({ sandbox: 'off' });
    const m = mark();
    const r = await run(
      `setsid sleep ${m} & pid=$!; until [ "$(cut -d' ' -f6 /proc/$pid/stat)" = "$pid" ]; do :; done; echo "escaped=$pid"`,
    );
    expect(r.out).toMatch(/escaped=\d+/);
    expect(sleepers(m)).toEqual([]);
  });
});

describe('modes without bubblewrap (PATH without bwrap while mounting)', () => {
  const realPath = process.env.PATH;
  afterEach(() => {
    process.env.PATH = realPath;
  });

  it("'required' refuses to mount, naming the install command; 'auto' mounts after one warning", async () => {
    process.env.PATH = fs.mkdtempSync(path.join(root, 'empty-path-'));
    await expect(mount(createTestCoordinator(), { sandbox: 'required' })).rejects.toThrow(
      /sandbox is 'required' but unavailable: bwrap \(bubblewrap\) is not installed; .*apt-get install bubblewrap/,
    );
    const warnings: string[] = [];
    const coordinator = createTestCoordinator();
    coordinator.logger.warn = (message: string) => {
      warnings.push(message);
    };
    cleanups.push((await mount(coordinator, {})) as Cleanup);
    process.env.PATH = realPath;
    const sandboxNotices = warnings.filter((w) => w.includes('WITHOUT an OS sandbox'));
    expect(sandboxNotices.length).toBeLessThanOrEqual(1);
    const status = await coordinator.collectContributions('sandbox.status');
    expect(status).toEqual([
      {
        module: 'tool-bash',
        mode: expect.stringMatching(/^auto \(unavailable: bwrap \(bubblewrap\) is not installed/),
      },
    ]);
  });
});

describe('sandbox config keys are safety keys', () => {
  it("refuses a misspelt 'sandbox' key and an unknown key inside sandbox_policy", async () => {
    await expect(mount(createTestCoordinator(), { sandbx: 'off' })).rejects.toThrow(/sandbx/);
    await expect(mount(createTestCoordinator(), { sandbox_policy: { netwrok: true } })).rejects.toThrow(
      /netwrok/,
    );
    await expect(mount(createTestCoordinator(), { sandbox: 'sometimes' })).rejects.toThrow(/sandbox/);
  });
});
