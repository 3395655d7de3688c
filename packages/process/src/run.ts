/**
 * Starting a command in its own process group, and running one to the end:
 * bounded capture of stdout and stderr, a deadline, an abort signal, an
 * optional output limit, and the whole group killed (SIGTERM, grace, SIGKILL)
 * when any of them fires or when the command exits leaving processes behind.
 * A run returns when the command has exited and its pipes are drained, never
 * waiting on pipes a leftover process holds.
 */
import type { ChildProcess, StdioOptions } from 'node:child_process';
import os from 'node:os';
import type { Writable } from 'node:stream';
import { setTimeout as pause } from 'node:timers/promises';
import { BoundedCapture, type CapturedBytes, type CaptureLimits } from './capture.js';
import { closePlugs, plugInherited } from './descriptors.js';
import { childEnvironment } from './env.js';
import { ProcessGroup } from './group.js';
import { childProcess } from './platform.js';
import type { LaunchedCommand, PreparedCommand, Sandbox } from './sandbox.js';
import { SECCOMP_FD } from './seccomp.js';

/** Run the command through a mount's sandbox, confined to `workspace` (chosen by the module, never the model). */
export interface SandboxedRun {
  sandbox: Sandbox;
  workspace: string;
  /**
   * Host paths the command reads besides its program (which is always
   * visible), such as a server's script: see `SetupOptions.readable`.
   */
  readable?: readonly string[];
  /**
   * Use and refill the sandbox's spare (see spare.ts; default true). Long-lived
   * processes (servers) pass false: nothing would use a spare made after them.
   */
  prestart?: boolean;
}

/** How the leader of a group ended: an exit code, or the signal that killed it. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Options of `spawnInGroup`. */
export interface SpawnInGroupOptions {
  cwd?: string;
  /**
   * The child's whole environment. Default: the host's minus secret-named
   * variables (`childEnvironment(process.env)`), never the host's as it is.
   */
  env?: NodeJS.ProcessEnv;
  /** As for `child_process.spawn` (default `['ignore', 'pipe', 'pipe']`: stdin from /dev/null). */
  stdio?: StdioOptions;
  /** See `ProcessGroupOptions.followEscapees` (default false). */
  followEscapees?: boolean;
  /** Start it through this sandbox (see sandbox.ts); without it, unconfined and unmarked. */
  sandbox?: SandboxedRun;
}

/** A command started by `spawnInGroup`. */
export interface GroupChild {
  /** The leader's pid, which is also the group's id. */
  readonly pid: number;
  readonly child: ChildProcess;
  /** Registered for host exit: `release()` it when done. */
  readonly group: ProcessGroup;
  /** Resolves when the leader exits (the group may still have members). */
  readonly exited: Promise<ExitStatus>;
  /** Once the group is gone: kill what escaped it (unconfined) or release the sandbox's resources. */
  readonly finish: () => Promise<void>;
  /** Started under bubblewrap: its PID namespace holds every process it starts. */
  readonly confined: boolean;
  /** Confined: whether no process of its sandbox is left, where one read tells (the call's cgroup). */
  readonly empty?: () => boolean;
}

/**
 * Start `command` with `args` as the leader of a new process group (and
 * session: `detached`). Resolves once it has started; rejects with the spawn
 * error (ENOENT, EACCES, E2BIG...).
 */
export async function spawnInGroup(
  command: string,
  args: readonly string[],
  options: SpawnInGroupOptions = {},
): Promise<GroupChild> {
  const env = options.env ?? childEnvironment(process.env).env;
  const cwd = options.cwd ?? process.cwd();
  const stdio = options.stdio ?? ['ignore', 'pipe', 'pipe'];
  const sandboxed = options.sandbox;
  let started: LaunchedCommand | PreparedCommand;
  if (sandboxed === undefined) {
    started = { command, args: [...args], env, confined: false, finish: async () => {} };
  } else {
    const run = { cwd, workspace: sandboxed.workspace, env, stdio, readable: sandboxed.readable ?? [] };
    started =
      sandboxed.prestart === false
        ? sandboxed.sandbox.prepare(command, args, run)
        : await sandboxed.sandbox.launch(command, args, run);
  }
  const warm = 'child' in started;
  // Confined: what this process inherited without close-on-exec must not reach the sandbox (descriptors.ts).
  const plugs =
    'child' in started || !started.confined
      ? { stdio, plugged: [] }
      : plugInherited(started.seccomp === undefined ? stdio : withSeccompPipe(stdio), 3);
  const child: ChildProcess =
    'child' in started
      ? started.child
      : childProcess().spawn(started.command, started.args, {
          cwd: options.cwd,
          env: started.env,
          detached: true,
          stdio: started.confined
            ? plugs.stdio
            : started.seccomp === undefined
              ? stdio
              : withSeccompPipe(stdio),
        });
  closePlugs(child, plugs.plugged);
  const filter = 'child' in started ? undefined : started.seccomp;
  if (filter !== undefined) {
    const pipe = (child.stdio as unknown[])[SECCOMP_FD] as Writable | null | undefined;
    pipe?.on('error', () => {});
    pipe?.end(filter);
  }
  const finish = started.finish;
  const confined = 'child' in started || started.confined;
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('exit', (code, signal) => resolve(confined ? signalled(code, signal) : { code, signal }));
  });
  if (!warm) {
    try {
      await spawned(child);
    } catch (error) {
      await finish();
      throw error;
    }
  }
  const pid = child.pid!;
  const group = new ProcessGroup(pid, { followEscapees: options.followEscapees ?? false });
  const empty = started.empty;
  return { pid, child, group, exited, finish, confined, ...(empty === undefined ? {} : { empty }) };
}

/** `stdio` with a pipe at `SECCOMP_FD`, where bubblewrap reads the seccomp filter. */
function withSeccompPipe(stdio: StdioOptions): StdioOptions {
  const modes = typeof stdio === 'string' ? [stdio, stdio, stdio] : [...stdio];
  if (modes.length > SECCOMP_FD) {
    throw new Error(
      `a sandboxed command takes at most ${SECCOMP_FD} stdio entries (descriptor ${SECCOMP_FD} carries its seccomp filter); got ${modes.length}`,
    );
  }
  while (modes.length < SECCOMP_FD) modes.push('ignore');
  return [...modes, 'pipe'];
}

/** bubblewrap exits with 128 + n when its command died of signal n: give the signal back. */
function signalled(code: number | null, signal: NodeJS.Signals | null): ExitStatus {
  if (code === null || code <= 128) return { code, signal };
  const name = (Object.keys(os.constants.signals) as NodeJS.Signals[]).find(
    (key) => os.constants.signals[key] === code - 128,
  );
  return name === undefined ? { code, signal } : { code: null, signal: name };
}

/** Options of `runInGroup`. */
export interface RunInGroupOptions {
  cwd?: string;
  /** As for `spawnInGroup` (default: the host's minus secret-named variables). */
  env?: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed; without it stdin is /dev/null. */
  input?: string | Uint8Array;
  /** Deadline in milliseconds; then the group is killed (outcome `timeout`). */
  timeoutMs: number;
  /** Time between SIGTERM and SIGKILL whenever the group is killed. */
  graceMs: number;
  /** How long to keep reading after the leader exited while something else holds the pipes (default 250). */
  drainMs?: number;
  /** Aborting it kills the group (outcome `aborted`). */
  signal?: AbortSignal;
  /** What is kept of each of stdout and stderr (the rest is counted). */
  capture: CaptureLimits;
  /** A stream that goes over this many bytes stops the reading and kills the group (outcome `overflow`). */
  stopAfterBytes?: number;
  /** See `ProcessGroupOptions.followEscapees` (default false). */
  followEscapees?: boolean;
  /** Run it through this sandbox (see sandbox.ts). */
  sandbox?: SandboxedRun;
}

/** How a run ended. */
export type RunInGroupOutcome = 'exited' | 'timeout' | 'aborted' | 'overflow';

/** The result of `runInGroup`. */
export interface RunInGroupResult {
  outcome: RunInGroupOutcome;
  /** The stream that went over `stopAfterBytes` (outcome `overflow`). */
  overflowed?: 'stdout' | 'stderr';
  /** The leader's exit code; null when a signal killed it or it was not seen exiting. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: CapturedBytes;
  stderr: CapturedBytes;
  /** The leader exited leaving processes in its group, and they were killed. */
  strays: boolean;
  durationMs: number;
}

const DRAIN_MS = 250;
/** How long to wait for the leader's exit status after its group was killed. */
const EXIT_STATUS_MS = 2000;
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Run a command to the end in its own process group. Rejects only when it cannot be started. */
export async function runInGroup(
  command: string,
  args: readonly string[],
  options: RunInGroupOptions,
): Promise<RunInGroupResult> {
  const started = performance.now();
  const { child, group, exited, finish, confined, empty } = await spawnInGroup(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    followEscapees: options.followEscapees ?? false,
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
  });
  const stdoutStream = child.stdout!;
  const stderrStream = child.stderr!;
  const stdout = new BoundedCapture(options.capture);
  const stderr = new BoundedCapture(options.capture);
  const drainMs = options.drainMs ?? DRAIN_MS;
  const limit = options.stopAfterBytes ?? Number.POSITIVE_INFINITY;

  let overflowed: 'stdout' | 'stderr' | undefined;
  let stop: (why: 'timeout' | 'aborted' | 'overflow') => void = () => {};
  const stopped = new Promise<'timeout' | 'aborted' | 'overflow'>((resolve) => {
    stop = resolve;
  });
  const read = (stream: NodeJS.ReadableStream, into: BoundedCapture, name: 'stdout' | 'stderr'): void => {
    stream.on('data', (chunk: Buffer) => {
      into.push(chunk);
      if (into.total <= limit || overflowed !== undefined) return;
      overflowed = name;
      // Stop reading at once: the next write fails (EPIPE) instead of filling memory.
      stdoutStream.destroy();
      stderrStream.destroy();
      stop('overflow');
    });
  };
  read(stdoutStream, stdout, 'stdout');
  read(stderrStream, stderr, 'stderr');
  const closed = Promise.all([streamClosed(stdoutStream), streamClosed(stderrStream)]);

  if (options.input !== undefined) {
    // The command may exit without reading its input: EPIPE on stdin is expected, not a crash.
    child.stdin!.on('error', () => {});
    child.stdin!.end(options.input);
  }
  const timer = setTimeout(() => stop('timeout'), Math.min(Math.max(options.timeoutMs, 0), MAX_TIMER_MS));
  const { signal } = options;
  const onAbort = (): void => stop('aborted');
  if (signal?.aborted) stop('aborted');
  else signal?.addEventListener('abort', onAbort, { once: true });

  const result = (outcome: RunInGroupOutcome, status: ExitStatus, strays: boolean): RunInGroupResult => ({
    outcome,
    ...(overflowed ? { overflowed } : {}),
    exitCode: status.code,
    signal: status.signal,
    stdout: stdout.bytes(),
    stderr: stderr.bytes(),
    strays,
    durationMs: performance.now() - started,
  });

  try {
    const first = await Promise.race([exited, stopped]);
    if (typeof first === 'object') {
      // Read what is left; something that still holds the pipes gets `drainMs`, then is stopped.
      await within(closed, drainMs);
      if (confined) {
        await sandboxGone(group, empty);
        await within(closed, drainMs);
        return result(overflowed ? 'overflow' : 'exited', first, false);
      }
      const strays = group.alive();
      if (strays) await group.kill({ graceMs: options.graceMs });
      await within(closed, drainMs);
      // An overflow seen while draining still counts.
      return result(overflowed ? 'overflow' : 'exited', first, strays);
    }
    await group.kill({ graceMs: options.graceMs });
    const status = (await within(exited, EXIT_STATUS_MS)) ?? { code: null, signal: null };
    await within(closed, drainMs);
    return result(first, status, false);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    child.stdin?.destroy();
    stdoutStream.destroy();
    stderrStream.destroy();
    group.release();
    await finish();
  }
}

/** How often `sandboxGone` looks whether the sandbox is gone: at first, and at most (doubling in between). */
const SANDBOX_POLL_MS = [1, 10] as const;

/**
 * After bubblewrap reported its command's exit, what is left of the sandbox is
 * its PID namespace being torn down: the kernel SIGKILLs every process in it
 * once its init is gone, so no stray outlives the command and none gets a
 * grace period. Sends the group SIGKILL at once (what the kernel does anyway)
 * and resolves when nothing is left, looking after 1 ms, then 2, 4, 8 and every
 * 10 ms: at the call's cgroup (`empty`: one small read) where there is one,
 * else through `/proc` as for any group. Gives up after `EXIT_STATUS_MS` (a process stuck in the
 * kernel), as `ProcessGroup.kill` does.
 */
async function sandboxGone(group: ProcessGroup, empty: (() => boolean) | undefined): Promise<void> {
  const gone = empty ?? ((): boolean => !group.alive());
  if (gone()) return;
  group.signal('SIGKILL');
  const deadline = performance.now() + EXIT_STATUS_MS;
  for (let wait: number = SANDBOX_POLL_MS[0]; !gone() && performance.now() < deadline; ) {
    await pause(wait);
    wait = Math.min(wait * 2, SANDBOX_POLL_MS[1]);
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
