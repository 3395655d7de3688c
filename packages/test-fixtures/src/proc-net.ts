/**
 * What a process listens on, read from Linux's /proc: for tests that assert
 * a server exposes no TCP port (a unix-socket-only service).
 */
import fs from 'node:fs';

/** The TCP ports process `pid` listens on: its socket inodes matched against /proc/net/tcp and tcp6 (Linux). */
export function tcpListenPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match?.[1] !== undefined) inodes.add(match[1]);
    } catch {
      // closed meanwhile
    }
  }
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!fs.existsSync(table)) continue;
    for (const line of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // cols[3] is the state (0A: LISTEN), cols[9] the socket inode, cols[1] address:port in hex.
      if (cols.length < 10 || cols[3] !== '0A' || !inodes.has(cols[9] ?? '')) continue;
      ports.push(Number.parseInt((cols[1] ?? '').split(':')[1] ?? '', 16));
    }
  }
  return ports;
}
