/**
 * The runtime file of a running service: its URL and token (and pid) in a
 * 0600 JSON file inside a 0700 directory of the user's, so the user's own
 * tools can find and call it while other local users cannot read it.
 * The directory is `$XDG_RUNTIME_DIR/amplifier/` when that is set, else
 * `$AMPLIFIER_HOME/run/` (default `~/.amplifier/run/`).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ServiceSetupError } from './token.js';

/** The directory runtime files go in (not created). */
export function runtimeDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.XDG_RUNTIME_DIR) return path.join(env.XDG_RUNTIME_DIR, 'amplifier');
  const home = env.AMPLIFIER_HOME || path.join(env.HOME || os.homedir(), '.amplifier');
  return path.join(home, 'run');
}

function myUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

/**
 * Create `dir` (mode 0700) or check the one there: a real directory (not a
 * symlink) owned by this user; group and other permissions are removed.
 * Throws `ServiceSetupError` otherwise.
 */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = fs.lstatSync(dir);
  if (!stat.isDirectory()) {
    throw new ServiceSetupError(
      `${dir} should be a private directory for runtime files but is ${stat.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}: remove it and start again.`,
    );
  }
  const uid = myUid();
  if (uid !== undefined && stat.uid !== uid) {
    throw new ServiceSetupError(
      `${dir} should be a private directory of user ${uid} but belongs to user ${stat.uid}: remove it (or set XDG_RUNTIME_DIR / AMPLIFIER_HOME elsewhere) and start again.`,
    );
  }
  if ((stat.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
}

/** What a runtime file holds (snake_case JSON). */
export interface RuntimeInfo {
  service: string;
  url: string;
  token?: string;
  /** For a unix socket: its path. */
  socket?: string;
  pid: number;
  [key: string]: unknown;
}

export interface RuntimeFile {
  path: string;
  /** Delete the file (no error when it is gone). */
  remove(): void;
}

/**
 * Write `<runtimeDir>/<name>.json` (0600, atomically: a temp file renamed
 * over it) and return its path and how to remove it.
 */
export function writeRuntimeFile(
  name: string,
  info: RuntimeInfo,
  env: NodeJS.ProcessEnv = process.env,
): RuntimeFile {
  if (!/^[A-Za-z0-9._-]+$/.test(name) || name.startsWith('.')) {
    throw new ServiceSetupError(
      `A runtime file name must be letters, digits, '.', '-' or '_' (got '${name}').`,
    );
  }
  const dir = runtimeDir(env);
  ensurePrivateDir(dir);
  const file = path.join(dir, `${name}.json`);
  const temp = path.join(dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = fs.openSync(
    temp,
    fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW,
    0o600,
  );
  try {
    fs.writeSync(fd, `${JSON.stringify(info, null, 2)}\n`);
    fs.fchmodSync(fd, 0o600);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, file);
  return {
    path: file,
    remove: () => fs.rmSync(file, { force: true }),
  };
}
