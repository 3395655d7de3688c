/**
 * The `bash`, `bash_output` and `bash_kill` tools of one mount, sharing its
 * config, the concurrency counter, the running commands and the jobs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  type Coordinator,
  type ExecutionProfile,
  errorMessage,
  type JSONSchema,
  type Tool,
  type ToolCallOptions,
  type ToolResult,
} from '@amplifier/core';
import { Sandbox } from '@amplifier/process';
import { type BashConfig, commandEnvironment } from './config.js';
import { JobManager } from './jobs.js';
import { type FormattedOutput, formatOutput } from './output.js';
import { runCommand } from './runner.js';
import type { EffectContext } from './safety.js';

/** The state one mount's tools share. */
export class BashRuntime {
  readonly config: BashConfig;
  readonly jobs: JobManager;
  /** The mount's OS sandbox (or its unconfined fallback, which reaps escapees). */
  readonly sandbox: Sandbox;
  readonly #coordinator: Coordinator;
  readonly #running = new Set<AbortController>();
  readonly #inFlight = new Set<Promise<unknown>>();
  #active = 0;
  #closed = false;
  #withheldLogged = false;

  constructor(coordinator: Coordinator, config: BashConfig) {
    this.#coordinator = coordinator;
    this.config = config;
    // Throws SandboxUnavailableError for `sandbox: required` without bubblewrap.
    this.sandbox = new Sandbox(config.sandbox, {
      module: 'tool-bash',
      notice: (message) => coordinator.logger.warn(message),
    });
    this.jobs = new JobManager({
      graceMs: config.kill_grace * 1000,
      sessionDirectory: () => {
        const dir = coordinator.getCapability<unknown>('session.directory');
        return typeof dir === 'string' && dir !== '' ? path.resolve(dir) : undefined;
      },
      warn: (message) => coordinator.logger.warn(message),
    });
  }

  /** Commands running now (what `max_concurrent` limits). */
  get activeCommands(): number {
    return this.#active;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The cwd for the next command: config, else the `session.working_dir` capability, else the process cwd. */
  workingDir(): string {
    const fromCapability = this.#coordinator.getCapability<unknown>('session.working_dir');
    const dir =
      this.config.working_dir ?? (typeof fromCapability === 'string' ? fromCapability : process.cwd());
    return path.resolve(dir);
  }

  /**
   * The environment of the next command, read from the host's now. The first
   * time, the secret-named variables it leaves out are logged (names only):
   * building it reads every host variable, so it is not done at mount.
   */
  commandEnv(): NodeJS.ProcessEnv {
    const { env, withheld } = commandEnvironment(this.config);
    if (!this.#withheldLogged) {
      this.#withheldLogged = true;
      if (withheld.length > 0) {
        this.#coordinator.logger.info(
          `tool-bash: secret-named environment variables are withheld from commands: ${withheld.join(', ')} (name one in pass_env to pass it)`,
        );
      }
    }
    return env;
  }

  /** Count a command against `max_concurrent`; false when the limit is reached. */
  acquire(): boolean {
    const max = this.config.max_concurrent;
    if (max !== null && this.#active >= max) return false;
    this.#active++;
    return true;
  }

  release(): void {
    this.#active--;
  }

  /** Run `work` with a signal that cleanup aborts; cleanup waits for it. */
  async track<T>(signal: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const forward = (): void => controller.abort(signal?.reason);
    if (signal?.aborted) forward();
    signal?.addEventListener('abort', forward, { once: true });
    this.#running.add(controller);
    const promise = work(controller.signal);
    this.#inFlight.add(promise);
    try {
      return await promise;
    } finally {
      signal?.removeEventListener('abort', forward);
      this.#running.delete(controller);
      this.#inFlight.delete(promise);
    }
  }

  /** Stop every running command and background job; later calls are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const controller of this.#running) controller.abort(new Error('tool-bash cleanup'));
    await Promise.allSettled([...this.#inFlight]);
    await this.jobs.close();
    this.sandbox.cleanup();
  }
}

/**
 * What the validator is told about where a command runs: its working
 * directory, the homes `~` may mean (the command's HOME, the user's), the
 * environment it gets (`rm -rf "$BUILD/"*` with BUILD unset is `rm -rf /*`),
 * and the filesystem's symlinks (a link to `/` made by an earlier call).
 */
let safetyModule: Promise<typeof import('./safety.js')> | undefined;
const loadSafety = (): Promise<typeof import('./safety.js')> => (safetyModule ??= import('./safety.js'));

function safetyContext(cwd: string, env: NodeJS.ProcessEnv): EffectContext {
  const homes = [env.HOME, os.homedir()].filter(
    (h): h is string => typeof h === 'string' && path.isAbsolute(h),
  );
  return {
    cwd,
    homes: [...new Set(homes)],
    env,
    realpath: (p) => {
      try {
        return fs.realpathSync.native(p);
      } catch {
        return undefined;
      }
    },
  };
}

function fail(message: string, output: unknown = message): ToolResult {
  return { success: false, output, error: { message } };
}

/** Linux's MAX_ARG_STRLEN: `bash -c` gets the command as one argument (terminating NUL included). */
const MAX_ARGUMENT_BYTES = 131_072;

const CLOSED_MESSAGE = 'The session has ended: tool-bash no longer runs commands';

/** `stdout`, `stderr`, then `extra`, then the truncation fields when a stream was cut. */
function streamFields(
  stdout: FormattedOutput,
  stderr: FormattedOutput,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const fields: Record<string, unknown> = { stdout: stdout.text, stderr: stderr.text, ...extra };
  if (stdout.truncated || stderr.truncated) {
    fields.truncated = true;
    if (stdout.truncated) fields.stdout_total_bytes = stdout.totalBytes;
    if (stderr.truncated) fields.stderr_total_bytes = stderr.totalBytes;
  }
  return fields;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

const BASH_SCHEMA: JSONSchema = {
  type: 'object',
  properties: {
    command: { type: 'string', description: 'The bash command to run' },
    timeout: {
      type: 'number',
      exclusiveMinimum: 0,
      description: 'Timeout in seconds (default: 30, or the configured timeout)',
    },
    run_in_background: {
      type: 'boolean',
      default: false,
      description:
        'Start the command in the background and return its PID at once (servers, watchers). Read its output with bash_output, stop it with bash_kill.',
    },
  },
  required: ['command'],
};

/** The `bash` tool of a mount. */
export function createBashTool(
  runtime: BashRuntime,
): Tool & { readonly runtime: BashRuntime; getMetadata(): Record<string, unknown> } {
  const { config } = runtime;
  const description = [
    'Run a bash command in the working directory and return its stdout, stderr and returncode (success only when the exit code is 0).',
    'Use it as a fallback when no dedicated tool fits.',
    `Long output is truncated per stream to the first and last lines around a [...OUTPUT TRUNCATED...] marker with byte counts (limit ${config.max_output_bytes} bytes per stream): redirect large output (JSON, logs) to a file and read portions of it.`,
    `Commands time out after ${config.timeout} seconds unless you pass timeout; the command and every process it started are then stopped.`,
    'Use run_in_background for servers and other long-running processes; processes a foreground command leaves running are stopped when it exits.',
    'Standard input is empty: interactive commands (prompts, editors, pagers) do not work.',
    'Destructive and privileged commands are blocked by the safety profile.',
  ].join(' ');

  return {
    name: 'bash',
    description,
    runtime,
    inputSchema: BASH_SCHEMA,
    // The shell can touch anything; it enforces its own deadline on every call.
    executionProfile: { serial: true, disableTimeout: true } satisfies ExecutionProfile,
    getMetadata: () => ({
      requires_approval: config.require_approval,
      approval_hints: {
        risk_level: 'high',
        dangerous_patterns: config.denied_commands,
        safe_patterns: config.allowed_commands,
      },
    }),
    async execute(input: Record<string, unknown>, options: ToolCallOptions = {}): Promise<ToolResult> {
      try {
        return await executeBash(runtime, input ?? {}, options);
      } catch (error) {
        return fail(errorMessage(error));
      }
    },
  };
}

async function executeBash(
  runtime: BashRuntime,
  input: Record<string, unknown>,
  options: ToolCallOptions,
): Promise<ToolResult> {
  const { config } = runtime;
  const { command } = input;
  if (command === undefined || command === null || command === '') return fail('Command is required');
  if (typeof command !== 'string') return fail('command must be a string');
  if (command.includes('\0')) return fail('Command contains a NUL byte, which a shell command cannot hold');
  const size = Buffer.byteLength(command);
  if (size >= MAX_ARGUMENT_BYTES) {
    return fail(
      `Command is too long: ${size} bytes, and one argument to a program is limited to ${MAX_ARGUMENT_BYTES - 1} bytes (E2BIG): write it to a script file and run the file`,
    );
  }
  const timeout = input.timeout ?? config.timeout;
  if (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout <= 0) {
    return fail('timeout must be a positive number of seconds');
  }
  const background = input.run_in_background ?? false;
  if (typeof background !== 'boolean') return fail('run_in_background must be true or false');
  // The validator and its effect analysis load with the first command (start-up time).
  const { validateCommand } = await loadSafety();
  if (runtime.closed) return fail(CLOSED_MESSAGE);

  const cwd = runtime.workingDir();
  const env = runtime.commandEnv();
  const safety = validateCommand(command, config, safetyContext(cwd, env));
  if (!safety.allowed) {
    return fail(
      `Command denied for safety: ${safety.reason}${safety.hint ? `\n  Hint: ${safety.hint}` : ''}`,
    );
  }
  if (!runtime.acquire()) {
    return fail(`Command rejected: concurrent command limit of ${config.max_concurrent} reached`);
  }
  try {
    if (!fs.statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) {
      return fail(
        `Working directory does not exist or is not a directory: ${cwd} (set working_dir in the tool-bash config)`,
      );
    }
    if (background) {
      const job = await runtime.jobs.start({
        command,
        cwd,
        env,
        shell: config.shell,
        sandbox: { sandbox: runtime.sandbox, workspace: cwd },
      });
      return {
        success: true,
        output: {
          pid: job.pid,
          message: `Command started in background with PID ${job.pid}`,
          note: `Read its output with bash_output (pid ${job.pid}) and stop it with bash_kill; it is stopped when the session ends.`,
        },
      };
    }
    if (options.signal?.aborted) return fail('Command interrupted before it started (cancelled)');
    const run = await runtime.track(options.signal, (signal) =>
      runCommand({
        command,
        cwd,
        env,
        shell: config.shell,
        timeoutMs: timeout * 1000,
        maxOutputBytes: config.max_output_bytes,
        graceMs: config.kill_grace * 1000,
        signal,
        sandbox: { sandbox: runtime.sandbox, workspace: cwd },
      }),
    );
    const max = config.max_output_bytes;
    const stdout = formatOutput(run.stdout, max);
    const stderr = formatOutput(run.stderr, max);
    if (run.outcome === 'timeout') {
      const message = `Command timed out after ${timeout} seconds`;
      return fail(message, streamFields(stdout, stderr, { returncode: null, timed_out: true, message }));
    }
    if (run.outcome === 'aborted') {
      const message = `Command interrupted (ran for ${seconds(run.durationMs)}): the command and its processes were stopped`;
      return fail(message, streamFields(stdout, stderr, { returncode: null, interrupted: true, message }));
    }
    const returncode = run.signal === null ? run.exitCode : -(os.constants.signals[run.signal] ?? 0);
    const output = streamFields(stdout, stderr, {
      returncode,
      ...(run.signal === null ? {} : { signal: run.signal }),
    });
    if (run.strays) {
      output.note =
        'Processes the command left running were stopped when it exited. Use run_in_background for servers and other long-running processes.';
    }
    if (returncode === 0) return { success: true, output };
    const message =
      run.signal !== null
        ? `Command was killed by ${run.signal}`
        : `Command exited with code ${run.exitCode}`;
    return { success: false, output, error: { message } };
  } finally {
    runtime.release();
  }
}

const PID_SCHEMA = (what: string): JSONSchema => ({
  type: 'object',
  properties: { pid: { type: 'integer', description: what } },
});

/** `bash_output`: list background jobs, or read one job's status and new output. */
export function createOutputTool(runtime: BashRuntime): Tool {
  return {
    name: 'bash_output',
    description:
      'Read a background job started with bash run_in_background: its status, returncode and the stdout/stderr written since the last read (head + tail truncated like bash). Without pid, list the background jobs.',
    inputSchema: PID_SCHEMA('PID returned by bash run_in_background; omit to list jobs'),
    executionProfile: { resourceKeys: () => [{ key: 'tool-bash:jobs', mode: 'read' }] },
    async execute(input: Record<string, unknown>): Promise<ToolResult> {
      try {
        const pid = input?.pid;
        if (pid === undefined || pid === null) {
          const jobs = runtime.jobs.list();
          return {
            success: true,
            output: jobs.length > 0 ? { jobs } : { jobs, message: 'No background jobs' },
          };
        }
        if (!isKnownJob(runtime, pid)) return unknownJob(pid);
        const { stdout, stderr, ...status } = await runtime.jobs.read(pid, runtime.config.max_output_bytes);
        return { success: true, output: { ...status, ...streamFields(stdout, stderr) } };
      } catch (error) {
        return fail(errorMessage(error));
      }
    },
  };
}

/** `bash_kill`: stop a background job and every process in its group. */
export function createKillTool(runtime: BashRuntime): Tool {
  return {
    name: 'bash_kill',
    description:
      'Stop a background job started with bash run_in_background (SIGTERM to its process group, SIGKILL after a grace period).',
    inputSchema: { ...PID_SCHEMA('PID returned by bash run_in_background'), required: ['pid'] },
    executionProfile: { resourceKeys: () => [{ key: 'tool-bash:jobs', mode: 'write' }] },
    async execute(input: Record<string, unknown>): Promise<ToolResult> {
      try {
        const pid = input?.pid;
        if (!isKnownJob(runtime, pid)) return unknownJob(pid);
        const before = runtime.jobs.list().find((job) => job.pid === pid)!;
        const after = await runtime.jobs.kill(pid);
        const message =
          before.status === 'running'
            ? `Background job ${pid} stopped`
            : `Background job ${pid} had already exited (returncode ${before.returncode})`;
        return { success: true, output: { ...after, message } };
      } catch (error) {
        return fail(errorMessage(error));
      }
    },
  };
}

function isKnownJob(runtime: BashRuntime, pid: unknown): pid is number {
  return typeof pid === 'number' && runtime.jobs.has(pid);
}

function unknownJob(pid: unknown): ToolResult {
  return fail(
    `No background job with PID ${String(pid)}: bash_output and bash_kill only handle jobs started with bash run_in_background in this session`,
  );
}
