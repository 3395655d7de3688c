/**
 * A manifest as a kernel Tool: the input is validated against `inputs`,
 * written as JSON to a fresh process's stdin, and the one JSON document the
 * process prints is validated against `outputs` and returned. Everything that
 * goes wrong is a `success: false` result that says what happened.
 */
import {
  type DataError,
  type ExecutionProfile,
  errorMessage,
  formatDataErrors,
  type JSONSchema,
  sanitizeForLlm,
  stringifyJson,
  type Tool,
  type ToolCallOptions,
  type ToolResult,
} from '@amplifier/core';
import { type RunInGroupResult, runInGroup, type SandboxedRun } from '@amplifier/process';
import { compileSchema, type DataValidator } from '@amplifier/schema';
import type { PreparedTool } from './loader.js';
import type { AgentManifest } from './manifest.js';

/** How much of stderr (its last bytes) an error message carries. */
export const STDERR_TAIL_BYTES = 2000;
/** How much of an unparseable stdout an error message carries. */
const STDOUT_HEAD_CHARS = 200;
/** The orchestrator's deadline is ours plus this (ours fires first and says more). */
const ORCHESTRATOR_MARGIN_MS = 5000;

/** What every tool of one mount shares: limits, and the calls in flight (stopped at cleanup). */
export class ToolRuntime {
  readonly maxOutputBytes: number;
  readonly graceMs: number;
  /** Every tool process runs through it, confined to `workspace` (writable). */
  readonly sandbox: SandboxedRun | undefined;
  readonly #closing = new AbortController();
  readonly #running = new Set<Promise<unknown>>();

  constructor(options: { maxOutputBytes: number; graceMs: number; sandbox?: SandboxedRun }) {
    this.maxOutputBytes = options.maxOutputBytes;
    this.graceMs = options.graceMs;
    this.sandbox = options.sandbox;
  }

  /** Aborted when the module is cleaned up. */
  get signal(): AbortSignal {
    return this.#closing.signal;
  }

  track<T>(promise: Promise<T>): Promise<T> {
    this.#running.add(promise);
    void promise.finally(() => this.#running.delete(promise)).catch(() => {});
    return promise;
  }

  /** Stop every running call (their process groups) and wait for them. */
  async close(): Promise<void> {
    this.#closing.abort(new Error('tool-agentpm was cleaned up'));
    await Promise.allSettled([...this.#running]);
    this.sandbox?.sandbox.cleanup();
  }
}

/** A Tool that runs an AgentPM manifest's entrypoint once per call. */
export class AgentPmTool implements Tool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JSONSchema;
  readonly executionProfile: ExecutionProfile;
  readonly manifest: AgentManifest;
  /** Real path of the tool folder. */
  readonly folder: string;
  /** The `tools` entry it was loaded from. */
  readonly source: string;
  readonly #spec: PreparedTool;
  readonly #runtime: ToolRuntime;
  readonly #validateInput: DataValidator;
  readonly #validateOutput: DataValidator;

  constructor(spec: PreparedTool, runtime: ToolRuntime) {
    this.#spec = spec;
    this.#runtime = runtime;
    this.manifest = spec.manifest;
    this.folder = spec.folder;
    this.source = spec.source;
    this.name = spec.name;
    this.description = spec.manifest.description;
    this.inputSchema = spec.manifest.inputs;
    const timeoutMs = Math.min(spec.timeoutMs + runtime.graceMs + ORCHESTRATOR_MARGIN_MS, 2 ** 31 - 1);
    // Each call is its own process: nothing shared, so calls run concurrently unless the manifest asks for serial.
    this.executionProfile = spec.serial ? { serial: true, timeoutMs } : { resourceKeys: () => [], timeoutMs };
    // `format` (uri, email, date-time...) is checked, as AgentPM's schemas expect (ajv-formats through core).
    this.#validateInput = compileSchema(spec.manifest.inputs, { formats: true });
    this.#validateOutput = compileSchema(spec.manifest.outputs, { formats: true });
  }

  execute(input: Record<string, unknown>, options: ToolCallOptions = {}): Promise<ToolResult> {
    return this.#runtime.track(this.#execute(input, options));
  }

  async #execute(input: Record<string, unknown>, options: ToolCallOptions): Promise<ToolResult> {
    if (options.signal?.aborted || this.#runtime.signal.aborted) {
      return failure('aborted', `${this.name} was cancelled before it started`);
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      return failure('invalid_input', `${this.name} needs an object as input`);
    }
    const inputErrors = this.#validateInput(input);
    if (inputErrors.length > 0) {
      return failure(
        'invalid_input',
        `invalid input for ${this.name}; the tool was not run:\n${formatDataErrors(inputErrors)}`,
        { errors: inputErrors },
      );
    }
    const spec = this.#spec;
    const signal = options.signal
      ? AbortSignal.any([options.signal, this.#runtime.signal])
      : this.#runtime.signal;
    let run: RunInGroupResult;
    try {
      // Its own process group, stdin written then closed, the group killed on timeout, abort, a
      // flood (the first max_output_bytes of each stream are kept; more stops the process) and
      // strays; rejects only when the process cannot be started (ENOENT, EACCES...).
      run = await runInGroup(spec.command, spec.args, {
        cwd: spec.cwd,
        env: spec.env,
        input: stringifyJson(input),
        timeoutMs: spec.timeoutMs,
        graceMs: this.#runtime.graceMs,
        signal,
        capture: { headBytes: this.#runtime.maxOutputBytes },
        stopAfterBytes: this.#runtime.maxOutputBytes,
        ...(this.#runtime.sandbox ? { sandbox: this.#runtime.sandbox } : {}),
      });
    } catch (error) {
      return failure(
        'spawn_failed',
        `${this.name} could not be started (${spec.command}): ${errorMessage(error)}`,
      );
    }
    return this.#interpret(run);
  }

  #interpret(run: RunInGroupResult): ToolResult {
    const name = this.name;
    const stderr = stderrTail(run.stderr.head);
    const details = { exit_code: run.exitCode, signal: run.signal, stderr };
    const withStderr = (message: string): string =>
      stderr === '' ? message : `${message}\nstderr (last ${STDERR_TAIL_BYTES} bytes at most):\n${stderr}`;
    switch (run.outcome) {
      case 'aborted':
        return failure(
          'aborted',
          `${name} was cancelled after ${seconds(run.durationMs)}; its processes were stopped`,
          details,
        );
      case 'timeout':
        return failure(
          'timeout',
          withStderr(`${name} timed out after ${this.#spec.timeoutMs} ms; its processes were killed`),
          details,
        );
      case 'overflow':
        return failure(
          'output_too_large',
          withStderr(
            `${name} wrote more than ${this.#runtime.maxOutputBytes} bytes to ${run.overflowed ?? 'stdout'} (max_output_bytes); it was stopped`,
          ),
          details,
        );
      case 'exited':
        break;
    }
    if (run.exitCode !== 0) {
      const how =
        run.exitCode === null
          ? `was killed by ${run.signal ?? 'a signal'}`
          : `exited with code ${run.exitCode}`;
      // AgentPM's examples print `{ ok: false, error }` and exit 1 on unexpected errors: say what they said.
      const said = run.exitCode === null ? undefined : failedReply(run.stdout.head);
      if (said !== undefined) {
        return failure(
          'tool_error',
          withStderr(
            `${name} failed${said.code === undefined ? '' : ` (${said.code})`}: ${said.message} (it ${how})`,
          ),
          { ...details, ...said.extra },
        );
      }
      return failure('exit', withStderr(`${name} ${how}`), details);
    }
    const text = run.stdout.head.toString('utf8').trim();
    if (text === '') {
      return failure(
        'invalid_json',
        withStderr(`${name} printed nothing on stdout (expected one JSON document)`),
        details,
      );
    }
    let output: unknown;
    try {
      output = JSON.parse(text);
    } catch (error) {
      const head = sanitizeForLlm(text.slice(0, STDOUT_HEAD_CHARS));
      return failure(
        'invalid_json',
        withStderr(
          `${name} printed invalid JSON on stdout (${errorMessage(error)}); it began with: ${JSON.stringify(head)}`,
        ),
        details,
      );
    }
    // The AgentPM reply convention: `{ ok: false, error }` is the tool saying it failed.
    const reply = replyOf(output);
    if (reply?.ok === false) {
      const said = replyError(reply.error);
      return failure(
        'tool_error',
        withStderr(`${name} failed${said.code === undefined ? '' : ` (${said.code})`}: ${said.message}`),
        { ...details, ...said.extra },
      );
    }
    const outputErrors: DataError[] = this.#validateOutput(output);
    if (outputErrors.length > 0) {
      return failure(
        'invalid_output',
        `${name} returned output that does not match its outputs schema:\n${formatDataErrors(outputErrors)}`,
        { errors: outputErrors },
      );
    }
    if (reply?.ok === true) {
      // `{ ok: true, ...payload }`: the payload is the output (`ok` says nothing success does not).
      const { ok: _ok, ...payload } = reply;
      return { success: true, output: payload };
    }
    return { success: true, output };
  }
}

/** A JSON object with a boolean `ok`: a reply in AgentPM's `{ ok, ... }` convention. */
function replyOf(output: unknown): (Record<string, unknown> & { ok: boolean }) | undefined {
  if (typeof output !== 'object' || output === null || Array.isArray(output)) return undefined;
  const ok = (output as Record<string, unknown>).ok;
  return typeof ok === 'boolean' ? (output as Record<string, unknown> & { ok: boolean }) : undefined;
}

/** What a failed reply said: its message, its `code`, and `extra` for `error` (`code`, `details`). */
interface ReplyFailure {
  message: string;
  code?: string;
  extra: Record<string, unknown>;
}

/** The message (and `code`, `details`) of a reply's `error`: a string, or `{ message, code?, details? }`. */
function replyError(error: unknown): ReplyFailure {
  if (typeof error === 'string' && error.trim() !== '') return { message: sanitizeForLlm(error), extra: {} };
  if (typeof error === 'object' && error !== null && !Array.isArray(error)) {
    const { message, code, details } = error as Record<string, unknown>;
    const cleanCode = typeof code === 'string' && code !== '' ? sanitizeForLlm(code) : undefined;
    return {
      message:
        typeof message === 'string' && message.trim() !== ''
          ? sanitizeForLlm(message)
          : `it replied ok: false with error ${sanitizeForLlm(stringifyJson(error)).slice(0, STDOUT_HEAD_CHARS)}`,
      ...(cleanCode === undefined ? {} : { code: cleanCode }),
      extra: {
        ...(cleanCode === undefined ? {} : { code: cleanCode }),
        ...(details === undefined ? {} : { details }),
      },
    };
  }
  return { message: 'it replied ok: false without an error message', extra: {} };
}

/** The failure a stdout holding one `{ ok: false, error }` document reports, else undefined. */
function failedReply(stdout: Buffer): ReplyFailure | undefined {
  let output: unknown;
  try {
    output = JSON.parse(stdout.toString('utf8').trim());
  } catch {
    return undefined;
  }
  const reply = replyOf(output);
  return reply?.ok === false ? replyError(reply.error) : undefined;
}

/** A failed call: the message is both the error and the output the model reads. */
function failure(type: string, message: string, extra: Record<string, unknown> = {}): ToolResult {
  return { success: false, output: message, error: { message, type, ...extra } };
}

function stderrTail(bytes: Buffer): string {
  const tail = bytes.length > STDERR_TAIL_BYTES ? bytes.subarray(bytes.length - STDERR_TAIL_BYTES) : bytes;
  // A cut may split a UTF-8 character: the replacement character marks it.
  return sanitizeForLlm(tail.toString('utf8')).trim();
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}
