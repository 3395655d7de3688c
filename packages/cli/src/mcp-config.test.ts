import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cliEnv, removeTempDirs, runCli, tempDir, writeFile } from './__fixtures__/cli.js';
import { mcpProject } from './__fixtures__/mcp.js';

afterEach(removeTempDirs);

/** A user home (HOME, where ~/.amplifier/mcp.json lives) and a project folder. */
function setup(): {
  home: string;
  cwd: string;
  userFile: string;
  projectFile: string;
  env: NodeJS.ProcessEnv;
} {
  const home = tempDir('amp-mcp-user-');
  const cwd = tempDir('amp-mcp-project-');
  return {
    home,
    cwd,
    userFile: path.join(home, '.amplifier', 'mcp.json'),
    projectFile: path.join(cwd, '.amplifier', 'mcp.json'),
    env: cliEnv(path.join(home, '.amplifier'), { HOME: home, AMPLIFIER_MCP_CONFIG: undefined }),
  };
}

interface ConfigFile {
  [key: string]: unknown;
  mcpServers: Record<string, unknown>;
}

function readJson(file: string): ConfigFile {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as ConfigFile;
}

describe('amplifier mcp add|remove', () => {
  it('adds a stdio server to the user config, keeping other keys and servers, and refuses a taken name without --force', async () => {
    const { cwd, userFile, env } = setup();
    writeFile(
      userFile,
      JSON.stringify({ theme: 'dark', mcpServers: { other: { command: 'other-server' } } }),
    );
    const added = await runCli(
      ['mcp', 'add', 'files', '--env', 'TOKEN=abc', '--', 'npx', '-y', 'server-x', '/tmp'],
      {
        cwd,
        env,
      },
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(`Added server 'files' in ${userFile}`);
    expect(readJson(userFile)).toEqual({
      theme: 'dark',
      mcpServers: {
        other: { command: 'other-server' },
        files: { command: 'npx', args: ['-y', 'server-x', '/tmp'], env: { TOKEN: 'abc' } },
      },
    });

    const before = fs.readFileSync(userFile, 'utf8');
    const again = await runCli(['mcp', 'add', 'files', '--', 'other'], { cwd, env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('--force');
    expect(fs.readFileSync(userFile, 'utf8')).toBe(before);

    const forced = await runCli(['mcp', 'add', 'files', '--force', '--', 'node', 'server.js'], { cwd, env });
    expect(forced.code, forced.stderr).toBe(0);
    expect(readJson(userFile).mcpServers.files).toEqual({ command: 'node', args: ['server.js'] });
    expect(fs.readdirSync(path.dirname(userFile))).toEqual(['mcp.json']);
  });

  it('adds an HTTP server with headers to the project config (--project)', async () => {
    const { cwd, projectFile, userFile, env } = setup();
    const result = await runCli(
      [
        'mcp',
        'add',
        'remote',
        '--project',
        '--url',
        'https://mcp.example.com/mcp',
        '--header',
        'Authorization: Bearer x',
      ],
      { cwd, env },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(readJson(projectFile)).toEqual({
      mcpServers: {
        remote: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer x' } },
      },
    });
    expect(fs.existsSync(userFile)).toBe(false);
  });

  it('never overwrites a malformed file and names it', async () => {
    const { cwd, userFile, env } = setup();
    writeFile(userFile, '{ "mcpServers": { broken');
    for (const args of [
      ['mcp', 'add', 'x', '--', 'cmd'],
      ['mcp', 'remove', 'x'],
    ]) {
      const result = await runCli(args, { cwd, env });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(userFile);
      expect(result.stderr).toContain('not valid JSON');
    }
    expect(fs.readFileSync(userFile, 'utf8')).toBe('{ "mcpServers": { broken');
  });

  it('removes one server and keeps the rest; an unknown name is an error', async () => {
    const { cwd, userFile, env } = setup();
    writeFile(
      userFile,
      JSON.stringify({ keep: 1, mcpServers: { a: { command: 'a' }, b: { url: 'http://x/mcp' } } }),
    );
    const removed = await runCli(['mcp', 'remove', 'a'], { cwd, env });
    expect(removed.code, removed.stderr).toBe(0);
    expect(readJson(userFile)).toEqual({ keep: 1, mcpServers: { b: { url: 'http://x/mcp' } } });
    const missing = await runCli(['mcp', 'remove', 'a'], { cwd, env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("No server 'a'");
  });

  it('bad flags are usage errors (exit 2)', async () => {
    const { cwd, env } = setup();
    for (const args of [
      ['mcp', 'add', 'x'],
      ['mcp', 'add', 'x', '--url', 'http://h/mcp', '--', 'cmd'],
      ['mcp', 'add', 'x', '--header', 'A: b', '--', 'cmd'],
      ['mcp', 'add', 'x', '--env', 'novalue', '--', 'cmd'],
      ['mcp', 'add', 'bad name', '--', 'cmd'],
      ['mcp', 'add', 'x', '--url', 'ftp://h/'],
    ]) {
      const result = await runCli(args, { cwd, env });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
    }
  });
});

describe('amplifier mcp list|test', () => {
  it('lists every layer with its source, marks overridden entries and never prints env or header values', async () => {
    const { cwd, userFile, projectFile, env } = setup();
    writeFile(
      userFile,
      JSON.stringify({
        mcpServers: {
          shared: { command: 'user-cmd' },
          secretive: { command: 'srv', env: { API_KEY: 'sk-very-secret-1' } },
        },
      }),
    );
    writeFile(
      projectFile,
      JSON.stringify({
        mcpServers: {
          shared: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer hdr-secret-2' } },
        },
      }),
    );
    // Untrusted (the default): the project's server is listed as not started.
    const untrusted = await runCli(['mcp', 'list'], { cwd, env });
    expect(untrusted.stdout).toMatch(/shared\s+project\s+http\s+not started: folder not trusted/);
    env.AMPLIFIER_TRUST_PROJECT = '1';
    const text = await runCli(['mcp', 'list'], { cwd, env });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/secretive\s+user\s+stdio\s+ok\s+srv\s+API_KEY=\*\*\*/);
    expect(text.stdout).toMatch(/shared\s+user\s+stdio\s+overridden by project/);
    expect(text.stdout).toMatch(
      /shared\s+project\s+http\s+ok\s+http:\/\/127\.0\.0\.1:9\/mcp\s+Authorization: \*\*\*/,
    );
    const json = await runCli(['mcp', 'list', '--json'], { cwd, env });
    const listed = JSON.parse(json.stdout) as { servers: Array<Record<string, unknown>> };
    expect(listed.servers.map((s) => [s.name, s.scope, s.active])).toEqual([
      ['secretive', 'user', true],
      ['shared', 'user', false],
      ['shared', 'project', true],
    ]);
    for (const output of [text.stdout + text.stderr, json.stdout + json.stderr]) {
      expect(output).not.toContain('sk-very-secret-1');
      expect(output).not.toContain('hdr-secret-2');
    }
  });

  it('test starts a server (here: amplifier mcp serve itself), lists its tools and their mounted names', async () => {
    const { userFile, env } = setup();
    // The server runs in tool-mcp's sandbox (when bubblewrap is here), which sees the working
    // directory but a private /tmp: the plan is in the working directory.
    const project = mcpProject();
    const cwd = project.cwd;
    writeFile(
      userFile,
      JSON.stringify({
        mcpServers: {
          amp: {
            command: process.execPath,
            args: [BIN, 'mcp', 'serve', '--plan', project.plan, '--tools', 'read_file,glob'],
          },
          broken: { command: process.execPath, args: ['-e', 'process.exit(3)'] },
        },
      }),
    );
    const ok = await runCli(['mcp', 'test', 'amp'], { cwd, env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('amp: amplifier');
    expect(ok.stdout).toMatch(/read_file\s+mcp_amp_read_file/);
    expect(ok.stdout).toMatch(/glob\s+mcp_amp_glob/);

    const broken = await runCli(['mcp', 'test', 'broken', '--timeout', '20'], { cwd, env });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain("Server 'broken' failed");

    const unknown = await runCli(['mcp', 'test', 'nope'], { cwd, env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Configured: amp, broken');
  });
});
