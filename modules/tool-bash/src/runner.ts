/**
 * Running one shell command: its own process group (`detached`), stdin from
 * /dev/null, bounded capture of stdout and stderr, and a kill sequence
 * (SIGTERM to the group, a grace period, SIGKILL) on timeout, on abort and
 * for processes left behind. The call returns when the shell exits plus a
 * short drain, or at the deadline, never waiting on pipes a grandchild holds.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { type CapturedBytes, OutputCapture } from './output.js';

export interface RunOptions {
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  shell: string;
  timeoutMs: number;
  maxOutputBytes: number;
  /** Between SIGTERM and SIGKILL. */
  graceMs: number;
  /** How long to keep reading after the shell exited while something else holds the pipes (default 250). */
  drainMs?: number;
  signal?: AbortSignal;
}

export interface RunResult {
  outcome: 'exited' | 'timeout' | 'aborted';
  /** The shell's exit code; null when it was killed by a signal or stopped. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: CapturedBytes;
  stderr: CapturedBytes;
  durationMs: number;
  /** Processes the command left running in its group were stopped after the shell exited. */
  strays: boolean;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

/** Run `command` with `shell -c`. Rejects only when the process cannot be started. */
export async function runCommand(options: RunOptions): Promise<RunResult> {
  const started = performance.now();
  const child = spawn(options.shell, ['-c', options.command], {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await spawned(child);
  const group = new ProcessGroup(child.pid!);
  const stdout = new OutputCapture(options.maxOutputBytes);
  const stderr = new OutputCapture(options.maxOutputBytes);
  child.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));
  const closed = Promise.all([streamClosed(child.stdout!), streamClosed(child.stderr!)]);
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve([child.exitCode, child.signalCode]);
    else child.once('exit', (code, signal) => resolve([code, signal]));
  });
  const drainMs = options.drainMs ?? 250;

  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<'timeout' | 'aborted'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), Math.min(Math.max(options.timeoutMs, 0), MAX_TIMER_MS));
    const { signal } = options;
    if (signal?.aborted) resolve('aborted');
    onAbort = () => resolve('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });
  });

  try {
    const first = await Promise.race([exited, stopped]);
    if (Array.isArray(first)) {
      // Read what is left; something that still holds the pipes gets `drainMs`, then is stopped.
      await within(closed, drainMs);
      const strays = group.alive();
      if (strays) await group.kill(options.graceMs);
      await within(closed, drainMs);
      return result('exited', first, strays);
    }
    await group.kill(options.graceMs);
    const status = (await within(exited, 2000)) ?? [null, null];
    await within(closed, drainMs);
    return result(first, status, false);
  } finally {
    clearTimeout(timer);
    if (onAbort) options.signal?.removeEventListener('abort', onAbort);
    child.stdout!.destroy();
    child.stderr!.destroy();
    group.release();
  }

  function result(
    outcome: RunResult['outcome'],
    [exitCode, signal]: [number | null, NodeJS.Signals | null],
    strays: boolean,
  ): RunResult {
    return {
      outcome,
      exitCode,
      signal,
      stdout: stdout.bytes(),
      stderr: stderr.bytes(),
      durationMs: performance.now() - started,
      strays,
    };
  }
}

/** Resolves once the child has started; rejects with the spawn error (ENOENT, E2BIG...). */
export function spawned(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => {
      child.off('spawn', onSpawn);
      reject(error);
    };
    const onSpawn = (): void => {
      child.off('error', onError);
      resolve();
    };
    child.once('error', onError);
    child.once('spawn', onSpawn);
  });
}

function streamClosed(stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve) => stream.once('close', () => resolve()));
}

/** `promise`'s value, or undefined after `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ------------------------------------------------------------ process groups

/** Process groups started and not yet released: SIGKILLed if the host process exits. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

interface ProcInfo {
  ppid: number;
  pgrp: number;
  state: string;
  start: string;
}

const STAT_BUFFER = Buffer.alloc(1024);
const HAS_PROC = process.platform === 'linux' && fs.existsSync('/proc/self/stat');

/** Every process from /proc (Linux), or undefined elsewhere. */
function scanProcesses(): Map<number, ProcInfo> | undefined {
  if (!HAS_PROC) return undefined;
  const table = new Map<number, ProcInfo>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      // open + read into one buffer: about 3x cheaper than readFileSync on /proc
      const fd = fs.openSync(`/proc/${name}/stat`, 'r');
      try {
        stat = STAT_BUFFER.toString('latin1', 0, fs.readSync(fd, STAT_BUFFER, 0, STAT_BUFFER.length, 0));
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid pgrp session ... starttime(22nd)": comm may hold spaces and parens.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    table.set(Number(name), {
      state: fields[0] ?? '',
      ppid: Number(fields[1]),
      pgrp: Number(fields[2]),
      start: fields[19] ?? '',
    });
  }
  return table;
}

const gone = (info: ProcInfo | undefined): boolean =>
  info === undefined || info.state === 'Z' || info.state === 'X';

/**
 * A command's process group (its pgid is the shell's pid). On Linux it also
 * follows descendants that left the group with `setsid` while their parent
 * was alive, and ignores zombies no one reaps.
 */
export class ProcessGroup {
  readonly pgid: number;
  /** Descendants outside the group, by pid, with their start time (pid reuse guard). */
  readonly #escapees = new Map<number, string>();

  constructor(pgid: number) {
    this.pgid = pgid;
    liveGroups.add(pgid);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.once('exit', () => {
        for (const id of liveGroups) signalGroup(id, 'SIGKILL');
      });
    }
  }

  /** Some process of the group (or a known escapee) is still running. */
  alive(): boolean {
    const exists = signalGroup(this.pgid, 0);
    if (!exists && this.#escapees.size === 0) return false;
    const table = scanProcesses();
    if (table === undefined) return exists;
    for (const info of table.values()) {
      if (info.pgrp === this.pgid && !gone(info)) return true;
    }
    for (const [pid, start] of this.#escapees) {
      const info = table.get(pid);
      if (!gone(info) && info!.start === start) return true;
    }
    return false;
  }

  /** SIGTERM, up to `graceMs` for everything to go, then SIGKILL (and up to 2 s more). */
  async kill(graceMs: number): Promise<void> {
    this.#collectEscapees();
    this.#signal('SIGTERM');
    if (await this.#waitGone(graceMs)) return;
    this.#collectEscapees();
    this.#signal('SIGKILL');
    await this.#waitGone(2000);
  }

  /** Forget the group (it is not killed at process exit any more). */
  release(): void {
    liveGroups.delete(this.pgid);
  }

  #signal(signal: NodeJS.Signals): void {
    signalGroup(this.pgid, signal);
    if (this.#escapees.size === 0) return;
    const table = scanProcesses();
    for (const [pid, start] of this.#escapees) {
      const info = table?.get(pid);
      if (gone(info) || info!.start !== start) continue;
      try {
        process.kill(pid, signal);
      } catch {
        // already gone or not ours
      }
    }
  }

  #collectEscapees(): void {
    const table = scanProcesses();
    if (table === undefined) return;
    const children = new Map<number, number[]>();
    for (const [pid, info] of table) {
      const list = children.get(info.ppid);
      if (list) list.push(pid);
      else children.set(info.ppid, [pid]);
    }
    const queue = [this.pgid];
    for (const [pid, info] of table) if (info.pgrp === this.pgid && pid !== this.pgid) queue.push(pid);
    const seen = new Set(queue);
    while (queue.length > 0) {
      for (const child of children.get(queue.pop()!) ?? []) {
        if (seen.has(child)) continue;
        seen.add(child);
        queue.push(child);
        const info = table.get(child)!;
        if (info.pgrp !== this.pgid && !gone(info)) this.#escapees.set(child, info.start);
      }
    }
  }

  async #waitGone(ms: number): Promise<boolean> {
    const deadline = performance.now() + ms;
    for (;;) {
      if (!this.alive()) return true;
      if (performance.now() >= deadline) return false;
      await delay(Math.min(20, Math.max(1, deadline - performance.now())));
    }
  }
}

/** `kill(-pgid, signal)`; true when the group exists. EPERM falls back to the leader alone. */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EPERM') {
      try {
        process.kill(pgid, signal);
      } catch {
        // the leader is gone too
      }
      return true;
    }
    return false;
  }
}
