/**
 * Test helpers: unique `sleep` markers found with pgrep, a FIFO a command
 * writes to when it is ready, temp dirs, and zombie/FD counts.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

let counter = 0;

/**
 * A unique number for `sleep <marker>`: `sleep` accepts decimals, so
 * `pgrep -fx 'sleep <marker>'` finds exactly that process. Large enough that
 * the sleep never ends during a test.
 */
export function marker(): string {
  counter++;
  return `4242.${process.pid}${String(counter).padStart(3, '0')}`;
}

/** PIDs of live (non-zombie) `sleep <marker>` processes. */
export function sleepers(mark: string): number[] {
  const result = spawnSync('pgrep', ['-fx', `sleep ${mark}`], { encoding: 'utf8' });
  return result.stdout
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .filter((pid) => {
      try {
        return !fs.readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1]?.startsWith('Z');
      } catch {
        return false;
      }
    });
}

/** Kill leftovers of a failed test so they do not outlive the run. */
export function killSleepers(mark: string): void {
  for (const pid of sleepers(mark)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

export function tempDir(prefix = 'tool-bash-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A FIFO in `dir`; `ready()` resolves when a command has written a line to it and closed it. */
export function fifo(dir: string): { path: string; ready: () => Promise<string> } {
  const file = path.join(dir, `ready-${++counter}.fifo`);
  execFileSync('mkfifo', [file]);
  return { path: file, ready: () => fs.promises.readFile(file, 'utf8') };
}

/** Children of this process in state Z (not reaped). */
export function zombieChildren(): number {
  const result = spawnSync('ps', ['--ppid', String(process.pid), '-o', 'stat='], { encoding: 'utf8' });
  return result.stdout.split('\n').filter((s) => s.startsWith('Z')).length;
}

export function openFds(): number {
  return fs.readdirSync('/proc/self/fd').length;
}

/**
 * Shell text that starts `sleep <mark>` in the background, waits until it has
 * really exec'd (its /proc cmdline holds the marker), then writes `up` to `fifo`.
 */
export function startSleeper(mark: string, fifoPath: string): string {
  return `sleep ${mark} & while ! grep -q ${mark} /proc/$!/cmdline 2>/dev/null; do :; done; echo up > ${fifoPath}`;
}
