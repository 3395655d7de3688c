/**
 * A policy hook that fails must stop the session, through the core API and
 * through the CLI: hooks-approval declares `"required": true`, so a bad rule
 * (an invalid regex) never leaves a session running tools with no policy.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AmplifierSession, type MountPlan } from '@amplifier/core';
import { afterEach, describe, expect, it } from 'vitest';
import { cliEnv, removeTempDirs, runCli, tempDir, writeFile } from './__fixtures__/cli.js';

const CLI_DIR = fileURLToPath(new URL('../', import.meta.url));

afterEach(removeTempDirs);

function planTouching(marker: string): MountPlan {
  return {
    session: { orchestrator: 'loop-basic', context: 'context-simple' },
    providers: [
      {
        module: 'provider-mock',
        config: {
          script: [
            { tool_calls: [{ id: 'c1', name: 'bash', arguments: { command: `touch ${marker}` } }] },
            'done',
          ],
        },
      },
    ],
    tools: [{ module: 'tool-bash' }],
    hooks: [
      {
        module: 'hooks-approval',
        config: {
          rules: [{ tool: 'bash', when: { command: '/[unclosed/' }, action: 'deny' }],
          default_action: 'allow',
        },
      },
    ],
  };
}

describe('hooks-approval is required: a broken policy stops the session', () => {
  it('core API: initialize fails naming the module and the bad rule; no tool runs', async () => {
    const cwd = tempDir();
    const marker = path.join(cwd, 'ran');
    const session = new AmplifierSession(planTouching(marker), {
      baseDir: CLI_DIR,
      workingDir: cwd,
      logger: { debug() {}, info() {}, warn() {}, error() {} },
    });
    try {
      await expect(session.execute('go')).rejects.toThrow(
        /hook 'hooks-approval' is required \(its package declares "required": true\).*rules\[0\]\.when\.command/s,
      );
    } finally {
      await session.cleanup();
    }
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('CLI: exit 1 with the reason, no tool runs', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const marker = path.join(cwd, 'ran');
    const plan = writeFile(path.join(cwd, 'plan.json'), JSON.stringify(planTouching(marker)));
    const result = await runCli(['run', '--plan', plan, 'go'], { cwd, env: cliEnv(home) });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/hooks-approval/);
    expect(result.stderr).toMatch(/rules\[0\]\.when\.command/);
    expect(fs.existsSync(marker)).toBe(false);
  });
});
