/**
 * Process groups: is anything of the group still running (on Linux, zombies
 * nobody reaps do not count), and the kill sequence SIGTERM, a grace period,
 * SIGKILL, which resolves once the group is gone. A group is registered for
 * host exit until it is released: groups still registered when the host
 * process exits get SIGKILL.
 */
import { groupHasLiveMember, hasProcTable, isGone, readProcessTable } from './proc.js';

/** Options of a `ProcessGroup`. */
export interface ProcessGroupOptions {
  /**
   * Also follow descendants that left the group (`setsid`, `setpgid`) while
   * their parent was still alive: each kill looks for them in `/proc` and
   * signals and waits for them with the group (Linux only; default false).
   * A process that leaves after its parent exited stays out of reach: only a
   * cgroup or a PID namespace contains everything.
   */
  followEscapees?: boolean;
}

/** Options of `ProcessGroup.kill`. */
export interface KillGroupOptions {
  /** Time between SIGTERM and SIGKILL, in milliseconds. */
  graceMs: number;
}

/** How long `kill` waits for the group to go after SIGKILL. */
const AFTER_SIGKILL_MS = 2000;
/** How often `kill` looks whether the group is gone (there is no event for it). */
const POLL_MS = 10;

/** Groups registered and not yet released: SIGKILLed if the host process exits. */
const registered = new Set<number>();
let exitHookInstalled = false;

/**
 * The process group `pgid` (a process spawned with `detached: true` leads a
 * group whose id is its pid). Creating it registers the group for host exit;
 * call `release()` once it is gone or no longer yours.
 */
export class ProcessGroup {
  readonly pgid: number;
  readonly #followEscapees: boolean;
  /** Descendants outside the group, by pid, with their start time (pid reuse guard). */
  readonly #escapees = new Map<number, string>();

  constructor(pgid: number, options: ProcessGroupOptions = {}) {
    if (!Number.isInteger(pgid) || pgid <= 1) throw new RangeError(`not a process group id: ${pgid}`);
    this.pgid = pgid;
    this.#followEscapees = options.followEscapees ?? false;
    registered.add(pgid);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.once('exit', () => {
        for (const id of registered) signalGroup(id, 'SIGKILL');
      });
    }
  }

  /** Some process of the group (or a followed escapee) still runs; zombies do not count where `/proc` exists. */
  alive(): boolean {
    const exists = signalGroup(this.pgid, 0);
    if (this.#escapees.size === 0) return exists && (!hasProcTable() || groupHasLiveMember(this.pgid));
    const table = readProcessTable();
    if (table === undefined) return exists;
    for (const info of table.values()) {
      if (info.pgrp === this.pgid && !isGone(info)) return true;
    }
    for (const [pid, start] of this.#escapees) {
      const info = table.get(pid);
      if (!isGone(info) && info?.start === start) return true;
    }
    return false;
  }

  /** Send `signal` to every process of the group and to the followed escapees still running. */
  signal(signal: NodeJS.Signals): void {
    signalGroup(this.pgid, signal);
    if (this.#escapees.size === 0) return;
    const table = readProcessTable();
    for (const [pid, start] of this.#escapees) {
      const info = table?.get(pid);
      if (isGone(info) || info?.start !== start) continue;
      try {
        process.kill(pid, signal);
      } catch {
        // already gone or not ours
      }
    }
  }

  /**
   * SIGTERM, up to `graceMs` for everything to go, then SIGKILL and up to 2 s
   * more. Resolves true once the group (and every followed escapee) is gone,
   * false if something survived SIGKILL that long (a process stuck in the kernel).
   */
  async kill(options: KillGroupOptions): Promise<boolean> {
    this.#collectEscapees();
    this.signal('SIGTERM');
    if (await this.#waitGone(options.graceMs)) return true;
    this.#collectEscapees();
    this.signal('SIGKILL');
    return this.#waitGone(AFTER_SIGKILL_MS);
  }

  /** Forget the group: it is no longer SIGKILLed at host exit (its id may be reused later). */
  release(): void {
    registered.delete(this.pgid);
  }

  /** Descendants of the group's processes that are in another group now (needs `/proc`). */
  #collectEscapees(): void {
    if (!this.#followEscapees) return;
    const table = readProcessTable();
    if (table === undefined) return;
    const children = new Map<number, number[]>();
    for (const [pid, info] of table) {
      const list = children.get(info.ppid);
      if (list) list.push(pid);
      else children.set(info.ppid, [pid]);
    }
    const queue = [this.pgid];
    for (const [pid, info] of table) if (info.pgrp === this.pgid && pid !== this.pgid) queue.push(pid);
    const seen = new Set(queue);
    for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
      for (const child of children.get(next) ?? []) {
        if (seen.has(child)) continue;
        seen.add(child);
        queue.push(child);
        const info = table.get(child);
        if (info && info.pgrp !== this.pgid && !isGone(info)) this.#escapees.set(child, info.start);
      }
    }
  }

  async #waitGone(ms: number): Promise<boolean> {
    const deadline = performance.now() + ms;
    for (;;) {
      if (!this.alive()) return true;
      const left = deadline - performance.now();
      if (left <= 0) return false;
      await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(1, left))));
    }
  }
}

/** `kill(-pgid, signal)`; true when the group exists. On EPERM the leader alone is tried. */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
    try {
      process.kill(pgid, signal);
    } catch {
      // the leader is gone too
    }
    return true;
  }
}
