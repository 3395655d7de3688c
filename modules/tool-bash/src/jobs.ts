/**
 * Background jobs (`run_in_background`): each runs in its own process group
 * with stdout and stderr written to files in a directory of the mount (mode
 * 0700): `bash-jobs-XXXXXX` in the session directory when the app registers
 * the `session.directory` capability (kept at cleanup, with the session's
 * other files), else a private temp directory (removed at cleanup).
 * `bash_output` reads what was written since the last read; `bash_kill` stops
 * a job; cleanup stops them all.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type GroupChild, type ProcessGroup, type SandboxedRun, spawnInGroup } from '@amplifier/process';
import { type CapturedBytes, type FormattedOutput, formatOutput, incompleteSuffix } from './output.js';

export type JobStatus = 'running' | 'exited' | 'killed';

/** What the tools report about a job (plain JSON, snake_case). */
export interface JobSummary {
  pid: number;
  command: string;
  status: JobStatus;
  returncode: number | null;
  signal?: string;
  started_at: string;
}

interface Job {
  pid: number;
  command: string;
  startedAt: Date;
  files: { stdout: string; stderr: string };
  offsets: { stdout: number; stderr: number };
  status: JobStatus;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  group: ProcessGroup;
  /** The shell exited and left nothing in its group. */
  groupDone: boolean;
  exited: Promise<void>;
  /** Once the group is gone: the sandbox's end of the job (escapees killed, resources released). */
  finish: () => Promise<void>;
}

export interface JobStartOptions {
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  shell: string;
  /** Run it through the mount's sandbox. */
  sandbox?: SandboxedRun;
}

export class JobManager {
  readonly #jobs = new Map<number, Job>();
  readonly #graceMs: number;
  #dir: string | undefined;
  #dirReady: Promise<string> | undefined;
  #count = 0;
  #closing = false;

  readonly #sessionDirectory: () => string | undefined;
  readonly #warn: (message: string) => void;
  /** The job directory is a temp directory (removed at cleanup), not in the session directory. */
  #temporary = false;

  /** `sessionDirectory`: where the app keeps this session's files, asked when the first job starts. */
  constructor(options: {
    graceMs: number;
    sessionDirectory?: () => string | undefined;
    warn?: (message: string) => void;
  }) {
    this.#graceMs = options.graceMs;
    this.#sessionDirectory = options.sessionDirectory ?? (() => undefined);
    this.#warn = options.warn ?? (() => {});
  }

  /** The job directory, once a job has started. */
  get directory(): string | undefined {
    return this.#dir;
  }

  async start(options: JobStartOptions): Promise<JobSummary> {
    // One directory per mount, made on the first job (a shared promise: concurrent starts agree on it).
    this.#dirReady ??= this.#makeDirectory().then((dir) => {
      this.#dir = dir;
      return dir;
    });
    const dir = await this.#dirReady;
    const n = ++this.#count;
    const files = {
      stdout: path.join(dir, `job-${n}.stdout`),
      stderr: path.join(dir, `job-${n}.stderr`),
    };
    const out = fs.openSync(files.stdout, 'a', 0o600);
    const err = fs.openSync(files.stderr, 'a', 0o600);
    let started: GroupChild;
    try {
      started = await spawnInGroup(options.shell, ['-c', options.command], {
        cwd: options.cwd,
        env: options.env,
        stdio: ['ignore', out, err],
        followEscapees: true,
        ...(options.sandbox ? { sandbox: options.sandbox } : {}),
      });
    } finally {
      fs.closeSync(out);
      fs.closeSync(err);
    }
    started.child.unref(); // a job never keeps the host process alive on its own
    const job: Job = {
      pid: started.pid,
      command: options.command,
      startedAt: new Date(),
      files,
      offsets: { stdout: 0, stderr: 0 },
      status: 'running',
      exitCode: null,
      signal: null,
      group: started.group,
      groupDone: false,
      finish: started.finish,
      exited: started.exited.then(async ({ code, signal }) => {
        if (job.status === 'running') job.status = 'exited';
        job.exitCode = code;
        job.signal = signal;
        // An empty group is done: forget its id, which the system may give to another group later.
        if (!job.group.alive()) {
          job.groupDone = true;
          job.group.release();
          await job.finish();
        }
      }),
    };
    this.#jobs.set(job.pid, job);
    if (this.#closing) {
      // Cleanup started while this job was being spawned: it must not outlive the session.
      await this.kill(job.pid);
      job.group.release();
      throw new Error('The session has ended: tool-bash no longer runs commands');
    }
    return summary(job);
  }

  has(pid: number): boolean {
    return this.#jobs.has(pid);
  }

  list(): JobSummary[] {
    return [...this.#jobs.values()].map(summary);
  }

  /** Status and the output written since the last read of this job (head + tail truncated). */
  async read(
    pid: number,
    maxBytes: number,
  ): Promise<JobSummary & { stdout: FormattedOutput; stderr: FormattedOutput }> {
    const job = this.#jobs.get(pid)!;
    const running = job.status === 'running';
    const stdout = await readSince(job, 'stdout', maxBytes, running);
    const stderr = await readSince(job, 'stderr', maxBytes, running);
    return { ...summary(job), stdout, stderr };
  }

  /** Resolves with the job's summary once its shell has exited. */
  async waitForExit(pid: number): Promise<JobSummary> {
    const job = this.#jobs.get(pid)!;
    await job.exited;
    return summary(job);
  }

  /** `<session dir>/bash-jobs-XXXXXX` (unique per mount: a resumed session never reuses old files), else a temp dir. */
  async #makeDirectory(): Promise<string> {
    const session = this.#sessionDirectory();
    if (session !== undefined) {
      try {
        await fs.promises.mkdir(session, { recursive: true, mode: 0o700 });
        return await fs.promises.mkdtemp(path.join(session, 'bash-jobs-'));
      } catch (error) {
        this.#warn(
          `tool-bash: cannot create the job directory in the session directory ${session} (${(error as Error).message}); using a temp directory`,
        );
      }
    }
    this.#temporary = true;
    return fs.promises.mkdtemp(path.join(os.tmpdir(), 'amplifier-bash-'));
  }

  /** Stop a job's whole process group (SIGTERM, grace, SIGKILL). */
  async kill(pid: number): Promise<JobSummary> {
    const job = this.#jobs.get(pid)!;
    if (job.status === 'running') job.status = 'killed';
    if (job.groupDone) return summary(job);
    await job.group.kill({ graceMs: this.#graceMs });
    await Promise.race([job.exited, new Promise((r) => setTimeout(r, 2000).unref())]);
    return summary(job);
  }

  /** Stop every job (and anything a finished job left in its group), then remove a temp directory. */
  async close(): Promise<void> {
    this.#closing = true;
    await Promise.all(
      [...this.#jobs.values()].map(async (job) => {
        if (job.status === 'running' || (!job.groupDone && job.group.alive())) await this.kill(job.pid);
        job.group.release();
        await job.finish();
      }),
    );
    const dir = await this.#dirReady?.catch(() => undefined);
    if (dir !== undefined && this.#temporary) await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

function summary(job: Job): JobSummary {
  return {
    pid: job.pid,
    command: job.command,
    status: job.status,
    returncode: job.exitCode,
    ...(job.signal ? { signal: job.signal } : {}),
    started_at: job.startedAt.toISOString(),
  };
}

/** Read `[offset, size)` of a job's file: the head and the tail only, never the middle. */
async function readSince(
  job: Job,
  stream: 'stdout' | 'stderr',
  maxBytes: number,
  running: boolean,
): Promise<FormattedOutput> {
  const start = job.offsets[stream];
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(job.files[stream], 'r');
  } catch {
    return formatOutput({ head: Buffer.alloc(0), tail: Buffer.alloc(0), total: 0 }, maxBytes);
  }
  try {
    const size = (await handle.stat()).size;
    let total = Math.max(0, size - start);
    const readAt = async (position: number, length: number): Promise<Buffer> => {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, position);
      return buffer.subarray(0, bytesRead);
    };
    let head = await readAt(start, Math.min(total, maxBytes));
    const tailLength = Math.min(total, Math.floor(maxBytes * 0.4));
    let tail = await readAt(start + total - tailLength, tailLength);
    if (running) {
      // The writer may be in the middle of a character: leave it for the next read.
      const cut = incompleteSuffix(total <= maxBytes ? head : tail);
      total -= cut;
      head = head.subarray(0, Math.min(head.length, total));
      tail = tail.subarray(0, tail.length - cut);
    }
    job.offsets[stream] = start + total;
    const captured: CapturedBytes = { head, tail, total };
    return formatOutput(captured, maxBytes);
  } finally {
    await handle.close();
  }
}
