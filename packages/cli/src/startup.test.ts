import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv, removeTempDirs, runCli, tempDir, writeFile, writeMockPlan } from './__fixtures__/cli.js';

const PRELOAD = fileURLToPath(new URL('./__fixtures__/loaded-files.cjs', import.meta.url));

afterAll(removeTempDirs);

/** The files a one-shot `run` loads, as package-relative paths. */
async function loadedBy(planFile: string, cwd: string): Promise<string[]> {
  return (await loadedByArgs(['run', '--plan', planFile, 'hello'], cwd)).loaded;
}

/** The files `amplifier <args>` loads, and what it printed. */
async function loadedByArgs(
  args: string[],
  cwd: string,
): Promise<{ loaded: string[]; stdout: string; code: number | null }> {
  const list = path.join(tempDir(), 'loaded.txt');
  const env = cliEnv(tempDir(), { NODE_OPTIONS: `--require ${PRELOAD}`, AMPLIFIER_LOADED_LIST: list });
  const run = await runCli(args, { cwd, env });
  expect(run.code, run.stderr).toBe(0);
  const loaded = [...new Set(fs.readFileSync(list, 'utf8').split('\n').filter(Boolean))];
  return { loaded, stdout: run.stdout, code: run.code };
}

/** The top-level commands and the module of commands/ that defines each. */
const COMMAND_MODULES: Record<string, string> = {
  run: 'run',
  continue: 'run',
  view: 'view',
  session: 'session',
  modules: 'modules',
  module: 'modules',
  bundle: 'bundle',
  agents: 'agents',
  tool: 'tool',
  mcp: 'mcp',
  serve: 'serve',
};

describe('start-up: a one-shot run loads what its first turn uses', () => {
  it('a JSON plan loads no YAML parser, no test kit, no tool-agentpm, no process kit (no subprocess tool), no tool-filesystem tool code and no grep worker pool (no call yet) and none of the session or tool commands', async () => {
    const cwd = tempDir();
    const loaded = await loadedBy(
      writeMockPlan(cwd, ['hi'], { tools: [{ module: 'tool-filesystem' }] }),
      cwd,
    );
    expect(loaded.some((f) => f.includes('/context-simple/'))).toBe(true);
    for (const unused of [
      '/yaml/',
      '/testing/',
      '/tool-agentpm/',
      '/process/dist/',
      '/tool-filesystem/dist/grep-pool.js',
      '/tool-filesystem/dist/grep-worker.js',
      '/tool-filesystem/dist/read.js',
      '/tool-filesystem/dist/edit.js',
      '/tool-filesystem/dist/grep.js',
      '/cli/dist/tools.js',
      '/cli/dist/session-commands.js',
      '/cli/dist/child-sessions.js',
    ]) {
      expect(loaded.filter((f) => f.includes(unused))).toEqual([]);
    }
  });

  it('a plan without hooks-logging loads none of it (the display redacts only with --redact), no spinner (no terminal) and only the definition of `run` among the commands', async () => {
    const cwd = tempDir();
    const loaded = await loadedBy(writeMockPlan(cwd, ['hi'], { tools: [], hooks: [] }), cwd);
    expect(loaded.some((f) => f.includes('/cli/dist/commands/run.js'))).toBe(true);
    for (const unused of ['/hooks-logging/', '/yocto-spinner/', '/yoctocolors/']) {
      expect(loaded.filter((f) => f.includes(unused))).toEqual([]);
    }
    const commandFiles = loaded.filter((f) =>
      /\/cli\/dist\/commands\/(?!run\.js|action\.js|options\.js)/.test(f),
    );
    expect(commandFiles).toEqual([]);
  });

  it('--redact loads hooks-logging for the display', async () => {
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, ['hi'], { tools: [], hooks: [] });
    const { loaded } = await loadedByArgs(['run', '--redact', '--plan', plan, 'hello'], cwd);
    expect(loaded.some((f) => f.includes('/hooks-logging/'))).toBe(true);
  });

  it('--help defines every command and lists each with its description', async () => {
    const cwd = tempDir();
    const { loaded, stdout } = await loadedByArgs(['--help'], cwd);
    for (const [name, file] of Object.entries(COMMAND_MODULES)) {
      expect(stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
      expect(loaded.some((f) => f.includes(`/cli/dist/commands/${file}.js`))).toBe(true);
    }
    expect(stdout).toContain("resume this project's most recent session");
    expect(stdout).toContain('the tools of the plan, without a model');
    expect(stdout).toContain('serve sessions as durable Restate');
  });

  it('a subcommand defines only its own module: `session list --help`', async () => {
    const cwd = tempDir();
    const { loaded, stdout } = await loadedByArgs(['session', 'list', '--help'], cwd);
    expect(stdout).toContain('--all');
    const defined = loaded.filter((f) => /\/cli\/dist\/commands\/(?!action\.js|options\.js)/.test(f));
    expect(defined.map((f) => path.basename(f))).toEqual(['session.js']);
  });

  it('tool-bash loads its mount entry: the safety validator, its effect analysis and the shell lexer wait for the first command', async () => {
    const cwd = tempDir();
    const quiet = await loadedBy(writeMockPlan(cwd, ['hi'], { tools: [{ module: 'tool-bash' }] }), cwd);
    expect(quiet.some((f) => f.includes('/tool-bash/dist/mount.js'))).toBe(true);
    for (const unused of [
      '/tool-bash/dist/safety.js',
      '/tool-bash/dist/effects.js',
      '/process/dist/shell/',
    ]) {
      expect(quiet.filter((f) => f.includes(unused))).toEqual([]);
    }
    // A turn that runs a command loads them (every command is checked).
    const script = [{ tool_calls: [{ id: 'c1', name: 'bash', arguments: { command: 'true' } }] }, 'done'];
    const busy = await loadedBy(writeMockPlan(cwd, script, { tools: [{ module: 'tool-bash' }] }), cwd);
    expect(busy.some((f) => f.includes('/tool-bash/dist/safety.js'))).toBe(true);
  });

  it('a YAML plan loads the YAML parser', async () => {
    const cwd = tempDir();
    const plan = writeFile(
      path.join(cwd, 'plan.yaml'),
      [
        'session: { orchestrator: loop-basic, context: context-simple }',
        'providers:',
        '  - module: provider-mock',
        '    config: { script: [hi] }',
      ].join('\n'),
    );
    expect((await loadedBy(plan, cwd)).some((f) => f.includes('/yaml/'))).toBe(true);
  });
});
