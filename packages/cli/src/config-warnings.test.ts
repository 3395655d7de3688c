/**
 * The config policy end to end: a plan with an unknown section, an unknown
 * module-entry key and unknown module config keys runs, and the validator's and
 * the modules' warnings reach stderr once each; a refused (safety) key stops
 * the run with the module's reason.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliEnv, removeTempDirs, runCli, tempDir, writeFile } from './__fixtures__/cli.js';

afterEach(removeTempDirs);

function plan(dir: string, tools: unknown[]): string {
  return writeFile(
    path.join(dir, 'plan.json'),
    JSON.stringify({
      session: { orchestrator: 'loop-basic', context: 'context-simple' },
      extras: { anything: true },
      providers: [{ module: 'provider-mock', config: { script: ['Done.'], colour: 'red' } }],
      tools,
      hooks: [{ module: 'hooks-logging', config: { mode: 'session-only', output_dir: 'logs' } }],
    }),
  );
}

function count(text: string, fragment: string): number {
  return text.split(fragment).length - 1;
}

describe('config warnings in the CLI', () => {
  it('a plan with unknown keys runs and prints each warning once on stderr', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const file = plan(cwd, [
      { module: 'tool-filesystem', config: { colour: 'blue', allowed_paths: ['.'] }, note: 'x' },
      { module: 'tool-bash', config: { colour: 'green' } },
    ]);
    const result = await runCli(['run', '--plan', file, 'go'], { cwd, env: cliEnv(home) });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('Done.\n');
    const { stderr } = result;
    expect(count(stderr, 'extras is not a known section (ignored)')).toBe(1);
    expect(count(stderr, 'tools[0].note is not a known key (ignored)')).toBe(1);
    expect(count(stderr, "tool-filesystem: unknown config key 'colour' is ignored")).toBe(1);
    expect(count(stderr, "tool-bash: unknown config key 'colour' is ignored")).toBe(1);
    expect(count(stderr, "provider-mock: unknown config key 'colour' is ignored")).toBe(1);
    expect(stderr).not.toContain("'allowed_paths'");
    expect(stderr).not.toContain("'mode'");
  });

  it('a refused safety key stops the run with the reason', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const file = plan(cwd, [{ module: 'tool-filesystem', config: { denied_path: ['/etc'] } }]);
    const result = await runCli(['run', '--plan', file, 'go'], { cwd, env: cliEnv(home) });
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain("'denied_path' is refused: it looks like a misspelt 'denied_paths'");
  });
});
