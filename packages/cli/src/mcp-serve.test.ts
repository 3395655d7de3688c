import fs from 'node:fs';
import path from 'node:path';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { CliProcess, cliEnv, removeTempDirs, runCli, sessionDirs, until } from './__fixtures__/cli.js';
import { connectStdio, mcpProject } from './__fixtures__/mcp.js';

afterEach(removeTempDirs);

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };

function line(message: unknown): string {
  return `${JSON.stringify(message)}\n`;
}

function events(home: string): Array<{ event: string; data: Record<string, unknown> }> {
  return sessionDirs(home).flatMap((dir) => {
    const file = path.join(dir, 'events.jsonl');
    if (!fs.existsSync(file)) return [];
    return fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { event: string; data: Record<string, unknown> });
  });
}

function text(result: Record<string, unknown>): string {
  return (result.content as Array<{ type: string; text: string }>).map((b) => b.text).join('\n');
}

describe('amplifier mcp serve (stdio)', () => {
  it('writes only JSON-RPC to stdout, lists the tools sorted with object schemas and no mcp_* tools, and exits on stdin EOF', async () => {
    const project = mcpProject();
    const cli = new CliProcess(['mcp', 'serve', '--plan', project.plan, '--verbose'], {
      cwd: project.cwd,
      env: cliEnv(project.home),
      keepStdin: true,
    });
    cli.write(line(INIT));
    await cli.waitFor('stdout', '"id":1');
    cli.write(line(INITIALIZED));
    cli.write(line({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    await cli.waitFor('stdout', '"id":2');
    cli.child.stdin!.end();
    const exit = await cli.done();
    expect(exit.code, exit.stderr).toBe(0);
    const messages = exit.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const message of messages) expect(message.jsonrpc).toBe('2.0');
    // --verbose writes its lines, but to stderr.
    expect(exit.stderr).toContain('serving');
    const init = messages.find((m) => m.id === 1)!.result as Record<string, unknown>;
    expect(init.capabilities).toMatchObject({ tools: { listChanged: true } });
    const tools = (messages.find((m) => m.id === 2)!.result as { tools: Array<Record<string, unknown>> })
      .tools;
    const names = tools.map((t) => t.name as string);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(['bash', 'read_file', 'slow_progress', 'write_file']));
    expect(names).not.toContain('mcp_other_echo');
    for (const tool of tools) expect((tool.inputSchema as { type: string }).type).toBe('object');
  });

  it('serves read_file through the plan, with tool:pre and tool:post in the event log', async () => {
    const project = mcpProject();
    const { client } = await connectStdio(['mcp', 'serve', '--plan', project.plan], project);
    try {
      const result = await client.callTool({
        name: 'read_file',
        arguments: { file_path: path.join(project.cwd, 'hello.txt') },
      });
      expect(result.isError).toBe(false);
      expect(text(result)).toContain('hello from the project');
    } finally {
      await client.close();
    }
    await until(() => events(project.home).some((e) => e.event === 'session:end'), 'the session to end');
    const logged = events(project.home);
    expect(logged.find((e) => e.event === 'tool:pre')?.data.tool_name).toBe('read_file');
    expect(logged.find((e) => e.event === 'tool:post')?.data.tool_name).toBe('read_file');
  });

  it("applies the plan's hooks: a deny rule refuses, ask falls to the approval default, bad arguments and unknown tools are errors", async () => {
    const project = mcpProject();
    const victim = path.join(project.cwd, 'victim.txt');
    fs.writeFileSync(victim, 'keep me');
    const { client } = await connectStdio(['mcp', 'serve', '--plan', project.plan], project);
    try {
      const denied = await client.callTool({ name: 'bash', arguments: { command: `rm -f ${victim}` } });
      expect(denied.isError).toBe(true);
      expect(text(denied)).toContain('no deletions');
      expect(fs.existsSync(victim)).toBe(true);

      const asked = await client.callTool({
        name: 'write_file',
        arguments: { file_path: path.join(project.cwd, 'new.txt'), content: 'x' },
      });
      expect(asked.isError).toBe(true);
      expect(text(asked)).toMatch(/denied/i);
      expect(fs.existsSync(path.join(project.cwd, 'new.txt'))).toBe(false);

      const allowed = await client.callTool({ name: 'bash', arguments: { command: 'echo served' } });
      expect(allowed.isError).toBe(false);
      expect(text(allowed)).toContain('served');

      const bad = await client.callTool({ name: 'read_file', arguments: { file_path: 42 } });
      expect(bad.isError).toBe(true);
      expect(text(bad)).toContain('invalid input');

      const unknown = client.callTool({ name: 'mcp_other_echo', arguments: {} });
      await expect(unknown).rejects.toBeInstanceOf(McpError);
      await expect(unknown).rejects.toMatchObject({ code: -32602 });
    } finally {
      await client.close();
    }
  });

  it('--tools limits the tools and --include-mcp serves mcp_* tools', async () => {
    const project = mcpProject();
    const { client } = await connectStdio(
      ['mcp', 'serve', '--plan', project.plan, '--tools', 'read_file,mcp_other_echo', '--include-mcp'],
      project,
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['mcp_other_echo', 'read_file']);
      await expect(client.callTool({ name: 'bash', arguments: { command: 'true' } })).rejects.toMatchObject({
        code: -32602,
      });
    } finally {
      await client.close();
    }
  });

  it("progress reaches the host as increasing notifications and the host's cancel reaches the tool's signal", async () => {
    const project = mcpProject();
    const { client } = await connectStdio(['mcp', 'serve', '--plan', project.plan], project);
    try {
      const finished: Array<{ progress: number; total?: number; message?: string }> = [];
      const done = await client.callTool(
        { name: 'slow_progress', arguments: { steps: 3, finish: true, wait_seen: true } },
        undefined,
        {
          onprogress: (p) => {
            finished.push(p);
            fs.writeFileSync(project.seen, 'seen');
          },
        },
      );
      expect(text(done)).toBe('finished');
      expect(finished.length).toBeGreaterThan(0);
      // The first update goes out at once; later ones coalesce (the SDK client may drop one that
      // arrives in the same read as the result: it handles notifications a microtask later).
      expect(finished[0]).toMatchObject({ progress: 1, total: 3, message: 'step 1' });
      for (let i = 1; i < finished.length; i++) {
        expect(finished[i]!.progress).toBeGreaterThan(finished[i - 1]!.progress);
      }

      const controller = new AbortController();
      const call = client.callTool({ name: 'slow_progress', arguments: { steps: 1 } }, undefined, {
        signal: controller.signal,
        onprogress: () => controller.abort(new Error('the host gave up')),
      });
      await expect(call).rejects.toThrow(/gave up/);
      await until(() => fs.existsSync(project.aborted), "the tool's signal to abort");
    } finally {
      await client.close();
    }
  });

  it('SIGTERM aborts running calls, runs cleanup and exits 0', async () => {
    const project = mcpProject();
    const cli = new CliProcess(['mcp', 'serve', '--plan', project.plan], {
      cwd: project.cwd,
      env: cliEnv(project.home),
      keepStdin: true,
    });
    cli.write(line(INIT));
    await cli.waitFor('stdout', '"id":1');
    cli.write(line(INITIALIZED));
    cli.write(
      line({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'slow_progress', arguments: { steps: 1 }, _meta: { progressToken: 'p1' } },
      }),
    );
    await cli.waitFor('stdout', 'notifications/progress');
    cli.kill('SIGTERM');
    const exit = await cli.done();
    expect(exit.code, exit.stderr).toBe(0);
    expect(fs.readFileSync(project.aborted, 'utf8')).toBe('aborted');
    expect(events(project.home).some((e) => e.event === 'session:end')).toBe(true);
  });

  it('bad input gives a clear error and the usage exit code', async () => {
    const project = mcpProject();
    const env = cliEnv(project.home);
    const missing = await runCli(['mcp', 'serve', '--plan', 'nope.yaml'], { cwd: project.cwd, env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('nope.yaml');
    expect(missing.stdout).toBe('');

    const stray = await runCli(['mcp', 'serve', '--port', '3000'], { cwd: project.cwd, env });
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain('--port applies to --http only');

    const badPort = await runCli(['mcp', 'serve', '--http', '--port', 'abc'], { cwd: project.cwd, env });
    expect(badPort.code).toBe(2);

    const unknownTool = await runCli(['mcp', 'serve', '--plan', project.plan, '--tools', 'nope'], {
      cwd: project.cwd,
      env,
    });
    expect(unknownTool.code).toBe(2);
    expect(unknownTool.stderr).toContain('--tools names nope');
  });
});
