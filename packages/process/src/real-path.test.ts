import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expandHome, realPath, realPathSync } from './real-path.js';

let wd: string;
let outside: string;

beforeAll(() => {
  wd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'amp-real-path-')));
  outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'amp-real-path-out-')));
  fs.mkdirSync(path.join(wd, 'dir/sub'), { recursive: true });
  fs.writeFileSync(path.join(wd, 'dir/file.txt'), 'x');
  fs.symlinkSync(outside, path.join(wd, 'out')); // a link to a directory elsewhere
  fs.symlinkSync(path.join(outside, 'new.txt'), path.join(wd, 'dangling')); // to a file not there yet
  fs.symlinkSync('dir/sub', path.join(wd, 'rel')); // relative target
  fs.symlinkSync('loop-b', path.join(wd, 'loop-a'));
  fs.symlinkSync('loop-a', path.join(wd, 'loop-b'));
});
afterAll(() => {
  fs.rmSync(wd, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
});

/** Both resolvers, which must agree on every path. */
const resolvers: [string, (abs: string) => Promise<string>][] = [
  ['realPath', realPath],
  ['realPathSync', async (abs) => realPathSync(abs)],
];

describe.each(resolvers)('%s: where a path lands, also when it does not exist yet', (_, resolve) => {
  it('resolves an existing path like the OS', async () => {
    expect(await resolve(path.join(wd, 'dir/file.txt'))).toBe(path.join(wd, 'dir/file.txt'));
    expect(await resolve(path.join(wd, 'out'))).toBe(outside);
  });

  it('follows links in the existing part and appends the missing rest', async () => {
    expect(await resolve(path.join(wd, 'out/new/deep.txt'))).toBe(path.join(outside, 'new/deep.txt'));
    expect(await resolve(path.join(wd, 'rel/missing.txt'))).toBe(path.join(wd, 'dir/sub/missing.txt'));
  });

  it('follows a dangling link to where a write would create the file', async () => {
    expect(await resolve(path.join(wd, 'dangling'))).toBe(path.join(outside, 'new.txt'));
  });

  it('takes `..` physically: after a link, it climbs from the link target, also in the missing part', async () => {
    expect(await resolve(`${wd}/out/../x`)).toBe(path.join(path.dirname(outside), 'x'));
    expect(await resolve(`${wd}/missing/../dir/file.txt`)).toBe(path.join(wd, 'dir/file.txt'));
    expect(await resolve(`${wd}/missing/../out/y`)).toBe(path.join(outside, 'y'));
  });

  it('throws the OS error for a symlink loop and for a file used as a directory', async () => {
    await expect(resolve(path.join(wd, 'loop-a/x'))).rejects.toMatchObject({ code: 'ELOOP' });
    await expect(resolve(path.join(wd, 'dir/file.txt/child'))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });
});

describe('expandHome', () => {
  it('expands `~` and `~/x` only', () => {
    expect(expandHome('~')).toBe(os.homedir());
    expect(expandHome('~/a/b')).toBe(path.join(os.homedir(), 'a/b'));
    expect(expandHome('~user/a')).toBe('~user/a');
    expect(expandHome('a/~/b')).toBe('a/~/b');
  });
});
