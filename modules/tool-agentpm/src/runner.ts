/**
 * Running one tool process: its own process group (`detached`), the input
 * written to stdin and stdin closed, stdout and stderr captured up to a cap
 * (a process that writes more is stopped), and the group killed (SIGTERM, a
 * grace period, SIGKILL) on timeout, on abort, on a flood, and when the
 * process exits leaving others behind. Returns when the process has exited and
 * its pipes are drained, never waiting on pipes a stray holds.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { killGroup, ProcessGroup } from './process-group.js';

export interface RunRequest {
  command: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  /** Written to stdin, which is then closed. */
  stdin: string;
  timeoutMs: number;
  /** Per stream: more than this many bytes stops the process. */
  maxOutputBytes: number;
  /** Between SIGTERM and SIGKILL. */
  graceMs: number;
  signal?: AbortSignal;
}

export type RunOutcomeKind = 'exited' | 'timeout' | 'aborted' | 'flooded';

export interface RunOutcome {
  outcome: RunOutcomeKind;
  /** The stream that went over the cap (outcome `flooded`). */
  flooded?: 'stdout' | 'stderr';
  /** Exit code; null when killed by a signal or not seen exiting. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** At most `maxOutputBytes` of each stream. */
  stdout: Buffer;
  stderr: Buffer;
  /** Bytes the process wrote (read before the pipe was closed). */
  stdoutBytes: number;
  stderrBytes: number;
  /** Processes the tool left in its group after exiting were stopped. */
  strays: boolean;
  durationMs: number;
}

/** Time to keep reading after the process exited while something else holds its pipes. */
const DRAIN_MS = 250;
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Keeps the first `cap` bytes of a stream and counts them all. */
class BoundedCapture {
  readonly #chunks: Buffer[] = [];
  #stored = 0;
  total = 0;
  readonly cap: number;

  constructor(cap: number) {
    this.cap = cap;
  }

  /** Store (up to the cap) and return false once the stream went over it. */
  push(chunk: Buffer): boolean {
    this.total += chunk.length;
    const room = this.cap - this.#stored;
    if (room > 0) {
      const take = chunk.length <= room ? chunk : chunk.subarray(0, room);
      this.#chunks.push(Buffer.from(take)); // a copy: never pin a pooled chunk
      this.#stored += take.length;
    }
    return this.total <= this.cap;
  }

  bytes(): Buffer {
    return Buffer.concat(this.#chunks, this.#stored);
  }
}

/** Run a tool process to completion. Rejects only when it cannot be started (ENOENT, EACCES...). */
export async function runProcess(request: RunRequest): Promise<RunOutcome> {
  const started = performance.now();
  const child = spawn(request.command, request.args, {
    cwd: request.cwd,
    env: request.env,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  await spawned(child);
  const group = new ProcessGroup(child.pid!);
  const stdout = new BoundedCapture(request.maxOutputBytes);
  const stderr = new BoundedCapture(request.maxOutputBytes);

  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  let flooded: 'stdout' | 'stderr' | undefined;
  let stop: (why: 'timeout' | 'aborted' | 'flooded') => void = () => {};
  const stopped = new Promise<'timeout' | 'aborted' | 'flooded'>((resolve) => {
    stop = resolve;
  });
  const capture = (
    stream: NodeJS.ReadableStream & { destroy(): void },
    into: BoundedCapture,
    name: 'stdout' | 'stderr',
  ) => {
    stream.on('data', (chunk: Buffer) => {
      if (into.push(chunk) || flooded !== undefined) return;
      flooded = name;
      // Stop reading at once: the process's next write fails (EPIPE) instead of filling memory.
      child.stdout!.destroy();
      child.stderr!.destroy();
      stop('flooded');
    });
  };
  capture(child.stdout!, stdout, 'stdout');
  capture(child.stderr!, stderr, 'stderr');
  const closed = Promise.all([streamClosed(child.stdout!), streamClosed(child.stderr!)]);
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve([child.exitCode, child.signalCode]);
    else child.once('exit', (code, signal) => resolve([code, signal]));
  });

  // The tool may exit without reading its input: EPIPE on stdin is expected, not a crash.
  child.stdin!.on('error', () => {});
  child.stdin!.end(request.stdin);

  timer = setTimeout(() => stop('timeout'), Math.min(Math.max(request.timeoutMs, 0), MAX_TIMER_MS));
  const { signal } = request;
  if (signal?.aborted) stop('aborted');
  else if (signal) {
    onAbort = () => stop('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
  }

  try {
    const first = await Promise.race([exited, stopped]);
    if (Array.isArray(first)) {
      await within(closed, DRAIN_MS);
      const strays = group.alive();
      if (strays) await killGroup(group, request.graceMs);
      await within(closed, DRAIN_MS);
      // A flood seen while draining still counts.
      return result(flooded ? 'flooded' : 'exited', first, strays);
    }
    await killGroup(group, request.graceMs);
    const status = (await within(exited, 2000)) ?? [null, null];
    await within(closed, DRAIN_MS);
    return result(first, status, false);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    child.stdin!.destroy();
    child.stdout!.destroy();
    child.stderr!.destroy();
    group.release();
  }

  function result(
    outcome: RunOutcomeKind,
    [exitCode, exitSignal]: [number | null, NodeJS.Signals | null],
    strays: boolean,
  ): RunOutcome {
    return {
      outcome,
      ...(flooded ? { flooded } : {}),
      exitCode,
      signal: exitSignal,
      stdout: stdout.bytes(),
      stderr: stderr.bytes(),
      stdoutBytes: stdout.total,
      stderrBytes: stderr.total,
      strays,
      durationMs: performance.now() - started,
    };
  }
}

/** Resolves once the child has started; rejects with the spawn error. */
function spawned(child: ChildProcess): Promise<void> {
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
