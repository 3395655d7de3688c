/**
 * Test helper: run a small Node script as another local user (a second uid
 * on the same machine), to prove that a local service refuses it. Needs
 * root (to create the user and switch to it): elsewhere `otherUser()` is
 * undefined and the tests that need it skip with a note.
 */
import { execFileSync, spawn } from 'node:child_process';

const NAME = 'amplifier-other';

export interface OtherUser {
  uid: number;
  gid: number;
  /** Run `node -e script` as this user; resolves its stdout and exit code (never throws on a non-zero exit). */
  node(script: string): Promise<{ code: number | null; stdout: string; stderr: string }>;
}

function ensureUser(): { uid: number; gid: number } {
  try {
    execFileSync('id', ['-u', NAME], { stdio: 'ignore' });
  } catch {
    execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', NAME], {
      stdio: 'ignore',
    });
  }
  const uid = Number(execFileSync('id', ['-u', NAME]).toString().trim());
  const gid = Number(execFileSync('id', ['-g', NAME]).toString().trim());
  return { uid, gid };
}

/** The other user, created when missing; undefined when this process is not root. */
export function otherUser(): OtherUser | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const { uid, gid } = ensureUser();
  return {
    uid,
    gid,
    node: (script) =>
      new Promise((resolve, reject) => {
        const child = spawn(
          'setpriv',
          [`--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', process.execPath, '-e', script],
          { cwd: '/', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c: Buffer) => {
          stdout += c.toString();
        });
        child.stderr.on('data', (c: Buffer) => {
          stderr += c.toString();
        });
        child.once('error', reject);
        child.once('close', (code) => resolve({ code, stdout, stderr }));
      }),
  };
}

/**
 * A script for `OtherUser.node`: GET (or POST `body` to) `url` (over
 * `socketPath` when given) with `headers`, print the status (or `error
 * <code>`); then try to read `file` and print `read` or the error code.
 */
export function probeScript(
  url: string,
  options: { headers?: Record<string, string>; body?: string; file?: string; socketPath?: string },
): string {
  const request = {
    method: options.body === undefined ? 'GET' : 'POST',
    headers: options.headers ?? {},
    ...(options.socketPath !== undefined && { socketPath: options.socketPath, path: new URL(url).pathname }),
  };
  const args =
    options.socketPath === undefined
      ? `${JSON.stringify(url)}, ${JSON.stringify(request)}`
      : JSON.stringify(request);
  return `
const http = require('node:http');
const fs = require('node:fs');
const req = http.request(${args}, (res) => {
  res.resume();
  console.log('status ' + res.statusCode);
  ${options.file === undefined ? '' : `try { fs.readFileSync(${JSON.stringify(options.file)}); console.log('read'); } catch (e) { console.log('file ' + e.code); }`}
});
req.on('error', (e) => console.log('error ' + e.code));
req.end(${JSON.stringify(options.body ?? '')});
`;
}
