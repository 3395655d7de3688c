/**
 * The sub-session budget of one top-level turn (issue 37): a prompt whose
 * agents would each fan out to 16 more, 3 deep (4,368 sessions under the old
 * depth x fan-out limits), stops at the budget, through the real `amplifier`
 * process, the real delegate tool and real child sessions.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliEnv, removeTempDirs, runCli, sessionDirs, tempDir, writeFile } from './__fixtures__/cli.js';

afterEach(removeTempDirs);

/** A script that delegates to `fan` 16 times at once, then answers `answer`. */
function fanScript(answer: string): unknown[] {
  return [
    {
      tool_calls: Array.from({ length: 16 }, (_, i) => ({
        id: `d${i}`,
        name: 'delegate',
        arguments: { agent: 'fan', instruction: `part ${i}`, context_depth: 'none' },
      })),
    },
    answer,
  ];
}

/** A plan whose root and whose agent `fan` (which has tool-delegate too) both fan out 16 wide. */
function fanPlan(cwd: string, delegateConfig: Record<string, unknown> = {}): string {
  const delegate = { module: 'tool-delegate', config: delegateConfig };
  return writeFile(
    path.join(cwd, 'plan.json'),
    JSON.stringify({
      session: { orchestrator: 'loop-basic', context: 'context-simple' },
      providers: [{ module: 'provider-mock', config: { script: fanScript('root done') } }],
      tools: [delegate],
      hooks: [{ module: 'hooks-logging' }],
      agents: {
        fan: {
          description: 'Splits its part in 16 and delegates each.',
          instruction: 'You are fan.',
          providers: [{ module: 'provider-mock', config: { script: fanScript('fan done') } }],
          tools: [delegate],
        },
      },
    }),
  );
}

function children(home: string): string[] {
  return sessionDirs(home).filter((dir) => {
    const meta = JSON.parse(fs.readFileSync(path.join(dir, 'metadata.json'), 'utf8')) as {
      parent_id: unknown;
    };
    return meta.parent_id !== null;
  });
}

function transcripts(home: string): string {
  return sessionDirs(home)
    .map((dir) => path.join(dir, 'transcript.jsonl'))
    .filter((file) => fs.existsSync(file))
    .map((file) => fs.readFileSync(file, 'utf8'))
    .join('\n');
}

describe('the sub-session budget of a turn', () => {
  it('a prompt that would fan out 16 x 3 deep starts 32 sub-sessions, then the model reads why not more', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const exit = await runCli(['run', '--plan', fanPlan(cwd), 'split the work'], { cwd, env: cliEnv(home) });
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stdout.trim()).toBe('root done');
    expect(children(home)).toHaveLength(32);
    const seen = transcripts(home);
    expect(seen).toContain('The sub-session budget of 32 for this turn is used up');
    expect(seen).toContain('SUB_SESSION_BUDGET_EXCEEDED');
  });

  it("tool-delegate's limits.max_sub_sessions lowers it for the whole tree", async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = fanPlan(cwd, { limits: { max_sub_sessions: 5 } });
    const exit = await runCli(['run', '--plan', plan, 'split the work'], { cwd, env: cliEnv(home) });
    expect(exit.code, exit.stderr).toBe(0);
    expect(children(home)).toHaveLength(5);
    expect(transcripts(home)).toContain('The sub-session budget of 5 for this turn is used up');
  });

  it('refuses a misspelt limit rather than run without it', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = fanPlan(cwd, { limits: { max_sub_session: 5 } });
    const exit = await runCli(['run', '--plan', plan, 'split the work'], { cwd, env: cliEnv(home) });
    expect(exit.code).not.toBe(0);
    expect(exit.stderr).toMatch(/max_sub_session/);
    expect(children(home)).toHaveLength(0);
  });
});
