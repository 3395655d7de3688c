/**
 * Whole sessions through AmplifierSession and the real loop-basic
 * orchestrator (a dev dependency; modules never import each other): a tool
 * call is asked, approved or denied, and the tool does or does not run.
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
  type Tool,
} from '@amplifier/core';
import { mount as mountLoop } from '@amplifier/loop-basic';
import { MockContextManager, MockProvider } from '@amplifier/testing';
import { afterEach, expect, it } from 'vitest';
import { type Answer, FakeApproval, readAudit, removeTempDirs, tempDir } from './__fixtures__/fakes.js';
import { mount } from './index.js';

afterEach(() => removeTempDirs());

/** A real write_file: writes `content` to `file_path`. */
function writeFileTool(): Tool & { calls: number } {
  return {
    name: 'write_file',
    description: 'Write a file',
    inputSchema: {
      type: 'object',
      properties: { file_path: { type: 'string' }, content: { type: 'string' } },
      required: ['file_path', 'content'],
    },
    calls: 0,
    async execute(input) {
      this.calls++;
      fs.writeFileSync(String(input.file_path), String(input.content));
      return { success: true, output: `wrote ${String(input.file_path)}` };
    },
  };
}

function loaderOf(modules: Record<string, MountFunction>): ModuleLoaderLike {
  return {
    async load(id, config = {}): Promise<LoadedModule> {
      const mountFn = modules[id];
      if (mountFn === undefined) throw new Error(`no module ${id}`);
      return { id, type: undefined, mount: async (coordinator: Coordinator) => mountFn(coordinator, config) };
    },
  };
}

interface Run {
  answer: string;
  tool: ReturnType<typeof writeFileTool>;
  approval: FakeApproval;
  context: MockContextManager;
  auditFile: string;
}

/** One session: the model asks to write `target`, then says "done". */
async function runSession(options: {
  dir: string;
  target: string;
  answer: Answer;
  sessionId?: string;
  resumed?: boolean;
  /** Also mount a hook that rewrites the file path (at `rewritePriority`, default 50). */
  rewriteTo?: string;
  rewritePriority?: number;
}): Promise<Run> {
  const { dir, target } = options;
  const tool = writeFileTool();
  const approval = new FakeApproval(options.answer);
  const context = new MockContextManager();
  const auditFile = path.join(dir, 'audit.jsonl');
  const responses: ChatResponse[] = [
    {
      content: [{ type: 'text', text: 'Writing the file.' }],
      tool_calls: [{ id: 'call_w1', name: 'write_file', arguments: { file_path: target, content: 'hello' } }],
    },
    { content: [{ type: 'text', text: 'done' }] },
  ];
  const hooks: { module: string; config: Record<string, unknown> }[] = [
    { module: 'hooks-approval', config: { audit_file: auditFile } },
  ];
  if (options.rewriteTo !== undefined) hooks.push({ module: 'rewriter', config: {} });
  const session = new AmplifierSession(
    {
      session: { orchestrator: 'loop-basic', context: 'memory' },
      providers: [{ module: 'mock-provider' }],
      tools: [{ module: 'tools' }],
      hooks,
    },
    {
      loader: loaderOf({
        'loop-basic': mountLoop,
        memory: (c) => c.mount('context', context),
        'mock-provider': (c) => c.mount('providers', new MockProvider({ responses })),
        tools: (c) => c.mount('tools', tool),
        'hooks-approval': mount,
        rewriter: (c) => {
          c.hooks.register(
            'tool:pre',
            (_event, data) => ({
              action: 'modify',
              data: { ...data, tool_input: { file_path: options.rewriteTo, content: 'hello' } },
            }),
            { priority: options.rewritePriority ?? 50, name: 'rewriter' },
          );
        },
      }),
      approval,
      logger: silentLogger,
      ...(options.sessionId && { sessionId: options.sessionId }),
      ...(options.resumed && { isResumed: true }),
    },
  );
  session.coordinator.registerCapability('session.directory', path.join(dir, 'session'));
  await session.initialize();
  expect(session.failures).toEqual([]);
  let answer: string;
  try {
    answer = await session.execute('Write the file');
  } finally {
    await session.cleanup();
  }
  return { answer, tool, approval, context, auditFile };
}

function toolMessage(context: MockContextManager): Message | undefined {
  return context.messages.find((m) => m.role === 'tool');
}

it('a whole session: the call is asked, approved once, and the tool runs', async () => {
  const dir = tempDir();
  const target = path.join(dir, 'approved.txt');
  const run = await runSession({ dir, target, answer: 'Allow once' });
  expect(run.answer).toBe('done');
  expect(run.approval.requests).toHaveLength(1);
  expect(run.approval.requests[0]!.prompt).toContain(JSON.stringify(target));
  expect(fs.readFileSync(target, 'utf8')).toBe('hello');
  expect(toolMessage(run.context)).toMatchObject({ tool_call_id: 'call_w1', content: `wrote ${target}` });
  expect(readAudit(run.auditFile)).toEqual([
    expect.objectContaining({
      tool_call_id: 'call_w1',
      tool: 'write_file',
      decision: 'allowed',
      scope: 'once',
    }),
  ]);
});

it('a whole session: the call is asked, denied, and the tool does not run', async () => {
  const dir = tempDir();
  const target = path.join(dir, 'denied.txt');
  const run = await runSession({ dir, target, answer: 'Deny' });
  expect(run.answer).toBe('done');
  expect(run.tool.calls).toBe(0);
  expect(fs.existsSync(target)).toBe(false);
  expect(String(toolMessage(run.context)?.content)).toMatch(/^Denied by hook: User denied: /);
  expect(readAudit(run.auditFile)).toEqual([expect.objectContaining({ decision: 'denied', answer: 'Deny' })]);
});

it('a whole session: input modified by a later hook after the approval check is refused', async () => {
  const dir = tempDir();
  const target = path.join(dir, 'asked.txt');
  const elsewhere = path.join(dir, 'elsewhere.txt');
  const run = await runSession({ dir, target, answer: 'Allow once', rewriteTo: elsewhere });
  expect(run.tool.calls).toBe(0);
  expect(run.approval.requests).toEqual([]);
  expect(fs.existsSync(target) || fs.existsSync(elsewhere)).toBe(false);
  expect(String(toolMessage(run.context)?.content)).toContain(
    'Denied by hook: hooks-approval: a later tool:pre hook modified call call_w1 after the approval check',
  );
  expect(readAudit(run.auditFile)).toEqual([expect.objectContaining({ decision: 'invalidated' })]);
});

it('a whole session: input modified by an earlier hook is refused instead of asking about arguments that would not run', async () => {
  const dir = tempDir();
  const target = path.join(dir, 'asked.txt');
  const elsewhere = path.join(dir, 'elsewhere.txt');
  const run = await runSession({
    dir,
    target,
    answer: 'Allow once',
    rewriteTo: elsewhere,
    rewritePriority: -50,
  });
  expect(run.tool.calls).toBe(0);
  expect(run.approval.requests).toEqual([]);
  expect(fs.existsSync(target) || fs.existsSync(elsewhere)).toBe(false);
  expect(String(toolMessage(run.context)?.content)).toContain(
    'an earlier tool:pre hook changed the arguments',
  );
});

it('a whole session: "Allow always" is remembered, and a resumed session runs the same call without asking', async () => {
  const dir = tempDir();
  const target = path.join(dir, 'always.txt');
  const first = await runSession({ dir, target, answer: 'Allow always', sessionId: 'sess-always' });
  expect(first.approval.requests).toHaveLength(1);
  fs.rmSync(target);

  const resumed = await runSession({ dir, target, answer: 'Deny', sessionId: 'sess-always', resumed: true });
  expect(resumed.approval.requests).toEqual([]);
  expect(fs.readFileSync(target, 'utf8')).toBe('hello');
  expect(readAudit(resumed.auditFile).map((r) => [r.session_id, r.decision, r.source])).toEqual([
    ['sess-always', 'allowed', 'user'],
    ['sess-always', 'allowed', 'grant'],
  ]);
});
