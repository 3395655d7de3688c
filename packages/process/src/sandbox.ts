/**
 * The OS sandbox of subprocess tools (Linux: bubblewrap). One `Sandbox` per
 * mount decides, from the policy's mode, whether commands run confined:
 * `auto` confines them when `bwrap` is installed and works here, else runs
 * them unconfined after one notice; `required` refuses without it; `off`
 * never confines. A confined command sees the filesystem read-only except the
 * workspace and the policy's writable paths, the secrets of `DEFAULT_HIDDEN`
 * and the policy's hidden paths replaced by empty ones, its own /proc in a
 * fresh PID namespace (so every process it started dies with it), a private
 * bounded /tmp, no network unless allowed, and a process limit.
 * Unconfined commands are marked in their environment so that escaped
 * descendants can be found and killed (see reaper.ts).
 */
import type { ChildProcess, StdioOptions } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AmplifierError, type CodesOf, defineErrors, type ErrorTable } from '@amplifier/core';
import { maskArguments, protectedPaths, realpathOr, resolverArguments } from './masks.js';
import { limitProcesses, type PidsLimitKind, pidsLimitKind } from './pids-limit.js';
import { childProcess } from './platform.js';
import { CALL_MARKER, killMarked, newMarker, SESSION_MARKER } from './reaper.js';
import { canReach, type HostUser, resolveRunAs, runAsPrefix } from './run-as.js';
import { policyPath, type SandboxPolicy } from './sandbox-policy.js';
import { SECCOMP_FD, unixSocketFilter } from './seccomp.js';
import { ENV_BINARY, Spare, type SpareStdio, spareCanRun } from './spare.js';

/**
 * The contribution channel where each mount reports its sandbox
 * (`{ module, mode }`, `mode` from `describe()`): the CLI shows it in
 * `/status` and `amplifier run --verbose`.
 */
export const SANDBOX_STATUS_CHANNEL = 'sandbox.status';

/** What a mount contributes to `SANDBOX_STATUS_CHANNEL`. */
export interface SandboxStatus {
  module: string;
  mode: string;
}

/** Whether bubblewrap can confine a command here, and why not. */
export interface SandboxSupport {
  available: boolean;
  /** The bwrap binary found. */
  bwrap?: string;
  /** Why it is not available (missing, or what bwrap said). */
  reason?: string;
  /** This bwrap knows `--disable-userns` (0.8.0 and later): confined commands get it. */
  disableUserns?: boolean;
}

/** What to install: printed with every notice and error about a missing sandbox. */
export const INSTALL_HINT =
  'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)';

const probes = new Map<string, SandboxSupport>();

/**
 * What confines every command whoever runs the kernel: a user namespace with
 * no capabilities (bwrap keeps root's capabilities unless told to drop them,
 * and makes a user namespace by itself only for non-root callers).
 */
const NO_PRIVILEGES = ['--unshare-user', '--cap-drop', 'ALL'];

/**
 * Find `bwrap` and check once (cached per binary) that it can make the
 * sandbox confined commands get: the namespaces, a user namespace without
 * capabilities (some container runtimes forbid it), no nested user namespace,
 * and the seccomp filter.
 */
export function sandboxSupport(bwrap?: string, runAs?: HostUser): SandboxSupport {
  if (process.platform !== 'linux') {
    return { available: false, reason: `no OS sandbox on ${process.platform} (bubblewrap is Linux only)` };
  }
  const binary = bwrap ?? findBwrap();
  if (binary === undefined) return { available: false, reason: 'bwrap (bubblewrap) is not installed' };
  const key = runAs === undefined ? binary : `${binary}\0${runAs.uid}:${runAs.gid}`;
  const cached = probes.get(key);
  if (cached) return cached;
  const filter = unixSocketFilter();
  const prefix = runAs === undefined ? [] : runAsPrefix(runAs);
  const support: SandboxSupport =
    filter === undefined
      ? {
          available: false,
          bwrap: binary,
          reason: `no seccomp filter for this CPU (${process.arch}, ${os.endianness()}): unix sockets could not be blocked (x64 and arm64 are supported)`,
        }
      : prefix === undefined
        ? {
            available: false,
            bwrap: binary,
            reason: 'setpriv (util-linux) is not installed, and sandbox_policy.run_as needs it',
          }
        : probe(binary, filter, prefix);
  probes.set(key, support);
  return support;
}

/** Run the sandbox's privilege and filter set-up once around `true`; retry without `--disable-userns` on a bwrap older than 0.8.0. */
function probe(binary: string, filter: Buffer, prefix: readonly string[]): SandboxSupport {
  const run = (disableUserns: boolean) =>
    childProcess().spawnSync(
      prefix[0] ?? binary,
      [
        ...prefix.slice(1),
        ...(prefix.length > 0 ? [binary] : []),
        '--ro-bind',
        '/',
        '/',
        '--proc',
        '/proc',
        ...NO_PRIVILEGES,
        ...(disableUserns ? ['--disable-userns'] : []),
        '--unshare-pid',
        '--unshare-net',
        '--die-with-parent',
        '--seccomp',
        '0',
        'true',
      ],
      { encoding: 'utf8', timeout: 10_000, input: filter, stdio: ['pipe', 'ignore', 'pipe'] },
    );
  let result = run(true);
  let disableUserns = true;
  if (result.status !== 0 && /disable-userns/.test(result.stderr ?? '')) {
    disableUserns = false;
    result = run(false);
  }
  if (result.status === 0) return { available: true, bwrap: binary, disableUserns };
  if ((result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
    return {
      available: false,
      bwrap: binary,
      reason: `bwrap (bubblewrap) is not installed (${binary}: not found)`,
    };
  }
  const said = (result.stderr || result.error?.message || `exit ${result.status}`).trim();
  return { available: false, bwrap: binary, reason: `${unavailableReason(said)}: ${said}` };
}

/** What a failed probe means, and the fix, from what bwrap said. */
function unavailableReason(said: string): string {
  if (/seccomp/i.test(said)) {
    return 'bwrap cannot install the seccomp filter here (the kernel needs CONFIG_SECCOMP_FILTER)';
  }
  if (/namespace|uid map|setting up uid|userns|Operation not permitted|Permission denied/i.test(said)) {
    return (
      'bwrap cannot create a user namespace without privileges here (container runtimes and some kernels forbid it: ' +
      'allow it with `sysctl kernel.unprivileged_userns_clone=1` or `kernel.apparmor_restrict_unprivileged_userns=0`, ' +
      'or run the container with a seccomp profile that permits unshare/clone of namespaces)'
    );
  }
  return 'bwrap cannot create namespaces here';
}

/** Options of a `Sandbox`. */
export interface SandboxOptions {
  /** The module, for messages (`tool-bash`). */
  module: string;
  /** Whose secrets `DEFAULT_HIDDEN` names (default: the user's home directory). */
  home?: string;
  /** Where the one `auto` fallback notice goes (default: stderr). */
  notice?: (message: string) => void;
  /** The bwrap binary (default: found on PATH). */
  bwrap?: string;
  /**
   * Keep one sandbox started ahead for the next command (see spare.ts), so a
   * confined command does not wait for bubblewrap's set-up (default true).
   */
  prestart?: boolean;
}

/** A command started in a sandbox that was ready before the call. */
export interface LaunchedCommand {
  child: ChildProcess;
  /** After the command (and its group) ended: release the sandbox's resources. */
  finish(): Promise<void>;
  /** Whether no process of the sandbox is left: only where one read tells (its cgroup). */
  empty?: () => boolean;
}

/** A command ready to start, and what to do once it has ended. */
export interface PreparedCommand {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Runs under bubblewrap (which reports a death by signal n as exit code 128 + n). */
  confined: boolean;
  /**
   * The seccomp filter to write to the started process's descriptor
   * `SECCOMP_FD` (a pipe), where bubblewrap reads it: without it bubblewrap
   * refuses to start (fails closed).
   */
  seccomp?: Buffer;
  /** After the command (and its group) ended: kill what escaped and release the call's resources. */
  finish(): Promise<void>;
  /** Confined: whether no process of the sandbox is left: only where one read tells (its cgroup). */
  empty?: () => boolean;
}

const rows = {
  SANDBOX_UNAVAILABLE: {
    name: 'SandboxUnavailableError',
    description:
      "a module's `sandbox: required` cannot be honoured (no working bubblewrap, no seccomp filter)",
    message: "{module}: sandbox is 'required' but unavailable: {reason}; {fix}, or set sandbox: off",
  },
} as const;

/** The code of this package, declared in core's error factory, with its message template. */
export const PROCESS_ERRORS: ErrorTable<typeof rows> = defineErrors(rows);

declare module '@amplifier/core' {
  interface DeclaredErrorCodes extends CodesOf<typeof PROCESS_ERRORS> {}
}

/** Thrown when `required` cannot be honoured (code `SANDBOX_UNAVAILABLE`). */
export class SandboxUnavailableError extends AmplifierError {
  declare readonly code: 'SANDBOX_UNAVAILABLE';
  constructor(module: string, reason: string) {
    super(
      'SANDBOX_UNAVAILABLE',
      PROCESS_ERRORS.message('SANDBOX_UNAVAILABLE', { module, reason, fix: fixFor(reason) }),
    );
  }
}

/** What to do about `reason`: install bubblewrap when it is missing, else what the reason names. */
function fixFor(reason: string): string {
  return /not installed|is Linux only/.test(reason) ? INSTALL_HINT : 'fix what the reason above names';
}

const noticed = new Set<string>();

export class Sandbox {
  readonly policy: SandboxPolicy;
  /** The marker of everything this sandbox started unconfined (`AMPLIFIER_PROC_SESSION`). */
  readonly sessionMarker: string = newMarker();
  readonly #home: string;
  readonly #module: string;
  readonly #prestart: boolean;
  readonly #bwrap: string | undefined;
  readonly #notice: (message: string) => void;
  /** `sandbox_policy.run_as` when the kernel runs as root: bubblewrap runs as this user. */
  readonly #runAs: HostUser | undefined;
  #support: SandboxSupport | undefined;
  #spare: Spare | undefined;
  #closed = false;
  /** An unconfined command was started: cleanup must look for what escaped (a /proc scan). */
  #unconfinedStarted = false;

  /**
   * Throws `SandboxUnavailableError` for `required` without a working bubblewrap.
   * In `auto` mode bubblewrap is probed when first needed (the first command,
   * `describe()`, `active`), not here: mounting a tool costs no process start.
   */
  constructor(policy: SandboxPolicy, options: SandboxOptions) {
    this.policy = policy;
    this.#module = options.module;
    this.#home = options.home ?? os.homedir();
    this.#notice = options.notice ?? ((message: string) => process.stderr.write(`${message}\n`));
    this.#prestart = (options.prestart ?? true) && envBinaryPresent();
    this.#runAs =
      policy.mode !== 'off' && policy.run_as !== undefined && process.geteuid?.() === 0
        ? resolveRunAs(policy.run_as)
        : undefined;
    if (policy.mode !== 'off') {
      // Looking bwrap up on PATH is cheap and answers now: a missing binary is noticed at mount.
      this.#bwrap = options.bwrap ?? findBwrap();
      if (this.#bwrap === undefined || process.platform !== 'linux') void this.support;
    }
    if (policy.mode === 'required' && !this.active) {
      throw new SandboxUnavailableError(options.module, this.support.reason ?? 'unknown reason');
    }
  }

  /** Whether bubblewrap works here (probed once, on first use; `off` never probes). */
  get support(): SandboxSupport {
    if (this.#support === undefined) {
      this.#support =
        this.policy.mode === 'off'
          ? { available: false, reason: 'sandbox: off' }
          : sandboxSupport(this.#bwrap, this.#runAs);
      if (this.policy.mode === 'auto' && !this.#support.available && !noticed.has(this.#module)) {
        noticed.add(this.#module);
        this.#notice(
          `${this.#module}: commands run WITHOUT an OS sandbox (${this.#support.reason}); ${fixFor(this.#support.reason ?? '')} to confine them, or set sandbox: required to refuse to run without it`,
        );
      }
    }
    return this.#support;
  }

  /** Commands run confined by bubblewrap. */
  get active(): boolean {
    return this.policy.mode !== 'off' && this.support.available;
  }

  /** The mode as the CLI shows it: `auto (bubblewrap)`, `auto (unavailable: ...)`, `required (bubblewrap)`, `off`. */
  describe(): string {
    if (this.policy.mode === 'off') return 'off';
    if (!this.active) return `${this.policy.mode} (unavailable: ${this.support.reason}; running unconfined)`;
    const network = this.policy.network ? 'network on' : 'network off';
    const user = this.#runAs === undefined ? '' : `, as ${this.#runAs.name}`;
    return `${this.policy.mode} (bubblewrap, ${network}, process limit: ${pidsLimitKind()}${user})`;
  }

  /** What the mount contributes to `SANDBOX_STATUS_CHANNEL`. */
  status(): SandboxStatus {
    return { module: this.#module, mode: this.describe() };
  }

  /** The process-limit mechanism confined commands get here. */
  get pidsLimit(): PidsLimitKind {
    return pidsLimitKind();
  }

  /**
   * Prepare `command args` to run in `cwd` with `env`, confined to `workspace`
   * (the writable root the module chose, never one the model chose).
   */
  prepare(
    command: string,
    args: readonly string[],
    options: { cwd: string; workspace: string; env: NodeJS.ProcessEnv; readable?: readonly string[] },
  ): PreparedCommand {
    if (!this.active) {
      this.#unconfinedStarted = true;
      // Unconfined: mark what the call starts, to find what escapes its group.
      const call = newMarker();
      const env: NodeJS.ProcessEnv = Object.assign(Object.create(null), options.env, {
        [SESSION_MARKER]: this.sessionMarker,
        [CALL_MARKER]: call,
      });
      return {
        command,
        args: [...args],
        env,
        confined: false,
        finish: async () => {
          killMarked(CALL_MARKER, call);
        },
      };
    }
    return this.#cold(command, args, options.cwd, options.env, this.#setup(command, options));
  }

  /** bubblewrap's set-up for a call (checks that the program exists: spawn's ENOENT otherwise). */
  #setup(
    command: string,
    options: { cwd: string; workspace: string; env: NodeJS.ProcessEnv; readable?: readonly string[] },
  ): string[] {
    const program = requireExecutable(command, options.env.PATH, options.cwd);
    return bwrapSetup({
      cwd: options.cwd,
      workspace: options.workspace,
      policy: this.policy,
      home: this.#home,
      readable: [program, ...(options.readable ?? [])],
      disableUserns: this.support.disableUserns !== false,
      ...(this.#runAs === undefined ? {} : { runAs: this.#runAs }),
    });
  }

  /** A confined command started cold: bubblewrap with `setup`, in its own pids cgroup. */
  #cold(
    command: string,
    args: readonly string[],
    cwd: string,
    env: NodeJS.ProcessEnv,
    setup: readonly string[],
  ): PreparedCommand {
    const inner = [...setup, '--chdir', cwd, '--', command, ...args];
    const prefix = this.#runAsPrefix();
    const limited =
      prefix === undefined
        ? limitProcesses(this.support.bwrap!, inner, this.policy.max_processes)
        : limitProcesses(
            prefix[0]!,
            [...prefix.slice(1), this.support.bwrap!, ...inner],
            this.policy.max_processes,
          );
    return {
      command: limited.command,
      args: limited.args,
      env: confinedEnvironment(env),
      confined: true,
      seccomp: this.#filter(),
      finish: () => limited.release(),
      ...(limited.empty === undefined ? {} : { empty: limited.empty }),
    };
  }

  /**
   * Start `command args` in the spare sandbox when one was started for the
   * same set-up (workspace, binds, stdio), then start the next spare. When
   * there is none to use, answers what `prepare()` would (the command to start
   * cold), from the set-up already computed. Throws spawn's ENOENT as
   * `prepare()` does.
   */
  async launch(
    command: string,
    args: readonly string[],
    options: {
      cwd: string;
      workspace: string;
      env: NodeJS.ProcessEnv;
      stdio?: StdioOptions;
      readable?: readonly string[];
    },
  ): Promise<LaunchedCommand | PreparedCommand> {
    const stdio = spareStdio(options.stdio);
    if (
      !this.active ||
      !this.#prestart ||
      this.#closed ||
      stdio === undefined ||
      !spareCanRun(command, args, options.env)
    ) {
      return this.prepare(command, args, options);
    }
    const setup = this.#setup(command, options);
    const key = JSON.stringify([setup, stdio]);
    const spare = this.#spare;
    this.#spare = undefined;
    // After this call has started (cold or warm), start the sandbox of the next one.
    setImmediate(() => this.#refill(key, setup, stdio, options.env));
    if (spare !== undefined && spare.key !== key) spare.discard();
    if (
      spare?.key === key &&
      (await spare.launch(command, args, options.cwd, confinedEnvironment(options.env)))
    ) {
      return {
        child: spare.child,
        finish: () => spare.finish(),
        ...(spare.empty === undefined ? {} : { empty: spare.empty }),
      };
    }
    return this.#cold(command, args, options.cwd, options.env, setup);
  }

  /** `setpriv ... --` running bubblewrap as `run_as`, or undefined (the probe refused the sandbox without setpriv). */
  #runAsPrefix(): string[] | undefined {
    return this.#runAs === undefined ? undefined : runAsPrefix(this.#runAs);
  }

  /** The seccomp filter of this CPU (the probe refused the sandbox where there is none). */
  #filter(): Buffer {
    const filter = unixSocketFilter(process.arch, { unixSockets: !this.policy.network });
    if (filter === undefined)
      throw new SandboxUnavailableError(this.#module, 'no seccomp filter for this CPU');
    return filter;
  }

  /** Resolves true once the spare for the next command is ready (false: there is none). For tests and benchmarks. */
  spareReady(): Promise<boolean> {
    return this.#spare?.whenReady() ?? Promise.resolve(false);
  }

  #refill(key: string, setup: readonly string[], stdio: SpareStdio, env: NodeJS.ProcessEnv): void {
    if (this.#closed || this.#spare !== undefined) return;
    try {
      this.#spare = new Spare(key, {
        bwrap: this.support.bwrap!,
        setup,
        stdio,
        maxProcesses: this.policy.max_processes,
        env,
        seccomp: this.#filter(),
        ...(this.#runAs === undefined ? {} : { runAs: { ...this.#runAs, prefix: this.#runAsPrefix()! } }),
      });
    } catch {
      // no script directory: the next command starts cold
    }
  }

  /**
   * At cleanup: discard the spare sandbox, and kill every unconfined process
   * this sandbox started that is still running. Commands started after it run
   * cold.
   */
  cleanup(): number {
    this.#closed = true;
    this.#spare?.discard();
    this.#spare = undefined;
    // Nothing to look for when every command ran confined (or none ran): no scan of /proc.
    return this.#unconfinedStarted ? killMarked(SESSION_MARKER, this.sessionMarker) : 0;
  }
}

/** The bwrap command line for `command args` under `policy` (exported for tests and the bench). */
export function bwrapArguments(command: string, args: readonly string[], options: SetupOptions): string[] {
  return [...bwrapSetup(options), '--chdir', options.cwd, '--', command, ...args];
}

/** What bubblewrap's set-up depends on. */
export interface SetupOptions {
  cwd: string;
  workspace: string;
  policy: SandboxPolicy;
  home: string;
  /**
   * Host paths the command needs to read (its program, a server's script):
   * one under /tmp, which the private /tmp would hide, is made visible
   * read-only with its top directory there (`/tmp/<name>`: a checkout or
   * package folder, and what its symlinks point to inside it).
   */
  readable?: readonly string[];
  /** Pass `--disable-userns` (default true; false for a bwrap older than 0.8.0, see `SandboxSupport`). */
  disableUserns?: boolean;
  /** Where `XDG_RUNTIME_DIR` and `SSH_AUTH_SOCK` (socket folders to mask) are read (default: `process.env`). */
  hostEnv?: NodeJS.ProcessEnv;
  /** Mask what only root can read (default: when the kernel runs as euid 0; see masks.ts). */
  asRoot?: boolean;
  /** bubblewrap runs as this user (`sandbox_policy.run_as`): masks it cannot reach are left out (it cannot read them either). */
  runAs?: HostUser;
}

/**
 * bubblewrap's set-up arguments: everything up to `--chdir` and the command
 * (the sandbox a spare can be). bwrap reads the seccomp filter
 * (`unixSocketFilter()`, with unix sockets allowed when the network is on)
 * from descriptor `SECCOMP_FD`, which the caller must give it.
 */
export function bwrapSetup(options: SetupOptions): string[] {
  const { policy, home } = options;
  const workspace = realpathOr(options.workspace);
  const out = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  out.push('--size', String(policy.tmp_size_mb * 1024 * 1024), '--tmpfs', '/tmp');
  const writable = [workspace, ...policy.writable.map((p) => realpathOr(policyPath(p, workspace, home)))];
  for (const dir of writable) if (fs.existsSync(dir)) out.push('--bind', dir, dir);
  // Git's hooks and config and .amplifier/ stay read-only inside them: they would run code outside later.
  for (const entry of protectedPaths(writable.filter((dir) => fs.existsSync(dir)))) {
    out.push('--ro-bind', entry, entry);
  }
  // The working directory is readable even where the private /tmp would hide it (a tool folder in /tmp).
  const cwd = realpathOr(options.cwd);
  if (!writable.some((w) => cwd === w || cwd.startsWith(`${w}${path.sep}`)) && fs.existsSync(cwd)) {
    out.push('--ro-bind', cwd, cwd);
  }
  const exposed = new Set<string>();
  for (const entry of options.readable ?? []) {
    if (!path.isAbsolute(entry)) continue;
    const top = /^\/tmp\/[^/]+/.exec(realpathOr(entry))?.[0];
    if (top === undefined || exposed.has(top) || !fs.existsSync(top)) continue;
    // Inside a writable path, or holding one: bound already, or would hide the writable bind.
    if (
      writable.some(
        (w) => top === w || top.startsWith(`${w}${path.sep}`) || w.startsWith(`${top}${path.sep}`),
      )
    ) {
      continue;
    }
    exposed.add(top);
    out.push('--ro-bind', top, top);
  }
  const masks = maskArguments({
    home,
    hidden: policy.hidden.map((p) => policyPath(p, workspace, home)),
    keep: [...writable, cwd],
    hostEnv: options.hostEnv ?? process.env,
    ...(options.asRoot === undefined ? {} : { asRoot: options.asRoot }),
    ...(options.runAs === undefined ? {} : { reachable: (p: string) => canReach(p, options.runAs!) }),
  });
  out.push(...masks);
  if (policy.network) out.push(...resolverArguments(masks));
  out.push(...NO_PRIVILEGES);
  if (options.disableUserns !== false) out.push('--disable-userns');
  out.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try');
  // The filter always (it refuses the keyring calls); with the network off it refuses unix sockets too.
  if (!policy.network) out.push('--unshare-net');
  out.push('--seccomp', String(SECCOMP_FD));
  out.push('--die-with-parent');
  return out;
}

/**
 * Variables that point a command at a host service through a unix socket or a
 * daemon (ssh-agent, Docker, Podman, D-Bus, gpg-agent): unset in every
 * confined command, whose sandbox masks those sockets anyway.
 */
export const CONFINED_UNSET: readonly string[] = [
  'SSH_AUTH_SOCK',
  'SSH_AGENT_PID',
  'DOCKER_HOST',
  'CONTAINER_HOST',
  'DBUS_SESSION_BUS_ADDRESS',
  'DBUS_SYSTEM_BUS_ADDRESS',
  'GPG_AGENT_INFO',
];

/** `env` without `CONFINED_UNSET` (a copy, on a null-prototype object). */
function confinedEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = Object.assign(Object.create(null), env);
  for (const name of CONFINED_UNSET) delete out[name];
  return out;
}

/**
 * The program `command` runs (its path on the host), or spawn's ENOENT when it
 * cannot be found: inside the sandbox a missing program would only be an exit
 * code of bwrap.
 */
function requireExecutable(command: string, pathVariable: string | undefined, cwd: string): string {
  const found = command.includes('/')
    ? isExecutable(path.resolve(cwd, command))
      ? path.resolve(cwd, command)
      : undefined
    : findOnPath(command, pathVariable);
  if (found !== undefined) return found;
  const error = new Error(`spawn ${command} ENOENT`) as NodeJS.ErrnoException;
  error.code = 'ENOENT';
  error.errno = -2;
  error.syscall = `spawn ${command}`;
  error.path = command;
  throw error;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The stdio a spare can have (plain modes for fds 0-2), or undefined. */
function spareStdio(stdio: StdioOptions | undefined): SpareStdio | undefined {
  const given = stdio ?? ['ignore', 'pipe', 'pipe'];
  const modes = typeof given === 'string' ? [given, given, given] : given;
  if (modes.length !== 3) return undefined;
  const plain = modes.every((mode) => mode === 'ignore' || mode === 'pipe' || mode === 'inherit');
  return plain ? (modes as SpareStdio) : undefined;
}

/** `bwrap` on PATH, by PATH value: looked up once per process (a server mounts tool-bash per session). */
const bwrapLookups = new Map<string | undefined, string | undefined>();

/**
 * Where `bwrap` is on the current PATH. Like the probe of a binary, the answer
 * holds for the process's life: bubblewrap installed while it runs is seen by
 * the next process (or after PATH changes).
 */
function findBwrap(): string | undefined {
  const pathVariable = process.env.PATH;
  if (bwrapLookups.has(pathVariable)) return bwrapLookups.get(pathVariable);
  const found = findOnPath('bwrap', pathVariable);
  if (bwrapLookups.size >= 16) bwrapLookups.clear();
  bwrapLookups.set(pathVariable, found);
  return found;
}

let envBinary: boolean | undefined;

/** Whether `/usr/bin/env` (what a spare sandbox runs) exists; checked once per process. */
function envBinaryPresent(): boolean {
  envBinary ??= isExecutable(ENV_BINARY);
  return envBinary;
}

function findOnPath(name: string, pathVariable: string | undefined = process.env.PATH): string | undefined {
  for (const dir of (pathVariable ?? '/usr/bin:/bin').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}
