/**
 * A sandbox started ahead of the command that will use it. Most of a confined
 * command's start is bubblewrap's set-up (namespaces, mounts, the pids
 * cgroup), which does not depend on the command: a spare does it while the
 * model thinks, then waits inside the finished sandbox. A call hands it its
 * command as a small script in a directory bound read-only into the sandbox
 * and one byte on a pipe; `/bin/sh` (already running inside) sources the
 * script, which changes to the call's directory and execs the command with
 * exactly the call's environment (`env -i`). A spare runs one command, in its
 * own PID namespace, like a sandbox started for the call; nothing of one call
 * is ever reused by another.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { closePlugs, plugInherited } from './descriptors.js';
import { limitProcesses } from './pids-limit.js';
import { childProcess } from './platform.js';
import { SECCOMP_FD } from './seccomp.js';

/** Where a spare's script directory appears inside its sandbox (in the private /tmp). */
const CALL_DIR = '/tmp/.amplifier-call';
/** The `env` that gives the command exactly the call's environment. */
export const ENV_BINARY = '/usr/bin/env';
/**
 * Runs inside the sandbox: say "ready" on fd 3, wait for the go byte on fd 4
 * (EOF: the host is gone or the spare is discarded), then run the call.
 */
const LAUNCHER = `printf r >&3; exec 3>&-; read -r _ <&4 || exit 125; exec 4<&-; . ${CALL_DIR}/run.sh`;

/** The stdio a spare can be started with: one of these per fd 0-2. */
export type SpareStdio = readonly ('ignore' | 'pipe' | 'inherit')[];

/** What a spare needs to start: bubblewrap, its set-up arguments, and the call-independent bits. */
export interface SpareOptions {
  bwrap: string;
  /** bubblewrap's arguments up to (not including) `--chdir` and the command. */
  setup: readonly string[];
  stdio: SpareStdio;
  maxProcesses: number;
  /** The environment bubblewrap and the launcher start with (the command gets the call's own). */
  env: NodeJS.ProcessEnv;
  /** The seccomp filter bubblewrap reads from descriptor `SECCOMP_FD` (the set-up names it). */
  seccomp?: Buffer;
  /** What runs bubblewrap as another user (`setpriv ... --`), and that user, who must own the script directory. */
  runAs?: { prefix: readonly string[]; uid: number; gid: number };
}

/** One pre-started sandbox, for one command. */
export class Spare {
  /** Identifies the sandbox it is (set-up arguments and stdio): only a call with the same key may use it. */
  readonly key: string;
  readonly child: ChildProcess;
  /** Resolves true once the sandbox waits for its command, false if it died first. */
  readonly ready: Promise<boolean>;
  /** Whether no process of the sandbox is left (its cgroup is empty); only with a cgroup (see pids-limit.ts). */
  readonly empty?: () => boolean;
  readonly #dir: string;
  readonly #release: () => Promise<void>;
  readonly #owner: { uid: number; gid: number } | undefined;
  #taken = false;

  /**
   * Throws if the script directory cannot be made, or would be writable
   * inside the sandbox (the workspace is the temp directory or holds it): the
   * caller then starts its commands cold.
   */
  constructor(key: string, options: SpareOptions) {
    this.key = key;
    this.#dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'amplifier-spare-')));
    if (writableIn(options.setup, this.#dir)) {
      // A confined command could rewrite the next call's script: no spare here.
      fs.rmSync(this.#dir, { recursive: true, force: true });
      throw new Error(`the temp directory ${this.#dir} is writable inside the sandbox`);
    }
    const inner = [
      ...options.setup,
      '--ro-bind',
      this.#dir,
      CALL_DIR,
      '--chdir',
      '/',
      '--',
      '/bin/sh',
      '-c',
      LAUNCHER,
    ];
    this.#owner = options.runAs;
    if (this.#owner !== undefined) fs.chownSync(this.#dir, this.#owner.uid, this.#owner.gid);
    const limited =
      options.runAs === undefined
        ? limitProcesses(options.bwrap, inner, options.maxProcesses)
        : limitProcesses(
            options.runAs.prefix[0]!,
            [...options.runAs.prefix.slice(1), options.bwrap, ...inner],
            options.maxProcesses,
          );
    this.#release = limited.release;
    if (limited.empty !== undefined) this.empty = limited.empty;
    // What this process inherited without close-on-exec must not reach the sandbox (descriptors.ts).
    const plugs = plugInherited(
      [...options.stdio, 'pipe', 'pipe', options.seccomp === undefined ? 'ignore' : 'pipe'],
      3,
    );
    this.child = childProcess().spawn(limited.command, limited.args, {
      env: options.env,
      detached: true,
      stdio: plugs.stdio,
    });
    const child = this.child;
    closePlugs(child, plugs.plugged);
    if (options.seccomp !== undefined)
      ((child.stdio as unknown[])[SECCOMP_FD] as Writable | null | undefined)?.end(options.seccomp);
    // An idle spare never keeps the host alive (bubblewrap dies with it: --die-with-parent).
    child.unref();
    for (const stream of child.stdio) unrefStream(stream);
    this.ready = new Promise<boolean>((resolve) => {
      const fd3 = child.stdio[3] as Readable | null;
      child.once('error', () => resolve(false));
      child.once('exit', () => resolve(false));
      fd3?.once('data', () => resolve(true));
      fd3?.once('error', () => resolve(false));
    });
    // Errors after the hand-over are the call's; before it they only make the spare unusable.
    child.on('error', () => {});
    for (const stream of child.stdio.slice(3)) stream?.on('error', () => {});
  }

  /** As `ready`, keeping the host alive meanwhile (an idle spare does not). */
  async whenReady(): Promise<boolean> {
    const fd3 = this.child.stdio[3];
    refStream(fd3);
    try {
      return (await this.ready) && this.child.exitCode === null && this.child.signalCode === null;
    } finally {
      unrefStream(fd3);
    }
  }

  /**
   * Run `command args` in it: in `cwd`, with exactly `env`. Resolves false
   * (and the spare is discarded) when the sandbox died before it was ready.
   */
  async launch(
    command: string,
    args: readonly string[],
    cwd: string,
    env: NodeJS.ProcessEnv,
  ): Promise<boolean> {
    if (this.#taken) throw new Error('a spare sandbox runs one command');
    this.#taken = true;
    if (!(await this.whenReady())) {
      this.discard();
      return false;
    }
    const file = path.join(this.#dir, 'run.sh');
    fs.writeFileSync(file, script(command, args, cwd, env), { mode: 0o600 });
    if (this.#owner !== undefined) fs.chownSync(file, this.#owner.uid, this.#owner.gid);
    const child = this.child;
    child.ref();
    for (const stream of child.stdio.slice(0, 3)) refStream(stream);
    (child.stdio[3] as Readable | null)?.destroy();
    (child.stdio[4] as Writable | null)?.end('\n');
    return true;
  }

  /** Once the command has ended: release the cgroup and remove the script directory. */
  async finish(): Promise<void> {
    fs.rmSync(this.#dir, { recursive: true, force: true });
    await this.#release();
  }

  /** Kill an unused spare and release what it holds. */
  discard(): void {
    this.#taken = true;
    try {
      if (this.child.pid !== undefined) process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    for (const stream of this.child.stdio) stream?.destroy();
    void this.finish();
  }
}

/** Whether a call can hand its command to a spare (else it starts cold, which reports the problem). */
export function spareCanRun(command: string, args: readonly string[], env: NodeJS.ProcessEnv): boolean {
  // `env` would read `NAME=value` as an assignment; a NUL cannot cross exec (spawn rejects it).
  if (command.includes('=') || command.includes('\0')) return false;
  if (args.some((arg) => arg.includes('\0'))) return false;
  return Object.entries(env).every(([name, value]) => !name.includes('\0') && !value?.includes('\0'));
}

/** The script the launcher sources: every word single-quoted, so nothing is expanded. */
function script(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): string {
  const words = [ENV_BINARY, '-i', '--'];
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && name !== '' && !name.includes('=')) words.push(quote(`${name}=${value}`));
  }
  words.push(quote(command), ...args.map(quote));
  return `cd -- ${quote(cwd)} || exit 1\nexec ${words.join(' ')}\n`;
}

/** Whether `dir` lies in a path the set-up binds writable (`--bind src dst`). */
function writableIn(setup: readonly string[], dir: string): boolean {
  for (let i = 0; i < setup.length - 2; i++) {
    if (setup[i] !== '--bind') continue;
    const source = setup[i + 1]!;
    if (dir === source || dir.startsWith(source.endsWith(path.sep) ? source : `${source}${path.sep}`))
      return true;
  }
  return false;
}

function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

function unrefStream(stream: unknown): void {
  (stream as { unref?: () => void } | null)?.unref?.();
}

function refStream(stream: unknown): void {
  (stream as { ref?: () => void } | null)?.ref?.();
}
