import { describe, expect, it } from 'vitest';
import {
  basePlan,
  type FakeModule,
  FakeOrchestrator,
  fakeProvider,
  MemoryLoader,
  makeSession,
  record,
  recordingLogger,
  standardModules,
} from './__fixtures__/sessions.js';
import type { Coordinator } from './coordinator.js';
import { CancelledError, MountPlanError } from './errors.js';
import { dynamicEvent } from './hooks.js';
import { ModuleLoader } from './loader/loader.js';
import type { MountPlan } from './mount-plan.js';
import { AmplifierSession } from './session.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

// ------------------------------------------------------------ construction

describe('AmplifierSession: construction (J)', () => {
  it('J93: an empty or missing plan throws "Configuration is required" before loading anything', () => {
    const loader = new MemoryLoader({});
    for (const plan of [undefined, null, {}]) {
      expect(() => new AmplifierSession(plan as unknown as MountPlan, { loader })).toThrow(
        /Configuration is required/,
      );
    }
    expect(loader.loads).toEqual([]);
  });

  it('J94: a missing or empty session.orchestrator throws a MountPlanError at that path', () => {
    for (const session of [{ context: 'c' }, { orchestrator: '', context: 'c' }]) {
      try {
        new AmplifierSession({ session } as MountPlan, { loader: new MemoryLoader({}) });
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(MountPlanError);
        expect((error as MountPlanError).errors.map((e) => e.path)).toEqual(['session.orchestrator']);
        expect((error as Error).message).toContain('session.orchestrator');
      }
    }
  });

  it('J95: a missing or empty session.context throws a MountPlanError at that path', () => {
    for (const session of [{ orchestrator: 'o' }, { orchestrator: 'o', context: '' }]) {
      expect(() => new AmplifierSession({ session } as MountPlan, { loader: new MemoryLoader({}) })).toThrow(
        /session\.context (is required|must not be empty)/,
      );
    }
  });

  it('R/J: an invalid plan fails before any module loads, listing every error with its path', () => {
    const loader = new MemoryLoader({});
    expect(
      () =>
        new AmplifierSession(
          {
            ...basePlan(),
            tools: [
              { module: 'tool-a' },
              { module: 'tool-b', config: 'x' as unknown as Record<string, unknown> },
            ],
            hooks: [{} as { module: string }],
          },
          { loader },
        ),
    ).toThrow(
      'Invalid mount plan (2 errors):\n  - tools[1].config must be object\n  - hooks[0].module is required',
    );
    expect(loader.loads).toEqual([]);
  });

  it('J96: sessionId defaults to a fresh UUID v4; an explicit id is used as given', () => {
    const a = makeSession().session;
    const b = makeSession().session;
    expect(a.sessionId).toMatch(UUID_V4);
    expect(b.sessionId).toMatch(UUID_V4);
    expect(a.sessionId).not.toBe(b.sessionId);
    expect(makeSession(basePlan(), { sessionId: 'my-id' }).session.sessionId).toBe('my-id');
  });

  it('J97: status.session_id is the session id and status starts as running', () => {
    const { session } = makeSession(basePlan(), { sessionId: 's-1' });
    expect(session.status.session_id).toBe('s-1');
    expect(session.status.status).toBe('running');
    expect(Number.isNaN(Date.parse(session.status.started_at))).toBe(false);
    expect(session.isInitialized).toBe(false);
  });

  it('J98: every emit carries session_id and parent_id (null at top level) through the hook defaults', async () => {
    const { session } = makeSession(basePlan(), { sessionId: 'top' });
    expect(session.coordinator.hooks.getDefaultFields()).toEqual({ session_id: 'top', parent_id: null });
    const seen = record(session, 'custom:event');
    await session.coordinator.hooks.emit(dynamicEvent('custom:event'), { x: 1 });
    expect(seen[0]![1]).toMatchObject({ session_id: 'top', parent_id: null, x: 1 });

    const child = makeSession(basePlan(), { sessionId: 'child', parentId: 'top' }).session;
    expect(child.coordinator.hooks.getDefaultFields()).toEqual({ session_id: 'child', parent_id: 'top' });
    expect(child.parentId).toBe('top');
    expect(child.coordinator.parentId).toBe('top');
  });

  it('J99: a custom loader is used as-is; otherwise a ModuleLoader is created and given to the coordinator', () => {
    const { session, loader } = makeSession();
    expect(session.loader).toBe(loader);
    expect(session.coordinator.loader).toBe(loader);
    const plain = new AmplifierSession(basePlan());
    expect(plain.loader).toBeInstanceOf(ModuleLoader);
    expect(plain.coordinator.loader).toBe(plain.loader);
  });

  it("E52: the coordinator reflects the session (id, parent, the session's config object, loader)", () => {
    const plan = basePlan();
    const { session } = makeSession(plan, { sessionId: 's', parentId: 'p' });
    expect(session.coordinator.sessionId).toBe('s');
    expect(session.coordinator.parentId).toBe('p');
    expect(session.coordinator.config).toBe(session.config);
    // The session keeps its own copy of the plan's data.
    expect(session.config).toEqual(plan);
    expect(session.config).not.toBe(plan);
  });
});

// ------------------------------------------------------------- initialize

describe('AmplifierSession: initialize (K)', () => {
  it('K100: modules load in order: orchestrator, context, providers, tools, hooks (list order within each)', async () => {
    const { session, loader, log } = makeSession({
      session: { orchestrator: 'loop-basic', context: 'context-simple' },
      hooks: [{ module: 'hooks-x' }],
      tools: [{ module: 'tool-b' }, { module: 'tool-a' }],
      providers: [{ module: 'provider-openai' }, { module: 'provider-mock' }],
    });
    await session.initialize();
    expect(loader.loads.map((l) => l.id)).toEqual([
      'loop-basic',
      'context-simple',
      'provider-openai',
      'provider-mock',
      'tool-b',
      'tool-a',
      'hooks-x',
    ]);
    expect(loader.loads.map((l) => l.options.type)).toEqual([
      'orchestrator',
      'context',
      'provider',
      'provider',
      'tool',
      'tool',
      'hook',
    ]);
    expect(log.filter((l) => l.startsWith('mount')).map((l) => l.split(' ')[1])).toEqual([
      'loop-basic',
      'context-simple',
      'provider-openai',
      'provider-mock',
      'tool-b',
      'tool-a',
      'hooks-x',
    ]);
    expect(session.isInitialized).toBe(true);
  });

  it('K101: string form takes the source from session.*_source and the config from the top-level section', async () => {
    const { session, loader, log } = makeSession({
      session: {
        orchestrator: 'loop-basic',
        orchestrator_source: './loop',
        context: 'context-simple',
        context_source: 'file:///ctx',
      },
      orchestrator: { config: { max_iterations: 2 } },
      context: { config: { max_tokens: 9 } },
      providers: [{ module: 'provider-mock' }],
    });
    await session.initialize();
    expect(loader.loads[0]).toEqual({
      id: 'loop-basic',
      config: { max_iterations: 2 },
      options: { source: './loop', type: 'orchestrator' },
    });
    expect(loader.loads[1]).toEqual({
      id: 'context-simple',
      config: { max_tokens: 9 },
      options: { source: 'file:///ctx', type: 'context' },
    });
    expect(log).toContain('mount loop-basic {"max_iterations":2}');
  });

  it('K101: dict form takes module, source and config from the entry', async () => {
    const { session, loader } = makeSession({
      session: {
        orchestrator: { module: 'loop-basic', source: 'pkg-x', config: { a: 1 } },
        context: { module: 'context-simple' },
      },
      orchestrator: { config: { ignored: true } },
      providers: [{ module: 'provider-mock', source: './p', config: { model: 'm' } }],
    });
    await session.initialize();
    expect(loader.loads.slice(0, 3)).toEqual([
      { id: 'loop-basic', config: { a: 1 }, options: { source: 'pkg-x', type: 'orchestrator' } },
      { id: 'context-simple', config: {}, options: { type: 'context' } },
      { id: 'provider-mock', config: { model: 'm' }, options: { source: './p', type: 'provider' } },
    ]);
  });

  it('K102: mount gets (coordinator, config or {}); a returned function is registered as a cleanup', async () => {
    const seen: [Coordinator, Record<string, unknown>][] = [];
    const { session, log } = makeSession(
      { ...basePlan(), tools: [{ module: 'spy' }] },
      {
        extra: {
          spy: {
            mount(c, config) {
              seen.push([c, config]);
              return () => {
                log.push('cleanup spy');
              };
            },
          },
        },
      },
    );
    await session.initialize();
    expect(seen).toEqual([[session.coordinator, {}]]);
    await session.cleanup();
    expect(log.filter((l) => l.startsWith('cleanup'))).toEqual([
      'cleanup spy',
      'cleanup provider-mock',
      'cleanup loop-basic',
    ]);
  });

  it('K103: an orchestrator that fails to load or mount is fatal: "Cannot initialize without orchestrator: <msg>"', async () => {
    const missing = makeSession({
      ...basePlan(),
      session: { orchestrator: 'nope', context: 'context-simple' },
    });
    await expect(missing.session.initialize()).rejects.toThrow(
      "Cannot initialize without orchestrator: Module 'nope' not found",
    );
    expect(missing.loader.loads.map((l) => l.id)).toEqual(['nope']);
    expect(missing.session.isInitialized).toBe(false);

    const boom = new Error('bad config');
    const failing = makeSession(
      { ...basePlan(), session: { orchestrator: 'broken', context: 'context-simple' } },
      {
        extra: {
          broken: {
            mount() {
              throw boom;
            },
          },
        },
      },
    );
    const error = await failing.session.initialize().catch((e: unknown) => e);
    expect((error as Error).message).toBe('Cannot initialize without orchestrator: bad config');
    expect((error as Error).cause).toBe(boom);
  });

  it('K103: a context that fails is fatal: "Cannot initialize without context manager: <msg>"', async () => {
    const { session, loader } = makeSession({
      ...basePlan(),
      session: { orchestrator: 'loop-basic', context: 'nope' },
    });
    await expect(session.initialize()).rejects.toThrow(
      "Cannot initialize without context manager: Module 'nope' not found",
    );
    expect(loader.loads.map((l) => l.id)).toEqual(['loop-basic', 'nope']);
  });

  it('K104: a provider, tool or hook that fails is recorded in session.failures, logged and skipped', async () => {
    const crash = new Error('no API key');
    const { session, logger } = makeSession(
      {
        ...basePlan(),
        providers: [{ module: 'provider-missing' }, { module: 'provider-mock' }],
        tools: [{ module: 'tool-crash' }, { module: 'tool-a' }],
        hooks: [{ module: 'hooks-missing' }, { module: 'hooks-x' }],
      },
      {
        extra: {
          'tool-crash': {
            mount() {
              throw crash;
            },
          },
        },
      },
    );
    await session.initialize();
    expect(session.failures.map((f) => [f.section, f.module])).toEqual([
      ['providers', 'provider-missing'],
      ['tools', 'tool-crash'],
      ['hooks', 'hooks-missing'],
    ]);
    expect(session.failures[1]!.error).toBe(crash);
    expect([...session.coordinator.get('providers').keys()]).toEqual(['mock']);
    expect([...session.coordinator.get('tools').keys()]).toEqual(['a']);
    expect(session.coordinator.hooks.listHandlers('tool:pre')).toEqual({ 'tool:pre': ['x'] });
    expect(
      logger.lines.some(
        (l) => l.startsWith('warn:') && l.includes("tool 'tool-crash'") && l.includes('no API key'),
      ),
    ).toBe(true);
  });

  it('K105: an entry without module is not skipped silently: the plan is rejected with its path (deliberate)', () => {
    expect(() =>
      makeSession({ ...basePlan(), tools: [{ config: {} } as unknown as { module: string }] }),
    ).toThrow('tools[0].module is required');
  });

  it('K106: the agents section is never loaded or mounted', async () => {
    const { session, loader } = makeSession({
      ...basePlan(),
      agents: { explorer: { providers: [{ module: 'provider-openai' }], tools: [{ module: 'tool-a' }] } },
    });
    await session.initialize();
    expect(loader.loads.map((l) => l.id)).toEqual(['loop-basic', 'context-simple', 'provider-mock']);
  });

  it('K107: initialize is idempotent, including concurrent calls', async () => {
    const { session, loader } = makeSession();
    await Promise.all([session.initialize(), session.initialize()]);
    await session.initialize();
    expect(loader.loads).toHaveLength(3);
  });

  it('K108: a child session emits session:fork {parent, session_id} after every module is mounted', async () => {
    const { session } = makeSession(basePlan(), { sessionId: 'child', parentId: 'parent' });
    let toolsAtFork = -1;
    let providersAtFork = -1;
    const seen = record(session, 'session:fork');
    session.coordinator.hooks.register('session:fork', () => {
      providersAtFork = session.coordinator.get('providers').size;
      toolsAtFork = session.coordinator.get('tools').size;
    });
    await session.initialize();
    expect(seen).toHaveLength(1);
    expect(seen[0]![1]).toMatchObject({ parent: 'parent', session_id: 'child', parent_id: 'parent' });
    expect(seen[0]![1]).not.toHaveProperty('metadata');
    expect(providersAtFork).toBe(1);
    expect(toolsAtFork).toBe(0);
    await session.initialize();
    expect(seen).toHaveLength(1);
  });

  it('K108: a top-level session emits no session:fork', async () => {
    const { session } = makeSession();
    const seen = record(session, 'session:fork');
    await session.initialize();
    expect(seen).toEqual([]);
  });

  it('K108/L115: session:fork carries metadata and a redacted raw plan when configured', async () => {
    const plan: MountPlan = {
      session: {
        orchestrator: 'loop-basic',
        context: 'context-simple',
        metadata: { user: 'ann' },
        raw: true,
      },
      providers: [{ module: 'provider-mock', config: { api_key: 'sk-secret', model: 'm' } }],
    };
    const { session } = makeSession(plan, { parentId: 'p' });
    const seen = record(session, 'session:fork');
    await session.initialize();
    expect(seen[0]![1].metadata).toEqual({ user: 'ann' });
    const raw = seen[0]![1].raw as MountPlan;
    expect(raw.providers?.[0]?.config).toEqual({ api_key: '[REDACTED]', model: 'm' });
    expect(plan.providers?.[0]?.config?.api_key).toBe('sk-secret');
  });

  it('K109: onSessionReady runs after every module is mounted, in mount order, before session:fork; failed mounts are left out', async () => {
    const order: string[] = [];
    const ready = (name: string): FakeModule['onSessionReady'] =>
      async function (this: unknown, c: Coordinator) {
        order.push(`ready ${name} (tools: ${c.get('tools').size})`);
      };
    const { session } = makeSession(
      {
        session: { orchestrator: 'loop-r', context: 'context-simple' },
        providers: [{ module: 'provider-r' }],
        tools: [{ module: 'tool-fails' }, { module: 'tool-r' }],
      },
      {
        parentId: 'p',
        extra: {
          'loop-r': {
            mount(c) {
              c.mount('orchestrator', new FakeOrchestrator());
            },
            onSessionReady: ready('loop'),
          },
          'provider-r': {
            mount(c) {
              c.mount('providers', fakeProvider('r'));
            },
            onSessionReady: ready('provider'),
          },
          'tool-fails': {
            mount() {
              throw new Error('no');
            },
            onSessionReady: ready('tool-fails'),
          },
          'tool-r': {
            mount(c) {
              c.mount('tools', { name: 'r', description: 'r', execute: async () => ({ success: true }) });
            },
            onSessionReady: ready('tool'),
          },
        },
      },
    );
    session.coordinator.hooks.register('session:fork', () => {
      order.push('session:fork');
    });
    await session.initialize();
    expect(order).toEqual([
      'ready loop (tools: 1)',
      'ready provider (tools: 1)',
      'ready tool (tools: 1)',
      'session:fork',
    ]);
  });

  it('K109: onSessionReady callbacks run one at a time', async () => {
    const order: string[] = [];
    const slow = (name: string): FakeModule => ({
      mount(c) {
        c.mount('tools', { name, description: name, execute: async () => ({ success: true }) });
      },
      async onSessionReady() {
        order.push(`start ${name}`);
        await new Promise<void>((resolve) => setImmediate(resolve));
        order.push(`end ${name}`);
      },
    });
    const { session } = makeSession(
      { ...basePlan(), tools: [{ module: 't1' }, { module: 't2' }] },
      { extra: { t1: slow('t1'), t2: slow('t2') } },
    );
    await session.initialize();
    expect(order).toEqual(['start t1', 'end t1', 'start t2', 'end t2']);
  });

  it('K110: a failing onSessionReady is logged, emits module:on_session_ready_failed and the rest still run', async () => {
    const order: string[] = [];
    const { session, logger } = makeSession(
      { ...basePlan(), tools: [{ module: 'bad-ready' }, { module: 'good-ready' }] },
      {
        extra: {
          'bad-ready': {
            mount() {},
            onSessionReady() {
              throw new Error('not ready');
            },
          },
          'good-ready': {
            mount() {},
            onSessionReady() {
              order.push('good');
            },
          },
        },
      },
    );
    const seen = record(session, 'module:on_session_ready_failed');
    // A handler of the failure event that throws must not break initialization either.
    session.coordinator.hooks.register('module:on_session_ready_failed', () => {
      throw new Error('logger down');
    });
    await session.initialize();
    expect(seen.map(([, d]) => ({ module_id: d.module_id, error: d.error }))).toEqual([
      { module_id: 'bad-ready', error: 'not ready' },
    ]);
    expect(order).toEqual(['good']);
    expect(
      logger.lines.some((l) => l.startsWith('warn:') && l.includes('bad-ready') && l.includes('not ready')),
    ).toBe(true);
    expect(session.isInitialized).toBe(true);
  });

  it('K111: a provider module repeated without instance_id fails before anything loads', () => {
    const loader = new MemoryLoader({});
    expect(
      () =>
        new AmplifierSession(
          { ...basePlan(), providers: [{ module: 'provider-openai' }, { module: 'provider-openai' }] },
          { loader },
        ),
    ).toThrow(/instance_id/);
    expect(loader.loads).toEqual([]);
  });

  it('K112: a provider with instance_id is moved there; the default name is restored to its previous occupant', async () => {
    const { session, loader } = makeSession({
      ...basePlan(),
      providers: [
        { module: 'provider-openai', config: { model: 'base' } },
        { module: 'provider-openai', instance_id: 'openai-fast', config: { model: 'fast' } },
        { module: 'provider-openai', instance_id: 'openai-smart', config: { model: 'smart' } },
      ],
    });
    await session.initialize();
    const providers = session.coordinator.get('providers');
    expect([...providers.keys()].sort()).toEqual(['openai', 'openai-fast', 'openai-smart']);
    const model = (name: string) =>
      (providers.get(name) as unknown as { config: { model: string } }).config.model;
    expect(model('openai')).toBe('base');
    expect(model('openai-fast')).toBe('fast');
    expect(model('openai-smart')).toBe('smart');
    expect(loader.loads.slice(2).map((l) => l.config)).toEqual([
      { model: 'base' },
      { model: 'fast' },
      { model: 'smart' },
    ]);
    expect(session.failures).toEqual([]);
  });

  it('K112: with nothing at the default name before, the default name is removed after the move', async () => {
    const { session } = makeSession({
      ...basePlan(),
      providers: [{ module: 'provider-openai', instance_id: 'work' }, { module: 'provider-mock' }],
    });
    await session.initialize();
    expect([...session.coordinator.get('providers').keys()].sort()).toEqual(['mock', 'work']);
  });

  it('K112: no remapping when instance_id equals the default name', async () => {
    const { session } = makeSession({
      ...basePlan(),
      providers: [{ module: 'provider-openai', instance_id: 'openai' }],
    });
    await session.initialize();
    expect([...session.coordinator.get('providers').keys()]).toEqual(['openai']);
  });

  it('K112: a provider that does not mount under its default name cannot be renamed: recorded as a failure', async () => {
    const { session } = makeSession(
      {
        ...basePlan(),
        providers: [{ module: 'provider-odd', instance_id: 'x' }, { module: 'provider-mock' }],
      },
      {
        extra: {
          'provider-odd': {
            mount(c) {
              c.mount('providers', fakeProvider('something-else'));
            },
          },
        },
      },
    );
    await session.initialize();
    expect(session.failures.map((f) => f.module)).toEqual(['provider-odd']);
    expect(String((session.failures[0]!.error as Error).message)).toMatch(/default name 'odd'/);
  });

  it('initialize registers the session.working_dir capability', async () => {
    const { session } = makeSession(basePlan(), { workingDir: '/work/here' });
    await session.initialize();
    expect(session.coordinator.getCapability('session.working_dir')).toBe('/work/here');
  });
});

// ---------------------------------------------------------------- execute

describe('AmplifierSession: execute (L)', () => {
  it('L113: execute before initialize initializes first (PY behaviour, chosen)', async () => {
    const { session, loader } = makeSession();
    expect(await session.execute('hello')).toBe('echo: hello');
    expect(session.isInitialized).toBe(true);
    expect(loader.loads).toHaveLength(3);
  });

  it('L114: session:start {session_id, parent_id} is emitted once per session, across many executes', async () => {
    const { session } = makeSession(basePlan(), { sessionId: 's' });
    const seen = record(session, 'session:start', 'session:resume');
    await session.execute('one');
    await session.execute('two');
    await session.execute('three');
    expect(seen.map(([e]) => e)).toEqual(['session:start']);
    expect(seen[0]![1]).toMatchObject({ session_id: 's', parent_id: null });
    expect(seen[0]![1]).not.toHaveProperty('metadata');
    expect(seen[0]![1]).not.toHaveProperty('raw');
  });

  it('L114: a resumed session emits session:resume instead, once', async () => {
    const { session } = makeSession(basePlan(), { isResumed: true, sessionId: 'r' });
    const seen = record(session, 'session:start', 'session:resume');
    await session.execute('a');
    await session.execute('b');
    expect(seen.map(([e]) => e)).toEqual(['session:resume']);
    expect(seen[0]![1]).toMatchObject({ session_id: 'r', parent_id: null });
  });

  it('L115: session.metadata is passed through when non-empty, left out when absent or empty', async () => {
    const withMeta = makeSession({
      ...basePlan(),
      session: { ...basePlan().session, metadata: { team: 'x' } },
    });
    const seen = record(withMeta.session, 'session:start');
    await withMeta.session.execute('p');
    expect(seen[0]![1].metadata).toEqual({ team: 'x' });

    const empty = makeSession({ ...basePlan(), session: { ...basePlan().session, metadata: {} } });
    const seenEmpty = record(empty.session, 'session:start');
    await empty.session.execute('p');
    expect(seenEmpty[0]![1]).not.toHaveProperty('metadata');
  });

  it('L115: session.raw adds a redacted copy of the plan as raw', async () => {
    const plan: MountPlan = {
      session: { orchestrator: 'loop-basic', context: 'context-simple', raw: true },
      providers: [
        { module: 'provider-mock', config: { api_key: 'sk-123', token: 't', nested: { password: 'p' } } },
      ],
    };
    const { session } = makeSession(plan);
    const seen = record(session, 'session:start');
    await session.execute('p');
    expect((seen[0]![1].raw as MountPlan).providers?.[0]?.config).toEqual({
      api_key: '[REDACTED]',
      token: '[REDACTED]',
      nested: { password: '[REDACTED]' },
    });
    expect(plan.providers?.[0]?.config?.api_key).toBe('sk-123');
  });

  it('L116: no orchestrator, no context or no providers mounted each fail with the reference message', async () => {
    const noop: FakeModule = { mount() {} };
    const noOrch = makeSession(
      { ...basePlan(), session: { orchestrator: 'noop', context: 'context-simple' } },
      { extra: { noop } },
    );
    await expect(noOrch.session.execute('p')).rejects.toThrow('No orchestrator module mounted');

    const noContext = makeSession(
      { ...basePlan(), session: { orchestrator: 'loop-basic', context: 'noop' } },
      { extra: { noop } },
    );
    await expect(noContext.session.execute('p')).rejects.toThrow('No context manager mounted');

    const noProviders = makeSession({
      session: basePlan().session,
      providers: [{ module: 'provider-missing' }],
    });
    await expect(noProviders.session.execute('p')).rejects.toThrow(/^No providers mounted/);
    expect(noProviders.orchestrator.runs).toEqual([]);
  });

  it('L117: the orchestrator gets the prompt and {context, providers, tools, hooks, coordinator, signal}; its result is returned as-is', async () => {
    const { session, orchestrator, context } = makeSession({ ...basePlan(), tools: [{ module: 'tool-a' }] });
    orchestrator.turn = async () => 'final answer';
    expect(await session.execute('do it')).toBe('final answer');
    const { prompt, run } = orchestrator.runs[0]!;
    expect(prompt).toBe('do it');
    expect(run.context).toBe(context);
    expect(run.providers).toBe(session.coordinator.get('providers'));
    expect(run.tools).toBe(session.coordinator.get('tools'));
    expect(run.hooks).toBe(session.coordinator.hooks);
    expect(run.coordinator).toBe(session.coordinator);
    expect(run.signal).toBe(session.coordinator.cancellation.signal);
    expect(run.signal?.aborted).toBe(false);
  });

  it('L118: success sets status completed', async () => {
    const { session } = makeSession();
    await session.execute('p');
    expect(session.status.status).toBe('completed');
  });

  it('L118: cancellation requested during a successful run gives status cancelled and cancel:completed {was_immediate}', async () => {
    const { session, orchestrator } = makeSession();
    const seen = record(session, 'cancel:completed');
    orchestrator.turn = async (_p, run) => {
      await run.coordinator.requestCancel();
      return 'stopped early';
    };
    expect(await session.execute('p')).toBe('stopped early');
    expect(session.status.status).toBe('cancelled');
    expect(seen).toHaveLength(1);
    expect(seen[0]![1]).toMatchObject({ was_immediate: false });
    expect(seen[0]![1]).not.toHaveProperty('error');
  });

  it('L119: a throwing orchestrator after cancellation gives cancelled, cancel:completed {was_immediate, error}, and re-throws', async () => {
    const { session, orchestrator } = makeSession();
    const seen = record(session, 'cancel:completed');
    const error = new CancelledError('tool interrupted');
    orchestrator.turn = async (_p, run) => {
      await run.coordinator.requestCancel({ immediate: true });
      throw error;
    };
    await expect(session.execute('p')).rejects.toBe(error);
    expect(session.status.status).toBe('cancelled');
    expect(seen[0]![1]).toMatchObject({ was_immediate: true, error: 'tool interrupted' });
  });

  it('L120: a throwing orchestrator without cancellation gives failed with last_error, and re-throws', async () => {
    const { session, orchestrator } = makeSession();
    const seen = record(session, 'cancel:completed');
    const error = new Error('provider exploded');
    orchestrator.turn = async () => {
      throw error;
    };
    await expect(session.execute('p')).rejects.toBe(error);
    expect(session.status.status).toBe('failed');
    expect(session.status.last_error).toEqual({ message: 'provider exploded' });
    expect(seen).toEqual([]);
  });

  it('L121: an error whose message cannot be read still produces a status message', async () => {
    const { session, orchestrator } = makeSession();
    const weird = Object.create(Error.prototype, {
      message: {
        get() {
          throw new Error('unreadable');
        },
      },
    });
    orchestrator.turn = async () => {
      throw weird;
    };
    await expect(session.execute('p')).rejects.toBe(weird);
    expect(session.status.status).toBe('failed');
    expect(typeof session.status.last_error?.message).toBe('string');
    expect(session.status.last_error?.message.length).toBeGreaterThan(0);
  });

  it('L: status goes running -> completed -> running -> failed -> running -> cancelled over turns', async () => {
    const { session, orchestrator } = makeSession();
    const during: string[] = [];
    orchestrator.turn = async () => {
      during.push(session.status.status);
      return 'ok';
    };
    await session.execute('1');
    expect(session.status.status).toBe('completed');
    orchestrator.turn = async () => {
      during.push(session.status.status);
      throw new Error('x');
    };
    await session.execute('2').catch(() => {});
    expect(session.status.status).toBe('failed');
    orchestrator.turn = async (_p, run) => {
      during.push(session.status.status);
      await run.coordinator.requestCancel();
      return '';
    };
    await session.execute('3');
    expect(session.status.status).toBe('cancelled');
    expect(during).toEqual(['running', 'running', 'running']);
  });

  it('L: each execute starts a fresh turn: cancellation reset (new signal) and injection counter zeroed', async () => {
    const { session, orchestrator } = makeSession();
    orchestrator.turn = async (_p, run) => {
      await run.coordinator.processHookResult(
        { action: 'inject_context', context_injection: 'x'.repeat(8), ephemeral: true },
        'e',
      );
      await run.coordinator.requestCancel({ immediate: true });
      return '';
    };
    await session.execute('1');
    const firstSignal = orchestrator.runs[0]!.run.signal!;
    expect(firstSignal.aborted).toBe(true);
    orchestrator.turn = async (_p, run) => {
      expect(run.coordinator.cancellation.state).toBe('none');
      expect(run.coordinator.turnInjectionTokens).toBe(0);
      return 'fresh';
    };
    expect(await session.execute('2')).toBe('fresh');
    const secondSignal = orchestrator.runs[1]!.run.signal!;
    expect(secondSignal).not.toBe(firstSignal);
    expect(secondSignal.aborted).toBe(false);
    expect(session.status.status).toBe('completed');
  });

  it('L: an already-aborted signal is an immediate cancellation before the orchestrator starts', async () => {
    const { session, orchestrator } = makeSession();
    const order: string[] = [];
    session.coordinator.hooks.register('cancel:requested', (_e, d) => {
      order.push(`cancel:requested ${String(d.level)}`);
    });
    session.coordinator.hooks.register('cancel:completed', (_e, d) => {
      order.push(`cancel:completed ${String(d.was_immediate)}`);
    });
    session.coordinator.cancellation.onCancel(() => {
      order.push('cancel callback');
    });
    orchestrator.turn = async (_p, run) => {
      order.push(`orchestrator sees aborted=${String(run.signal?.aborted)}`);
      return 'nothing done';
    };
    await session.execute('p', { signal: AbortSignal.abort() });
    expect(order).toEqual([
      'cancel:requested immediate',
      'cancel callback',
      'orchestrator sees aborted=true',
      'cancel:completed true',
    ]);
    expect(session.status.status).toBe('cancelled');
  });

  it('L: a signal aborted during the run cancels immediately: run.signal aborts and the turn ends cancelled', async () => {
    const { session, orchestrator } = makeSession();
    const controller = new AbortController();
    const seen = record(session, 'cancel:requested', 'cancel:completed');
    orchestrator.turn = (_p, run) =>
      new Promise<string>((_resolve, reject) => {
        run.signal?.addEventListener('abort', () => reject(run.signal?.reason), { once: true });
        controller.abort(new Error('user pressed Ctrl+C twice'));
      });
    const error = await session.execute('p', { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CancelledError);
    expect(session.status.status).toBe('cancelled');
    expect(seen.map(([e, d]) => [e, d.level ?? d.was_immediate])).toEqual([
      ['cancel:requested', 'immediate'],
      ['cancel:completed', true],
    ]);
  });

  it('L: the caller’s signal is released after the turn (a later abort does nothing)', async () => {
    const { session } = makeSession();
    const controller = new AbortController();
    await session.execute('p', { signal: controller.signal });
    controller.abort();
    expect(session.coordinator.cancellation.isCancelled).toBe(false);
  });
});

// ---------------------------------------------------------------- cleanup

describe('AmplifierSession: cleanup (M)', () => {
  it('M122: cleanup runs the coordinator cleanups (LIFO) and then the loader cleanup', async () => {
    const { session, loader, log } = makeSession();
    await session.initialize();
    const original = loader.cleanup.bind(loader);
    loader.cleanup = () => {
      log.push('loader cleanup');
      original();
    };
    await session.cleanup();
    expect(log.filter((l) => l.includes('cleanup'))).toEqual([
      'cleanup provider-mock',
      'cleanup loop-basic',
      'loader cleanup',
    ]);
  });

  it('M122: the loader cleanup runs even when a coordinator cleanup re-throws a fatal error', async () => {
    const fatal = new CancelledError('cleanup interrupted');
    const { session, loader } = makeSession(
      { ...basePlan(), tools: [{ module: 'fatal' }] },
      {
        extra: {
          fatal: {
            mount() {
              return () => {
                throw fatal;
              };
            },
          },
        },
      },
    );
    await session.initialize();
    await expect(session.cleanup()).rejects.toBe(fatal);
    expect(loader.cleanups).toBe(1);
  });

  it('M123: session:end {session_id, status} is emitted once, before the cleanups', async () => {
    const { session, log } = makeSession(basePlan(), { sessionId: 'e' });
    session.coordinator.hooks.register('session:end', (_e, d) => {
      log.push(`session:end ${String(d.session_id)} ${String(d.status)}`);
    });
    await session.execute('p');
    await session.cleanup();
    await session.cleanup();
    expect(log.filter((l) => l.startsWith('session:end') || l.startsWith('cleanup'))).toEqual([
      'session:end e completed',
      'cleanup provider-mock',
      'cleanup loop-basic',
    ]);
    expect(session.status.ended_at).toBeDefined();
    expect(session.isInitialized).toBe(false);
  });

  it('M123: an uninitialized session emits no session:end', async () => {
    const { session, loader } = makeSession();
    const seen = record(session, 'session:end');
    await session.cleanup();
    expect(seen).toEqual([]);
    expect(loader.cleanups).toBe(1);
  });

  it('M123: a failing session:end handler does not stop the cleanups', async () => {
    const { session, log } = makeSession();
    session.coordinator.hooks.register('session:end', () => {
      throw new Error('handler down');
    });
    await session.initialize();
    await session.cleanup();
    expect(log).toContain('cleanup loop-basic');
  });

  it('M124: AmplifierSession.create initializes; on failure it cleans up what was mounted and re-throws', async () => {
    const std = standardModules();
    const ok = await AmplifierSession.create(basePlan(), {
      loader: new MemoryLoader(std.modules),
      logger: recordingLogger(),
    });
    expect(ok.isInitialized).toBe(true);
    await ok.cleanup();

    const failing = standardModules();
    const loader = new MemoryLoader(failing.modules);
    await expect(
      AmplifierSession.create(
        { ...basePlan(), session: { orchestrator: 'loop-basic', context: 'missing' } },
        { loader, logger: recordingLogger() },
      ),
    ).rejects.toThrow('Cannot initialize without context manager');
    expect(failing.log).toContain('cleanup loop-basic');
    expect(loader.cleanups).toBe(1);
  });

  it('M124: await using cleans the session up at the end of the scope (Symbol.asyncDispose)', async () => {
    const std = standardModules();
    const ends: string[] = [];
    {
      await using session = await AmplifierSession.create(basePlan(), {
        loader: new MemoryLoader(std.modules),
        logger: recordingLogger(),
      });
      session.coordinator.hooks.register('session:end', () => {
        ends.push('session:end');
      });
      expect(await session.execute('inside')).toBe('echo: inside');
      expect(std.log).not.toContain('cleanup loop-basic');
    }
    expect(ends).toEqual(['session:end']);
    expect(std.log).toContain('cleanup loop-basic');
  });

  it('M124: Symbol.asyncDispose is cleanup', async () => {
    const { session, loader } = makeSession();
    await session.initialize();
    await session[Symbol.asyncDispose]();
    expect(loader.cleanups).toBe(1);
    expect(session.isInitialized).toBe(false);
  });
});
