/**
 * Process groups of tool processes: is anything of the group still running
 * (zombies nobody reaps do not count), and the kill sequence SIGTERM, grace
 * period, SIGKILL. Groups still running when the host process exits get
 * SIGKILL. A process that leaves the group (`setsid`) is out of reach: only a
 * cgroup or a PID namespace contains everything.
 */
import fs from 'node:fs';

/** Groups started and not yet released: SIGKILLed if the host process exits. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

const HAS_PROC = process.platform === 'linux' && fs.existsSync('/proc/self/stat');
const STAT_BUFFER = Buffer.alloc(1024);

/** The process group a tool process leads (its pgid is the process's pid). */
export class ProcessGroup {
  readonly pgid: number;

  constructor(pgid: number) {
    this.pgid = pgid;
    liveGroups.add(pgid);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.once('exit', () => {
        for (const id of liveGroups) signalGroup(id, 'SIGKILL');
      });
    }
  }

  /** Some process of the group is still running (on Linux, zombies are not counted). */
  alive(): boolean {
    if (!signalGroup(this.pgid, 0)) return false;
    return HAS_PROC ? liveMemberOnProc(this.pgid) : true;
  }

  /** Send `signal` to the whole group. */
  signal(signal: NodeJS.Signals): void {
    signalGroup(this.pgid, signal);
  }

  /** Forget the group: it is no longer killed at host exit. */
  release(): void {
    liveGroups.delete(this.pgid);
  }
}

/** SIGTERM, up to `graceMs` for the group to go, then SIGKILL and up to 2 s more. */
export async function killGroup(group: ProcessGroup, graceMs: number): Promise<void> {
  group.signal('SIGTERM');
  if (await waitGone(group, graceMs)) return;
  group.signal('SIGKILL');
  await waitGone(group, 2000);
}

async function waitGone(group: ProcessGroup, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  for (;;) {
    if (!group.alive()) return true;
    const left = deadline - performance.now();
    if (left <= 0) return false;
    await new Promise((resolve) => setTimeout(resolve, Math.min(10, Math.max(1, left))));
  }
}

/** `kill(-pgid, signal)`; true when the group exists. */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A process of group `pgid` that is not a zombie exists (reads /proc/<pid>/stat). */
function liveMemberOnProc(pgid: number): boolean {
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      const fd = fs.openSync(`/proc/${name}/stat`, 'r');
      try {
        stat = STAT_BUFFER.toString('latin1', 0, fs.readSync(fd, STAT_BUFFER, 0, STAT_BUFFER.length, 0));
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
  }
  return false;
}
