/**
 * Escaped descendants of an unsandboxed command (`setsid`, double fork,
 * `nohup ... & disown` after their parent exited) are out of reach of a
 * process-group kill. Each call and each mount puts a marker in the
 * environment of what it starts; `killMarked` finds every process whose
 * initial environment (`/proc/<pid>/environ`) holds it and SIGKILLs it.
 * Best effort: a process that re-executes itself with a cleaned environment
 * loses the marker; only the sandbox's PID namespace contains everything.
 * Linux only (elsewhere it finds nothing).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { hasProcTable } from './proc.js';

/** The variable naming the mount (session) a process was started by. */
export const SESSION_MARKER = 'AMPLIFIER_PROC_SESSION';
/** The variable naming the call a process was started by. */
export const CALL_MARKER = 'AMPLIFIER_PROC_CALL';

/** A new marker value (random, unguessable by the command). */
export function newMarker(): string {
  return randomBytes(12).toString('hex');
}

/** Pids of the processes whose environment holds `name=value` (never this process). */
export function findMarked(name: string, value: string): number[] {
  if (!hasProcTable()) return [];
  const needle = Buffer.from(`\0${name}=${value}\0`);
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environ: Buffer;
    try {
      environ = Buffer.concat([
        Buffer.from([0]),
        fs.readFileSync(`/proc/${entry}/environ`),
        Buffer.from([0]),
      ]);
    } catch {
      continue; // gone, or not ours to read
    }
    if (environ.includes(needle)) found.push(Number(entry));
  }
  return found;
}

/** SIGKILL every process marked `name=value`, until none is left (new ones may fork meanwhile); returns how many. */
export function killMarked(name: string, value: string): number {
  // Distinct processes: one killed in a round can still be listed in the next (SIGKILL lands when the
  // kernel next schedules it), and is counted once.
  const killed = new Set<number>();
  for (let round = 0; round < 20; round++) {
    const pids = findMarked(name, value);
    if (pids.length === 0) break;
    for (const pid of pids) {
      try {
        // Stop first so a forking process cannot outrun the kill, then kill.
        process.kill(pid, 'SIGSTOP');
      } catch {
        // gone meanwhile
      }
    }
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
        killed.add(pid);
      } catch {
        // gone meanwhile
      }
    }
  }
  return killed.size;
}
