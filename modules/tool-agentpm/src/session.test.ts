/**
 * A whole session: loop-basic (a devDependency, for this test only) runs a
 * scripted model that calls manifest tools; the tool results it stores are
 * the tools' validated outputs. Also the scheduling each manifest declares:
 * concurrent by default, serial when it opts in.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  AmplifierSession,
  type ChatResponse,
  type Coordinator,
  type LoadedModule,
  type Message,
  type ModuleLoaderLike,
  type MountFunction,
  silentLogger,
} from '@amplifier/core';
import { mount as mountLoop } from '@amplifier/loop-basic';
import { MockContextManager, MockProvider } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { manifest, NODE_TOOL, PYTHON_TOOL, SCRIPTS, tempDir, writeTool } from './__fixtures__/tools.js';
import { mount } from './index.js';

let root: string;
let remove: () => void;
beforeEach(() => {
  ({ dir: root, remove } = tempDir('tool-agentpm-session-'));
});
afterEach(() => remove());

/** A loader that hands out in-process modules by id (the session's loading path, minus npm). */
function loaderOf(modules: Record<string, MountFunction>): ModuleLoaderLike {
  return {
    async load(id, config = {}): Promise<LoadedModule> {
      const mountFn = modules[id];
      if (mountFn === undefined) throw new Error(`no module ${id}`);
      return { id, type: undefined, mount: async (coordinator: Coordinator) => mountFn(coordinator, config) };
    },
  };
}

function session(responses: ChatResponse[], toolsConfig: Record<string, unknown>) {
  const context = new MockContextManager();
  const provider = new MockProvider({ responses });
  const s = new AmplifierSession(
    {
      session: { orchestrator: 'loop-basic', context: 'context-test' },
      providers: [{ module: 'provider-test' }],
      tools: [{ module: 'tool-agentpm', config: toolsConfig }],
    },
    {
      loader: loaderOf({
        'loop-basic': mountLoop,
        'context-test': (c) => c.mount('context', context),
        'provider-test': (c) => c.mount('providers', provider, { name: 'mock' }),
        'tool-agentpm': mount,
      }),
      logger: silentLogger,
      sessionId: 'agentpm-session',
      workingDir: root,
    },
  );
  return { s, context, provider };
}

const calls = (...list: [id: string, name: string, args: Record<string, unknown>][]): ChatResponse => ({
  content: [],
  tool_calls: list.map(([id, name, args]) => ({ id, name, arguments: args })),
});
const text = (t: string): ChatResponse => ({ content: [{ type: 'text', text: t }] });
const toolMessages = (messages: Message[]) => messages.filter((m) => m.role === 'tool');

describe('a session with loop-basic', () => {
  it('the model calls a Node and a Python manifest tool and gets their validated outputs', async () => {
    fs.cpSync(NODE_TOOL, path.join(root, 'tools', 'text-stats'), { recursive: true });
    const { s, context, provider } = session(
      [
        calls(
          ['c1', 'text_stats', { text: 'two words' }],
          ['c2', 'word_freq', { text: 'b a b', top: 1 }],
          ['c3', 'text_stats', { text: 7 }],
        ),
        text('all done'),
      ],
      // A path relative to the session's working dir, and an absolute one.
      { tools: ['./tools/text-stats', PYTHON_TOOL] },
    );
    await using _ = s;
    expect(await s.execute('measure these')).toBe('all done');

    const results = toolMessages(context.messages);
    expect(results.map((m) => m.tool_call_id)).toEqual(['c1', 'c2', 'c3']);
    expect(JSON.parse(results[0]!.content as string)).toEqual({ words: 2, chars: 9, upper: 'TWO WORDS' });
    expect(JSON.parse(results[1]!.content as string)).toEqual({
      top: [{ word: 'b', count: 2 }],
      case: 'lower',
    });
    // Input that breaks the manifest's inputs schema never reaches the process.
    expect(results[2]!.content).toMatch(/text/);
    expect(results[2]!.content).toMatch(/must be string/);
    // The model's next request carried the outputs, and the tools were offered with their inputs schemas.
    expect(provider.requests).toHaveLength(2);
    const offered = provider.requests[0]!.tools?.map((t) => t.name).sort();
    expect(offered).toEqual(['text_stats', 'word_freq']);
    expect(s.status.status).toBe('completed');
  });

  it('calls of a manifest tool run concurrently (each is its own process)', async () => {
    const barrier = writeTool(root, 'barrier', SCRIPTS.barrier, barrierManifest('barrier'));
    const dir = fs.mkdtempSync(path.join(root, 'meet-'));
    // Each call waits until both have started: that can only happen if they run at the same time
    // (wait_ms is a safety net: a serial run would report met: false after it).
    const args = (id: string) => ({ dir, id, peers: 2, wait_ms: 20_000 });
    const { s, context } = session(
      [calls(['a', 'barrier', args('a')], ['b', 'barrier', args('b')]), text('met')],
      { tools: [barrier] },
    );
    await using _ = s;
    expect(await s.execute('go')).toBe('met');
    const outputs = toolMessages(context.messages).map((m) => JSON.parse(m.content as string));
    expect(outputs).toEqual([
      { id: 'a', met: true },
      { id: 'b', met: true },
    ]);
  });

  it('a manifest with execution.serial runs its calls one at a time', async () => {
    const barrier = writeTool(
      root,
      'serial-barrier',
      SCRIPTS.barrier,
      barrierManifest('serial-barrier', { execution: { serial: true } }),
    );
    const dir = fs.mkdtempSync(path.join(root, 'meet-'));
    // Run one at a time, the first call can never see the second (whatever wait_ms is); the second sees the first's file.
    const args = (id: string) => ({ dir, id, peers: 2, wait_ms: 300 });
    const { s, context } = session(
      [calls(['a', 'serial_barrier', args('a')], ['b', 'serial_barrier', args('b')]), text('done')],
      { tools: [barrier] },
    );
    await using _ = s;
    await s.execute('go');
    const outputs = toolMessages(context.messages).map((m) => JSON.parse(m.content as string));
    expect(outputs).toEqual([
      { id: 'a', met: false },
      { id: 'b', met: true },
    ]);
  });
});

function barrierManifest(name: string, overrides: Record<string, unknown> = {}) {
  return manifest(name, {
    inputs: {
      type: 'object',
      properties: {
        dir: { type: 'string' },
        id: { type: 'string' },
        peers: { type: 'integer' },
        wait_ms: { type: 'integer' },
      },
      required: ['dir', 'id', 'peers', 'wait_ms'],
    },
    outputs: {
      type: 'object',
      properties: { id: { type: 'string' }, met: { type: 'boolean' } },
      required: ['id', 'met'],
    },
    ...overrides,
  });
}
