/**
 * Listening on a unix socket that only this user can use: mode 0600 from
 * the moment it exists (umask), in a directory no one else can write to.
 * A socket like this needs no token: the kernel checks the peer.
 */
import fs from 'node:fs';
import type { Server } from 'node:net';
import net from 'node:net';
import path from 'node:path';
import { ServiceSetupError } from './token.js';

function myUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

function connects(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.connect(socketPath);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

/**
 * Check where a socket may go: the parent directory is created 0700 when
 * missing; an existing one must be a directory owned by this user (or root)
 * that neither the group nor others can write to. An old socket nobody
 * answers on is removed; a live one or any other file is refused.
 * Throws `ServiceSetupError` with what to do.
 */
export async function prepareUnixSocketPath(socketPath: string): Promise<string> {
  const full = path.resolve(socketPath);
  const parent = path.dirname(full);
  if (!fs.existsSync(parent)) fs.mkdirSync(parent, { recursive: true, mode: 0o700 });
  const stat = fs.statSync(parent);
  if (!stat.isDirectory()) {
    throw new ServiceSetupError(`--unix ${socketPath}: ${parent} is not a directory.`);
  }
  if ((stat.mode & 0o022) !== 0) {
    throw new ServiceSetupError(
      `--unix ${socketPath}: the directory ${parent} is writable by ${stat.mode & 0o002 ? 'every user' : 'its group'} (mode ${(stat.mode & 0o777).toString(8)}), so another user could replace the socket: put it in a directory only you can write to (mode 0700), such as $XDG_RUNTIME_DIR.`,
    );
  }
  const uid = myUid();
  if (uid !== undefined && stat.uid !== uid && stat.uid !== 0) {
    throw new ServiceSetupError(
      `--unix ${socketPath}: the directory ${parent} belongs to user ${stat.uid}, not you (${uid}): put the socket in a directory of yours.`,
    );
  }
  let existing: fs.Stats | undefined;
  try {
    existing = fs.lstatSync(full);
  } catch {
    existing = undefined;
  }
  if (existing !== undefined) {
    if (!existing.isSocket()) {
      throw new ServiceSetupError(
        `--unix ${socketPath}: a file that is not a socket is there; choose another path.`,
      );
    }
    if (await connects(full)) {
      throw new ServiceSetupError(
        `--unix ${socketPath}: another server is listening on it; stop it or choose another path.`,
      );
    }
    fs.rmSync(full, { force: true });
  }
  return full;
}

/**
 * Listen on `socketPath` (checked by `prepareUnixSocketPath`) with mode
 * 0600, and resolve the full path once listening.
 */
export async function listenUnix(server: Server, socketPath: string): Promise<string> {
  const full = await prepareUnixSocketPath(socketPath);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // The socket is created by bind() inside listen(): with this umask it is 0600 from the start.
    // (A worker thread cannot set the umask: there the parent's checks and the chmod below remain.)
    let previous: number | undefined;
    try {
      previous = process.umask(0o177);
    } catch {
      previous = undefined;
    }
    try {
      server.listen(full, () => {
        server.off('error', reject);
        resolve();
      });
    } finally {
      if (previous !== undefined) process.umask(previous);
    }
  });
  fs.chmodSync(full, 0o600);
  return full;
}
