/**
 * Agents end to end, through the real `amplifier` process, the real delegate
 * tool and real child sessions: a scripted parent delegating to two agents
 * at once (one delegates again), the agent tree on disk and in `session
 * list|show`, resume of a child by id, the depth limit, Ctrl+C with a bash
 * process running in a child, a child whose provider fails, and the
 * reference's own agent files running unchanged.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CliProcess,
  cliEnv,
  pgrep,
  removeTempDirs,
  runCli,
  sessionDirs,
  tempDir,
  until,
  writeFile,
} from './__fixtures__/cli.js';

const REALWORLD_AGENTS = fileURLToPath(
  new URL('../../bundles/src/__fixtures__/realworld/agents', import.meta.url),
);

const leftovers: string[] = [];
afterEach(() => {
  for (const marker of leftovers.splice(0)) for (const pid of pgrep(marker)) process.kill(pid, 'SIGKILL');
  removeTempDirs();
});

/** An agent file in the project's agent folder, driving its own provider-mock script. */
function agentFile(cwd: string, name: string, script: unknown[], extra = ''): void {
  writeFile(
    path.join(cwd, '.amplifier', 'agents', `${name}.md`),
    [
      '---',
      'meta:',
      `  name: ${name}`,
      `  description: The ${name} test agent.`,
      extra,
      'providers:',
      '  - module: provider-mock',
      '    config:',
      `      script: ${JSON.stringify(script)}`,
      '---',
      `You are ${name}.`,
      '',
    ].join('\n'),
  );
}

function delegateCall(id: string, args: Record<string, unknown>): Record<string, unknown> {
  return { id, name: 'delegate', arguments: args };
}

function writePlan(cwd: string, script: unknown[], delegateConfig: Record<string, unknown> = {}): string {
  return writeFile(
    path.join(cwd, 'plan.json'),
    JSON.stringify({
      session: { orchestrator: 'loop-basic', context: 'context-simple' },
      providers: [{ module: 'provider-mock', config: { script } }],
      tools: [{ module: 'tool-bash' }, { module: 'tool-delegate', config: delegateConfig }],
      hooks: [{ module: 'hooks-logging' }],
    }),
  );
}

interface Stored {
  dir: string;
  meta: Record<string, unknown>;
}

function stored(home: string): Stored[] {
  return sessionDirs(home).map((dir) => ({
    dir,
    meta: JSON.parse(fs.readFileSync(path.join(dir, 'metadata.json'), 'utf8')) as Record<string, unknown>,
  }));
}

function byAgent(home: string, agent: string): Stored {
  const found = stored(home).find((s) => s.meta.agent_name === agent);
  if (found === undefined) throw new Error(`no stored session of agent ${agent}`);
  return found;
}

const ID = /^[0-9a-f]{16}-[0-9a-f]{16}_[a-z0-9-]+$/;

describe('delegation through the CLI', () => {
  it('two agents at once, one delegating again: answers, indented tool lines, the tree on disk and in session list|show', async () => {
    const home = tempDir();
    const cwd = tempDir();
    agentFile(
      cwd,
      'alpha',
      [{ tool_calls: [delegateCall('a1', { agent: 'gamma', instruction: 'gamma, go' })] }, 'alpha done'],
      'tools:\n  - module: tool-delegate',
    );
    agentFile(cwd, 'beta', [
      { tool_calls: [{ id: 'b1', name: 'bash', arguments: { command: 'echo beta-tool' } }] },
      'beta done',
    ]);
    agentFile(cwd, 'gamma', ['gamma done']);
    const plan = writePlan(cwd, [
      {
        tool_calls: [
          delegateCall('p1', { agent: 'alpha', instruction: 'alpha, go' }),
          delegateCall('p2', { agent: 'beta', instruction: 'beta, go' }),
        ],
      },
      'all done',
    ]);
    const exit = await runCli(['run', '--plan', plan, 'go'], { cwd, env: cliEnv(home) });
    expect(exit.stderr).not.toMatch(/Error/);
    expect(exit.code).toBe(0);
    expect(exit.stdout.trim()).toBe('all done');
    // The child's tool lines sit under the delegate calls, one level per depth.
    expect(exit.stderr).toMatch(/^ {4}→ bash echo beta-tool/m);
    expect(exit.stderr).toMatch(/^ {4}→ delegate gamma/m);
    expect(exit.stderr).toMatch(/^ {2}✓ delegate alpha/m);

    const sessions = stored(home);
    expect(sessions).toHaveLength(4);
    const root = sessions.find((s) => s.meta.parent_id === null);
    const alpha = byAgent(home, 'alpha');
    const beta = byAgent(home, 'beta');
    const gamma = byAgent(home, 'gamma');
    expect(alpha.meta.parent_id).toBe(root?.meta.session_id);
    expect(beta.meta.parent_id).toBe(root?.meta.session_id);
    expect(gamma.meta.parent_id).toBe(alpha.meta.session_id);
    for (const child of [alpha, beta, gamma]) {
      expect(String(child.meta.session_id)).toMatch(ID);
      expect(child.meta).toMatchObject({ status: 'completed', turn_count: 1, working_dir: cwd });
      expect(child.meta.config).toBeTypeOf('object');
      // hooks-logging, inherited, writes each child's own log with the fork event naming the agent.
      const events = fs.readFileSync(path.join(child.dir, 'events.jsonl'), 'utf8');
      const fork = events
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { event: string; data: Record<string, unknown> })
        .find((r) => r.event === 'session:fork');
      expect(fork?.data).toMatchObject({ metadata: { agent_name: child.meta.agent_name } });
      const transcript = fs.readFileSync(path.join(child.dir, 'transcript.jsonl'), 'utf8');
      expect(transcript).not.toContain('"role":"system"');
    }
    expect(alpha.meta.delegation_depth).toBe(1);
    expect(gamma.meta.delegation_depth).toBe(2);
    expect(fs.readFileSync(path.join(beta.dir, 'transcript.jsonl'), 'utf8')).toContain('beta-tool');

    const list = await runCli(['session', 'list', '--json'], { cwd, env: cliEnv(home) });
    const listed = JSON.parse(list.stdout) as { session_id: string; children: number }[];
    expect(listed).toEqual([expect.objectContaining({ session_id: root?.meta.session_id, children: 3 })]);
    const show = await runCli(['session', 'show', String(root?.meta.session_id)], { cwd, env: cliEnv(home) });
    expect(show.stdout).toMatch(/agents\s+3 agent sessions/);
    expect(show.stdout).toMatch(new RegExp(`^ {2}└ alpha  ${alpha.meta.session_id}`, 'm'));
    expect(show.stdout).toMatch(new RegExp(`^ {4}└ gamma  ${gamma.meta.session_id}`, 'm'));
    const showChild = await runCli(['session', 'show', String(gamma.meta.session_id)], {
      cwd,
      env: cliEnv(home),
    });
    expect(showChild.stdout).toMatch(/^agent\s+gamma$/m);
    expect(showChild.stdout).toMatch(new RegExp(`^parent\\s+${alpha.meta.session_id}$`, 'm'));
    const del = await runCli(['session', 'delete', String(root?.meta.session_id)], {
      cwd,
      env: cliEnv(home),
    });
    expect(del.stderr).toContain('and its 3 agent sessions');
    expect(sessionDirs(home)).toEqual([]);
  });

  it("--json: a child's events come with its depth and agent", async () => {
    const home = tempDir();
    const cwd = tempDir();
    agentFile(cwd, 'beta', [
      { tool_calls: [{ id: 'b1', name: 'bash', arguments: { command: 'echo hi' } }] },
      'beta done',
    ]);
    const plan = writePlan(cwd, [
      { tool_calls: [delegateCall('p1', { agent: 'beta', instruction: 'go' })] },
      'done',
    ]);
    const exit = await runCli(['run', '--plan', plan, '--json', 'go'], { cwd, env: cliEnv(home) });
    expect(exit.code).toBe(0);
    const lines = exit.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const childEvents = lines.filter((l) => l.agent === 'beta');
    expect(childEvents.map((l) => l.event)).toEqual(
      expect.arrayContaining(['session:fork', 'tool:pre', 'tool:post', 'session:end']),
    );
    expect(childEvents.every((l) => l.depth === 1)).toBe(true);
  });

  it('resumes a child by its id in a later run: same folder, history kept, two turns', async () => {
    const home = tempDir();
    const cwd = tempDir();
    agentFile(
      cwd,
      'beta',
      ['beta first', 'beta second'].map((text) => ({ text })),
      '',
    );
    const plan = writePlan(cwd, [
      { tool_calls: [delegateCall('p1', { agent: 'beta', instruction: 'first task' })] },
      'first done',
    ]);
    expect((await runCli(['run', '--plan', plan, 'one'], { cwd, env: cliEnv(home) })).code).toBe(0);
    const child = byAgent(home, 'beta');
    // The next turn's model continues that child by id (the script is written now that the id is known).
    writePlan(cwd, [
      { tool_calls: [delegateCall('p2', { session_id: child.meta.session_id, instruction: 'second task' })] },
      'second done',
    ]);
    const again = await runCli(['continue', 'two'], { cwd, env: cliEnv(home) });
    expect(again.code).toBe(0);
    expect(again.stdout.trim()).toBe('second done');
    const resumed = byAgent(home, 'beta');
    expect(resumed.dir).toBe(child.dir);
    expect(resumed.meta.turn_count).toBe(2);
    const transcript = fs.readFileSync(path.join(child.dir, 'transcript.jsonl'), 'utf8');
    expect(transcript).toContain('first task');
    expect(transcript).toContain('second task');
    expect(stored(home)).toHaveLength(2);
  });

  it("stops at tool-delegate's depth limit: the nested call is refused", async () => {
    const home = tempDir();
    const cwd = tempDir();
    agentFile(
      cwd,
      'alpha',
      [{ tool_calls: [delegateCall('a1', { agent: 'gamma', instruction: 'too deep' })] }, 'alpha gave up'],
      'tools:\n  - module: tool-delegate',
    );
    agentFile(cwd, 'gamma', ['never']);
    const plan = writePlan(
      cwd,
      [{ tool_calls: [delegateCall('p1', { agent: 'alpha', instruction: 'go' })] }, 'done'],
      { limits: { max_depth: 1 } },
    );
    const exit = await runCli(['run', '--plan', plan, 'go'], { cwd, env: cliEnv(home) });
    expect(exit.code).toBe(0);
    const alpha = byAgent(home, 'alpha');
    expect(fs.readFileSync(path.join(alpha.dir, 'transcript.jsonl'), 'utf8')).toContain(
      'Delegation depth limit reached',
    );
    expect(stored(home).some((s) => s.meta.agent_name === 'gamma')).toBe(false);
  });

  it('Ctrl+C while a child runs bash: the whole tree stops, no process survives, exit 130', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const marker = `sleep 1000.${process.pid}${Math.floor(Math.random() * 1e6)}`;
    leftovers.push(marker);
    agentFile(cwd, 'sleeper', [
      { tool_calls: [{ id: 's1', name: 'bash', arguments: { command: `${marker}; echo after` } }] },
      'never reached',
    ]);
    const plan = writePlan(cwd, [
      { tool_calls: [delegateCall('p1', { agent: 'sleeper', instruction: 'sleep' })] },
      'parent never reached',
    ]);
    const cli = new CliProcess(['run', '--plan', plan, 'go'], { cwd, env: cliEnv(home) });
    await until(() => pgrep(marker).length > 0, 'the child to start its sleep');
    cli.kill('SIGINT');
    await cli.waitFor('stderr', 'Cancelling');
    cli.kill('SIGINT');
    const exit = await cli.done();
    expect(exit.code).toBe(130);
    expect(pgrep(marker)).toEqual([]);
    expect(exit.stdout).not.toContain('never reached');
    expect(byAgent(home, 'sleeper').meta.status).toBe('cancelled');
  });

  it("a child whose provider fails: the parent gets the error as the tool's result and goes on", async () => {
    const home = tempDir();
    const cwd = tempDir();
    agentFile(cwd, 'broken', [{ error: { kind: 'authentication', message: 'the key is wrong' } }]);
    const plan = writePlan(cwd, [
      { tool_calls: [delegateCall('p1', { agent: 'broken', instruction: 'try' })] },
      'handled it',
    ]);
    const exit = await runCli(['run', '--plan', plan, 'go'], { cwd, env: cliEnv(home) });
    expect(exit.code).toBe(0);
    expect(exit.stdout.trim()).toBe('handled it');
    const [root] = stored(home).filter((s) => s.meta.parent_id === null);
    expect(fs.readFileSync(path.join(root!.dir, 'transcript.jsonl'), 'utf8')).toContain('the key is wrong');
    expect(byAgent(home, 'broken').meta.status).toBe('failed');
  });

  it("the reference's agent files run unchanged from a bundle's roster; agents list|show read them", async () => {
    const home = tempDir();
    const cwd = tempDir();
    for (const name of fs.readdirSync(REALWORLD_AGENTS)) {
      fs.cpSync(path.join(REALWORLD_AGENTS, name), path.join(cwd, 'mine', 'agents', name));
    }
    // The parent's script, replayed from the start by the child's own provider-mock (the
    // agent file names no provider): its delegate call fails there (children do not inherit
    // tool-delegate), then it answers with the second step.
    writeFile(
      path.join(cwd, 'mine', 'bundle.md'),
      [
        '---',
        'bundle: { name: mine }',
        'session: { orchestrator: loop-basic, context: context-simple }',
        'providers:',
        '  - module: provider-mock',
        '    config:',
        '      script:',
        `        - ${JSON.stringify({ tool_calls: [delegateCall('p1', { agent: 'mine:explorer', instruction: 'explore' })] })}`,
        '        - finished',
        'tools: [{ module: tool-delegate }]',
        'agents:',
        '  include: [mine:explorer, mine:file-ops, mine:web-research]',
        '---',
        'The parent.',
      ].join('\n'),
    );
    const bundle = path.join(cwd, 'mine', 'bundle.md');
    const exit = await runCli(['run', '--bundle', bundle, 'go'], { cwd, env: cliEnv(home) });
    expect(exit.code).toBe(0);
    expect(exit.stdout.trim()).toBe('finished');
    const child = byAgent(home, 'mine:explorer');
    expect(child.meta.status).toBe('completed');
    // An agent's module that is not installed here (tool-lsp, a git source) is reported and skipped.
    expect(exit.stderr).toMatch(/tool 'tool-lsp' was not loaded/);
    expect(fs.readFileSync(path.join(child.dir, 'transcript.jsonl'), 'utf8')).toContain('explore');

    const list = await runCli(['agents', 'list', '--bundle', bundle, '--json'], { cwd, env: cliEnv(home) });
    expect((JSON.parse(list.stdout) as { name: string }[]).map((a) => a.name)).toEqual([
      'mine:explorer',
      'mine:file-ops',
      'mine:web-research',
    ]);
    const show = await runCli(['agents', 'show', 'explorer', '--bundle', bundle], { cwd, env: cliEnv(home) });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('# Explorer');
    expect(show.stdout).toMatch(/tools\s+tool-filesystem, tool-search, tool-lsp/);
    const missing = await runCli(['agents', 'show', 'nobody'], { cwd, env: cliEnv(home) });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/No agent 'nobody'/);
  });
});
