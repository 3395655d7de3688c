/**
 * The process table from `/proc` (Linux): each process's state, parent,
 * process group and start time, read from `/proc/<pid>/stat`. Elsewhere
 * `hasProcTable()` is false and callers fall back to `kill(pid, 0)`.
 */
import fs from 'node:fs';

/** One process, as `/proc/<pid>/stat` describes it. */
export interface ProcInfo {
  ppid: number;
  pgrp: number;
  /** `R`, `S`, `D`, `T`, `Z` (zombie), `X` (dead)... */
  state: string;
  /** Start time in clock ticks since boot: with the pid, it names one process (pid reuse guard). */
  start: string;
}

const STAT_BUFFER = Buffer.alloc(1024);
let procTable: boolean | undefined;

/** `/proc/<pid>/stat` can be read here (Linux with procfs mounted). */
export function hasProcTable(): boolean {
  procTable ??= process.platform === 'linux' && fs.existsSync('/proc/self/stat');
  return procTable;
}

/** A zombie (exited, not reaped) or a missing process: nothing runs any more. */
export function isGone(info: ProcInfo | undefined): boolean {
  return info === undefined || info.state === 'Z' || info.state === 'X';
}

/**
 * Visit every process of the table until `visit` returns true; returns whether
 * it did. Processes that vanish while being read are skipped.
 */
function visitProcesses(visit: (pid: number, info: ProcInfo) => boolean): boolean {
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      // open + read into one buffer: about 3x cheaper than readFileSync on /proc
      const fd = fs.openSync(`/proc/${name}/stat`, 'r');
      try {
        stat = STAT_BUFFER.toString('latin1', 0, fs.readSync(fd, STAT_BUFFER, 0, STAT_BUFFER.length, 0));
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid pgrp session ... starttime(22nd)": comm may hold spaces and parens.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const info: ProcInfo = {
      state: fields[0] ?? '',
      ppid: Number(fields[1]),
      pgrp: Number(fields[2]),
      start: fields[19] ?? '',
    };
    if (visit(Number(name), info)) return true;
  }
  return false;
}

/** Every process by pid, or undefined without a `/proc` table. */
export function readProcessTable(): Map<number, ProcInfo> | undefined {
  if (!hasProcTable()) return undefined;
  const table = new Map<number, ProcInfo>();
  visitProcesses((pid, info) => {
    table.set(pid, info);
    return false;
  });
  return table;
}

/** Some process of group `pgid` is not a zombie (stops at the first one found). Needs `/proc`. */
export function groupHasLiveMember(pgid: number): boolean {
  return visitProcesses((_, info) => info.pgrp === pgid && !isGone(info));
}
