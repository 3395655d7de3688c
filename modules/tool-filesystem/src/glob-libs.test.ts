import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadGlob, loadPicomatch } from './glob-libs.js';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('glob libraries imported on first use', () => {
  it('picomatch is imported once and matches', async () => {
    const picomatch = await loadPicomatch();
    expect(await loadPicomatch()).toBe(picomatch);
    expect(picomatch('*.ts', { dot: true })('a.ts')).toBe(true);
    expect(picomatch.makeRe('*.ts', { dot: true }).test('a.js')).toBe(false);
  });

  it('tinyglobby is imported once and walks a real directory', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-glob-libs-'));
    fs.writeFileSync(path.join(dir, 'a.ts'), '');
    fs.writeFileSync(path.join(dir, 'b.js'), '');
    const glob = await loadGlob();
    expect(await loadGlob()).toBe(glob);
    expect(await glob('*.ts', { cwd: dir })).toEqual(['a.ts']);
  });
});
