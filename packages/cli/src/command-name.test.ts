import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { cliEnv, removeTempDirs, sessionDirs, tempDir, writeMockPlan } from './__fixtures__/cli.js';
import { commandName } from './command-name.js';

afterEach(removeTempDirs);

const LAUNCHER = fileURLToPath(new URL('../../../scripts/amplifier.mjs', import.meta.url));

describe('commandName: the command the hints suggest', () => {
  it('an installed package is `amplifier`; a checkout is `node <bin>`; a launcher says its own', () => {
    const installed = path.join('/', 'app', 'node_modules', '@amplifier', 'cli', 'dist', 'bin.js');
    expect(commandName({}, installed, '/app')).toBe('amplifier');
    const checkout = path.join('/', 'src', 'amp', 'packages', 'cli', 'dist', 'bin.js');
    expect(commandName({}, checkout, '/src/amp')).toBe('node packages/cli/dist/bin.js');
    expect(commandName({}, checkout, '/elsewhere')).toBe(`node ${checkout}`);
    expect(commandName({ AMPLIFIER_COMMAND: 'pnpm amplifier' }, installed, '/app')).toBe('pnpm amplifier');
  });

  it("the clone's `pnpm amplifier` script runs in the directory pnpm started from and says `pnpm amplifier continue`", async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, ['done']);
    const env = cliEnv(home, { INIT_CWD: cwd, AMPLIFIER_COMMAND: undefined });
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
