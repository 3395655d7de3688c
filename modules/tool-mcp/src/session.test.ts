/**
 * A whole session (the real loop-basic, context-simple and provider-mock, dev
 * dependencies) whose scripted model calls the tools of server-filesystem
 * (under the sandbox when bubblewrap works here) and server-everything.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mount as mountContext } from '@amplifier/context-simple';
import { AmplifierSession, type ModuleLoaderLike, type MountFunction, silentLogger } from '@amplifier/core';
import { mount as mountLoop } from '@amplifier/loop-basic';
import { sandboxSupport } from '@amplifier/process';
import { mount as mountMock } from '@amplifier/provider-mock';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { EVERYTHING_BIN, FILESYSTEM_BIN } from './__fixtures__/servers.js';
import { mount } from './index.js';

let tmp: string;
beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tool-mcp-session-')));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const MOUNTS: Record<string, MountFunction> = {
  'loop-basic': mountLoop,
  'context-simple': mountContext,
  'provider-mock': mountMock,
  'tool-mcp': mount,
};
const loader: ModuleLoaderLike = {
  async load(id, config = {}) {
    return { id, type: undefined, mount: async (coordinator) => MOUNTS[id]!(coordinator, config) };
  },
};

it('a scripted model writes and reads a file through server-filesystem and echoes through server-everything', async () => {
  const target = path.join(tmp, 'notes.txt');
  const sandbox = sandboxSupport().available ? 'required' : 'off';
  const session = new AmplifierSession(
    {
      session: { orchestrator: 'loop-basic', context: 'context-simple' },
      providers: [
        {
          module: 'provider-mock',
          config: {
            script: [
              {
                tool_calls: [
                  { name: 'mcp_fs_write_file', arguments: { path: target, content: 'hello from mcp' } },
                ],
              },
              {
                tool_calls: [
                  { name: 'mcp_fs_read_text_file', arguments: { path: target } },
                  { name: 'mcp__everything__echo', arguments: { message: 'ping' } },
                ],
              },
              { text: 'All done.' },
            ],
          },
        },
      ],
      tools: [
        {
          module: 'tool-mcp',
          config: {
            config_files: false,
            working_dir: tmp,
            server_log_dir: path.join(tmp, 'logs'),
            sandbox,
            mcpServers: {
              fs: { command: process.execPath, args: [FILESYSTEM_BIN, tmp] },
              everything: { command: process.execPath, args: [EVERYTHING_BIN] },
            },
          },
        },
      ],
    },
    { loader, logger: silentLogger, sessionId: 'mcp-session' },
  );
  {
    await using _ = session;
    await session.initialize();
    // Scheduling: the server's tools share one key, read-only ones (readOnlyHint) in read mode.
    const keys = (name: string) =>
      session.coordinator.get('tools', name)?.executionProfile?.resourceKeys?.({});
    expect(keys('mcp_fs_read_text_file')).toEqual([{ key: 'mcp:fs', mode: 'read' }]);
    expect(keys('mcp_fs_write_file')).toEqual([{ key: 'mcp:fs', mode: 'write' }]);
    const answer = await session.execute('Write a note, read it back, ping.');
    expect(answer).toBe('All done.');
    expect(fs.readFileSync(target, 'utf8')).toBe('hello from mcp');
    const context = session.coordinator.get('context')!;
    const tools = (await context.getMessages()).filter((message) => message.role === 'tool');
    const text = JSON.stringify(tools);
    expect(text).toContain('hello from mcp');
    expect(text).toContain('Echo: ping');
  }
}, 60_000);
