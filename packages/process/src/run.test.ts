import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { skipUnless } from '@amplifier/test-fixtures';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killAll, makeTempDir, readySignal, running, uniqueSleep } from './__fixtures__/children.js';
import { type RunInGroupOptions, runInGroup, spawnInGroup } from './run.js';

const NO_PROC = skipUnless(process.platform === 'linux' && fs.existsSync('/proc/self/stat'), '/proc (Linux)');
const dir = makeTempDir();
const sleeps: string[] = [];

function sleepCommand(): string {
  const command = uniqueSleep();
  sleeps.push(command);
  return command;
}

afterEach(() => killAll(sleeps.splice(0)));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function bash(script: string, options: Partial<RunInGroupOptions> = {}): ReturnType<typeof runInGroup> {
  return runInGroup('bash', ['-c', script], {
    cwd: dir,
    timeoutMs: 60_000,
    graceMs: 1000,
    capture: { headBytes: 1000, tailBytes: 100 },
    ...options,
  });
}

describe('node:child_process', () => {
  it('loads with the first command, not with the kit (a session that runs no command never pays for it)', () => {
    const kit = new URL('../dist/index.js', import.meta.url).href;
    const script = `
      const loaded = () => process.moduleLoadList.includes('NativeModule child_process');
      const kit = await import(${JSON.stringify(kit)});
      const atImport = loaded();
      const result = await kit.runInGroup('true', [], {
        cwd: process.cwd(), timeoutMs: 60000, graceMs: 1000, capture: { headBytes: 10, tailBytes: 10 },
      });
      console.log(JSON.stringify({ atImport, afterRun: loaded(), outcome: result.outcome }));
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual({ atImport: false, afterRun: true, outcome: 'exited' });
  });
});

describe('runInGroup', () => {
  it('runs to the exit: exit code, stdout and stderr captured, nothing left behind', async () => {
    const result = await bash('echo out; echo err >&2; pwd; exit 3');
    expect(result).toMatchObject({ outcome: 'exited', exitCode: 3, signal: null, strays: false });
    expect(result.stdout.head.toString()).toBe(`out\n${fs.realpathSync(dir)}\n`);
    expect(result.stderr).toEqual({ head: Buffer.from('err\n'), tail: Buffer.from('err\n'), total: 4 });
    expect(result.overflowed).toBeUndefined();
  });

  it('reports the signal that killed the leader', async () => {
    const result = await bash('kill -TERM $$');
    expect(result).toMatchObject({ outcome: 'exited', exitCode: null, signal: 'SIGTERM' });
  });

  it('writes input to stdin and closes it; without input stdin is /dev/null', async () => {
    const fed = await runInGroup('cat', [], {
      input: 'hello\n',
      timeoutMs: 60_000,
      graceMs: 100,
      capture: { headBytes: 100 },
    });
    expect(fed.stdout.head.toString()).toBe('hello\n');
    const empty = await bash('cat; read x; echo "read:$x:$?"');
    expect(empty.stdout.head.toString()).toBe('read::1\n');
  });

  it('a command that exits without reading its input is not an error (EPIPE)', async () => {
    const result = await runInGroup('true', [], {
      input: 'x'.repeat(4_000_000),
      timeoutMs: 60_000,
      graceMs: 100,
      capture: { headBytes: 100 },
    });
    expect(result).toMatchObject({ outcome: 'exited', exitCode: 0 });
  });

  it('a timeout kills the whole group, grandchildren included', async () => {
    const [a, b] = [sleepCommand(), sleepCommand()];
    const result = await bash(`${a} & bash -c '${b}; :' & wait`, { timeoutMs: 200 });
    expect(result).toMatchObject({ outcome: 'timeout', strays: false });
    expect([...running(a), ...running(b)]).toEqual([]);
  });

  it('aborting the signal kills the whole group', async () => {
    const a = sleepCommand();
    const signal = readySignal(dir);
    const controller = new AbortController();
    const call = bash(`${a} & ${signal.notify(a)}; wait`, { signal: controller.signal });
    expect(await signal.ready()).toBe('up\n');
    controller.abort();
    expect((await call).outcome).toBe('aborted');
    expect(running(a)).toEqual([]);
  });

  it('an already-aborted signal stops the command at once', async () => {
    const a = sleepCommand();
    const result = await bash(a, { signal: AbortSignal.abort() });
    expect(result.outcome).toBe('aborted');
    expect(running(a)).toEqual([]);
  });

  it('processes left in the group after the leader exits are killed and reported as strays', async () => {
    const a = sleepCommand();
    const result = await bash(`${a} >/dev/null 2>&1 & echo done`);
    expect(result).toMatchObject({ outcome: 'exited', exitCode: 0, strays: true });
    expect(result.stdout.head.toString()).toBe('done\n');
    expect(running(a)).toEqual([]);
  });

  it('a leftover that holds the pipes does not make the call wait for it (returns before the deadline)', async () => {
    const a = sleepCommand();
    const result = await bash(`${a} & echo started`, { timeoutMs: 600_000 });
    expect(result).toMatchObject({ outcome: 'exited', exitCode: 0, strays: true });
    expect(result.stdout.head.toString()).toBe('started\n');
    expect(running(a)).toEqual([]);
  });

  it('stopAfterBytes: a stream over the limit stops the process and says which one', async () => {
    const result = await bash('echo fine; exec yes flood >&2', {
      capture: { headBytes: 1000, tailBytes: 10 },
      stopAfterBytes: 100_000,
    });
    expect(result).toMatchObject({ outcome: 'overflow', overflowed: 'stderr' });
    expect(result.stdout.head.toString()).toBe('fine\n');
    expect(result.stderr.head).toHaveLength(1000);
    expect(result.stderr.total).toBeGreaterThan(100_000);
  });

  it('without stopAfterBytes a flood is counted, only head and tail are kept', async () => {
    const result = await bash('head -c 3000000 /dev/zero | tr "\\0" a; echo; echo last');
    expect(result).toMatchObject({ outcome: 'exited', exitCode: 0 });
    expect(result.stdout.total).toBe(3_000_006);
    expect(result.stdout.head).toEqual(Buffer.alloc(1000, 'a'));
    expect(result.stdout.tail.toString()).toBe(`${'a'.repeat(94)}\nlast\n`);
  });

  it.skipIf(NO_PROC)('followEscapees reaches a descendant that left with setsid (needs /proc)', async () => {
    const a = sleepCommand();
    const result = await bash(`setsid ${a} & wait`, { timeoutMs: 200, followEscapees: true });
    expect(result.outcome).toBe('timeout');
    expect(running(a)).toEqual([]);
  });

  it('rejects when the command cannot be started', async () => {
    await expect(bash('true', { cwd: `${dir}/missing` })).rejects.toThrow(/ENOENT/);
    await expect(
      runInGroup('/nonexistent/program', [], { timeoutMs: 1000, graceMs: 10, capture: { headBytes: 1 } }),
    ).rejects.toThrow(/ENOENT/);
  });
});

describe('spawnInGroup', () => {
  it('starts the command as the leader of a new group and session; exited gives its status', async () => {
    const handle = await spawnInGroup('bash', ['-c', 'read line; exit 7'], {
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    try {
      const ids = spawnSync('ps', ['-o', 'pgid=,sess=', '-p', String(handle.pid)], { encoding: 'utf8' });
      expect(ids.stdout.trim().split(/\s+/).map(Number)).toEqual([handle.pid, handle.pid]);
      expect(handle.group.pgid).toBe(handle.pid);
      expect(handle.group.alive()).toBe(true);
      handle.child.stdin!.end('go\n');
      expect(await handle.exited).toEqual({ code: 7, signal: null });
      expect(handle.group.alive()).toBe(false);
    } finally {
      handle.group.release();
    }
  });

  it('rejects with the spawn error', async () => {
    await expect(spawnInGroup('/nonexistent/program', [])).rejects.toThrow(/ENOENT/);
  });
});
