/**
 * Descriptors this process inherited without close-on-exec (from the shell,
 * a CI runner or an IDE that started it): Node and libuv open everything
 * close-on-exec, but do not close what they were given, so such a descriptor
 * reaches every child, and bubblewrap passes it on into the sandbox. A
 * directory descriptor there opens files behind every mask
 * (`/proc/self/fd/N/.ssh/id_rsa`); a socket or pipe talks to whatever holds
 * its other end. A confined command's spawn plugs each one: a pipe at that
 * number, whose other end is closed at once, so the command gets nothing.
 */

import type { ChildProcess, StdioOptions } from 'node:child_process';
import fs from 'node:fs';

/** `O_CLOEXEC` as `/proc/self/fdinfo` shows it (octal 02000000). */
const CLOSE_ON_EXEC = 0o2000000;

/** The descriptors above `from` that a child would inherit (Linux; empty elsewhere or when /proc cannot be read). */
export function inheritedDescriptors(from: number): number[] {
  let names: string[];
  try {
    names = fs.readdirSync('/proc/self/fd');
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd < from) continue;
    let info: string;
    try {
      info = fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8');
    } catch {
      continue; // closed meanwhile (the readdir's own descriptor among them)
    }
    const flags = /^flags:\s*([0-7]+)$/m.exec(info)?.[1];
    if (flags !== undefined && (Number.parseInt(flags, 8) & CLOSE_ON_EXEC) === 0) out.push(fd);
  }
  return out.sort((a, b) => a - b);
}

/**
 * `stdio` with a pipe at each inherited descriptor from `from` on that it
 * leaves open (`'ignore'`, or past its end; `'ignore'` fills the gaps),
 * and the numbers plugged, for `closePlugs`.
 */
export function plugInherited(stdio: StdioOptions, from: number): { stdio: StdioOptions; plugged: number[] } {
  const modes = typeof stdio === 'string' ? [stdio, stdio, stdio] : [...stdio];
  // An entry the caller set (a pipe, a stream, a number) replaces the inherited one already; 'ignore' and gaps do not.
  const plugged = inheritedDescriptors(from).filter(
    (fd) => fd >= modes.length || modes[fd] === 'ignore' || modes[fd] === undefined || modes[fd] === null,
  );
  if (plugged.length === 0) return { stdio, plugged };
  for (const fd of plugged) {
    while (modes.length < fd) modes.push('ignore');
    modes[fd] = 'pipe';
  }
  return { stdio: modes, plugged };
}

/** Close this side of the plugs: the command holds pipes that lead nowhere. */
export function closePlugs(child: ChildProcess, plugged: readonly number[]): void {
  for (const fd of plugged) {
    const stream = (child.stdio as unknown[])[fd] as { destroy(): void } | null | undefined;
    stream?.destroy();
  }
}
