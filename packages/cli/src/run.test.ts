import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BIN,
  cliEnv,
  jsonLines,
  removeTempDirs,
  runCli,
  sessionDirs,
  tempDir,
  writeFile,
  writeMockPlan,
} from './__fixtures__/cli.js';

afterEach(removeTempDirs);

/** A small project for the demo: a README, a package.json, a source file with one TODO. */
function project(): string {
  const dir = tempDir('amp-proj-');
  writeFile(path.join(dir, 'README.md'), '# Tiny project\n\nIt is small.\n');
  writeFile(path.join(dir, 'package.json'), '{ "name": "tiny" }\n');
  writeFile(path.join(dir, 'src', 'a.ts'), '// TODO: more\nexport const a = 1;\n');
  return dir;
}

describe('one-shot runs', () => {
  it('a prompt argument: the answer alone on stdout, exit 0, session files stored', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, ['The answer is 42.']);
    const result = await runCli(['run', '--plan', plan, 'what', 'is', 'it?'], { cwd, env: cliEnv(home) });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('The answer is 42.\n');
    // Run from a checkout (not under node_modules): the hint is the command that works here.
    expect(result.stderr).toContain(`continue it with: node ${BIN} continue`);
    const [dir] = sessionDirs(home);
    const transcript = fs
      .readFileSync(path.join(dir!, 'transcript.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { role: string; content: unknown });
    expect(transcript.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(transcript[0]?.content).toBe('what is it?');
  });

  it('the prompt on stdin when stdin is not a terminal', async () => {
    const home = tempDir();
    const cwd = project();
    const result = await runCli(['run'], { cwd, env: cliEnv(home), input: 'Where am I?\n' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('You asked: "Where am I?"');
  });

  it('--verbose names the sandbox mode of each subprocess tool (tool-bash in the demo plan)', async () => {
    const home = tempDir();
    const cwd = project();
    const result = await runCli(['run', '--verbose'], { cwd, env: cliEnv(home), input: 'Where am I?\n' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/sandbox: tool-bash: (auto|required|off)/);
  });

  it('no prompt and nothing on stdin with a real provider plan is a usage error (exit 2)', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, ['x']);
    const result = await runCli(['run', '--plan', plan], { cwd, env: cliEnv(home), input: '' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('No prompt');
  });

  it('--json: every stdout line is JSON, events in order, the result and session:end last', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, [
      { tool_calls: [{ id: 'c1', name: 'bash', arguments: { command: 'echo hello-json' } }] },
      'done',
    ]);
    const result = await runCli(['run', '--plan', plan, '--json', 'go'], { cwd, env: cliEnv(home) });
    expect(result.code, result.stderr).toBe(0);
    const lines = jsonLines(result.stdout);
    expect(lines[0]?.type).toBe('session');
    const events = lines.filter((l) => l.type === 'event').map((l) => l.event as string);
    const order = [
      'session:start',
      'prompt:submit',
      'provider:request',
      'provider:response',
      'tool:pre',
      'tool:post',
      'provider:request',
      'prompt:complete',
      'orchestrator:complete',
    ];
    let at = -1;
    for (const event of order) {
      const next = events.indexOf(event, at + 1);
      expect(next, `${event} after index ${at} in ${events.join(',')}`).toBeGreaterThan(at);
      at = next;
    }
    expect(events.at(-1)).toBe('session:end');
    const post = lines.find((l) => l.event === 'tool:post')?.data as {
      result: { output: { stdout: string } };
    };
    expect(post.result.output.stdout).toBe('hello-json\n');
    const result_ = lines.find((l) => l.type === 'result');
    expect(result_).toMatchObject({ status: 'completed', response: 'done' });
    expect(result.stderr).not.toContain('✓');
  });

  it('tool calls show one line each on stderr (start and finish, name, arguments, duration, ok/error)', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, [
      {
        tool_calls: [
          { id: 'c1', name: 'bash', arguments: { command: 'echo ok' } },
          { id: 'c2', name: 'bash', arguments: { command: 'exit 3' } },
        ],
      },
      'finished',
    ]);
    const result = await runCli(['run', '--plan', plan, 'go'], { cwd, env: cliEnv(home) });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('finished\n');
    expect(result.stderr).toMatch(/→ bash echo ok/);
    expect(result.stderr).toMatch(/✓ bash echo ok [\d.]+ m?s/);
    expect(result.stderr).toMatch(/✗ bash exit 3 [\d.]+ m?s .*exited with code 3/i);
    // Not a terminal: no colours, no spinner.
    expect(result.stderr).not.toContain('\u001b[');
  });

  it('a failing provider is an error (exit 1) with its message, no stack', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, [{ error: { kind: 'authentication', message: 'bad key' } }]);
    const result = await runCli(['run', '--plan', plan, 'go'], { cwd, env: cliEnv(home) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('bad key');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    const [dir] = sessionDirs(home);
    expect(JSON.parse(fs.readFileSync(path.join(dir!, 'metadata.json'), 'utf8')).status).toBe('failed');
  });
});

describe('the offline demo', () => {
  it('runs without credentials and without a prompt, exercising glob, read_file, grep and bash on the cwd', async () => {
    const home = tempDir();
    const cwd = project();
    const result = await runCli(['run'], { cwd, env: cliEnv(home) });
    expect(result.code, result.stderr).toBe(0);
    // It says it is the offline demo, and how to use a real model.
    expect(result.stderr).toContain('offline demo');
    expect(result.stderr).toContain('ANTHROPIC_API_KEY');
    for (const line of [/✓ glob \*\*\/\*/, /✓ read_file README\.md/, /✓ grep /, /✓ bash ls -p/]) {
      expect(result.stderr).toMatch(line);
    }
    expect(result.stdout).toContain(`Here is what the real tools found in ${cwd}:`);
    expect(result.stdout).toContain('glob found 3 files');
    expect(result.stdout).toContain('read_file read README.md (3 lines); it opens with "# Tiny project"');
    expect(result.stdout).toContain('grep found 1 TODO/FIXME marker in 1 file');
    expect(result.stdout).toMatch(
      /bash ran `ls -p`: 3 entries at the top level \(README\.md, package\.json, src\/\)/,
    );
    expect(result.stdout).toContain('OPENAI_BASE_URL');
  });

  it('reads the README even when glob keeps only newer files (a fresh clone: the README past the 500-match cap)', async () => {
    const home = tempDir();
    const cwd = project();
    for (let i = 0; i < 510; i++)
      writeFile(path.join(cwd, 'src', `f${i}.ts`), `export const f${i} = ${i};\n`);
    const old = new Date(Date.now() - 86_400_000);
    fs.utimesSync(path.join(cwd, 'README.md'), old, old);
    fs.utimesSync(path.join(cwd, 'package.json'), old, old);
    const result = await runCli(['run'], { cwd, env: cliEnv(home) });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/✓ read_file README\.md/);
  });

  it('app-cli 4: the session is stored under AMPLIFIER_HOME/projects/<slug>/sessions/<id>/ with transcript, metadata and events', async () => {
    const home = tempDir();
    const cwd = project();
    const result = await runCli(['run', '--json'], { cwd, env: cliEnv(home) });
    expect(result.code, result.stderr).toBe(0);
    const id = jsonLines(result.stdout).find((l) => l.type === 'session')?.session_id as string;
    const dir = path.join(home, 'projects', cwd.replace(/\//g, '-'), 'sessions', id);
    expect(fs.readdirSync(dir).sort()).toEqual(['events.jsonl', 'metadata.json', 'transcript.jsonl']);
    const metadata = JSON.parse(fs.readFileSync(path.join(dir, 'metadata.json'), 'utf8'));
    expect(metadata).toMatchObject({
      session_id: id,
      cwd,
      provider: 'mock',
      turn_count: 1,
      status: 'completed',
      plan: { orchestrator: 'loop-basic', context: 'context-simple', providers: ['provider-mock'] },
    });
    const roles = fs
      .readFileSync(path.join(dir, 'transcript.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { role: string }).role);
    expect(roles[0]).toBe('user');
    expect(roles.filter((r) => r === 'tool')).toHaveLength(4);
    expect(roles).not.toContain('system');
    const events = fs.readFileSync(path.join(dir, 'events.jsonl'), 'utf8').trim().split('\n');
    expect(events.map((l) => (JSON.parse(l) as { event: string }).event)).toContain('tool:post');
  });
});

describe('errors a user can act on', () => {
  it('no provider configured says how to set one and that the offline demo is the fallback', async () => {
    const home = tempDir();
    const cwd = tempDir();
    // A provider that, like the real ones, does not mount without its key.
    writeFile(
      path.join(cwd, 'keyed-provider', 'index.js'),
      'export async function mount(coordinator) { if (!process.env.KEYED_PROVIDER_KEY) return; throw new Error("unreachable"); }\n',
    );
    const plan = writeFile(
      path.join(cwd, 'plan.json'),
      JSON.stringify({
        session: { orchestrator: 'loop-basic', context: 'context-simple' },
        providers: [{ module: 'keyed-provider', source: './keyed-provider' }],
      }),
    );
    const result = await runCli(['run', '--plan', plan, 'hi'], { cwd, env: cliEnv(home) });
    expect(result.code).toBe(1);
    for (const text of [
      'No model provider is configured',
      'OPENAI_API_KEY',
      'OPENAI_BASE_URL',
      'ANTHROPIC_API_KEY',
      'offline demo',
    ]) {
      expect(result.stderr).toContain(text);
    }
    expect(result.stderr).toContain('keyed-provider did not mount');
  });

  it('unknown commands and flags: the error and its "Did you mean" in three lines (no help pushing them off screen), exit 2', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const command = await runCli(['frobnicate'], { cwd, env: cliEnv(home) });
    expect(command.code).toBe(2);
    expect(command.stderr).toContain("unknown command 'frobnicate'");
    expect(command.stderr).toContain('(add --help for the usage)');
    const typo = await runCli(['run', '--modle', 'x', 'hi'], { cwd, env: cliEnv(home) });
    expect(typo.code).toBe(2);
    expect(typo.stderr.trim().split('\n')).toEqual([
      "error: unknown option '--modle'",
      '(Did you mean --model?)',
      '(add --help for the usage)',
    ]);
    const flag = await runCli(['run', '--frob'], { cwd, env: cliEnv(home) });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("unknown option '--frob'");
    const provider = await runCli(['run', '--provider', 'nope', 'x'], { cwd, env: cliEnv(home) });
    expect(provider.code).toBe(2);
    const help = await runCli(['--help'], { cwd, env: cliEnv(home) });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Exit codes: 0 ok, 1 error, 2 usage, 130 cancelled');
  });

  it('--cwd that is not a directory is a usage error', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const result = await runCli(['run', '--cwd', path.join(cwd, 'nope'), 'x'], { cwd, env: cliEnv(home) });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is not a directory');
  });
});

describe('colours', () => {
  it('NO_COLOR turns colours off on a terminal; without it the terminal gets colours', async () => {
    const home = tempDir();
    const cwd = project();
    const plain = await runCli(['run', 'look around'], {
      cwd,
      env: cliEnv(home, { NO_COLOR: '1' }),
      tty: true,
    });
    expect(plain.code, plain.stdout).toBe(0);
    expect(plain.stdout).toContain('glob');
    expect(plain.stdout).not.toMatch(/\u001b\[\d+(;\d+)*m/);
    const coloured = await runCli(['run', 'look around'], {
      cwd,
      env: cliEnv(home, { CI: undefined, TERM: 'xterm' }),
      tty: true,
    });
    expect(coloured.code, coloured.stdout).toBe(0);
    expect(coloured.stdout).toMatch(/\u001b\[32m✓/);
  });
});
