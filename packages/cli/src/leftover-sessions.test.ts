/**
 * Issue 44 (5): a run or `mcp serve` whose modules fail to load leaves no
 * session behind (hooks-logging had opened its event log, and the viewer
 * listed the folder as an interrupted Python Amplifier session); the session
 * `mcp serve` does run is recorded by this CLI, with its name, until it ends.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CliProcess, cliEnv, removeTempDirs, runCli, tempDir, writeFile } from './__fixtures__/cli.js';
import { mcpProject } from './__fixtures__/mcp.js';

afterEach(removeTempDirs);

/** Every session folder under the home, with the files in it. */
function sessionFolders(home: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const projects = path.join(home, 'projects');
  if (!fs.existsSync(projects)) return out;
  for (const project of fs.readdirSync(projects)) {
    const sessions = path.join(projects, project, 'sessions');
    if (!fs.existsSync(sessions)) continue;
    for (const id of fs.readdirSync(sessions)) out[id] = fs.readdirSync(path.join(sessions, id)).sort();
  }
  return out;
}

const FAILING_PLAN = [
  'session: { orchestrator: loop-basic, context: context-simple }',
  'providers:',
  '  - module: provider-mock',
  'tools:',
  '  - module: tool-filesytem',
  'hooks:',
  '  - module: hooks-logging',
].join('\n');

describe('sessions of runs that never started', () => {
  it('amplifier run: a module that fails to load leaves no session folder (hooks-logging had written one)', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeFile(path.join(cwd, 'plan.yaml'), FAILING_PLAN);
    const result = await runCli(['run', '--plan', plan, 'hi'], { cwd, env: cliEnv(home) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Could not load tool 'tool-filesytem'");
    expect(sessionFolders(home)).toEqual({});
  });

  it('amplifier mcp serve: the same', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeFile(path.join(cwd, 'plan.yaml'), FAILING_PLAN);
    const result = await runCli(['mcp', 'serve', '--plan', plan], { cwd, env: cliEnv(home) });
    expect(result.code).toBe(1);
    expect(sessionFolders(home)).toEqual({});
  });

  it('a run that started and failed in its turn keeps its session, recorded as failed by this CLI', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const result = await runCli(['run', 'hi'], {
      cwd,
      env: cliEnv(home, { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }),
    });
    expect(result.code).toBe(1);
    const folders = Object.entries(sessionFolders(home));
    expect(folders).toHaveLength(1);
    expect(folders[0]![1]).toContain('metadata.json');
  });
});

describe('the session of mcp serve', () => {
  it('is recorded by this CLI, named, running while it serves and completed after', async () => {
    const project = mcpProject();
    const cli = new CliProcess(['mcp', 'serve', '--plan', project.plan], {
      cwd: project.cwd,
      env: cliEnv(project.home),
      keepStdin: true,
    });
    cli.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`,
    );
    await cli.waitFor('stdout', '"id":1');
    const [id] = Object.keys(sessionFolders(project.home));
    const metadataFile = (): Record<string, unknown> => {
      const projects = path.join(project.home, 'projects');
      const [dir] = fs.readdirSync(projects);
      return JSON.parse(
        fs.readFileSync(path.join(projects, dir!, 'sessions', id!, 'metadata.json'), 'utf8'),
      ) as Record<string, unknown>;
    };
    expect(metadataFile()).toMatchObject({
      name: 'mcp serve (tools)',
      status: 'running',
      cli_version: expect.any(String),
    });
    cli.child.stdin!.end();
    const exit = await cli.done();
    expect(exit.code, exit.stderr).toBe(0);
    expect(metadataFile()).toMatchObject({ name: 'mcp serve (tools)', status: 'completed' });
  });
});
