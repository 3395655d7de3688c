/**
 * Atomic writes under real failures, in child processes that run this
 * package from source: a SIGKILL in the middle of a write, and a file-size
 * limit (EFBIG) hit while writing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTree, type Tree } from './__fixtures__/helpers.js';

const fixtures = fileURLToPath(new URL('./__fixtures__/', import.meta.url));
const nodeArgs = ['--conditions=@amplifier/source', '--import', path.join(fixtures, 'register-ts.mjs')];
const child = path.join(fixtures, 'write-child.mjs');

let tree: Tree;
beforeEach(() => {
  tree = makeTree();
});
afterEach(() => tree.cleanup());

function collect(proc: ChildProcess): { stdout: () => string; exit: Promise<number | null> } {
  let out = '';
  proc.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  proc.stderr?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  return { stdout: () => out, exit: new Promise((resolve) => proc.on('exit', (code) => resolve(code))) };
}

describe('atomic writes', () => {
  it('a process killed in the middle of a write leaves the old content in place', async () => {
    const target = path.join(tree.ws, 'config.json');
    fs.writeFileSync(target, '{"old": true}\n');
    const proc = spawn(process.execPath, [...nodeArgs, child, tree.ws, 'config.json', '1000000', 'crash'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const { stdout, exit } = collect(proc);
    await new Promise<void>((resolve, reject) => {
      proc.stdout?.on('data', () => {
        if (stdout().includes('SYNCING')) resolve();
      });
      proc.on('exit', () => reject(new Error(`child exited before the write: ${stdout()}`)));
    });
    // The new bytes are written to the temp file and fsync is in progress: kill now.
    proc.kill('SIGKILL');
    await exit;
    expect(fs.readFileSync(target, 'utf8')).toBe('{"old": true}\n');
    const leftovers = fs.readdirSync(tree.ws).filter((name) => name !== 'config.json');
    expect(leftovers).toHaveLength(1);
    expect(leftovers[0]).toMatch(/^\.config\.json\.[0-9a-f]{12}\.tmp$/);
    expect(fs.statSync(path.join(tree.ws, leftovers[0]!)).size).toBe(1_000_000);
  });

  it('FS-25 a write that hits the file-size limit (EFBIG) is reported, the original stays, the temp file is removed', async () => {
    const target = path.join(tree.ws, 'data.txt');
    fs.writeFileSync(target, 'original\n');
    const proc = spawn(
      'prlimit',
      ['--fsize=65536', process.execPath, ...nodeArgs, child, tree.ws, 'data.txt', '2000000'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const { stdout, exit } = collect(proc);
    expect(await exit).toBe(0);
    const result = JSON.parse(stdout().trim().split('\n').at(-1)!) as {
      success: boolean;
      error: { message: string; type: string; code: string };
    };
    expect(result.success).toBe(false);
    expect(result.error.message).toMatch(/^OS error writing file: EFBIG/);
    expect(result.error).toMatchObject({ type: 'OSError', code: 'EFBIG' });
    expect(fs.readFileSync(target, 'utf8')).toBe('original\n');
    expect(fs.readdirSync(tree.ws)).toEqual(['data.txt']);
  });
});
