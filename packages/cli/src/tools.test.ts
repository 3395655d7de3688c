import fs from 'node:fs';
import path from 'node:path';
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
import { parseToolArgs } from './tools.js';

afterEach(removeTempDirs);

describe('tool list | invoke', () => {
  it('parses key=value arguments: JSON when it parses, otherwise the string', () => {
    expect(parseToolArgs(['a=1', 'b=true', 'c=hello world', 'd={"x":[1]}', 'e="quoted"', 'f=a=b'])).toEqual({
      a: 1,
      b: true,
      c: 'hello world',
      d: { x: [1] },
      e: 'quoted',
      f: 'a=b',
    });
    expect(() => parseToolArgs(['novalue'])).toThrow(/key=value/);
  });

  it('lists the tools of the default plan', async () => {
    const cwd = tempDir();
    const result = await runCli(['tool', 'list'], { cwd, env: cliEnv(tempDir()) });
    expect(result.code, result.stderr).toBe(0);
    for (const name of [
      'read_file',
      'write_file',
      'edit_file',
      'glob',
      'grep',
      'bash',
      'web_fetch',
      'web_search',
    ]) {
      expect(result.stdout).toMatch(new RegExp(`^${name}\\s`, 'm'));
    }
    const json = await runCli(['tool', 'list', '--json'], { cwd, env: cliEnv(tempDir()) });
    const bash = (JSON.parse(json.stdout) as Array<{ name: string; input_schema: object }>).find(
      (t) => t.name === 'bash',
    );
    expect(bash?.input_schema).toMatchObject({ type: 'object' });
  });

  it('invokes a tool directly in --cwd and prints its result; no session is stored', async () => {
    const home = tempDir();
    const cwd = tempDir();
    writeFile(path.join(cwd, 'notes.txt'), 'alpha\nbeta\n');
    const read = await runCli(['tool', 'invoke', 'read_file', 'file_path=notes.txt'], {
      cwd,
      env: cliEnv(home),
    });
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout).content).toBe('     1\talpha\n     2\tbeta');
    const bash = await runCli(['tool', 'invoke', 'bash', 'command=echo hi from bash'], {
      cwd,
      env: cliEnv(home),
    });
    expect(bash.code, bash.stderr).toBe(0);
    expect(JSON.parse(bash.stdout)).toMatchObject({ stdout: 'hi from bash\n', returncode: 0 });
    const written = await runCli(['tool', 'invoke', 'write_file', 'file_path=out.txt', 'content=written'], {
      cwd,
      env: cliEnv(home),
    });
    expect(written.code, written.stderr).toBe(0);
    expect(fs.readFileSync(path.join(cwd, 'out.txt'), 'utf8')).toBe('written');
    expect(sessionDirs(home)).toEqual([]);
  });

  it('on a terminal, a failure whose output is its message is printed once', async () => {
    const cwd = tempDir();
    const cli = new CliProcess(['tool', 'invoke', 'read_file', 'file_path=missing.txt'], {
      cwd,
      env: cliEnv(tempDir(), { NO_COLOR: '1' }),
      tty: true,
    });
    const result = await cli.done();
    expect(result.code).toBe(1);
    expect(result.stdout.match(/not found/gi), result.stdout).toHaveLength(1);
  });

  it('exits 1 when the tool reports success: false, and prints its error', async () => {
    const cwd = tempDir();
    const result = await runCli(['tool', 'invoke', 'bash', 'command=exit 4'], {
      cwd,
      env: cliEnv(tempDir()),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/exited with code 4/i);
    const json = await runCli(['tool', 'invoke', 'bash', 'command=exit 4', '--json'], {
      cwd,
      env: cliEnv(tempDir()),
    });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ success: false, output: { returncode: 4 } });
    const web = await runCli(['tool', 'invoke', 'web_search', 'query=amplifier'], {
      cwd,
      env: cliEnv(tempDir()),
    });
    expect(web.code).toBe(1);
    expect(web.stderr).toContain('No search backend configured');
  });

  it('an unknown tool or input that breaks its schema is an error before anything runs', async () => {
    const cwd = tempDir();
    const unknown = await runCli(['tool', 'invoke', 'teleport'], { cwd, env: cliEnv(tempDir()) });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No tool 'teleport' in the plan. Available: read_file");
    const invalid = await runCli(['tool', 'invoke', 'bash', 'command=42'], { cwd, env: cliEnv(tempDir()) });
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('command must be string');
  });

  it('uses the tools of --plan', async () => {
    const cwd = tempDir();
    const plan = writeFile(
      path.join(cwd, 'plan.yaml'),
      'session: { orchestrator: loop-basic, context: context-simple }\ntools: [{ module: tool-bash }]\n',
    );
    const result = await runCli(['tool', 'list', '--plan', plan, '--json'], { cwd, env: cliEnv(tempDir()) });
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as Array<{ name: string }>).map((t) => t.name)).toEqual([
      'bash',
      'bash_output',
      'bash_kill',
    ]);
  });
});

describe('tool lint (AgentPM manifests)', () => {
  function toolFolder(manifest: Record<string, unknown>): string {
    const dir = tempDir();
    writeFile(path.join(dir, 'src', 'main.mjs'), 'process.stdout.write("{}");\n');
    writeFile(path.join(dir, 'agent.json'), JSON.stringify(manifest, null, 2));
    return dir;
  }
  const good = {
    kind: 'tool',
    name: 'echo-tool',
    version: '1.0.0',
    description: 'Echoes its input.',
    entrypoint: { command: 'node', args: ['src/main.mjs'] },
    inputs: { type: 'object', properties: { text: { type: 'string' } } },
    outputs: { type: 'object' },
    files: ['src/**/*.mjs'],
  };

  it('a valid folder has no problems and exits 0', async () => {
    const dir = toolFolder(good);
    const result = await runCli(['tool', 'lint', dir], { cwd: tempDir(), env: cliEnv(tempDir()) });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('no problems');
  });

  it('reports each problem with its JSON path, like a linter, and exits 1', async () => {
    const dir = toolFolder({
      ...good,
      name: 'Bad_Name',
      version: 'one',
      bogus: true,
      entrypoint: { command: 'node', args: ['src/missing.mjs'] },
    });
    const result = await runCli(['tool', 'lint', '.'], { cwd: dir, env: cliEnv(tempDir()) });
    expect(result.code).toBe(1);
    const lines = result.stdout.trim().split('\n');
    expect(lines.every((line) => line.startsWith(`${path.join(dir, 'agent.json')}: `))).toBe(true);
    expect(result.stdout).toMatch(/error name: /);
    expect(result.stdout).toMatch(/error version: /);
    expect(result.stdout).toMatch(/error bogus: /);
    expect(result.stdout).toMatch(/error entrypoint\.args/);
    const json = await runCli(['tool', 'lint', dir, '--json'], { cwd: tempDir(), env: cliEnv(tempDir()) });
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as {
      passed: boolean;
      problems: Array<{ path: string; severity: string }>;
    };
    expect(report.passed).toBe(false);
    expect(report.problems.map((p) => p.path)).toEqual(expect.arrayContaining(['name', 'version']));
  });

  it('a folder without agent.json is an error', async () => {
    const dir = tempDir();
    const result = await runCli(['tool', 'lint', dir], { cwd: dir, env: cliEnv(tempDir()) });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/no agent\.json/);
  });
});

describe('tool list with AgentPM tools', () => {
  function agentPmPlan(cwd: string, tools: string[]): string {
    return writeFile(
      path.join(cwd, 'plan.yaml'),
      [
        'session: { orchestrator: loop-basic, context: context-simple }',
        'tools:',
        '  - module: tool-agentpm',
        '    config:',
        `      tools: [${tools.map((t) => JSON.stringify(t)).join(', ')}]`,
        '',
      ].join('\n'),
    );
  }

  function nodeTool(dir: string, name: string, files: string[]): void {
    writeFile(
      path.join(dir, 'agent.json'),
      JSON.stringify({
        kind: 'tool',
        name,
        version: '0.1.0',
        description: `The ${name} tool.`,
        files,
        entrypoint: { command: 'node', args: ['dist/index.js'] },
        runtime: { type: 'node', version: '20' },
        inputs: { type: 'object', properties: {} },
        outputs: { type: 'object' },
      }),
    );
    writeFile(path.join(dir, 'dist', 'index.js'), 'process.stdout.write(JSON.stringify({ ok: true }));\n');
  }

  it('lists a tool whose files is a directory entry ("dist/"), and exits 0', async () => {
    const cwd = tempDir();
    nodeTool(path.join(cwd, 'tools', 'good'), 'good-tool', ['dist/']);
    const plan = agentPmPlan(cwd, ['./tools/good']);
    const result = await runCli(['tool', 'list', '--plan', plan], { cwd, env: cliEnv(tempDir()) });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^good_tool\s+The good-tool tool\./m);
  });

  it('does not exit 0 with an empty table when manifests failed: each failure is reported with its reason', async () => {
    const cwd = tempDir();
    nodeTool(path.join(cwd, 'tools', 'good'), 'good-tool', ['dist/']);
    nodeTool(path.join(cwd, 'tools', 'bad'), 'bad-tool', ['dist/']);
    fs.rmSync(path.join(cwd, 'tools', 'bad', 'dist'), { recursive: true });
    const plan = agentPmPlan(cwd, ['./tools/good', './tools/bad', './tools/missing']);
    const result = await runCli(['tool', 'list', '--plan', plan], { cwd, env: cliEnv(tempDir()) });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^good_tool\s/m);
    expect(result.stderr).toContain(
      'AgentPM tool \'./tools/bad\' was not loaded:\n  - entrypoint.args[0]: "dist/index.js" does not exist in the tool folder',
    );
    expect(result.stderr).toContain(
      `AgentPM tool './tools/missing' was not loaded:\n  - tool folder ${path.join(cwd, 'tools', 'missing')} does not exist`,
    );
    // Reported once: the module's own log lines for these failures are not printed as well.
    expect(result.stderr.match(/does not exist in the tool folder/g)).toHaveLength(1);
    const json = await runCli(['tool', 'list', '--plan', plan, '--json'], { cwd, env: cliEnv(tempDir()) });
    expect(json.code).toBe(1);
    expect((JSON.parse(json.stdout) as Array<{ name: string }>).map((t) => t.name)).toEqual(['good_tool']);
  });
});
