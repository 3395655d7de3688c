import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runtimeDir, writeRuntimeFile } from './runtime-file.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
function temp(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'amplifier-runtime-'));
  dirs.push(dir);
  return dir;
}
const mode = (p: string): number => fs.statSync(p).mode & 0o777;

it('goes under $XDG_RUNTIME_DIR/amplifier, else $AMPLIFIER_HOME/run', () => {
  expect(runtimeDir({ XDG_RUNTIME_DIR: '/run/user/7', AMPLIFIER_HOME: '/h' })).toBe('/run/user/7/amplifier');
  expect(runtimeDir({ AMPLIFIER_HOME: '/h' })).toBe('/h/run');
});

it('writes the URL and token in a 0600 file in a 0700 dir, and removes it', () => {
  const root = temp();
  const file = writeRuntimeFile(
    'view-1234',
    { service: 'view', url: 'http://127.0.0.1:1234/', token: 't', pid: 1 },
    {
      XDG_RUNTIME_DIR: root,
    },
  );
  expect(path.dirname(file.path)).toBe(path.join(root, 'amplifier'));
  expect(mode(file.path)).toBe(0o600);
  expect(mode(path.dirname(file.path))).toBe(0o700);
  expect(JSON.parse(fs.readFileSync(file.path, 'utf8'))).toMatchObject({
    url: 'http://127.0.0.1:1234/',
    token: 't',
  });
  expect(fs.readdirSync(path.dirname(file.path))).toEqual(['view-1234.json']);
  file.remove();
  expect(fs.existsSync(file.path)).toBe(false);
});

it('tightens an existing open directory and replaces a planted symlink instead of following it', () => {
  const root = temp();
  const dir = path.join(root, 'amplifier');
  fs.mkdirSync(dir, { mode: 0o777 });
  fs.chmodSync(dir, 0o777);
  const target = path.join(root, 'victim');
  fs.writeFileSync(target, 'keep');
  fs.symlinkSync(target, path.join(dir, 'view-1.json'));
  const file = writeRuntimeFile('view-1', { service: 'view', url: 'u', pid: 1 }, { XDG_RUNTIME_DIR: root });
  expect(mode(dir)).toBe(0o700);
  expect(fs.lstatSync(file.path).isSymbolicLink()).toBe(false);
  expect(fs.readFileSync(target, 'utf8')).toBe('keep');
});

it('refuses a runtime dir that is a symlink, and a name with a path in it', () => {
  const root = temp();
  const elsewhere = temp();
  fs.symlinkSync(elsewhere, path.join(root, 'amplifier'));
  expect(() =>
    writeRuntimeFile('view-1', { service: 'view', url: 'u', pid: 1 }, { XDG_RUNTIME_DIR: root }),
  ).toThrow(/symbolic link/);
  expect(() =>
    writeRuntimeFile('../x', { service: 'view', url: 'u', pid: 1 }, { XDG_RUNTIME_DIR: temp() }),
  ).toThrow(/runtime file name/);
});
