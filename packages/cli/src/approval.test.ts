import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { skipUnless } from '@amplifier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CliProcess,
  cliEnv,
  removeTempDirs,
  runCli,
  sessionDirs,
  tempDir,
  writeFile,
} from './__fixtures__/cli.js';
import { interpretAnswer, terminalCanAsk } from './approval.js';

afterEach(removeTempDirs);

/**
 * A project with a tiny hook module (a plain folder with index.js, loaded
 * through a `source:` path) that answers every tool:pre with ask_user, and a
 * plan whose scripted model runs one bash command that creates a file.
 */
function askProject(hookResult: Record<string, unknown>): { cwd: string; plan: string; marker: string } {
  const cwd = tempDir();
  writeFile(
    path.join(cwd, 'ask-hook', 'index.js'),
    `export async function mount(coordinator) {
  return coordinator.hooks.register('tool:pre', () => (${JSON.stringify({ action: 'ask_user', ...hookResult })}), { name: 'ask-hook' });
}
`,
  );
  const marker = path.join(cwd, 'ran.txt');
  const plan = writeFile(
    path.join(cwd, 'plan.yaml'),
    [
      'session: { orchestrator: loop-basic, context: context-simple }',
      'providers:',
      '  - module: provider-mock',
      '    config:',
      '      script:',
      `        - tool_calls: [{ id: c1, name: bash, arguments: { command: "touch ${marker}" } }]`,
      '        - text: all done',
      'tools: [{ module: tool-bash }]',
      'hooks: [{ module: ask-hook, source: ./ask-hook }]',
    ].join('\n'),
  );
  return { cwd, plan, marker };
}

function toolMessage(home: string): string {
  const [dir] = sessionDirs(home);
  const lines = fs.readFileSync(path.join(dir!, 'transcript.jsonl'), 'utf8').trim().split('\n');
  const tool = lines
    .map((l) => JSON.parse(l) as { role: string; content: string })
    .find((m) => m.role === 'tool');
  return tool?.content ?? '';
}

describe('approval (ask_user)', () => {
  it('maps typed answers: y/yes allow, n/anything else deny, empty takes the default', () => {
    expect(interpretAnswer('y', 'deny')).toBe('allow');
    expect(interpretAnswer(' YES ', 'deny')).toBe('allow');
    expect(interpretAnswer('n', 'allow')).toBe('deny');
    expect(interpretAnswer('maybe', 'allow')).toBe('deny');
    expect(interpretAnswer('', 'allow')).toBe('allow');
    expect(interpretAnswer('', 'deny')).toBe('deny');
    // "a" means "always" only when the hook offers such an option.
    expect(interpretAnswer('a', 'deny')).toBe('deny');
    expect(interpretAnswer('a', 'deny', ['Allow once', 'Allow always', 'Deny'])).toBe('Allow always');
    expect(interpretAnswer('Always', 'deny', ['Allow once', 'Allow always', 'Deny'])).toBe('Allow always');
  });

  it('without a terminal, the hook default applies: deny unless it says otherwise', async () => {
    const home = tempDir();
    const { cwd, plan, marker } = askProject({ approval_prompt: 'Run the command?' });
    const result = await runCli(['run', '--plan', plan, 'go'], { cwd, env: cliEnv(home) });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('Approval needed (bash): Run the command?\n');
    expect(result.stderr).toContain('→ denied: no terminal to ask (default)\n');
    expect(fs.existsSync(marker)).toBe(false);
    expect(toolMessage(home)).toMatch(/^Denied by hook: Denied: no terminal to ask \(default\)/);
    expect(toolMessage(home)).not.toContain('User denied');
    expect(result.stderr).toMatch(/✗ bash touch .* Denied by hook/);
    expect(result.stdout).toBe('all done\n');
  });

  it('without a terminal, a hook default of allow is honoured', async () => {
    const home = tempDir();
    const { cwd, plan, marker } = askProject({ approval_prompt: 'Run it?', approval_default: 'allow' });
    const result = await runCli(['run', '--plan', plan, 'go'], { cwd, env: cliEnv(home) });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('→ allowed');
    expect(fs.existsSync(marker)).toBe(true);
  });

  it('on a terminal, the user is asked y/n with the hook prompt; "y" runs the tool', async () => {
    const home = tempDir();
    const { cwd, plan, marker } = askProject({ approval_prompt: 'Touch the file?', approval_timeout: 300 });
    const cli = new CliProcess(['run', '--plan', plan, 'go'], {
      cwd,
      env: cliEnv(home, { NO_COLOR: '1' }),
      tty: true,
    });
    await cli.waitFor('stdout', 'Touch the file? [y/N]');
    expect(cli.stdout).toContain('deny in 300 s');
    cli.write('y\r');
    const exit = await cli.done();
    expect(exit.code, exit.stdout).toBe(0);
    expect(exit.stdout).toContain('allowed');
    expect(fs.existsSync(marker)).toBe(true);
    expect(exit.stdout).toContain('all done');
  });

  it('on a terminal, "n" denies', async () => {
    const home = tempDir();
    const { cwd, plan, marker } = askProject({ approval_prompt: 'Touch the file?' });
    const cli = new CliProcess(['run', '--plan', plan, 'go'], {
      cwd,
      env: cliEnv(home, { NO_COLOR: '1' }),
      tty: true,
    });
    await cli.waitFor('stdout', 'Touch the file?');
    cli.write('n\r');
    const exit = await cli.done();
    expect(exit.code, exit.stdout).toBe(0);
    expect(fs.existsSync(marker)).toBe(false);
    expect(toolMessage(home)).toMatch(/^Denied by hook/);
  });

  it("on a terminal, the hook's timeout is honoured: no answer takes its default", async () => {
    const home = tempDir();
    const { cwd, plan, marker } = askProject({
      approval_prompt: 'Quick?',
      approval_timeout: 1,
      approval_default: 'deny',
    });
    const cli = new CliProcess(['run', '--plan', plan, 'go'], {
      cwd,
      env: cliEnv(home, { NO_COLOR: '1' }),
      tty: true,
    });
    await cli.waitFor('stdout', 'Quick?');
    const exit = await cli.done();
    expect(exit.code, exit.stdout).toBe(0);
    expect(exit.stdout).toContain('no answer in time');
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('hook user messages are shown on stderr by the display system ([source] message)', async () => {
    const home = tempDir();
    const cwd = tempDir();
    writeFile(
      path.join(cwd, 'note-hook', 'index.js'),
      `export async function mount(coordinator) {
  return coordinator.hooks.register('tool:pre', () => ({
    action: 'deny',
    reason: 'not today',
    user_message: 'bash is blocked here',
    user_message_level: 'warning',
    user_message_source: 'note-hook',
  }));
}
`,
    );
    const plan = writeFile(
      path.join(cwd, 'plan.yaml'),
      [
        'session: { orchestrator: loop-basic, context: context-simple }',
        'providers:',
        '  - module: provider-mock',
        '    config:',
        '      script:',
        '        - tool_calls: [{ id: c1, name: bash, arguments: { command: "true" } }]',
        '        - text: fine',
        'tools: [{ module: tool-bash }]',
        'hooks: [{ module: note-hook, source: ./note-hook }]',
      ].join('\n'),
    );
    const result = await runCli(['run', '--plan', plan, 'go'], { cwd, env: cliEnv(home) });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('[hook:note-hook] bash is blocked here');
    expect(result.stdout).toBe('fine\n');
  });
});

describe('approval with hooks-approval', () => {
  it('"a" on a terminal grants "Allow always": the next matching call runs without asking, the grant is stored in the session directory', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const first = path.join(cwd, 'one.txt');
    const second = path.join(cwd, 'two.txt');
    const plan = writeFile(
      path.join(cwd, 'plan.yaml'),
      [
        'session: { orchestrator: loop-basic, context: context-simple }',
        'providers:',
        '  - module: provider-mock',
        '    config:',
        '      script:',
        `        - tool_calls: [{ id: c1, name: bash, arguments: { command: "touch ${first}" } }]`,
        `        - tool_calls: [{ id: c2, name: bash, arguments: { command: "touch ${second}" } }]`,
        '        - text: all done',
        'tools: [{ module: tool-bash }]',
        `hooks: [{ module: hooks-approval, config: { audit_file: ${JSON.stringify(path.join(home, 'audit.jsonl'))} } }]`,
      ].join('\n'),
    );
    const cli = new CliProcess(['run', '--plan', plan, 'go'], {
      cwd,
      env: cliEnv(home, { NO_COLOR: '1' }),
      tty: true,
    });
    await cli.waitFor('stdout', '[y/N/a]');
    cli.write('a\r');
    const exit = await cli.done();
    expect(exit.code, cli.stdout).toBe(0);
    expect(fs.existsSync(first)).toBe(true);
    expect(fs.existsSync(second)).toBe(true);
    // Asked once only: the second call was covered by the session grant.
    expect(cli.stdout.split('[y/N/a]').length - 1).toBe(1);
    const [dir] = sessionDirs(home);
    const grants = JSON.parse(fs.readFileSync(path.join(dir!, 'approvals.json'), 'utf8')) as unknown;
    expect(JSON.stringify(grants)).toContain('touch');
  });
});

/** `script` (util-linux) runs a command on a pseudo-terminal: what an interactive `amplifier run` sees. */
const NO_SCRIPT = skipUnless(
  spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0,
  'util-linux `script` on PATH',
);

describe('terminalCanAsk', () => {
  const approval = JSON.stringify(new URL('../dist/approval.js', import.meta.url).href);
  // String(...): a boolean printed alone on a terminal comes out coloured.
  const probe = `import(${approval}).then((m) => console.log('can ask: ' + String(m.terminalCanAsk())))`;

  it('is false without a terminal (pipes, as in CI or a script)', () => {
    expect(terminalCanAsk()).toBe(false); // the test runner's own stdin is not a terminal
    const piped = spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8' });
    expect(piped.stdout).toContain('can ask: false');
  });

  it.skipIf(NO_SCRIPT)('is true on a terminal (skipped without util-linux `script`)', () => {
    const command = `${JSON.stringify(process.execPath)} -e ${JSON.stringify(probe)}`;
    const tty = spawnSync('script', ['-qec', command, '/dev/null'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(tty.stdout).toContain('can ask: true');
  });
});
