/**
 * A process limit for a sandboxed command. RLIMIT_NPROC does not apply to
 * root (the kernel exempts it) and counts every process of the user, so the
 * limit is a pids cgroup made for the call when one can be made (cgroup v1
 * `pids` hierarchy, or cgroup v2 with the `pids` controller enabled, and
 * writable: root in CI), else `prlimit --nproc` for a non-root user, else none.
 * The command is started by `/bin/sh`, which joins the cgroup and then execs
 * it, so no process of the command starts outside it.
 */
import fs from 'node:fs';
import path from 'node:path';

/** How a command's process count is bounded. */
export type PidsLimitKind = 'cgroup' | 'rlimit' | 'none';

let cgroupRoot: string | null | undefined;
let counter = 0;

/** The writable pids cgroup directory new cgroups are made in, or null. */
export function pidsCgroupRoot(): string | null {
  if (cgroupRoot !== undefined) return cgroupRoot;
  cgroupRoot = null;
  if (process.platform !== 'linux') return cgroupRoot;
  for (const dir of ['/sys/fs/cgroup/pids', '/sys/fs/cgroup']) {
    try {
      if (
        dir === '/sys/fs/cgroup' &&
        !fs.readFileSync(`${dir}/cgroup.subtree_control`, 'utf8').includes('pids')
      )
        continue;
      fs.accessSync(dir, fs.constants.W_OK);
      if (!fs.existsSync(`${dir}/cgroup.procs`)) continue;
      const probe = path.join(dir, `amplifier-probe-${process.pid}`);
      fs.mkdirSync(probe);
      const usable = fs.existsSync(path.join(probe, 'pids.max'));
      fs.rmdirSync(probe);
      if (usable) {
        cgroupRoot = dir;
        removeStale(dir);
        break;
      }
    } catch {
      // not this one
    }
  }
  return cgroupRoot;
}

/**
 * Remove the empty cgroups of hosts that are gone (`amplifier-<pid>-<n>`): a
 * host that exits right after a call may leave its last one behind.
 */
function removeStale(root: string): void {
  for (const name of fs.readdirSync(root)) {
    const pid = /^amplifier-(\d+)-\d+$/.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid || fs.existsSync(`/proc/${pid}`)) continue;
    try {
      fs.rmdirSync(path.join(root, name));
    } catch {
      // not empty (still running) or not ours
    }
  }
}

/** What `limitProcesses` returns: the command to run and what to do once it is gone. */
export interface LimitedCommand {
  command: string;
  args: string[];
  kind: PidsLimitKind;
  /** Once the command has exited: SIGKILL what is left in the call's cgroup, then remove it. */
  release(): Promise<void>;
  /**
   * Whether no process is left in the call's cgroup (a process leaves it once
   * the kernel has torn it down: a zombie is not in it). One small read, where
   * a look for a process group scans all of `/proc`. Only with a cgroup.
   */
  empty?(): boolean;
}

/** Wrap `command args` so that it and its descendants are at most `max` processes. */
export function limitProcesses(command: string, args: readonly string[], max: number): LimitedCommand {
  const root = pidsCgroupRoot();
  if (root !== null) {
    const dir = path.join(root, `amplifier-${process.pid}-${++counter}`);
    try {
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, 'pids.max'), String(max));
      return {
        command: '/bin/sh',
        args: ['-c', 'echo $$ > "$0" && exec "$@"', path.join(dir, 'cgroup.procs'), command, ...args],
        kind: 'cgroup',
        release: () => removeCgroup(dir),
        empty: () => (members(dir)?.length ?? 0) === 0,
      };
    } catch {
      void removeCgroup(dir);
    }
  }
  if (process.getuid?.() !== 0 && fs.existsSync('/usr/bin/prlimit')) {
    return {
      command: '/usr/bin/prlimit',
      args: [`--nproc=${max}`, '--', command, ...args],
      kind: 'rlimit',
      release: async () => {},
    };
  }
  return { command, args: [...args], kind: 'none', release: async () => {} };
}

/** The kind of limit `limitProcesses` gives here. */
export function pidsLimitKind(): PidsLimitKind {
  if (pidsCgroupRoot() !== null) return 'cgroup';
  if (process.getuid?.() !== 0 && fs.existsSync('/usr/bin/prlimit')) return 'rlimit';
  return 'none';
}

const RELEASE_MS = 2000;

/**
 * SIGKILL what is left in the cgroup (the PID namespace is being torn down
 * anyway), then remove it in the background: the kernel may take several
 * milliseconds to remove a cgroup (more while its last processes are torn
 * down), which the call does not wait for. A stale empty cgroup is harmless,
 * and the next host start removes those of hosts that are gone.
 */
async function removeCgroup(dir: string): Promise<void> {
  if (!killMembers(dir)) return;
  void removeWhenEmpty(dir, performance.now() + RELEASE_MS);
}

/** The pids in the cgroup; undefined when the cgroup is gone. */
function members(dir: string): string[] | undefined {
  try {
    return fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean);
  } catch {
    return undefined;
  }
}

/** SIGKILL every process of the cgroup; false when the cgroup is already gone. */
function killMembers(dir: string): boolean {
  const pids = members(dir);
  if (pids === undefined) return false;
  for (const pid of pids) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  return true;
}

async function removeWhenEmpty(dir: string, deadline: number): Promise<void> {
  try {
    await fs.promises.rmdir(dir);
  } catch {
    // busy until the killed processes are torn down
    if (performance.now() >= deadline || !killMembers(dir)) return;
    setTimeout(() => void removeWhenEmpty(dir, deadline), 10).unref();
  }
}
