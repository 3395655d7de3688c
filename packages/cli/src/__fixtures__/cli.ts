/**
 * Test helpers: run the built CLI (`dist/bin.js`) as a child process with a
 * temporary AMPLIFIER_HOME, directly or inside a pseudo-terminal (`script`),
 * and wait on its output and exit, never on time.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN: string = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));

const made: string[] = [];

/** A fresh temp directory (real path), removed by `removeTempDirs()`. */
export function tempDir(prefix = 'amp-cli-'): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** The environment of a test run: no provider keys, no colour settings, this AMPLIFIER_HOME. */
export function cliEnv(home: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, AMPLIFIER_HOME: home };
  for (const key of [
    'ANTHROPIC_API_KEY',
    'OPENAI_API_KEY',
    'OPENAI_BASE_URL',
    'GOOGLE_API_KEY',
    'GEMINI_API_KEY',
    'GOOGLE_GEMINI_BASE_URL',
    'AZURE_OPENAI_ENDPOINT',
    'AZURE_OPENAI_BASE_URL',
    'AZURE_OPENAI_API_KEY',
    'AZURE_OPENAI_KEY',
    'AZURE_OPENAI_AD_TOKEN',
    'AZURE_USE_MANAGED_IDENTITY',
    'AZURE_USE_DEFAULT_CREDENTIAL',
    'OPENAI_API_VERSION',
    'AZURE_OPENAI_API_VERSION',
    'AWS_BEARER_TOKEN_BEDROCK',
    'AWS_ENDPOINT_URL_BEDROCK_RUNTIME',
    'AWS_ENDPOINT_URL',
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_SESSION_TOKEN',
    'AWS_PROFILE',
    'AWS_REGION',
    'AWS_DEFAULT_REGION',
    'NO_COLOR',
    'FORCE_COLOR',
    'AMPLIFIER_MODULES',
    'BRAVE_API_KEY',
    'TAVILY_API_KEY',
    'SEARXNG_URL',
    'OTEL_EXPORTER_OTLP_ENDPOINT',
    'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    'AMPLIFIER_OTEL',
  ]) {
    delete env[key];
  }
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface SpawnOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed. Default: stdin closed at once. */
  input?: string;
  /** Keep stdin open (the test writes to `proc.child.stdin`). */
  keepStdin?: boolean;
  /** Run inside a pseudo-terminal (`script`): stdin, stdout and stderr are all the terminal. */
  tty?: boolean;
}

function shellQuote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** A running CLI with its output collected, and ways to wait on it. */
export class CliProcess {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<Exit>;
  #waiters: Array<() => void> = [];
  #closed = false;

  constructor(args: readonly string[], options: SpawnOptions) {
    const command = options.tty
      ? // `exec`: the shell script(1) starts (dash when SHELL is unset, as in CI) must not stay
        // in the terminal's process group, where Ctrl+C would kill it and script would exit 130.
        ['script', ['-qfec', `exec ${['node', BIN, ...args].map(shellQuote).join(' ')}`, '/dev/null']]
      : [process.execPath, [BIN, ...args]];
    this.child = spawn(command[0] as string, command[1] as string[], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdout += chunk;
      this.#notify();
    });
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
      this.#notify();
    });
    this.exited = new Promise((resolve) => {
      this.child.on('close', (code, signal) => {
        this.#closed = true;
        this.#notify();
        resolve({ code, signal });
      });
    });
    if (options.input !== undefined) this.child.stdin!.end(options.input);
    else if (!options.keepStdin && !options.tty) this.child.stdin!.end();
  }

  #notify(): void {
    for (const waiter of this.#waiters.splice(0)) waiter();
  }

  /** Resolve when `pattern` shows up in the stream (fails if the process exits first). */
  async waitFor(stream: 'stdout' | 'stderr', pattern: RegExp | string): Promise<void> {
    const found = (): boolean => {
      const text = stream === 'stdout' ? this.stdout : this.stderr;
      return typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text);
    };
    while (!found()) {
      if (this.#closed) {
        throw new Error(
          `process exited before ${stream} showed ${String(pattern)}\nstdout: ${this.stdout}\nstderr: ${this.stderr}`,
        );
      }
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** Write to the terminal / stdin. */
  write(text: string): void {
    this.child.stdin!.write(text);
  }

  kill(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Wait for the exit; the collected output with it. */
  async done(): Promise<Exit & { stdout: string; stderr: string }> {
    const exit = await this.exited;
    return { ...exit, stdout: this.stdout, stderr: this.stderr };
  }
}

/** Run the CLI to the end. */
export function runCli(
  args: readonly string[],
  options: SpawnOptions,
): Promise<Exit & { stdout: string; stderr: string }> {
  return new CliProcess(args, options).done();
}

/** Write a file (creating folders) and return its path. */
export function writeFile(file: string, text: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

/** PIDs of processes whose command line contains `marker` (pgrep -f). */
export function pgrep(marker: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', marker], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number)
      .filter((pid) => pid !== process.pid);
  } catch {
    return [];
  }
}

/** Poll `condition` (a process appearing, a file written by another process) until true. */
export async function until(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The JSON lines of a `--json` run. */
export function jsonLines(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The one session folder under `home` (tests run one session per home unless they say otherwise). */
export function sessionDirs(home: string): string[] {
  const projects = path.join(home, 'projects');
  if (!fs.existsSync(projects)) return [];
  return fs.readdirSync(projects).flatMap((p) => {
    const sessions = path.join(projects, p, 'sessions');
    return fs.existsSync(sessions) ? fs.readdirSync(sessions).map((s) => path.join(sessions, s)) : [];
  });
}

/** Write a JSON mount plan driving provider-mock with `script`; returns its path. */
export function writeMockPlan(
  dir: string,
  script: unknown[],
  extra: { tools?: unknown[]; hooks?: unknown[]; name?: string; mock?: Record<string, unknown> } = {},
): string {
  const plan = {
    session: { orchestrator: 'loop-basic', context: 'context-simple' },
    providers: [{ module: 'provider-mock', config: { script, ...extra.mock } }],
    tools: extra.tools ?? [{ module: 'tool-bash' }],
    hooks: extra.hooks ?? [{ module: 'hooks-logging' }],
  };
  return writeFile(path.join(dir, extra.name ?? 'plan.json'), JSON.stringify(plan, null, 2));
}

/** The data of the first `event` in `--json` lines (throws when there is none). */
export function eventData(
  lines: ReadonlyArray<Record<string, unknown>>,
  event: string,
): Record<string, unknown> {
  const found = lines.find((l) => l.event === event);
  if (found === undefined) throw new Error(`no ${event} event in the output`);
  return found.data as Record<string, unknown>;
}
