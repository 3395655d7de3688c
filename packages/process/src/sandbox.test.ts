import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { sandboxGate } from '@amplifier/test-fixtures';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { killAll, makeTempDir, running, uniqueSleep } from './__fixtures__/children.js';
import { pidsLimitKind } from './pids-limit.js';
import { isGone, readProcessTable } from './proc.js';
import { SESSION_MARKER } from './reaper.js';
import { runInGroup } from './run.js';
import { Sandbox, SandboxUnavailableError, sandboxSupport } from './sandbox.js';
import { SANDBOX_DEFAULTS, type SandboxPolicy } from './sandbox-policy.js';

const gate = sandboxGate(sandboxSupport());
const root = makeTempDir();
const sleeps: string[] = [];
let serial = 0;

afterEach(() => killAll(sleeps.splice(0)));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** A fresh workspace and a fake home holding secrets, outside the workspace. */
function setup(): { workspace: string; home: string; outside: string } {
  const base = path.join(root, `case-${++serial}`);
  const workspace = path.join(base, 'workspace');
  const home = path.join(base, 'home');
  const outside = path.join(base, 'outside');
  for (const dir of [workspace, path.join(home, '.ssh'), path.join(home, '.aws'), outside]) {
    fs.mkdirSync(dir, { recursive: true });
  }
  fs.writeFileSync(path.join(home, '.ssh', 'id_ed25519'), 'PRIVATE-KEY-MARKER');
  fs.writeFileSync(path.join(home, '.aws', 'credentials'), 'AWS-SECRET-MARKER');
  fs.writeFileSync(path.join(home, '.netrc'), 'NETRC-MARKER');
  fs.writeFileSync(path.join(outside, 'file'), 'OUTSIDE-ORIGINAL');
  return { workspace, home, outside };
}

/** How a test's command is started: cold (bubblewrap started for it) or in a spare started ahead. */
let start: 'cold' | 'pre-started' = 'cold';
/** Exit code of the line that proves a pre-started run used the spare. */
const NOT_PRE_STARTED = 97;

async function run(
  script: string,
  where: { workspace: string; home: string },
  policy: Partial<SandboxPolicy> = {},
  options: { signal?: AbortSignal } = {},
) {
  const sandbox = new Sandbox(
    { ...SANDBOX_DEFAULTS, mode: 'required', ...policy },
    { module: 'test', home: where.home },
  );
  const options_ = {
    cwd: where.workspace,
    timeoutMs: 60_000,
    graceMs: 100,
    capture: { headBytes: 100_000, tailBytes: 100_000 },
    followEscapees: true,
    sandbox: { sandbox, workspace: where.workspace },
  };
  let command = script;
  if (start === 'pre-started') {
    // A first call leaves a spare started for the next one.
    await runInGroup('true', [], options_);
    expect(await sandbox.spareReady()).toBe(true);
    command = `test -d /tmp/.amplifier-call || exit ${NOT_PRE_STARTED}\n${script}`;
  }
  try {
    const result = await runInGroup('bash', ['-c', command], {
      ...options_,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    expect(result.exitCode, 'the command did not run in the pre-started sandbox').not.toBe(NOT_PRE_STARTED);
    return { ...result, out: result.stdout.head.toString(), err: result.stderr.head.toString() };
  } finally {
    sandbox.cleanup();
  }
}

/** The tasks (threads) of every process of this uid: what RLIMIT_NPROC counts. */
function tasksOfThisUser(): number {
  const uid = String(process.getuid?.());
  let tasks = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = fs.readFileSync(`/proc/${entry}/status`, 'utf8');
      if (status.match(/^Uid:\s+(\d+)/m)?.[1] === uid)
        tasks += Number(status.match(/^Threads:\s+(\d+)/m)?.[1] ?? 1);
    } catch {
      // gone
    }
  }
  return tasks;
}

/** No process of the table runs `commandLine` (zombies count as gone). */
function noneRunning(pids: number[]): boolean {
  const table = readProcessTable()!;
  return pids.every((pid) => isGone(table.get(pid)));
}

// Always runs: fails only when AMPLIFIER_REQUIRE_SANDBOX=1 (CI) and the sandbox cannot run here.
it('the OS sandbox runs wherever AMPLIFIER_REQUIRE_SANDBOX=1 asks for it', () => {
  expect(gate.required).toBeUndefined();
});

describe.skipIf(!gate.run).each(['cold', 'pre-started'] as const)(
  gate.title('Sandbox (bubblewrap, %s): an attacker inside'),
  (how) => {
    beforeAll(() => {
      start = how;
    });
    afterAll(() => {
      start = 'cold';
    });
    it('writes the workspace and an extra writable path; writing anywhere else fails', async () => {
      const where = setup();
      const extra = path.join(root, `extra-${serial}`);
      fs.mkdirSync(extra);
      const r = await run(
        `echo in > inside && echo ok > ${extra}/x && echo pwned > ${where.outside}/file; echo "rc=$?"; echo x > /etc/amplifier-pwned; echo "rc2=$?"`,
        where,
        { writable: [extra] },
      );
      expect(fs.readFileSync(path.join(where.workspace, 'inside'), 'utf8')).toBe('in\n');
      expect(fs.readFileSync(path.join(extra, 'x'), 'utf8')).toBe('ok\n');
      expect(r.out).toContain('rc=1');
      expect(r.out).toContain('rc2=1');
      expect(r.err).toMatch(/Read-only file system/);
      expect(fs.readFileSync(path.join(where.outside, 'file'), 'utf8')).toBe('OUTSIDE-ORIGINAL');
      expect(fs.existsSync('/etc/amplifier-pwned')).toBe(false);
    });

    it('hides ~/.ssh, ~/.aws and ~/.netrc (and configured paths), also through a symlink planted in the workspace', async () => {
      const where = setup();
      const r = await run(
        `cat ~/.ssh/id_* ~/.aws/credentials ~/.netrc ${where.outside}/file; ls -A ~/.ssh; ln -s ${where.home}/.ssh/id_ed25519 key; ln -s ${where.outside} out; cat key; echo pwned > out/file; echo "ln-rc=$?"`,
        { ...where },
        { hidden: [where.outside] },
      );
      expect(r.out + r.err).not.toMatch(/PRIVATE-KEY-MARKER|AWS-SECRET-MARKER|NETRC-MARKER|OUTSIDE-ORIGINAL/);
      expect(r.out).toContain('ln-rc=1');
      expect(fs.readFileSync(path.join(where.outside, 'file'), 'utf8')).toBe('OUTSIDE-ORIGINAL');
      // The host still has them: only the sandbox's view is empty.
      expect(fs.readFileSync(path.join(where.home, '.ssh', 'id_ed25519'), 'utf8')).toBe('PRIVATE-KEY-MARKER');
    });

    it("cannot read the host's processes: /proc is the sandbox's own (no host environment, no host pid 1)", async () => {
      const where = setup();
      const marker = `HOST-ENV-MARKER-${process.pid}-${serial}`;
      const sleep = uniqueSleep();
      sleeps.push(sleep);
      // A host process with a secret in its environment, running during the whole call.
      const host = await import('node:child_process').then(({ spawn }) =>
        spawn('bash', ['-c', `exec ${sleep}`], {
          env: { ...process.env, HOST_SECRET: marker },
          stdio: 'ignore',
          detached: true,
        }),
      );
      try {
        const r = await run(
          `cat /proc/1/environ | tr '\\0' '\\n'; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c HOST_SECRET; ls /proc | grep -c '^[0-9]'; cat /proc/1/cmdline | tr '\\0' ' '`,
          where,
        );
        expect(r.out).not.toContain(marker);
        expect(r.out).not.toContain(String(host.pid));
        const lines = r.out.trim().split('\n');
        // Only the sandbox's few processes are visible.
        expect(Number(lines.at(-2))).toBeLessThan(10);
      } finally {
        host.kill('SIGKILL');
      }
    });

    it('reaches neither a 127.0.0.1 server of the host nor a private address with the network off; network: true reaches it', async () => {
      const where = setup();
      const server = net.createServer((socket) => socket.end('HELLO-FROM-HOST\n'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as net.AddressInfo).port;
      try {
        const probe = `(exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3) || echo "loopback-refused"; (exec 3<>/dev/tcp/10.1.2.3/80) 2>&1 | grep -q unreachable && echo "private-unreachable"`;
        const off = await run(probe, where);
        expect(off.out).toContain('loopback-refused');
        expect(off.out).not.toContain('HELLO-FROM-HOST');
        expect(off.out).toContain('private-unreachable');
        const on = await run(`exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`, where, { network: true });
        expect(on.out).toContain('HELLO-FROM-HOST');
      } finally {
        server.close();
      }
    });

    it('bounds a fork bomb with the process limit, and nothing of it outlives the call', async () => {
      const where = setup();
      const sleep = uniqueSleep();
      sleeps.push(sleep);
      // RLIMIT_NPROC (a non-root user without a pids cgroup) counts every task of the user, the
      // test runner's threads included: the limit is that many more, and the bomb bigger than both.
      const max = 32 + (pidsLimitKind() === 'rlimit' ? tasksOfThisUser() + 64 : 0);
      // dash, not bash: bash retries a failed fork for seconds, dash fails at once.
      const r = await run(
        `sh -c 'i=0; while [ $i -lt ${max + 200} ]; do ${sleep} & i=$((i+1)); done; echo all-started'`,
        where,
        { max_processes: max },
      );
      expect(r.out).not.toContain('all-started');
      expect(r.err).toMatch(/Cannot fork|Resource temporarily unavailable/);
      // The PID namespace died with the command: none of the sleeps survives.
      expect(running(sleep)).toEqual([]);
    });

    it('gives /tmp as a private tmpfs of the configured size: filling it fails and the host /tmp is untouched', async () => {
      const where = setup();
      const name = `amplifier-fill-${process.pid}-${serial}`;
      const r = await run(
        `head -c 3000000 /dev/zero > /tmp/${name}; echo "rc=$?"; df -k /tmp | tail -1`,
        where,
        {
          tmp_size_mb: 1,
        },
      );
      expect(r.out).toContain('rc=1');
      expect(r.err).toMatch(/No space left on device/);
      expect(fs.existsSync(`/tmp/${name}`)).toBe(false);
    });

    it('no process survives the call: setsid, nohup, double fork and disown are gone when it returns', async () => {
      const where = setup();
      const names = [uniqueSleep(), uniqueSleep(), uniqueSleep(), uniqueSleep()];
      sleeps.push(...names);
      const [a, b, c, d] = names;
      const r = await run(
        `setsid ${a} & echo $!; nohup ${b} >/dev/null 2>&1 & echo $!; (${c} & echo $!) ; ${d} & echo $!; disown -a
       for n in '${a}' '${b}' '${c}' '${d}'; do until pgrep -fx "$n" >/dev/null; do :; done; done; echo all-up`,
        where,
      );
      expect(r.out).toContain('all-up');
      for (const name of names) expect(running(name)).toEqual([]);
    });

    it('a cancelled call leaves nothing behind either', async () => {
      const where = setup();
      const sleep = uniqueSleep();
      sleeps.push(sleep);
      const controller = new AbortController();
      const fifo = path.join(where.workspace, 'up');
      await import('node:child_process').then(({ execFileSync }) => execFileSync('mkfifo', [fifo]));
      const ready = fs.promises.readFile(fifo, 'utf8').then(() => controller.abort());
      const r = await run(
        `setsid ${sleep} & until pgrep -fx '${sleep}' >/dev/null; do :; done; echo up > ${fifo}; exec sleep 1000`,
        where,
        {},
        { signal: controller.signal },
      );
      await ready;
      expect(r.outcome).toBe('aborted');
      expect(running(sleep)).toEqual([]);
    });
  },
);

describe('Sandbox modes', () => {
  it("'off' runs unconfined, and kills a setsid escape at call end (marker in /proc/*/environ)", async () => {
    const where = setup();
    const sleep = uniqueSleep();
    sleeps.push(sleep);
    const sandbox = new Sandbox({ ...SANDBOX_DEFAULTS, mode: 'off' }, { module: 'test' });
    expect(sandbox.active).toBe(false);
    expect(sandbox.describe()).toBe('off');
    // The escapee leaves the group and outlives its parent shell, which exits at once.
    const r = await runInGroup(
      'bash',
      [
        '-c',
        `setsid ${sleep} & pid=$!; until [ "$(cut -d' ' -f6 /proc/$pid/stat)" = "$pid" ]; do :; done; echo $pid`,
      ],
      {
        cwd: where.workspace,
        timeoutMs: 60_000,
        graceMs: 100,
        capture: { headBytes: 10_000, tailBytes: 10_000 },
        sandbox: { sandbox, workspace: where.workspace },
      },
    );
    const pid = Number(r.stdout.head.toString().trim());
    expect(pid).toBeGreaterThan(1);
    expect(noneRunning([pid])).toBe(true);
    expect(running(sleep)).toEqual([]);
  });

  it("'off' cleanup() kills what a background start of the session left running", async () => {
    const where = setup();
    const sleep = uniqueSleep();
    sleeps.push(sleep);
    const sandbox = new Sandbox({ ...SANDBOX_DEFAULTS, mode: 'off' }, { module: 'test' });
    const { spawnInGroup } = await import('./run.js');
    const job = await spawnInGroup(
      'bash',
      ['-c', `setsid ${sleep} & until pgrep -fx '${sleep}' >/dev/null; do :; done`],
      {
        cwd: where.workspace,
        stdio: 'ignore',
        sandbox: { sandbox, workspace: where.workspace },
      },
    );
    await job.exited;
    job.group.release();
    expect(running(sleep)).toHaveLength(1);
    expect(sandbox.cleanup()).toBeGreaterThan(0);
    expect(running(sleep)).toEqual([]);
  });

  it('cleanup() scans /proc only when the sandbox started an unconfined command (a session that ran none pays nothing)', async () => {
    const sleep = uniqueSleep();
    sleeps.push(sleep);
    const sandbox = new Sandbox({ ...SANDBOX_DEFAULTS, mode: 'off' }, { module: 'test' });
    // A process carrying this sandbox's marker that the sandbox did not start: only a scan would find it.
    const { spawn } = await import('node:child_process');
    const [program, ...args] = sleep.split(' ');
    const planted = spawn(program!, args, {
      env: { ...process.env, [SESSION_MARKER]: sandbox.sessionMarker },
      stdio: 'ignore',
      detached: true,
    });
    planted.unref();
    await expect.poll(() => running(sleep)).toHaveLength(1);
    expect(sandbox.cleanup()).toBe(0);
    expect(running(sleep)).toHaveLength(1);
    // Once it has started an unconfined command, cleanup looks (and finds the planted one).
    const where = setup();
    await runInGroup('true', [], {
      cwd: where.workspace,
      timeoutMs: 10_000,
      graceMs: 100,
      capture: { headBytes: 100, tailBytes: 0 },
      sandbox: { sandbox, workspace: where.workspace },
    });
    expect(sandbox.cleanup()).toBe(1);
    await expect.poll(() => running(sleep)).toEqual([]);
  });

  it("'required' refuses without bubblewrap, naming the install command; 'auto' falls back with one notice", () => {
    const missing = path.join(root, 'no-such-bwrap');
    expect(
      () => new Sandbox({ ...SANDBOX_DEFAULTS, mode: 'required' }, { module: 'mod-a', bwrap: missing }),
    ).toThrow(SandboxUnavailableError);
    expect(
      () => new Sandbox({ ...SANDBOX_DEFAULTS, mode: 'required' }, { module: 'mod-a', bwrap: missing }),
    ).toThrow(/apt-get install bubblewrap/);
    // The message comes from the error table's template: what was asked, why not, what to do.
    expect(
      () => new Sandbox({ ...SANDBOX_DEFAULTS, mode: 'required' }, { module: 'mod-a', bwrap: missing }),
    ).toThrow(
      expect.objectContaining({
        code: 'SANDBOX_UNAVAILABLE',
        message: expect.stringMatching(
          /^mod-a: sandbox is 'required' but unavailable: .+, or set sandbox: off$/,
        ),
      }),
    );
    const notices: string[] = [];
    const notice = (message: string): void => {
      notices.push(message);
    };
    const a = new Sandbox({ ...SANDBOX_DEFAULTS }, { module: 'mod-b', bwrap: missing, notice });
    new Sandbox({ ...SANDBOX_DEFAULTS }, { module: 'mod-b', bwrap: missing, notice });
    expect(a.active).toBe(false);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/WITHOUT an OS sandbox.*apt-get install bubblewrap/);
    expect(a.describe()).toMatch(/^auto \(unavailable/);
  });

  it("'auto' probes bubblewrap when first needed, not when constructed (a mount starts no process); 'required' probes at once", () => {
    const dir = makeTempDir();
    const probes = path.join(dir, 'probes.txt');
    const bwrap = path.join(dir, 'bwrap');
    fs.writeFileSync(bwrap, `#!/bin/sh\necho probe >> '${probes}'\nexit 1\n`, { mode: 0o755 });
    const notices: string[] = [];
    const notice = (message: string): void => {
      notices.push(message);
    };
    const lazy = new Sandbox({ ...SANDBOX_DEFAULTS }, { module: 'mod-lazy', bwrap, notice });
    expect(fs.existsSync(probes)).toBe(false);
    expect(notices).toEqual([]);
    expect(lazy.active).toBe(false);
    expect(lazy.describe()).toMatch(/^auto \(unavailable: bwrap cannot create namespaces/);
    expect(fs.readFileSync(probes, 'utf8')).toBe('probe\n');
    expect(notices).toHaveLength(1);

    const eager = path.join(dir, 'bwrap-eager');
    fs.writeFileSync(eager, `#!/bin/sh\necho probe >> '${probes}'\nexit 1\n`, { mode: 0o755 });
    expect(
      () => new Sandbox({ ...SANDBOX_DEFAULTS, mode: 'required' }, { module: 'mod-eager', bwrap: eager }),
    ).toThrow(/cannot create namespaces/);
    expect(fs.readFileSync(probes, 'utf8')).toBe('probe\nprobe\n');
  });

  it('bwrap is looked up on PATH once per PATH value (a server mounts a sandbox per session)', () => {
    const realPath = process.env.PATH;
    const dir = makeTempDir();
    const bwrap = path.join(dir, 'bwrap');
    fs.writeFileSync(bwrap, '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    const quiet = { notice: () => {} };
    try {
      process.env.PATH = dir;
      const first = new Sandbox({ ...SANDBOX_DEFAULTS }, { module: 'mod-path-1', ...quiet });
      expect(first.support.bwrap).toBe(bwrap);
      // Gone from disk, still the answer for this PATH: the lookup was not repeated.
      fs.rmSync(bwrap);
      const second = new Sandbox({ ...SANDBOX_DEFAULTS }, { module: 'mod-path-2', ...quiet });
      expect(second.support.bwrap).toBe(bwrap);
      // Another PATH is looked up afresh.
      process.env.PATH = `${dir}${path.delimiter}${makeTempDir()}`;
      const third = new Sandbox({ ...SANDBOX_DEFAULTS }, { module: 'mod-path-3', ...quiet });
      expect(third.support).toMatchObject({
        available: false,
        reason: 'bwrap (bubblewrap) is not installed',
      });
    } finally {
      process.env.PATH = realPath;
    }
  });
});

describe.skipIf(!gate.run)(gate.title('Sandbox (bubblewrap): programs and scripts in /tmp'), () => {
  it('a program in /tmp and a script named in `readable` stay visible (read-only); the rest of /tmp stays hidden', async () => {
    const where = setup();
    const tools = fs.mkdtempSync('/tmp/amplifier-tools-');
    const other = fs.mkdtempSync('/tmp/amplifier-other-');
    try {
      fs.writeFileSync(path.join(tools, 'hello.sh'), '#!/bin/sh\necho hello from $0\n', { mode: 0o755 });
      fs.writeFileSync(path.join(tools, 'script.sh'), 'echo script ran\n');
      fs.writeFileSync(path.join(other, 'secret'), 'OTHER-TMP-MARKER');
      const sandbox = new Sandbox(
        { ...SANDBOX_DEFAULTS, mode: 'required' },
        { module: 'test', home: where.home },
      );
      const base = {
        cwd: where.workspace,
        timeoutMs: 60_000,
        graceMs: 100,
        capture: { headBytes: 10_000, tailBytes: 0 },
      };
      const program = await runInGroup(path.join(tools, 'hello.sh'), [], {
        ...base,
        sandbox: { sandbox, workspace: where.workspace },
      });
      expect(program.stdout.head.toString()).toContain('hello from');
      const script = await runInGroup(
        'sh',
        ['-c', `. ${path.join(tools, 'script.sh')}; cat ${path.join(other, 'secret')}; touch ${tools}/x`],
        {
          ...base,
          sandbox: { sandbox, workspace: where.workspace, readable: [path.join(tools, 'script.sh')] },
        },
      );
      expect(script.stdout.head.toString()).toContain('script ran');
      expect(script.stdout.head.toString()).not.toContain('OTHER-TMP-MARKER');
      expect(fs.existsSync(path.join(tools, 'x'))).toBe(false);
      // Without `readable`, the script is hidden by the private /tmp.
      const hidden = await runInGroup('sh', ['-c', `. ${path.join(tools, 'script.sh')}`], {
        ...base,
        sandbox: { sandbox, workspace: where.workspace },
      });
      expect(hidden.stdout.head.toString()).not.toContain('script ran');
      sandbox.cleanup();
    } finally {
      fs.rmSync(tools, { recursive: true, force: true });
      fs.rmSync(other, { recursive: true, force: true });
    }
  });
});
