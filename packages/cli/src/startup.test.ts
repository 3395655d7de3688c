import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv, removeTempDirs, runCli, tempDir, writeFile, writeMockPlan } from './__fixtures__/cli.js';

const PRELOAD = fileURLToPath(new URL('./__fixtures__/loaded-files.cjs', import.meta.url));
const DIST = fileURLToPath(new URL('../dist/', import.meta.url));

afterAll(removeTempDirs);

/** The files a one-shot `run` loads, as package-relative paths. */
async function loadedBy(planFile: string, cwd: string): Promise<string[]> {
  return (await loadedByArgs(['run', '--plan', planFile, 'hello'], cwd)).loaded;
}

/**
 * The source modules held by the files loaded from workspace packages'
 * dist/ folders, as `<package folder>/src/<file>.ts` (read from each file's
 * source map: a bundled file holds many), so that what a run loads is checked
 * by module, whatever file the build put it in.
 */
function loadedSources(loaded: readonly string[]): string[] {
  return loaded.flatMap((file) => {
    const at = file.lastIndexOf('/dist/');
    if (at < 0 || file.includes('/node_modules/.pnpm/')) return [];
    const packageDir = file.slice(0, at);
    const map = `${file}.map`;
    if (!fs.existsSync(map)) return [path.relative(path.dirname(packageDir), file)];
    const { sources } = JSON.parse(fs.readFileSync(map, 'utf8')) as { sources: string[] };
    return sources.map((s) => path.relative(path.dirname(packageDir), path.resolve(path.dirname(file), s)));
  });
}

/** The files loaded from a workspace package's dist/ folder (`core`, `tool-bash`, ...). */
function distFiles(loaded: readonly string[], name: string): string[] {
  return loaded.filter((f) => f.includes(`/${name}/dist/`) && !f.includes('/node_modules/.pnpm/'));
}

/** The command definitions (commands/*.js) among the CLI's modules, but the shared action and options. */
function commandDefinitions(cliModules: readonly string[]): string[] {
  return cliModules.filter((m) => m.startsWith('commands/') && !/^commands\/(action|options)\.js$/.test(m));
}

/**
 * The files `amplifier <args>` loads (absolute paths), the CLI's own modules
 * among them (dist-relative, `commands/run.js`: the command is bundled, so each
 * loaded chunk's source map names the modules it holds), and what it printed.
 */
async function loadedByArgs(
  args: string[],
  cwd: string,
): Promise<{ loaded: string[]; cliFiles: string[]; cliModules: string[]; stdout: string }> {
  const list = path.join(tempDir(), 'loaded.txt');
  const env = cliEnv(tempDir(), { NODE_OPTIONS: `--require ${PRELOAD}`, AMPLIFIER_LOADED_LIST: list });
  const run = await runCli(args, { cwd, env });
  expect(run.code, run.stderr).toBe(0);
  const lines = fs.readFileSync(list, 'utf8').split('\n').filter(Boolean);
  const loaded = [...new Set(lines.map((f) => (f.startsWith('file:') ? fileURLToPath(f) : f)))];
  const cliFiles = loaded.filter((f) => f.startsWith(DIST));
  const cliModules = cliFiles.flatMap((file) => {
    const map = `${file}.map`;
    const sources = fs.existsSync(map)
      ? (JSON.parse(fs.readFileSync(map, 'utf8')) as { sources: string[] }).sources
      : [];
    return sources.length > 0
      ? sources.map((s) => path.relative(DIST, path.resolve(path.dirname(file), s)))
      : [path.relative(DIST, file)];
  });
  return { loaded, cliFiles, cliModules, stdout: run.stdout };
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
    const plan = writeMockPlan(cwd, ['hi'], { tools: [{ module: 'tool-filesystem' }] });
    const { loaded, cliModules } = await loadedByArgs(['run', '--plan', plan, 'hello'], cwd);
    expect(cliModules).toContain('run.js');
    for (const lazy of [
      'tools.js',
      'session-commands.js',
      'child-sessions.js',
      'repl.js',
      'bundles.js',
      'agents.js',
    ]) {
      expect(cliModules).not.toContain(lazy);
    }
    expect(loaded.some((f) => f.includes('/context-simple/'))).toBe(true);
    // The AWS SDK loads only when provider-bedrock makes its first request.
    for (const unused of [
      '/yaml/',
      '/testing/',
      '/tool-agentpm/',
      '/provider-bedrock/',
      '/@aws-sdk/',
      '/@smithy/',
    ]) {
      expect(loaded.filter((f) => f.includes(unused))).toEqual([]);
    }
    // The display prints through the process kit's `./terminal` entry (terminalSafe) and
    // tool-filesystem resolves its roots through its `./paths` entry (Node builtins only): those
    // entries and the bundler's runtime chunk load, none of the kit's process code.
    const processFiles = loaded.filter((f) => f.includes('/process/dist/'));
    expect(
      processFiles
        .map((f) => path.basename(f))
        .filter((f) => !/^(terminal-text|real-path|rolldown-runtime-[\w-]+)\.js$/.test(f)),
    ).toEqual([]);
    const sources = loadedSources(loaded);
    expect(sources).toContain('tool-filesystem/src/index.ts');
    for (const unused of ['grep-pool', 'grep-worker', 'read', 'edit', 'grep']) {
      expect(sources).not.toContain(`tool-filesystem/src/${unused}.ts`);
    }
  });

  it('each package is bundled: a one-shot run loads one file of the kernel and of each module that needs no lazy part', async () => {
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, ['hi'], { tools: [{ module: 'tool-filesystem' }] });
    const { loaded } = await loadedByArgs(['run', '--plan', plan, 'hello'], cwd);
    for (const name of ['core', 'loop-basic', 'context-simple', 'provider-mock', 'hooks-logging']) {
      expect(distFiles(loaded, name), name).toHaveLength(1);
    }
    // tool-filesystem: its entry and the chunks its mount shares with the tool code that loads on use.
    expect(distFiles(loaded, 'tool-filesystem').length).toBeLessThanOrEqual(6);
    expect(loadedSources(loaded).filter((s) => s.startsWith('core/src/')).length).toBeGreaterThan(15);
  });

  it('no spinner without a terminal, and only the definition of `run` among the commands', async () => {
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, ['hi'], { tools: [], hooks: [] });
    const { loaded, cliModules } = await loadedByArgs(['run', '--plan', plan, 'hello'], cwd);
    for (const unused of ['/yocto-spinner/', '/yoctocolors/']) {
      expect(loaded.filter((f) => f.includes(unused))).toEqual([]);
    }
    expect(commandDefinitions(cliModules)).toEqual(['commands/run.js']);
  });

  it("the command is bundled: the CLI's own code of a one-shot run is a handful of files, not one per module", async () => {
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, ['hi'], { tools: [], hooks: [] });
    const { cliFiles, cliModules } = await loadedByArgs(['run', '--plan', plan, 'hello'], cwd);
    expect(cliModules.length).toBeGreaterThan(15);
    expect(cliFiles.length).toBeLessThanOrEqual(5);
  });

  it('--help defines every command and lists each with its description', async () => {
    const cwd = tempDir();
    const { cliModules, stdout } = await loadedByArgs(['--help'], cwd);
    for (const [name, file] of Object.entries(COMMAND_MODULES)) {
      expect(stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
      expect(cliModules).toContain(`commands/${file}.js`);
    }
    expect(stdout).toContain("resume this project's most recent session");
    expect(stdout).toContain('the tools of the plan, without a model');
    expect(stdout).toContain('serve sessions as durable Restate');
  });

  it('a subcommand defines only its own module: `session list --help`', async () => {
    const cwd = tempDir();
    const { cliModules, stdout } = await loadedByArgs(['session', 'list', '--help'], cwd);
    expect(stdout).toContain('--all');
    // `run`'s definitions are bundled with main (the one-shot path); every other command's load on use.
    expect(commandDefinitions(cliModules).filter((m) => m !== 'commands/run.js')).toEqual([
      'commands/session.js',
    ]);
  });

  it('tool-bash loads its mount entry: the safety validator, its effect analysis and the shell lexer wait for the first command', async () => {
    const cwd = tempDir();
    const quiet = await loadedBy(writeMockPlan(cwd, ['hi'], { tools: [{ module: 'tool-bash' }] }), cwd);
    const quietSources = loadedSources(quiet);
    expect(quietSources).toContain('tool-bash/src/mount.ts');
    for (const unused of ['tool-bash/src/safety.ts', 'tool-bash/src/effects.ts']) {
      expect(quietSources).not.toContain(unused);
    }
    expect(quietSources.filter((s) => s.startsWith('process/src/shell/'))).toEqual([]);
    // A turn that runs a command loads them (every command is checked).
    const script = [{ tool_calls: [{ id: 'c1', name: 'bash', arguments: { command: 'true' } }] }, 'done'];
    const busy = await loadedBy(writeMockPlan(cwd, script, { tools: [{ module: 'tool-bash' }] }), cwd);
    expect(loadedSources(busy)).toContain('tool-bash/src/safety.ts');
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
