import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { cliEnv, removeTempDirs, sessionDirs, tempDir, writeMockPlan } from './__fixtures__/cli.js';
import { commandName } from './command-name.js';

afterEach(removeTempDirs);

const LAUNCHER = fileURLToPath(new URL('../../../scripts/amplifier.mjs', import.meta.url));

describe('commandName: the command the hints suggest', () => {
  it('a global install is `amplifier`, a project dependency `npx amplifier`; a checkout is `node <bin>`; a launcher says its own', () => {
    const prefix = tempDir();
    const installed = path.join(prefix, 'lib', 'node_modules', '@amplifier', 'cli', 'dist', 'bin.js');
    fs.mkdirSync(path.dirname(installed), { recursive: true });
    fs.writeFileSync(installed, '');
    const binDir = path.join(prefix, 'bin');
    fs.mkdirSync(binDir);
    // Not on PATH (a project's node_modules/.bin): npx finds it.
    expect(commandName({ PATH: '/usr/bin' }, installed, prefix)).toBe('npx amplifier');
    // npm's global link on PATH: the name works.
    fs.symlinkSync(installed, path.join(binDir, 'amplifier'));
    expect(commandName({ PATH: ['/usr/bin', binDir].join(path.delimiter) }, installed, prefix)).toBe(
      'amplifier',
    );
    // Another program of that name on PATH is not this CLI.
    const other = tempDir();
    fs.writeFileSync(path.join(other, 'amplifier'), '');
    expect(commandName({ PATH: other }, installed, prefix)).toBe('npx amplifier');
    const checkout = path.join('/', 'src', 'amp', 'packages', 'cli', 'dist', 'bin.js');
    expect(commandName({}, checkout, '/src/amp')).toBe('node packages/cli/dist/bin.js');
    expect(commandName({}, checkout, '/elsewhere')).toBe(`node ${checkout}`);
    expect(commandName({ AMPLIFIER_COMMAND: 'pnpm amplifier' }, installed, '/app')).toBe('pnpm amplifier');
  });

  it("the clone's script without pnpm on the user's PATH suggests `npx -y pnpm@<pinned> amplifier` (node_modules/.bin does not count)", async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, ['done']);
    // What pnpm run through npx puts on PATH for a script: node_modules/.bin (with pnpm in it) and node's folder.
    const repoBin = path.join(path.dirname(path.dirname(LAUNCHER)), 'node_modules', '.bin');
    const PATH = [repoBin, path.dirname(process.execPath)].join(path.delimiter);
    const env = cliEnv(home, { INIT_CWD: cwd, AMPLIFIER_COMMAND: undefined, PATH });
    const { stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
      execFile(
        process.execPath,
        [LAUNCHER, 'run', '--plan', plan, 'hi'],
        { cwd: path.dirname(LAUNCHER), env },
        (error, out, err) =>
          error ? reject(new Error(`${error.message}\n${err}`)) : resolve({ stdout: out, stderr: err }),
      );
    });
    const pinned = JSON.parse(
      fs.readFileSync(path.join(path.dirname(LAUNCHER), '..', 'package.json'), 'utf8'),
    ).packageManager as string;
    expect(pinned).toMatch(/^pnpm@\d/);
    expect(stderr).toContain(`continue it with: npx -y ${pinned} amplifier continue`);
  });

  it("the clone's `pnpm amplifier` script runs in the directory pnpm started from and says `pnpm amplifier continue`", async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, ['done']);
    // A pnpm of the user's own on PATH.
    const userBin = tempDir();
    fs.writeFileSync(path.join(userBin, 'pnpm'), '#!/bin/sh\n', { mode: 0o755 });
    const PATH = [userBin, path.dirname(process.execPath)].join(path.delimiter);
    const env = cliEnv(home, { INIT_CWD: cwd, AMPLIFIER_COMMAND: undefined, PATH });
    const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
      execFile(
        process.execPath,
        [LAUNCHER, 'run', '--plan', plan, 'hi'],
        { cwd: path.dirname(LAUNCHER), env },
        (error, out, err) =>
          error ? reject(new Error(`${error.message}\n${err}`)) : resolve({ stdout: out, stderr: err }),
      );
    });
    expect(stdout).toBe('done\n');
    expect(stderr).toContain('continue it with: pnpm amplifier continue');
    const [dir] = sessionDirs(home);
    expect(dir).toContain(cwd.replace(/\//g, '-'));
  });
});
