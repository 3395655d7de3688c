/**
 * Mounting and config, and a whole turn through an AmplifierSession (the
 * way an app runs the loop), including cancellation through `signal`.
 */
import {
  AmplifierSession,
  type Coordinator,
  type LoadedModule,
  type ModuleLoaderLike,
  type MountFunction,
  silentLogger,
} from '@amplifier/core';
import { createTestCoordinator, MockContextManager } from '@amplifier/testing';
import { describe, expect, it } from 'vitest';
import {
  calls,
  deferred,
  ScriptProvider,
  TestTool,
  text,
  untilAborted,
  within,
} from './__fixtures__/harness.js';
import { BasicOrchestrator, DEFAULTS, mount, resolveConfig } from './index.js';

describe('mount and config', () => {
  it('mounts a BasicOrchestrator at orchestrator with the defaults; the cleanup unmounts it', () => {
    const coordinator = createTestCoordinator({ bare: true });
    const cleanup = mount(coordinator, {});
    const orchestrator = coordinator.get('orchestrator');
    expect(orchestrator).toBeInstanceOf(BasicOrchestrator);
    expect((orchestrator as BasicOrchestrator).config).toMatchObject({
      maxIterations: -1,
      maxConcurrentTools: 10,
      toolTimeoutMs: 120_000,
      maxToolOutputBytes: 102_400,
      extendedThinking: false,
      reasoningEffort: undefined,
      maxEmptyResponses: 3,
    });
    expect(DEFAULTS.tool_timeout).toBe(120);
    cleanup();
    expect(coordinator.get('orchestrator')).toBeUndefined();
  });

  it('bad config fails mount with every problem and what to change', () => {
    const coordinator = createTestCoordinator({ bare: true });
    let message = '';
    try {
      mount(coordinator, {
        max_iterations: 0,
        tool_timeout: 'soon',
        tool_aliases: { Read: 3 },
        max_concurrent_tools: 0,
      });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^loop-basic: invalid config:/);
    for (const line of [
      '  - max_iterations must be -1 (unlimited) or at least 1',
      '  - tool_timeout must be number or null',
      '  - tool_aliases.Read must be string',
      '  - max_concurrent_tools must be >= 1',
    ]) {
      expect(message).toContain(line);
    }
    expect(message).toContain("Fix the orchestrator's config in the mount plan");
    expect(coordinator.get('orchestrator')).toBeUndefined();
  });

  it('tool_timeout 0 or null means no default timeout; unknown keys are reported, reference keys accepted', () => {
    expect(resolveConfig({ tool_timeout: 0 }).toolTimeoutMs).toBeNull();
    expect(resolveConfig({ tool_timeout: null }).toolTimeoutMs).toBeNull();
    expect(resolveConfig({ tool_timeout: 1.5 }).toolTimeoutMs).toBe(1500);
    const warnings: string[] = [];
    const coordinator = createTestCoordinator({
      bare: true,
      logger: { ...silentLogger, warn: (m: string) => warnings.push(m) },
    });
    mount(coordinator, { max_iteration: 5, timeout: 30, default_provider: null });
    expect(warnings).toEqual(["loop-basic: unknown config key 'max_iteration' is ignored"]);
  });

  it('reads only own config properties: a __proto__ key or an inherited one loosens nothing', () => {
    const loosening = {
      max_iterations: 100_000,
      tool_timeout: 0,
      max_tool_output_bytes: 1_000_000_000,
      max_concurrent_tools: 1_000,
      tool_aliases: { Bash: 'bash' },
    };
    for (const raw of [
      JSON.parse(`{"__proto__": ${JSON.stringify(loosening)}}`),
      Object.create(loosening) as Record<string, unknown>,
    ]) {
      const warnings: string[] = [];
      const coordinator = createTestCoordinator({
        bare: true,
        logger: { ...silentLogger, warn: (m: string) => warnings.push(m) },
      });
      mount(coordinator, raw);
      const { config } = coordinator.get('orchestrator') as BasicOrchestrator;
      expect(config).toEqual(resolveConfig({}));
      expect(config.toolTimeoutMs).toBe(120_000);
      expect(config.toolAliases.size).toBe(0);
      expect(resolveConfig(raw)).toEqual(config);
      const own = Object.hasOwn(raw, '__proto__');
      expect(warnings).toEqual(own ? ["loop-basic: unknown config key '__proto__' is ignored"] : []);
    }
  });

  it('default_provider picks that provider when it is mounted, else falls back to priority', async () => {
    for (const [preferred, expected] of [
      ['b', 'from b'],
      ['missing', 'from a'],
    ]) {
      const coordinator = createTestCoordinator({ bare: true });
      const context = new MockContextManager();
      coordinator.mount('context', context);
      coordinator.mount('providers', new ScriptProvider([text('from a')], { name: 'a', priority: 1 }));
      coordinator.mount('providers', new ScriptProvider([text('from b')], { name: 'b', priority: 9 }));
      mount(coordinator, { default_provider: preferred });
      const result = await coordinator.get('orchestrator')!.execute('hi', {
        context,
        providers: coordinator.get('providers'),
        tools: coordinator.get('tools'),
        hooks: coordinator.hooks,
        coordinator,
      });
      expect(result).toBe(expected);
    }
  });
});

/** A loader that hands out in-process modules by id (the session's real loading path, minus npm). */
function loaderOf(modules: Record<string, MountFunction>): ModuleLoaderLike {
  return {
    async load(id, config = {}): Promise<LoadedModule> {
      const mountFn = modules[id];
      if (mountFn === undefined) throw new Error(`no module ${id}`);
      return { id, type: undefined, mount: async (coordinator: Coordinator) => mountFn(coordinator, config) };
    },
  };
}

describe('through an AmplifierSession', () => {
  function session(provider: ScriptProvider, tools: TestTool[], config: Record<string, unknown> = {}) {
    const context = new MockContextManager();
    const loader = loaderOf({
      'loop-basic': mount,
      'context-test': (c) => c.mount('context', context),
      'provider-test': (c) => c.mount('providers', provider, { name: 'test' }),
      'tools-test': (c) => {
        for (const tool of tools) c.mount('tools', tool);
      },
    });
    const s = new AmplifierSession(
      {
        session: { orchestrator: { module: 'loop-basic', config }, context: 'context-test' },
        providers: [{ module: 'provider-test' }],
        tools: [{ module: 'tools-test' }],
      },
      { loader, logger: silentLogger, sessionId: 's1' },
    );
    return { s, context };
  }

  it('runs a turn with a tool call and no hooks registered at all', async () => {
    const tool = new TestTool({
      name: 'echo',
      schema: { type: 'object', properties: { x: { type: 'string' } } },
    });
    const provider = new ScriptProvider([calls(['echo', { x: 'hi' }]), text('all done')]);
    const { s, context } = session(provider, [tool]);
    await using _ = s;
    expect(await s.execute('go')).toBe('all done');
    expect(tool.inputs).toEqual([{ x: 'hi' }]);
    expect(context.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(s.status.status).toBe('completed');
  });

  it('aborting the execute signal during a long tool run ends the turn with a result for every call', async () => {
    const started = deferred();
    const long = new TestTool({
      name: 'long',
      behave: (_input, { signal }) => {
        started.resolve();
        return untilAborted(signal, { success: false, error: { message: 'interrupted' } });
      },
    });
    const provider = new ScriptProvider([calls(['long'], ['long']), text('never')]);
    const { s, context } = session(provider, [long]);
    await using _ = s;
    const controller = new AbortController();
    const turn = s.execute('go', { signal: controller.signal });
    await within(started.promise, 'the long tool started');
    controller.abort();
    expect(await within(turn, 'the turn ended')).toBe('');
    expect(context.messages.filter((m) => m.role === 'tool')).toHaveLength(2);
    expect(context.messages.at(-1)!.content).toMatch(/cancelled/);
    expect(long.inputs).toHaveLength(1); // the second call (same no-profile tool) never started
    expect(s.status.status).toBe('cancelled');
    expect(provider.requests).toHaveLength(1);
  });
});
