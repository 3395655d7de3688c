/**
 * bin/amplifier-view.js, the `amplifier-view` command inside the repository: a committed
 * file (pnpm links workspace bins at install, before the build) that runs
 * dist/bin.js, or says to build first. The published package's bin is
 * dist/bin.js itself (publishConfig.bin).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const SHIM = path.join(PACKAGE_DIR, 'bin', 'amplifier-view.js');

describe('bin/amplifier-view.js', () => {
  it('is the workspace bin; the published bin is dist/bin.js', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(PACKAGE_DIR, 'package.json'), 'utf8'));
    expect(pkg.bin).toEqual({ 'amplifier-view': './bin/amplifier-view.js' });
    expect(pkg.publishConfig.bin).toEqual({ 'amplifier-view': './dist/bin.js' });
  });

  it('runs the built viewer with its arguments', () => {
    const result = spawnSync(process.execPath, [SHIM, '--help'], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Usage: amplifier-view /);
  });

  it('before a build: says the viewer is not built and how to build it (no stack trace)', () => {
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'amp-view-shim-'));
    temps.push(copy);
    fs.mkdirSync(path.join(copy, 'bin'));
    fs.copyFileSync(SHIM, path.join(copy, 'bin', 'amplifier-view.js'));
    fs.writeFileSync(path.join(copy, 'package.json'), '{"type":"module"}');
    const result = spawnSync(process.execPath, [path.join(copy, 'bin', 'amplifier-view.js'), '--help'], {
      encoding: 'utf8',
    });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      `the viewer is not built yet (${path.join(copy, 'dist', 'bin.js')} is missing)`,
    );
    expect(result.stderr).toContain('pnpm build');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
