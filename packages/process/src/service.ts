/**
 * Long-lived child processes that talk over their stdio (MCP stdio servers,
 * language servers): started like `spawnInGroup` (own process group, the
 * sandbox when given, the secret policy's environment by default) with three
 * pipes, and stopped the way such servers expect: close stdin, wait, SIGTERM
 * to the whole group, wait, SIGKILL to the whole group, so that grandchildren
 * (`npx` → `node`, `uvx` → `python`) go with the leader.
 */
import type { Readable, Writable } from 'node:stream';
import { type ExitStatus, type GroupChild, type SpawnInGroupOptions, spawnInGroup } from './run.js';

/** Options of `startService`: those of `spawnInGroup` except `stdio` (always three pipes). */
export type StartServiceOptions = Omit<SpawnInGroupOptions, 'stdio'>;

/** Options of `ServiceProcess.stop`. */
export interface StopServiceOptions {
  /** How long to wait after closing stdin before SIGTERM (default 2000 ms). */
  stdinGraceMs?: number;
  /** How long to wait after SIGTERM before SIGKILL (default 2000 ms). */
  termGraceMs?: number;
}

/** A service started by `startService`. */
export interface ServiceProcess {
  readonly pid: number;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Resolves when the leader exits (on its own or stopped). */
  readonly exited: Promise<ExitStatus>;
  /** The leader's exit status once it exited, else undefined. */
  readonly exitStatus: ExitStatus | undefined;
  /** Started under bubblewrap. */
  readonly confined: boolean;
  /**
   * Close stdin, give it `stdinGraceMs` to exit, SIGTERM the group, give it
   * `termGraceMs`, SIGKILL the group; also kills what the leader left in its
   * group when it exited on its own. Resolves once the group is gone (or
   * survived SIGKILL 2 s: a process stuck in the kernel), with the leader's
   * exit status. Idempotent: later calls return the same promise.
   */
  stop(options?: StopServiceOptions): Promise<ExitStatus>;
}

const DEFAULT_GRACE_MS = 2000;

/**
 * Start `command args` as a service: its own process group (and session),
 * stdin, stdout and stderr piped. Rejects with the spawn error (ENOENT, ...).
 */
export async function startService(
  command: string,
  args: readonly string[],
  options: StartServiceOptions = {},
): Promise<ServiceProcess> {
  const started: GroupChild = await spawnInGroup(command, args, {
    ...options,
    // A server runs for the session: no spare sandbox is made after it (nothing would use it).
    ...(options.sandbox ? { sandbox: { ...options.sandbox, prestart: false } } : {}),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const { child, group } = started;
  let status: ExitStatus | undefined;
  const exited = started.exited.then((value) => {
    status = value;
    return value;
  });
  // A write to a server that already exited must not crash the host (EPIPE).
  child.stdin!.on('error', () => {});
  let stopping: Promise<ExitStatus> | undefined;
  const stop = async (stopOptions: StopServiceOptions): Promise<ExitStatus> => {
    const stdinGrace = stopOptions.stdinGraceMs ?? DEFAULT_GRACE_MS;
    const termGrace = stopOptions.termGraceMs ?? DEFAULT_GRACE_MS;
    if (status === undefined) {
      child.stdin!.end();
      await exitedWithin(exited, stdinGrace);
    }
    if (status === undefined || group.alive()) await group.kill({ graceMs: termGrace });
    const final = await exited;
    group.release();
    await started.finish();
    return final;
  };
  return {
    pid: started.pid,
    stdin: child.stdin!,
    stdout: child.stdout!,
    stderr: child.stderr!,
    exited,
    get exitStatus() {
      return status;
    },
    confined: started.confined,
    stop(stopOptions = {}) {
      stopping ??= stop(stopOptions);
      return stopping;
    },
  };
}

/** True when `exited` resolved within `ms`. */
async function exitedWithin(exited: Promise<ExitStatus>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([exited.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
