/**
 * Running one tool process through `@amplifier/process`: its own process
 * group, the input written to stdin and stdin closed, stdout and stderr
 * captured up to a cap (a process that writes more is stopped), and the group
 * killed (SIGTERM, a grace period, SIGKILL) on timeout, on abort, on a flood,
 * and when the process exits leaving others behind. Returns when the process
 * has exited and its pipes are drained, never waiting on pipes a stray holds.
 */
import { runInGroup, type SandboxedRun } from '@amplifier/process';

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
  /** Run it through the mount's sandbox. */
  sandbox?: SandboxedRun;
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

/** Run a tool process to completion. Rejects only when it cannot be started (ENOENT, EACCES...). */
export async function runProcess(request: RunRequest): Promise<RunOutcome> {
  const run = await runInGroup(request.command, request.args, {
    cwd: request.cwd,
    env: request.env,
    input: request.stdin,
    timeoutMs: request.timeoutMs,
    graceMs: request.graceMs,
    signal: request.signal,
    // The first `maxOutputBytes` of each stream; a stream that goes over stops the process.
    capture: { headBytes: request.maxOutputBytes },
    stopAfterBytes: request.maxOutputBytes,
    ...(request.sandbox ? { sandbox: request.sandbox } : {}),
  });
  return {
    outcome: run.outcome === 'overflow' ? 'flooded' : run.outcome,
    ...(run.overflowed ? { flooded: run.overflowed } : {}),
    exitCode: run.exitCode,
    signal: run.signal,
    stdout: run.stdout.head,
    stderr: run.stderr.head,
    stdoutBytes: run.stdout.total,
    stderrBytes: run.stderr.total,
    strays: run.strays,
    durationMs: run.durationMs,
  };
}
