import type { LoadedModule, ModuleLoaderLike } from '@amplifier/core';
import { AmplifierSession } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import {
  createTestCoordinator,
  EventRecorder,
  MockContextManager,
  MockProvider,
  MockTool,
  ScriptedOrchestrator,
  waitFor,
} from './index.js';

describe('T. testing utilities', () => {
  it('T160: MockTool(name, output).execute(any) returns {success: true, output} and counts calls', async () => {
    const tool = new MockTool({ name: 'lookup', output: { rows: 3 } });
    expect(tool.name).toBe('lookup');
    expect(tool.description).toBe('Mock tool: lookup');
    expect(await tool.execute({ q: 'x' })).toEqual({ success: true, output: { rows: 3 } });
    expect(await tool.execute({})).toEqual({ success: true, output: { rows: 3 } });
    expect(tool.callCount).toBe(2);
    expect(tool.inputs).toEqual([{ q: 'x' }, {}]);
    expect(await new MockTool().execute({})).toEqual({ success: true, output: 'Success' });
  });

  it('T161: EventRecorder.emit records (event, copy of data), returns continue, getEvents filters', async () => {
    const recorder = new EventRecorder();
    const data = { tool_name: 'bash' };
    expect(await recorder.emit('tool:pre', data)).toEqual({ action: 'continue' });
    data.tool_name = 'changed later';
    await recorder.record('tool:post', { ok: true });
    await recorder.emit('tool:pre', {});
    expect(recorder.getEvents('tool:pre')).toEqual([
      ['tool:pre', { tool_name: 'bash' }],
      ['tool:pre', {}],
    ]);
    expect(recorder.names()).toEqual(['tool:pre', 'tool:post', 'tool:pre']);
    recorder.clear();
    expect(recorder.getEvents()).toEqual([]);
  });

  it('T161: EventRecorder.attach records what a real registry emits, and detaches', async () => {
    const coordinator = createTestCoordinator();
    const recorder = new EventRecorder();
    const detach = recorder.attach(coordinator.hooks, ['tool:pre']);
    await coordinator.hooks.emit('tool:pre', { tool_name: 'grep', tool_input: {} });
    detach();
    await coordinator.hooks.emit('tool:pre', { tool_name: 'glob', tool_input: {} });
    expect(recorder.events).toHaveLength(1);
    expect(recorder.events[0]?.[1]).toMatchObject({ tool_name: 'grep', session_id: 'test-session' });
  });

  it('T162: ScriptedOrchestrator returns responses in order then DONE, fills the context, emits events', async () => {
    const orchestrator = new ScriptedOrchestrator(['first', 'second']);
    const context = new MockContextManager();
    const hooks = new EventRecorder();
    const run = { context, hooks };
    expect(await orchestrator.execute('a', run)).toBe('first');
    expect(await orchestrator.execute('b', run)).toBe('second');
    expect(await orchestrator.execute('c', run)).toBe('DONE');
    expect(orchestrator.callCount).toBe(3);
    expect(orchestrator.prompts).toEqual(['a', 'b', 'c']);
    expect(context.messages).toEqual([
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'first' },
      { role: 'user', content: 'b' },
      { role: 'assistant', content: 'second' },
      { role: 'user', content: 'c' },
      { role: 'assistant', content: 'DONE' },
    ]);
    expect(hooks.getEvents().slice(0, 2)).toEqual([
      ['prompt:submit', { prompt: 'a' }],
      ['prompt:complete', { prompt: 'a', response: 'first' }],
    ]);
  });

  it('T162 [REC]: ScriptedOrchestrator accepts the run object of a real session, coordinator included', async () => {
    const orchestrator = new ScriptedOrchestrator(['hello from the script']);
    const modules: Record<string, (c: import('@amplifier/core').Coordinator) => void> = {
      scripted: (c) => c.mount('orchestrator', orchestrator),
      memory: (c) => c.mount('context', new MockContextManager()),
      mock: (c) => c.mount('providers', new MockProvider()),
    };
    const loader: ModuleLoaderLike = {
      async load(id): Promise<LoadedModule> {
        const mount = modules[id];
        if (mount === undefined) throw new Error(`unknown ${id}`);
        return { id, type: undefined, mount: async (c) => mount(c) };
      },
    };
    await using session = await AmplifierSession.create(
      { session: { orchestrator: 'scripted', context: 'memory' }, providers: [{ module: 'mock' }] },
      { loader },
    );
    const recorder = new EventRecorder();
    recorder.attach(session.coordinator.hooks, ['session:start', 'prompt:submit', 'prompt:complete']);
    expect(await session.execute('hi')).toBe('hello from the script');
    expect(orchestrator.runs[0]?.coordinator).toBe(session.coordinator);
    expect(recorder.names()).toEqual(['session:start', 'prompt:submit', 'prompt:complete']);
    expect(await session.coordinator.get('context')?.getMessages()).toHaveLength(2);
  });

  it('T163: createTestCoordinator has echo and fail tools and a mock context, and tracks mount history', async () => {
    const coordinator = createTestCoordinator();
    expect([...coordinator.get('tools').keys()]).toEqual(['echo', 'fail']);
    expect(await coordinator.get('tools', 'echo')?.execute({})).toEqual({
      success: true,
      output: 'Echo response',
    });
    expect(coordinator.get('context')).toBeInstanceOf(MockContextManager);
    expect(coordinator.mountHistory).toEqual([]);
    const tool = new MockTool({ name: 'extra' });
    coordinator.mount('tools', tool);
    coordinator.unmount('tools', { name: 'extra' });
    expect(coordinator.mountHistory).toEqual([{ mountPoint: 'tools', module: tool, name: undefined }]);
    expect(coordinator.unmountHistory).toEqual([{ mountPoint: 'tools', name: 'extra' }]);
    expect(coordinator.cancellation.isCancelled).toBe(false);
    expect(createTestCoordinator({ bare: true }).get('tools').size).toBe(0);
  });

  it('T163 [REC]: MockContextManager clears and replaces for real', async () => {
    const context = new MockContextManager([{ role: 'user', content: 'a' }]);
    await context.setMessages([{ role: 'user', content: 'b' }]);
    expect(await context.getMessages()).toEqual([{ role: 'user', content: 'b' }]);
    await context.clear();
    expect(await context.getMessages()).toEqual([]);
  });

  it('T164: waitFor resolves true as soon as the condition holds', async () => {
    let ready = false;
    setImmediate(() => {
      ready = true;
    });
    expect(await waitFor(() => ready, { timeoutMs: 30_000 })).toBe(true);
    expect(await waitFor(async () => true)).toBe(true);
  });

  it('T164: waitFor resolves false after the timeout, and a throwing condition rejects', async () => {
    let checks = 0;
    expect(
      await waitFor(
        () => {
          checks++;
          return false;
        },
        { timeoutMs: 30, intervalMs: 5 },
      ),
    ).toBe(false);
    expect(checks).toBeGreaterThanOrEqual(1);
    let calls = 0;
    expect(await waitFor(() => ++calls >= 3, { timeoutMs: 30_000, intervalMs: 1 })).toBe(true);
    expect(calls).toBe(3); // polled until it held, then stopped
    await expect(
      waitFor(() => {
        throw new Error('broken condition');
      }),
    ).rejects.toThrow('broken condition');
  });
});
