/**
 * Running one shell command through `@amplifier/process`: `shell -c` in
 * its own process group, stdin from /dev/null, bounded head + tail capture of
 * stdout and stderr, and a kill sequence (SIGTERM to the group and to
 * descendants that left it with setsid, a grace period, SIGKILL) on timeout,
 * on abort and for processes left behind. The call returns when the shell
 * exits plus a short drain, or at the deadline, never waiting on pipes a
 * grandchild holds.
 */
import { runInGroup, type SandboxedRun } from '@amplifier/process';
import { type CapturedBytes, captureLimits } from './output.js';

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
  /** Run it through the mount's sandbox. */
  sandbox?: SandboxedRun;
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

/** Run `command` with `shell -c`. Rejects only when the process cannot be started. */
export async function runCommand(options: RunOptions): Promise<RunResult> {
  const run = await runInGroup(options.shell, ['-c', options.command], {
    cwd: options.cwd,
    env: options.env,
    timeoutMs: options.timeoutMs,
    graceMs: options.graceMs,
    drainMs: options.drainMs,
    signal: options.signal,
    capture: captureLimits(options.maxOutputBytes),
    followEscapees: true,
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
  });
  return {
    // No `stopAfterBytes`: output beyond the capture is counted, never an 'overflow'.
    outcome: run.outcome as RunResult['outcome'],
    exitCode: run.exitCode,
    signal: run.signal,
    stdout: run.stdout,
    stderr: run.stderr,
    durationMs: run.durationMs,
    strays: run.strays,
  };
}
