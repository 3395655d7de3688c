/**
 * Test helpers for child processes: `sleep` commands with an argument no
 * other process uses (found with `pgrep -fx`), a FIFO a command writes to
 * once its children run, and a temp dir.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

let serial = 0;

/** `sleep 77<pid>.<n>`: unique across test workers, and it never ends during a run. */
export function uniqueSleep(): string {
  serial++;
  return `sleep 77${process.pid}.${serial}`;
}

/** Pids of the processes whose whole command line is `commandLine`, zombies excluded. */
export function running(commandLine: string): number[] {
  const found = spawnSync('pgrep', ['-fx', commandLine], { encoding: 'utf8' }).stdout;
  return found
    .split('\n')
    .filter((line) => line !== '')
    .map(Number)
    .filter((pid) => {
      const state = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).stdout.trim();
      return state !== '' && !state.startsWith('Z');
    });
}

/** SIGKILL what a failed test left behind. */
export function killAll(commandLines: readonly string[]): void {
  for (const line of commandLines) {
    for (const pid of running(line)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  }
}

export function makeTempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'core-process-'));
}

/**
 * A FIFO in `dir`. `notify(...commandLines)` is shell text that waits until a
 * process runs for each command line, then writes `up` to the FIFO (use it
 * once: the FIFO has one reader); `ready()` resolves with what was written.
 */
export function readySignal(dir: string): {
  notify(...commandLines: string[]): string;
  ready(): Promise<string>;
} {
  const file = path.join(dir, `ready-${++serial}`);
  execFileSync('mkfifo', [file]);
  return {
    notify: (...commandLines) => {
      const all = commandLines.map((line) => `pgrep -fx '${line}' >/dev/null`).join(' && ');
      return `until ${all}; do :; done; echo up > ${file}`;
    },
    ready: () => fs.promises.readFile(file, 'utf8'),
  };
}
