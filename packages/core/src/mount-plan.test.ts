import { describe, expect, it } from 'vitest';
import { MountPlanError } from './errors.js';
import { assertMountPlan, type MountPlan, resolveSessionModule, validateMountPlan } from './mount-plan.js';

const minimal = { session: { orchestrator: 'loop-basic', context: 'context-simple' } };

function errorsOf(plan: unknown): string[] {
  return validateMountPlan(plan).errors.map((e) => `${e.path} ${e.message}`);
}

describe('mount plan validation (R)', () => {
  it('R150: a plan that is not an object (null included) fails at the root, and validation stops there', () => {
    for (const plan of [null, undefined, 'plan', 42, [], true]) {
      const result = validateMountPlan(plan);
      expect(result.valid, String(plan)).toBe(false);
      expect(result.errors).toEqual([
        { path: '', message: expect.stringContaining('must be an object (a dict)') },
      ]);
      expect(result.warnings).toEqual([]);
    }
  });

  it('R151: a missing or non-object session, or a missing orchestrator or context, is an error with its path', () => {
    expect(errorsOf({})).toEqual(['session is required']);
    expect(errorsOf({ session: 'loop-basic' })).toEqual(['session must be object']);
    expect(errorsOf({ session: {} })).toEqual([
      'session.orchestrator is required',
      'session.context is required',
    ]);
    expect(errorsOf({ session: { orchestrator: 'o' } })).toEqual(['session.context is required']);
    expect(errorsOf({ session: { context: 'c' } })).toEqual(['session.orchestrator is required']);
  });

  it('R152: module specs must be objects with a non-empty string module; config an object; source a string', () => {
    expect(
      errorsOf({
        ...minimal,
        providers: ['provider-mock'],
        tools: [{ module: 'ok' }, { config: {} }, { module: 7 }, { module: '' }],
        hooks: [
          { module: 'h', config: 'x' },
          { module: 'h2', source: 5 },
        ],
      }),
    ).toEqual([
      'providers[0] must be object',
      'tools[1].module is required',
      'tools[2].module must be string',
      'tools[3].module must not be empty',
      'hooks[0].config must be object',
      'hooks[1].source must be string',
    ]);
  });

  it('R152: the example from the issue: tools[1].config must be object', () => {
    expect(errorsOf({ ...minimal, tools: [{ module: 'a' }, { module: 'b', config: 'x' }] })).toEqual([
      'tools[1].config must be object',
    ]);
  });

  it('R153: providers, tools and hooks must be lists; empty lists pass; agents is an object, not a list', () => {
    expect(errorsOf({ ...minimal, providers: {}, tools: 'x', hooks: null })).toEqual([
      'providers must be array',
      'tools must be array',
      'hooks must be array',
    ]);
    expect(validateMountPlan({ ...minimal, providers: [], tools: [], hooks: [] }).valid).toBe(true);
    expect(validateMountPlan({ ...minimal, agents: { explorer: { tools: [] } } }).valid).toBe(true);
    expect(errorsOf({ ...minimal, agents: [] })).toEqual(['agents must be object']);
  });

  it('R154: unknown top-level sections and unknown spec keys are warnings only; the plan still passes', () => {
    const result = validateMountPlan({
      ...minimal,
      ui: { theme: 'dark' },
      tools: [{ module: 'tool-bash', enabled: true }],
    });
    expect(result.valid).toBe(true);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([
      { path: 'ui', message: 'is not a known section (ignored)' },
      { path: 'tools[0].enabled', message: 'is not a known key (ignored)' },
    ]);
  });

  it('R154: the top-level orchestrator and context sections (string form config) are known sections', () => {
    const result = validateMountPlan({
      ...minimal,
      orchestrator: { config: { max_iterations: 3 } },
      context: { config: { max_tokens: 1000 } },
    });
    expect(result).toEqual({ valid: true, errors: [], warnings: [] });
    expect(errorsOf({ ...minimal, orchestrator: { config: 'x' } })).toEqual([
      'orchestrator.config must be object',
    ]);
  });

  it('R155: every error is reported at once, each as a JSON path and a message', () => {
    try {
      assertMountPlan({
        session: { orchestrator: 5 },
        tools: [{ module: 'a' }, { module: 'b', config: [] }],
      });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(MountPlanError);
      const e = error as MountPlanError;
      expect(e.code).toBe('MOUNT_PLAN_INVALID');
      expect(e.errors).toEqual([
        { path: 'session.context', message: 'is required' },
        { path: 'session.orchestrator', message: 'must be string or object' },
        { path: 'tools[1].config', message: 'must be object' },
      ]);
      expect(e.message).toBe(
        'Invalid mount plan (3 errors):\n' +
          '  - session.context is required\n' +
          '  - session.orchestrator must be string or object\n' +
          '  - tools[1].config must be object',
      );
    }
  });

  it('J93: an empty or missing plan throws "Configuration is required"', () => {
    for (const plan of [undefined, null, {}]) {
      expect(() => assertMountPlan(plan)).toThrow(/^Configuration is required/);
    }
    expect(() => assertMountPlan({ tools: [] })).toThrow(
      /^Invalid mount plan \(1 error\):\n {2}- session is required$/,
    );
  });

  it('R: string and dict forms of session.orchestrator and session.context are both accepted', () => {
    expect(validateMountPlan(minimal).valid).toBe(true);
    expect(
      validateMountPlan({
        session: {
          orchestrator: { module: 'loop-basic', source: 'file:///x', config: { a: 1 } },
          context: { module: 'context-simple' },
        },
      }).valid,
    ).toBe(true);
    expect(errorsOf({ session: { orchestrator: { source: 'x' }, context: { module: '' } } })).toEqual([
      'session.orchestrator.module is required',
      'session.context.module must not be empty',
    ]);
    expect(errorsOf({ session: { orchestrator: { module: 'o', config: 1 }, context: 'c' } })).toEqual([
      'session.orchestrator.config must be object',
    ]);
  });

  it('R: session field types are checked (limits are non-negative integers or null, metadata an object)', () => {
    expect(
      errorsOf({
        session: {
          ...minimal.session,
          injection_budget_per_turn: 1.5,
          injection_size_limit: -1,
          metadata: 'x',
          raw: 'yes',
        },
      }),
    ).toEqual([
      'session.injection_budget_per_turn must be integer or null',
      'session.injection_size_limit must be >= 0',
      'session.raw must be boolean',
      'session.metadata must be object',
    ]);
  });

  it('K111: a provider module listed twice needs instance_id on every entry but one', () => {
    const ok = validateMountPlan({
      ...minimal,
      providers: [
        { module: 'provider-openai' },
        { module: 'provider-openai', instance_id: 'openai-fast' },
        { module: 'provider-openai', instance_id: 'openai-smart' },
        { module: 'provider-anthropic' },
      ],
    });
    expect(ok.valid).toBe(true);
    expect(
      errorsOf({
        ...minimal,
        providers: [
          { module: 'provider-openai' },
          { module: 'provider-openai', instance_id: 'x' },
          { module: 'provider-openai' },
        ],
      }),
    ).toEqual([
      "providers[2] repeats module 'provider-openai': multi-instance providers require an explicit 'instance_id' on every entry but one",
    ]);
  });

  it('K111: two providers with the same instance_id is an error', () => {
    expect(
      errorsOf({
        ...minimal,
        providers: [
          { module: 'provider-openai', instance_id: 'main' },
          { module: 'provider-anthropic', instance_id: 'main' },
        ],
      }),
    ).toEqual(["providers[1].instance_id duplicates providers[0].instance_id 'main'"]);
  });

  it('K111: instance_id outside providers is a warning (it is ignored there)', () => {
    const result = validateMountPlan({ ...minimal, tools: [{ module: 'tool-bash', instance_id: 'b' }] });
    expect(result.valid).toBe(true);
    expect(result.warnings).toEqual([
      { path: 'tools[0].instance_id', message: 'is only used for providers (ignored)' },
    ]);
  });

  it('K101: resolveSessionModule gives the dict form for either form', () => {
    const stringForm: MountPlan = {
      session: {
        orchestrator: 'loop-basic',
        orchestrator_source: './loop',
        context: 'context-simple',
        context_source: 'file:///ctx',
      },
      orchestrator: { config: { max_iterations: 2 } },
      context: { config: { max_tokens: 10 } },
    };
    expect(resolveSessionModule(stringForm, 'orchestrator')).toEqual({
      module: 'loop-basic',
      source: './loop',
      config: { max_iterations: 2 },
    });
    expect(resolveSessionModule(stringForm, 'context')).toEqual({
      module: 'context-simple',
      source: 'file:///ctx',
      config: { max_tokens: 10 },
    });
    const dictForm: MountPlan = {
      session: { orchestrator: { module: 'o', source: 's', config: { a: 1 } }, context: { module: 'c' } },
      orchestrator: { config: { ignored: true } },
    };
    expect(resolveSessionModule(dictForm, 'orchestrator')).toEqual({
      module: 'o',
      source: 's',
      config: { a: 1 },
    });
    expect(resolveSessionModule(dictForm, 'context')).toEqual({ module: 'c', source: undefined, config: {} });
    expect(resolveSessionModule(minimal, 'orchestrator')).toEqual({
      module: 'loop-basic',
      source: undefined,
      config: {},
    });
  });
});
