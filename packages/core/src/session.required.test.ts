import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSession } from './__fixtures__/sessions.js';
import type { Logger } from './contracts.js';
import { AmplifierError } from './errors.js';
import {
  fixtureLog,
  installNpm,
  makeTempDir,
  removeDir,
  writeSessionProject,
} from './loader/__fixtures__/trees.js';
import { clearDiscoveryCache } from './loader/discovery.js';
import { validateMountPlan } from './mount-plan.js';
import { AmplifierSession } from './session.js';

let root: string;
const logger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

beforeEach(() => {
  root = makeTempDir('amp-required-');
  clearDiscoveryCache();
});
afterEach(() => {
  clearDiscoveryCache();
  removeDir(root);
});

/** A policy hook package; `mountBody` runs inside its mount. */
function installPolicy(manifest: Record<string, unknown>, mountBody: string, coreRange?: string): void {
  installNpm(root, [
    {
      name: '@amplifier/hooks-policy',
      amplifier: { module: 'hooks-policy', type: 'hook', ...manifest },
      ...(coreRange !== undefined && { coreRange }),
      files: {
        'index.js': `export async function mount(coordinator, config) {
  coordinator.hooks.register('tool:pre', () => ({ action: 'deny', reason: 'policy' }), { name: 'policy' });
  ${mountBody}
}`,
      },
    },
  ]);
}

async function runWithPolicy(): Promise<{ error: unknown; toolCalls: number; session: AmplifierSession }> {
  const plan = writeSessionProject(root);
  plan.hooks = [...(plan.hooks ?? []), { module: 'hooks-policy' }];
  const session = new AmplifierSession(plan, { baseDir: root, logger, workingDir: root });
  const before = fixtureLog().events.length;
  let error: unknown;
  try {
    await session.execute('please echo');
  } catch (caught) {
    error = caught;
  } finally {
    await session.cleanup();
  }
  const events = fixtureLog().events.slice(before);
  return { error, toolCalls: events.filter((e) => e === 'hook:tool:pre').length, session };
}

describe('required modules: a session never runs without them', () => {
  it('a package declaring "required": true whose mount throws (an invalid rule) stops the session before any tool runs', async () => {
    installPolicy({ required: true }, "throw new Error('invalid rule: /[/ is not a regex');");
    const { error, toolCalls, session } = await runWithPolicy();
    expect(AmplifierError.is(error) && error.code).toBe('MOUNT_FAILED');
    expect(String((error as Error).message)).toMatch(
      /hook 'hooks-policy' is required \(its package declares "required": true\).*invalid rule/,
    );
    expect(toolCalls).toBe(0);
    expect(session.failures.map((f) => f.module)).toEqual(['hooks-policy']);
  });

  it('the same module without "required" is skipped and the session runs (the reference behaviour)', async () => {
    installPolicy({}, "throw new Error('invalid rule');");
    const { error, toolCalls } = await runWithPolicy();
    expect(error).toBeUndefined();
    expect(toolCalls).toBe(1);
  });

  it('a required package that cannot be loaded (its core peer range does not match) stops the session', async () => {
    installPolicy({ required: true }, '', '>=99.0.0');
    const { error, toolCalls } = await runWithPolicy();
    expect(String((error as Error).message)).toMatch(
      /'hooks-policy' is required .*needs @amplifier\/core >=99/,
    );
    expect(toolCalls).toBe(0);
  });

  it('a required package whose onSessionReady throws stops the session', async () => {
    installNpm(root, [
      {
        name: '@amplifier/hooks-policy',
        amplifier: { module: 'hooks-policy', type: 'hook', required: true },
        files: {
          'index.js': `export async function mount() {}
export async function onSessionReady() { throw new Error('policy store unreadable'); }`,
        },
      },
    ]);
    const { error, toolCalls } = await runWithPolicy();
    expect(String((error as Error).message)).toMatch(/'hooks-policy' is required .*policy store unreadable/);
    expect(toolCalls).toBe(0);
  });

  it('"required": true in the mount plan makes any module required, even one that is not installed', async () => {
    const { session } = makeSession({
      session: { orchestrator: 'loop-basic', context: 'context-simple' },
      providers: [{ module: 'provider-mock' }],
      hooks: [{ module: 'hooks-missing', required: true }],
    });
    await expect(session.execute('hi')).rejects.toThrow(
      /hook 'hooks-missing' is required \(required: true in the mount plan\) and was not loaded: Module 'hooks-missing' not found/,
    );
  });

  it('a failed start is final: execute after it fails the same way, nothing is mounted twice, no turn runs', async () => {
    let mounts = 0;
    let tools = 0;
    const { session, orchestrator } = makeSession(
      {
        session: { orchestrator: 'loop-basic', context: 'context-simple' },
        providers: [{ module: 'provider-mock' }],
        hooks: [{ module: 'hooks-flaky', required: true }],
      },
      {
        extra: {
          'hooks-flaky': {
            mount() {
              mounts++;
              if (mounts === 1) throw new Error('policy store busy');
            },
          },
        },
      },
    );
    orchestrator.turn = async () => {
      tools++;
      return 'ran';
    };
    const first = await session.initialize().catch((error: unknown) => error);
    expect(String((first as Error).message)).toMatch(/'hooks-flaky' is required .*policy store busy/);
    await expect(session.execute('go')).rejects.toBe(first);
    await expect(session.initialize()).rejects.toBe(first);
    expect(mounts).toBe(1);
    expect(tools).toBe(0);
    await session.cleanup();
  });

  it('the plan key and the manifest key validate; a non-boolean is refused with its path', () => {
    const plan = {
      session: { orchestrator: 'a', context: 'b' },
      tools: [{ module: 't', required: true }],
    };
    expect(validateMountPlan(plan)).toEqual({ valid: true, errors: [], warnings: [] });
    expect(validateMountPlan({ ...plan, tools: [{ module: 't', required: 'yes' }] }).errors).toEqual([
      { path: 'tools[0].required', message: 'must be boolean' },
    ]);
  });
});
