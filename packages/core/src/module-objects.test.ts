/**
 * A session composed in code: `options.modules` maps the plan's ids to module
 * objects (namespaces, `{ mount }`, default exports, tools from defineTool),
 * mounted without the loader looking on disk.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  FakeOrchestrator,
  fakeProvider,
  MemoryContext,
  MemoryLoader,
  recordingLogger,
} from './__fixtures__/sessions.js';
import type { ModuleExports } from './contracts.js';
import { defineTool } from './define-tool.js';
import { AmplifierError } from './errors.js';
import type { ModuleObject } from './module-objects.js';
import type { MountPlan } from './mount-plan.js';
import { AmplifierSession } from './session.js';

let emptyDir: string;
beforeEach(() => {
  // No package.json, no node_modules: nothing could be found on disk here.
  emptyDir = mkdtempSync(path.join(os.tmpdir(), 'amp-objects-'));
});
afterEach(() => rmSync(emptyDir, { recursive: true, force: true }));

const plan = (extra: Partial<MountPlan> = {}): MountPlan => ({
  session: { orchestrator: 'loop-basic', context: 'context-simple' },
  providers: [{ module: 'provider-mock', config: { reply: 'hi' } }],
  tools: [{ module: 'add' }],
  ...extra,
});

/** Module objects shaped as imports give them: a namespace, a default export, a defined tool. */
function objects(log: string[] = []) {
  const orchestrator = new FakeOrchestrator();
  // The turn calls the tool the way an orchestrator does: by name, with the model's input.
  orchestrator.turn = async (prompt, run) => {
    const result = await run.tools.get('add')?.execute(JSON.parse(prompt));
    return JSON.stringify(result);
  };
  const loopBasic: ModuleExports = {
    mount(coordinator, config) {
      log.push(`mount loop-basic ${JSON.stringify(config)}`);
      coordinator.mount('orchestrator', orchestrator);
      return () => {
        log.push('cleanup loop-basic');
      };
    },
    onSessionReady() {
      log.push('ready loop-basic');
    },
  };
  const contextSimple = {
    default: { mount: (c) => c.mount('context', new MemoryContext()) } satisfies ModuleExports,
  };
  const providerMock: ModuleExports = {
    mount(coordinator, config) {
      log.push(`mount provider-mock ${JSON.stringify(config)}`);
      coordinator.mount('providers', fakeProvider('mock'));
    },
  };
  const add = defineTool({
    name: 'add',
    description: 'Adds two numbers.',
    input: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    },
    execute: ({ a, b }) => a + b,
  });
  const modules: Record<string, ModuleObject> = {
    'loop-basic': loopBasic,
    'context-simple': contextSimple,
    'provider-mock': providerMock,
    add,
  };
  return { modules, log, add };
}

describe('a session from module objects', () => {
  it('runs a turn in a directory with no package.json and no node_modules', async () => {
    const { modules, log } = objects();
    await using session = await AmplifierSession.create(plan(), {
      modules,
      baseDir: emptyDir,
      workingDir: emptyDir,
    });
    expect(await session.execute('{"a":2,"b":3}')).toBe('{"success":true,"output":5}');
    expect(session.failures).toEqual([]);
    expect(log).toEqual(['mount loop-basic {}', 'mount provider-mock {"reply":"hi"}', 'ready loop-basic']);
    expect(readdirSync(emptyDir)).toEqual([]);
  });

  it('never asks the loader for an id it was given, and asks it for every other id', async () => {
    const { modules } = objects();
    const loader = new MemoryLoader({
      'hooks-x': { mount: (c) => c.hooks.register('tool:pre', () => undefined, { name: 'x' }) },
    });
    const session = await AmplifierSession.create(plan({ hooks: [{ module: 'hooks-x' }] }), {
      modules,
      loader,
    });
    expect(loader.loads.map((l) => l.id)).toEqual(['hooks-x']);
    await session.cleanup();
    expect(loader.cleanups).toBe(1);
  });

  it('gives module objects their own copy of the plan config, and cleans them up in LIFO order', async () => {
    const { modules, log } = objects();
    const session = await AmplifierSession.create(
      {
        ...plan(),
        session: {
          orchestrator: { module: 'loop-basic', config: { max_iterations: 3 } },
          context: 'context-simple',
        },
      },
      { modules },
    );
    expect(log[0]).toBe('mount loop-basic {"max_iterations":3}');
    await session.cleanup();
    expect(log.at(-1)).toBe('cleanup loop-basic');
  });

  it('shares the modules with a sub-session built on the parent loader', async () => {
    const { modules } = objects();
    const parent = new AmplifierSession(plan(), { modules, baseDir: emptyDir });
    await using child = await AmplifierSession.create(plan(), {
      loader: parent.loader,
      parentId: parent.sessionId,
    });
    expect(await child.execute('{"a":1,"b":1}')).toBe('{"success":true,"output":2}');
  });

  it('keeps the plan plain JSON data (ids only)', () => {
    const { modules } = objects();
    const session = new AmplifierSession(plan(), { modules });
    expect(JSON.parse(JSON.stringify(session.config))).toEqual(session.config);
  });
});

describe('bad module objects', () => {
  it('refuses an orchestrator object without mount, saying what to pass', async () => {
    const { modules } = objects();
    const bad = { ...modules, 'loop-basic': { mount: 'nope' } as unknown as ModuleObject };
    const error = await AmplifierSession.create(plan(), { modules: bad }).catch((e: unknown) => e);
    expect(AmplifierError.is(error, 'MOUNT_FAILED')).toBe(true);
    expect(String((error as Error).message)).toMatch(
      /Module 'loop-basic' given in options.modules is an object without a mount function: pass the module's namespace/,
    );
  });

  it('skips (and reports) odd values in optional sections, never crashing', async () => {
    const { modules } = objects();
    const odd: unknown[] = [null, 42, 'tool-filesystem', [], { default: null }, () => {}];
    for (const value of odd) {
      const logger = recordingLogger();
      await using session = await AmplifierSession.create(plan(), {
        modules: { ...modules, add: value as ModuleObject },
        logger,
      });
      expect(session.failures).toHaveLength(1);
      expect(session.failures[0]).toMatchObject({ section: 'tools', module: 'add' });
      expect(AmplifierError.is(session.failures[0]!.error, 'MODULE_LOAD_FAILED')).toBe(true);
      expect(session.coordinator.get('tools').size).toBe(0);
    }
  });

  it('refuses a tool object outside the tools section, and config given to a tool object', async () => {
    const { modules, add } = objects();
    const asProvider = await AmplifierSession.create(
      plan({ providers: [{ module: 'add' }, { module: 'provider-mock' }] }),
      {
        modules,
        logger: recordingLogger(),
      },
    );
    expect(asProvider.failures[0]!.error).toMatchObject({
      code: 'MODULE_INCOMPATIBLE',
      message: expect.stringContaining(
        "Module 'add' is a tool object, but the mount plan uses it as a provider",
      ),
    });
    await asProvider.cleanup();
    const configured = await AmplifierSession.create(plan({ tools: [{ module: 'add', config: { x: 1 } }] }), {
      modules: { ...modules, add },
      logger: recordingLogger(),
    });
    expect(configured.failures[0]!.error).toMatchObject({
      code: 'MODULE_INCOMPATIBLE',
      message: expect.stringContaining('takes no config'),
    });
    await configured.cleanup();
  });

  it('does not serve an id the map only inherits', async () => {
    const { modules } = objects();
    const inherited = Object.assign(Object.create({ 'hooks-y': modules['loop-basic'] }), modules) as Record<
      string,
      ModuleObject
    >;
    const loader = new MemoryLoader({});
    const session = await AmplifierSession.create(plan({ hooks: [{ module: 'hooks-y' }] }), {
      modules: inherited,
      loader,
      logger: recordingLogger(),
    });
    expect(loader.loads.map((l) => l.id)).toEqual(['hooks-y']);
    expect(session.failures[0]!.error).toMatchObject({ code: 'MODULE_NOT_FOUND' });
    await session.cleanup();
  });
});
