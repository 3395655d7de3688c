import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { BIN, cliEnv, removeTempDirs, runCli, sessionDirs, writeFile } from './__fixtures__/cli.js';
import { mcpProject } from './__fixtures__/mcp.js';

afterEach(removeTempDirs);

it('round trip: a session mounts `amplifier mcp serve` through tool-mcp and its model reads a file through it', async () => {
  const project = mcpProject();
  const hello = path.join(project.cwd, 'hello.txt');
  const server = {
    command: process.execPath,
    args: [BIN, 'mcp', 'serve', '--plan', project.plan, '--tools', 'read_file'],
  };
  const plan = writeFile(
    path.join(project.cwd, 'client.json'),
    JSON.stringify({
      session: { orchestrator: 'loop-basic', context: 'context-simple' },
      providers: [
        {
          module: 'provider-mock',
          config: {
            script: [
              { tool_calls: [{ id: 'c1', name: 'mcp_amp_read_file', arguments: { file_path: hello } }] },
              { text: 'Read it through MCP.' },
            ],
          },
        },
      ],
      tools: [{ module: 'tool-mcp', config: { config_files: false, servers: { amp: server } } }],
      hooks: [{ module: 'hooks-logging' }],
    }),
  );
  const result = await runCli(['run', '--plan', plan, 'read hello.txt through MCP'], {
    cwd: project.cwd,
    env: cliEnv(project.home),
  });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toContain('Read it through MCP.');
  const dir = sessionDirs(project.home).find((d) => fs.existsSync(path.join(d, 'transcript.jsonl')))!;
  const transcript = fs
    .readFileSync(path.join(dir, 'transcript.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { role: string; content: unknown; tool_call_id?: string });
  const toolMessage = transcript.find((m) => m.role === 'tool' && m.tool_call_id === 'c1');
  expect(JSON.stringify(toolMessage?.content)).toContain('hello from the project');
  // The served side ran the call through its plan's hooks; the client side logged the MCP tool call.
  const events = fs.readFileSync(path.join(dir, 'events.jsonl'), 'utf8');
  expect(events).toContain('"tool_name":"mcp_amp_read_file"');
});
