/**
 * bin/amplifier.js, the `amplifier` command inside the repository: a committed
 * file (pnpm links workspace bins at install, before the build) that runs
 * dist/bin.js, or says to build first. The published package's bin is
 * dist/bin.js itself (publishConfig.bin).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from './__fixtures__/cli.js';

afterEach(removeTempDirs);

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const SHIM = path.join(PACKAGE_DIR, 'bin', 'amplifier.js');

describe('bin/amplifier.js', () => {
  it('is the workspace bin; the published bin is dist/bin.js', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(PACKAGE_DIR, 'package.json'), 'utf8'));
    expect(pkg.bin).toEqual({ amplifier: './bin/amplifier.js' });
    expect(pkg.publishConfig.bin).toEqual({ amplifier: './dist/bin.js' });
  });

  it('runs the built CLI with its arguments', () => {
    const result = spawnSync(process.execPath, [SHIM, '--version'], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    const { version } = JSON.parse(fs.readFileSync(path.join(PACKAGE_DIR, 'package.json'), 'utf8'));
    expect(result.stdout.trim()).toBe(version);
  });

  it('before a build: says the CLI is not built and how to build it (no stack trace)', () => {
    const copy = tempDir();
    fs.mkdirSync(path.join(copy, 'bin'));
    fs.copyFileSync(SHIM, path.join(copy, 'bin', 'amplifier.js'));
    fs.writeFileSync(path.join(copy, 'package.json'), '{"type":"module"}');
    const result = spawnSync(process.execPath, [path.join(copy, 'bin', 'amplifier.js'), '--version'], {
      encoding: 'utf8',
    });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      `the CLI is not built yet (${path.join(copy, 'dist', 'bin.js')} is missing)`,
    );
    expect(result.stderr).toContain('pnpm build');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
