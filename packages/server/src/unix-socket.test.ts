import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ServiceSetupError } from './token.js';
import { listenUnix } from './unix-socket.js';

const dirs: string[] = [];
const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise<void>((resolve) => server.close(() => resolve()));
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
function temp(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'amplifier-sock-'));
  dirs.push(dir);
  return dir;
}
function server(): http.Server {
  const s = http.createServer((_req, res) => res.end('ok'));
  servers.push(s);
  return s;
}
function get(socketPath: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get({ socketPath, path: '/', headers: { host: 'localhost' } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => {
          body += c.toString();
        });
        res.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
}

it('listens with mode 0600, creating a missing parent 0700', async () => {
  const socketPath = path.join(temp(), 'private', 'mcp.sock');
  const full = await listenUnix(server(), socketPath);
  expect(fs.statSync(full).mode & 0o777).toBe(0o600);
  expect(fs.statSync(path.dirname(full)).mode & 0o777).toBe(0o700);
  expect(await get(full)).toBe('ok');
});

it('refuses a world- or group-writable parent (sticky or not) before binding', async () => {
  for (const parentMode of [0o777, 0o1777, 0o770, 0o720]) {
    const parent = temp();
    fs.chmodSync(parent, parentMode);
    const socketPath = path.join(parent, 'mcp.sock');
    const error = await listenUnix(server(), socketPath).catch((e: unknown) => e);
    expect(error, parentMode.toString(8)).toBeInstanceOf(ServiceSetupError);
    expect((error as Error).message).toMatch(/writable by/);
    expect(fs.existsSync(socketPath)).toBe(false);
  }
});

it('refuses a file that is not a socket and a live socket; replaces a dead one', async () => {
  const dir = temp();
  const file = path.join(dir, 'plain');
  fs.writeFileSync(file, 'x');
  await expect(listenUnix(server(), file)).rejects.toThrow(/not a socket/);
  const live = await listenUnix(server(), path.join(dir, 'live.sock'));
  await expect(listenUnix(server(), live)).rejects.toThrow(/another server is listening/);
  const stale = path.join(dir, 'stale.sock');
  // A server killed with SIGKILL leaves its socket file behind with nobody listening.
  spawnSync(process.execPath, [
    '-e',
    `require('node:net').createServer().listen(${JSON.stringify(stale)}, () => process.kill(process.pid, 'SIGKILL'))`,
  ]);
  expect(fs.lstatSync(stale).isSocket()).toBe(true);
  const reused = await listenUnix(server(), stale);
  expect(await get(reused)).toBe('ok');
});
