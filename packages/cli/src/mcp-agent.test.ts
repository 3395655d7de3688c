import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CliProcess, cliEnv, removeTempDirs, sessionDirs, writeFile } from './__fixtures__/cli.js';
import { connectStdio, mcpProject } from './__fixtures__/mcp.js';

afterEach(removeTempDirs);

describe('amplifier mcp serve --agent', () => {
  it('answers with the final text and a session_id, streams progress per model and tool call, and resumes', async () => {
    const project = mcpProject();
    const hello = path.join(project.cwd, 'hello.txt');
    const plan = writeFile(
      path.join(project.cwd, 'agent.yaml'),
      [
        'session: { orchestrator: loop-basic, context: context-simple }',
        'providers:',
        '  - module: provider-mock',
        '    config:',
        '      script:',
        `        - tool_calls: [{ id: c1, name: read_file, arguments: { file_path: ${JSON.stringify(hello)} } }]`,
        '        - text: The file says hello.',
        '        - text: Second answer.',
        'tools: [{ module: tool-filesystem }]',
        'hooks: [{ module: hooks-logging }]',
      ].join('\n'),
    );
    const { client } = await connectStdio(['mcp', 'serve', '--agent', '--plan', plan], project);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['amplifier_agent']);
      expect(tools[0]!.outputSchema).toMatchObject({ required: ['text', 'session_id'] });

      const messages: string[] = [];
      const first = await client.callTool(
        { name: 'amplifier_agent', arguments: { prompt: 'read hello.txt' } },
        undefined,
        {
          onprogress: (p) => {
            if (p.message) messages.push(p.message);
          },
        },
      );
      expect(first.isError).toBeFalsy();
      const structured = first.structuredContent as { text: string; session_id: string };
      expect(structured.text).toBe('The file says hello.');
      expect(JSON.stringify(first.content)).toContain(structured.session_id);
      expect(messages[0]).toBe('model call 1');

      const second = await client.callTool({
        name: 'amplifier_agent',
        arguments: { prompt: 'and then?', session_id: structured.session_id },
      });
      expect(second.structuredContent).toEqual({ text: 'Second answer.', session_id: structured.session_id });

      const bad = await client.callTool({ name: 'amplifier_agent', arguments: { prompt: '' } });
      expect(bad.isError).toBe(true);
    } finally {
      await client.close();
    }
    // One stored session holding both turns, as `amplifier run` stores them.
    const dirs = sessionDirs(project.home).filter((d) => fs.existsSync(path.join(d, 'transcript.jsonl')));
    expect(dirs).toHaveLength(1);
    const transcript = fs.readFileSync(path.join(dirs[0]!, 'transcript.jsonl'), 'utf8');
    expect(transcript).toContain('read hello.txt');
    expect(transcript).toContain('and then?');
  });

  it('sends one progress notification per model call and per tool call, in order', async () => {
    const project = mcpProject();
    const hello = path.join(project.cwd, 'hello.txt');
    const plan = writeFile(
      path.join(project.cwd, 'agent.yaml'),
      [
        'session: { orchestrator: loop-basic, context: context-simple }',
        'providers:',
        '  - module: provider-mock',
        '    config:',
        '      script:',
        `        - tool_calls: [{ id: c1, name: read_file, arguments: { file_path: ${JSON.stringify(hello)} } }]`,
        '        - text: done',
        'tools: [{ module: tool-filesystem }]',
      ].join('\n'),
    );
    // Raw JSON-RPC: every line on stdout is seen (the SDK client may drop a notification read with the result).
    const cli = new CliProcess(['mcp', 'serve', '--agent', '--plan', plan], {
      cwd: project.cwd,
      env: cliEnv(project.home),
      keepStdin: true,
    });
    const send = (m: unknown): void => cli.write(`${JSON.stringify(m)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await cli.waitFor('stdout', '"id":1');
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'amplifier_agent', arguments: { prompt: 'go' }, _meta: { progressToken: 7 } },
    });
    await cli.waitFor('stdout', '"id":2');
    cli.child.stdin!.end();
    const exit = await cli.done();
    expect(exit.code, exit.stderr).toBe(0);
    const lines = exit.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { method?: string; params?: { message?: string; progress: number } });
    const progress = lines.filter((l) => l.method === 'notifications/progress').map((l) => l.params!);
    expect(progress.map((p) => p.message)).toEqual(['model call 1', 'tool read_file', 'model call 2']);
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
    // The display's lines (tool calls, streamed text) went to stderr, never into the protocol.
    expect(exit.stdout).not.toContain('read_file(');
  });
});
