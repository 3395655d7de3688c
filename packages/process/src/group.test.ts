import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { skipUnless, waitFor } from '@amplifier/test-fixtures';
import ts from 'typescript';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killAll, makeTempDir, readySignal, running, uniqueSleep } from './__fixtures__/children.js';
import { ProcessGroup } from './group.js';
import { requireProcessGroups } from './platform.js';

const NO_PROC = skipUnless(process.platform === 'linux' && fs.existsSync('/proc/self/stat'), '/proc (Linux)');
const dir = makeTempDir();
const sleeps: string[] = [];
const groups: ProcessGroup[] = [];

function sleepCommand(): string {
  const command = uniqueSleep();
  sleeps.push(command);
  return command;
}

/** `bash -c script` as the leader of a new group, and that group (released after the test). */
async function startGroup(script: string, followEscapees = false): Promise<[ChildProcess, ProcessGroup]> {
  const child = spawn('bash', ['-c', script], { detached: true, stdio: 'ignore' });
  await new Promise((resolve, reject) => child.once('spawn', resolve).once('error', reject));
  const group = new ProcessGroup(child.pid!, { followEscapees });
  groups.push(group);
  return [child, group];
}

afterEach(() => {
  killAll(sleeps.splice(0));
  for (const group of groups.splice(0)) group.release();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('ProcessGroup', () => {
  it('kill() reaches every member, grandchildren included, and resolves true once the group is gone', async () => {
    const [a, b] = [sleepCommand(), sleepCommand()];
    const signal = readySignal(dir);
    const [, group] = await startGroup(`${a} & bash -c '${b}; :' & ${signal.notify(a, b)}; wait`);
    expect(await signal.ready()).toBe('up\n');
    expect([running(a).length, running(b).length]).toEqual([1, 1]);
    expect(group.alive()).toBe(true);

    expect(await group.kill({ graceMs: 5000 })).toBe(true);
    expect(group.alive()).toBe(false);
    expect([...running(a), ...running(b)]).toEqual([]);
  });

  it('a member that ignores SIGTERM gets SIGKILL after graceMs', async () => {
    const a = sleepCommand();
    const signal = readySignal(dir);
    const [, group] = await startGroup(`trap '' TERM; ${a} & ${signal.notify(a)}; wait`);
    await signal.ready();
    expect(await group.kill({ graceMs: 50 })).toBe(true);
    expect(running(a)).toEqual([]);
  });

  it('a group whose leader exited and was reaped is not alive', async () => {
    const [child, group] = await startGroup('exit 0');
    if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
    expect(group.alive()).toBe(false);
    expect(await group.kill({ graceMs: 10 })).toBe(true);
  });

  it('refuses ids that would signal every process or the caller (-1, 0, 1)', () => {
    for (const id of [-1, 0, 1, 2.5]) expect(() => new ProcessGroup(id)).toThrow(RangeError);
  });

  it.skipIf(NO_PROC)('zombies nobody reaps do not count as alive (needs /proc)', async () => {
    const a = sleepCommand();
    // With job control the subshell gets a group of its own; it exits once its parent became
    // `sleep`, which never reaps it: the group then holds only a zombie.
    const child = spawn(
      'bash',
      ['-c', `set -m; ( until [ "$(cat /proc/$$/comm)" = sleep ]; do :; done ) & echo $!; exec ${a}`],
      { detached: true, stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const leader = new ProcessGroup(child.pid!);
    groups.push(leader);
    const zombie = await new Promise<number>((resolve) => {
      let text = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes('\n')) resolve(Number.parseInt(text, 10));
      });
    });
    child.stdout!.destroy();
    const state = (): string | undefined => {
      try {
        const stat = fs.readFileSync(`/proc/${zombie}/stat`, 'latin1');
        return stat.slice(stat.lastIndexOf(')') + 2)[0];
      } catch {
        return undefined;
      }
    };
    expect(await waitFor(() => state() === 'Z', { timeoutMs: 20_000 })).toBe(true);
    const group = new ProcessGroup(zombie);
    groups.push(group);
    expect(() => process.kill(-zombie, 0)).not.toThrow(); // the kernel still lists the group
    expect(group.alive()).toBe(false);
    expect(leader.alive()).toBe(true);
    expect(await leader.kill({ graceMs: 1000 })).toBe(true);
  });

  it.skipIf(NO_PROC)(
    'followEscapees: a descendant that left with setsid is killed with the group (needs /proc)',
    async () => {
      const a = sleepCommand();
      const signal = readySignal(dir);
      const [, group] = await startGroup(`setsid ${a} & ${signal.notify(a)}; wait`, true);
      await signal.ready();
      expect(await group.kill({ graceMs: 1000 })).toBe(true);
      expect(running(a)).toEqual([]);
    },
  );

  it('without followEscapees a setsid descendant is out of reach (the documented limit)', async () => {
    const a = sleepCommand();
    const signal = readySignal(dir);
    const [, group] = await startGroup(`setsid ${a} & ${signal.notify(a)}; wait`);
    await signal.ready();
    expect(await group.kill({ graceMs: 1000 })).toBe(true);
    expect(running(a)).toHaveLength(1); // afterEach kills it
  });
});

describe('host exit', () => {
  /** group.ts and proc.ts as JavaScript in `into`, so a plain `node` child can import them. */
  function transpile(into: string): void {
    const src = path.dirname(fileURLToPath(import.meta.url));
    for (const name of ['group', 'proc']) {
      const source = fs.readFileSync(path.join(src, `${name}.ts`), 'utf8');
      const { outputText } = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      });
      fs.writeFileSync(path.join(into, `${name}.js`), outputText);
    }
    fs.writeFileSync(path.join(into, 'package.json'), '{"type":"module"}');
  }

  it('groups not released get SIGKILL when the host process exits; released ones are left alone', async () => {
    const [kept, released] = [sleepCommand(), sleepCommand()];
    const host = fs.mkdtempSync(path.join(dir, 'host-'));
    transpile(host);
    fs.writeFileSync(
      path.join(host, 'host.js'),
      `import { spawn } from 'node:child_process';
import { ProcessGroup } from './group.js';
// 'spawn' fires once the program has been executed, so pgrep finds it from then on.
const start = (line) => new Promise((resolve) => {
  const [command, ...args] = line.split(' ');
  const child = spawn(command, args, { detached: true, stdio: 'ignore' });
  child.once('spawn', () => resolve(child.pid));
});
new ProcessGroup(await start(${JSON.stringify(kept)}));
new ProcessGroup(await start(${JSON.stringify(released)})).release();
process.exit(0);
`,
    );
    await new Promise<void>((resolve, reject) =>
      execFile(process.execPath, [path.join(host, 'host.js')], (error) =>
        error ? reject(error) : resolve(),
      ),
    );
    // The host is gone; SIGKILL is delivered asynchronously, so look until the kept one is gone.
    expect(await waitFor(() => running(kept).length === 0, { timeoutMs: 20_000 })).toBe(true);
    expect(running(released)).toHaveLength(1);
  });
});

describe('requireProcessGroups', () => {
  it('does nothing on a POSIX system', () => {
    expect(process.platform).not.toBe('win32');
    expect(() => requireProcessGroups('tool-x')).not.toThrow();
  });

  it('refuses Windows with MOUNT_FAILED naming the module (platform stubbed: Windows cannot be had here)', () => {
    const platform = Object.getOwnPropertyDescriptor(process, 'platform')!;
    Object.defineProperty(process, 'platform', { ...platform, value: 'win32' });
    try {
      expect(() => requireProcessGroups('tool-x')).toThrow(
        expect.objectContaining({
          code: 'MOUNT_FAILED',
          message:
            'tool-x needs a POSIX system (process groups); Windows is not supported: run the kernel in WSL',
        }),
      );
    } finally {
      Object.defineProperty(process, 'platform', platform);
    }
  });
});
