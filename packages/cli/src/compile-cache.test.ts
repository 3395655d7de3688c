import fs from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv, removeTempDirs, runCli, tempDir, writeMockPlan } from './__fixtures__/cli.js';
import { compileCacheDir, enableCompileCache } from './compile-cache.js';

afterAll(removeTempDirs);

const STATUS = { FAILED: 0, ENABLED: 1, ALREADY_ENABLED: 2, DISABLED: 3 };
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const nodeHasCache = major > 22 || (major === 22 && minor >= 1);

describe('compileCacheDir', () => {
  it("is under the user's cache dir: XDG_CACHE_HOME when absolute, else ~/.cache; NODE_COMPILE_CACHE is left to Node", () => {
    expect(compileCacheDir({ HOME: '/home/a', XDG_CACHE_HOME: '/var/cache/a' })).toBe(
      '/var/cache/a/amplifier-ts/compile-cache',
    );
    expect(compileCacheDir({ HOME: '/home/a' })).toBe('/home/a/.cache/amplifier-ts/compile-cache');
    expect(compileCacheDir({ HOME: '/home/a', XDG_CACHE_HOME: 'relative' })).toBe(
      '/home/a/.cache/amplifier-ts/compile-cache',
    );
    expect(compileCacheDir({ HOME: '/home/a', NODE_COMPILE_CACHE: '/elsewhere' })).toBeUndefined();
  });
});

describe('enableCompileCache', () => {
  it('asks this Node for the cache in that directory and answers the directory in use (22.1+)', () => {
    const calls: unknown[][] = [];
    const api = {
      enableCompileCache: (...args: [string?]) => {
        calls.push(args);
        return { status: STATUS.ENABLED, directory: args[0] };
      },
      constants: { compileCacheStatus: STATUS },
    };
    expect(enableCompileCache(api, { HOME: '/home/a' })).toBe('/home/a/.cache/amplifier-ts/compile-cache');
    expect(calls).toEqual([['/home/a/.cache/amplifier-ts/compile-cache']]);
  });

  it('is off, without throwing, on a Node without it (Node 20), a directory it cannot create, or when disabled', () => {
    expect(enableCompileCache({}, {})).toBeUndefined();
    const answering = (status: number) => ({
      enableCompileCache: () => ({ status, message: 'Cannot create cache directory: not a directory' }),
      constants: { compileCacheStatus: STATUS },
    });
    expect(enableCompileCache(answering(STATUS.FAILED), { HOME: '/home/a' })).toBeUndefined();
    expect(enableCompileCache(answering(STATUS.DISABLED), { HOME: '/home/a' })).toBeUndefined();
    const throwing = {
      enableCompileCache: () => {
        throw new Error('no cache dir');
      },
    };
    expect(enableCompileCache(throwing, {})).toBeUndefined();
  });

  it('matches what the running Node offers', () => {
    const api = module as { enableCompileCache?: unknown };
    expect(typeof api.enableCompileCache === 'function').toBe(nodeHasCache);
  });
});

describe('amplifier run keeps compiled code in the cache dir', () => {
  it.skipIf(!nodeHasCache)('fills <XDG_CACHE_HOME>/amplifier-ts/compile-cache (Node 22.1+)', async () => {
    const cwd = tempDir();
    const cache = tempDir();
    const env = cliEnv(tempDir(), { XDG_CACHE_HOME: cache, NODE_COMPILE_CACHE: undefined });
    const run = await runCli(['run', '--plan', writeMockPlan(cwd, ['hi']), 'hello'], { cwd, env });
    expect(run.code, run.stderr).toBe(0);
    const dir = path.join(cache, 'amplifier-ts', 'compile-cache');
    const files = fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(files.length).toBeGreaterThan(0);
  });

  it('runs as before, with no warning, when the cache dir cannot be created', async () => {
    const cwd = tempDir();
    // A regular file where the cache folder would go: not creatable, even as root (CI).
    const notADir = path.join(tempDir(), 'cache-is-a-file');
    fs.writeFileSync(notADir, '');
    const env = cliEnv(tempDir(), { XDG_CACHE_HOME: notADir, NODE_COMPILE_CACHE: undefined });
    const run = await runCli(['run', '--plan', writeMockPlan(cwd, ['hi']), 'hello'], { cwd, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('hi');
    expect(run.stderr).not.toMatch(/cache/i);
    expect(fs.statSync(notADir).isFile()).toBe(true);
  });
});
