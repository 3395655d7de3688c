import fs from 'node:fs';
import path from 'node:path';
import { sandboxGate } from '@amplifier/test-fixtures';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from './__fixtures__/children.js';
import { isGone, readProcessTable } from './proc.js';
import { type RunInGroupOptions, runInGroup } from './run.js';
import { Sandbox, sandboxSupport } from './sandbox.js';
import { SANDBOX_DEFAULTS } from './sandbox-policy.js';

const gate = sandboxGate(sandboxSupport());
const root = makeTempDir();
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
let serial = 0;

function workspace(name = `ws-${++serial}`): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

function sandbox(): Sandbox {
  return new Sandbox({ ...SANDBOX_DEFAULTS, mode: 'required' }, { module: 'test', home: workspace() });
}

function options(box: Sandbox, cwd: string, extra: Partial<RunInGroupOptions> = {}): RunInGroupOptions {
  return {
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    timeoutMs: 60_000,
    graceMs: 100,
    capture: { headBytes: 100_000, tailBytes: 0 },
    sandbox: { sandbox: box, workspace: cwd },
    ...extra,
  };
}

/**
 * Make the next spares' script directories under a fresh directory, so that
 * their bubblewrap processes can be told from other tests' (by command line).
 */
function ownTmpdir(): string {
  const dir = workspace();
  process.env.TMPDIR = dir;
  return dir;
}
const savedTmpdir = process.env.TMPDIR;
afterEach(() => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
});

/** The pids of the processes whose command line contains `text`. */
function processesWith(text: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text)) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

describe.skipIf(!gate.run)(gate.title('Spare sandboxes (started ahead of the call)'), () => {
  it('run the call exactly: its environment only, its directory, its arguments taken literally, its exit code and stdin', async () => {
    const box = sandbox();
    const odd = workspace(`it's $(odd) dir`);
    try {
      await runInGroup(
        'true',
        [],
        options(box, odd, { env: { PATH: process.env.PATH, LEFTOVER: 'first-call' }, input: '' }),
      );
      expect(await box.spareReady()).toBe(true);
      const script = [
        'printf "%s|" "$@"; pwd; env | sort; cat; echo',
        // It runs in the spare: the launch directory is there, and read-only.
        'ls /tmp/.amplifier-call; touch /tmp/.amplifier-call/x 2>/dev/null && echo WRITABLE',
        'exit 7',
      ].join('\n');
      const args = ['-c', script, 'sh', `a'b`, '$(id)', 'two\nlines', '*'];
      const r = await runInGroup(
        'sh',
        args,
        options(box, odd, { env: { PATH: process.env.PATH, ONLY: "it's mine" }, input: 'from-stdin' }),
      );
      const out = r.stdout.head.toString();
      expect(r.exitCode).toBe(7);
      expect(out).toContain(`a'b|$(id)|two\nlines|*|`);
      expect(out).toContain(`${fs.realpathSync(odd)}\n`);
      expect(out).toContain("ONLY=it's mine");
      expect(out).not.toContain('LEFTOVER');
      expect(out).toContain('from-stdin');
      expect(out).toContain('run.sh');
      expect(out).not.toContain('WRITABLE');
    } finally {
      box.cleanup();
    }
  });

  it('a call with another set-up (another workspace) does not use the spare, and the spare is discarded', async () => {
    const box = sandbox();
    const a = workspace();
    const b = workspace();
    try {
      await runInGroup('true', [], options(box, a));
      expect(await box.spareReady()).toBe(true);
      const r = await runInGroup(
        'sh',
        ['-c', 'test -d /tmp/.amplifier-call && echo spare || echo cold; touch ok'],
        {
          ...options(box, b),
        },
      );
      expect(r.stdout.head.toString()).toBe('cold\n');
      expect(fs.existsSync(path.join(b, 'ok'))).toBe(true);
      // The next call with b's set-up gets a spare made for b.
      expect(await box.spareReady()).toBe(true);
      const next = await runInGroup(
        'sh',
        ['-c', 'test -d /tmp/.amplifier-call && echo spare; touch ok2'],
        options(box, b),
      );
      expect(next.stdout.head.toString()).toBe('spare\n');
      expect(fs.existsSync(path.join(b, 'ok2'))).toBe(true);
    } finally {
      box.cleanup();
    }
  });

  it('concurrent calls all run (one in the spare, the others cold), each in its own sandbox', async () => {
    const box = sandbox();
    const ws = workspace();
    try {
      await runInGroup('true', [], options(box, ws));
      expect(await box.spareReady()).toBe(true);
      const runs = await Promise.all(
        [1, 2, 3].map((n) =>
          runInGroup(
            'sh',
            ['-c', `echo $$ > /tmp/pid; echo ${n} > out-${n}; cat /tmp/pid`],
            options(box, ws),
          ),
        ),
      );
      for (const [i, r] of runs.entries()) {
        expect(r.exitCode).toBe(0);
        expect(fs.readFileSync(path.join(ws, `out-${i + 1}`), 'utf8')).toBe(`${i + 1}\n`);
      }
    } finally {
      box.cleanup();
    }
  });

  it('cleanup() kills the idle spare and later calls run cold', async () => {
    const box = sandbox();
    const ws = workspace();
    const tmp = ownTmpdir();
    await runInGroup('true', [], options(box, ws));
    expect(await box.spareReady()).toBe(true);
    const idle = processesWith(tmp);
    expect(idle.length).toBeGreaterThan(0);
    box.cleanup();
    await expect.poll(() => idle.every((pid) => isGone(readProcessTable()?.get(pid)))).toBe(true);
    const r = await runInGroup(
      'sh',
      ['-c', 'test -d /tmp/.amplifier-call && echo spare || echo cold'],
      options(box, ws),
    );
    expect(r.stdout.head.toString()).toBe('cold\n');
    expect(await box.spareReady()).toBe(false);
  });

  it('a spare that died before its call is not used: the call runs cold', async () => {
    const box = sandbox();
    const ws = workspace();
    const tmp = ownTmpdir();
    try {
      await runInGroup('true', [], options(box, ws));
      expect(await box.spareReady()).toBe(true);
      const spare = processesWith(tmp);
      expect(spare.length).toBeGreaterThan(0);
      for (const pid of spare) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
      await expect.poll(() => box.spareReady()).toBe(false);
      const r = await runInGroup('sh', ['-c', 'echo ran'], options(box, ws));
      expect(r.stdout.head.toString()).toBe('ran\n');
    } finally {
      box.cleanup();
    }
  });

  it('no spare when the temp directory is writable inside the sandbox (a command could rewrite the next call)', async () => {
    const box = sandbox();
    const ws = workspace();
    process.env.TMPDIR = path.join(ws, 'tmp');
    fs.mkdirSync(process.env.TMPDIR);
    try {
      await runInGroup('true', [], options(box, ws));
      expect(await box.spareReady()).toBe(false);
      const r = await runInGroup(
        'sh',
        ['-c', 'test -d /tmp/.amplifier-call && echo spare || echo cold'],
        options(box, ws),
      );
      expect(r.stdout.head.toString()).toBe('cold\n');
      expect(fs.readdirSync(process.env.TMPDIR)).toEqual([]);
    } finally {
      box.cleanup();
    }
  });

  it('what a call leaves running is gone when it returns, SIGTERM ignored or not, in a spare and started cold', async () => {
    const box = sandbox();
    const ws = workspace();
    const base = options(box, ws);
    const cold = { ...base, sandbox: { sandbox: box, workspace: ws, prestart: false } };
    try {
      await runInGroup('true', [], base);
      for (const [how, run] of [
        ['spare', base],
        ['cold', cold],
      ] as const) {
        if (how === 'spare') expect(await box.spareReady()).toBe(true);
        const stubborn = `${4000 + ++serial}.25`;
        const plain = `${4000 + ++serial}.5`;
        const r = await runInGroup(
          'sh',
          [
            '-c',
            `(trap '' TERM; exec sleep ${stubborn}) </dev/null >/dev/null 2>&1 & sleep ${plain} </dev/null >/dev/null 2>&1 &
             until pgrep -fx 'sleep ${stubborn}' >/dev/null && pgrep -fx 'sleep ${plain}' >/dev/null; do :; done
             test -d /tmp/.amplifier-call && echo spare || echo cold`,
          ],
          run,
        );
        expect(r).toMatchObject({ outcome: 'exited', exitCode: 0, strays: false });
        expect(r.stdout.head.toString()).toBe(`${how}\n`);
        expect(processesWith(`sleep\0${stubborn}`)).toEqual([]);
        expect(processesWith(`sleep\0${plain}`)).toEqual([]);
      }
    } finally {
      box.cleanup();
    }
  });

  it('a run with prestart: false neither uses nor makes a spare (long-lived servers)', async () => {
    const box = sandbox();
    const ws = workspace();
    const base = options(box, ws);
    const noSpare = { ...base, sandbox: { sandbox: box, workspace: ws, prestart: false } };
    try {
      await runInGroup('true', [], noSpare);
      expect(await box.spareReady()).toBe(false);
      await runInGroup('true', [], base);
      expect(await box.spareReady()).toBe(true);
      const r = await runInGroup(
        'sh',
        ['-c', 'test -d /tmp/.amplifier-call && echo spare || echo cold'],
        noSpare,
      );
      expect(r.stdout.head.toString()).toBe('cold\n');
      expect(await box.spareReady()).toBe(true);
    } finally {
      box.cleanup();
    }
  });
});
