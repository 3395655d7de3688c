/**
 * A plan is validated once: `parseMountPlan` returns a validated, frozen own
 * copy, and a session given that very object keeps it without validating it
 * again. Anything else (a raw plan, a spread or an edited copy of a parsed
 * plan) is copied and validated, with the same errors as ever.
 */
import { describe, expect, it, vi } from 'vitest';
import type { ModuleLoaderLike } from './contracts.js';
import { MountPlanError } from './errors.js';
import {
  assertMountPlan,
  type MountPlan,
  ownMountPlan,
  parseMountPlan,
  validateMountPlan,
} from './mount-plan.js';
import { AmplifierSession } from './session.js';

// Count the schema checks of mount plans (the one place a plan is validated against the schema).
const checks = vi.hoisted(() => ({ plans: 0 }));
vi.mock('./schemas.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('./schemas.js')>();
  return {
    ...actual,
    checkData: (name: Parameters<typeof actual.checkData>[0], value: unknown) => {
      if (name === 'mount-plan') checks.plans++;
      return actual.checkData(name, value);
    },
  };
});

const loader: ModuleLoaderLike = { load: async (id) => ({ id, type: undefined, mount: async () => {} }) };

function plan(): MountPlan {
  return {
    session: { orchestrator: 'loop', context: { module: 'ctx', config: { keep: 3 } } },
    providers: [{ module: 'provider-mock', config: { model: 'm' } }],
    tools: [{ module: 'tool-a', config: { nested: { deep: [1, 2] } } }],
    hooks: [],
  };
}

/** The number of mount-plan validations `run` does. */
function validations(run: () => void): number {
  const before = checks.plans;
  run();
  return checks.plans - before;
}

describe('parseMountPlan then a session: one validation', () => {
  it('the session keeps the very object parseMountPlan returned and validates it no more', () => {
    let parsed: MountPlan | undefined;
    expect(
      validations(() => {
        parsed = parseMountPlan(plan());
      }),
    ).toBe(1);
    let session: AmplifierSession | undefined;
    expect(
      validations(() => {
        session = new AmplifierSession(parsed!, { loader });
      }),
    ).toBe(0);
    expect(session!.config).toBe(parsed);
    expect(session!.coordinator.config).toBe(parsed);
    expect(
      validations(() => {
        expect(parseMountPlan(parsed)).toBe(parsed);
        assertMountPlan(parsed);
      }),
    ).toBe(0);
  });

  it('a plan that was not parsed is validated once, by the session, into its own frozen copy', () => {
    const raw = plan();
    let session: AmplifierSession | undefined;
    expect(
      validations(() => {
        session = new AmplifierSession(raw, { loader });
      }),
    ).toBe(1);
    expect(session!.config).not.toBe(raw);
    expect(session!.config).toEqual(raw);
    expect(Object.isFrozen(session!.config)).toBe(true);
    // The session's copy counts as parsed: a second session from it validates nothing.
    expect(validations(() => new AmplifierSession(session!.config, { loader }))).toBe(0);
    // validateMountPlan always validates (it reports warnings too).
    expect(validations(() => validateMountPlan(session!.config))).toBe(1);
  });
});

describe('a parsed plan cannot be changed past validation', () => {
  it('every array and plain object of it is frozen: changes throw', () => {
    const parsed = parseMountPlan(plan());
    const nested = parsed.tools?.[0]?.config?.nested as { deep: number[] };
    const frozen = [
      parsed,
      parsed.session,
      parsed.session.context,
      parsed.providers,
      parsed.providers?.[0],
      parsed.providers?.[0]?.config,
      nested,
      nested.deep,
    ];
    for (const part of frozen) expect(Object.isFrozen(part)).toBe(true);
    expect(() => {
      parsed.session.orchestrator = '';
    }).toThrow(TypeError);
    expect(() => parsed.tools?.push({ module: '' })).toThrow(TypeError);
    expect(() => {
      (parsed.tools![0] as { module: unknown }).module = 5;
    }).toThrow(TypeError);
    expect(() => {
      parsed.providers![0]!.config!.model = 'other';
    }).toThrow(TypeError);
    expect(parseMountPlan(parsed)).toEqual(plan());
  });

  it('a spread or an edited copy is a new object: validated again, with the same errors as ever', () => {
    const parsed = parseMountPlan(plan());
    const spread = {
      ...parsed,
      tools: [{ module: '' }, { module: 'tool-b', config: 5 }],
    } as unknown as MountPlan;
    const expected = validateMountPlan(spread).errors;
    expect(expected.map((e) => e.path)).toEqual(['tools[0].module', 'tools[1].config']);
    for (const attempt of [() => new AmplifierSession(spread, { loader }), () => parseMountPlan(spread)]) {
      let error: unknown;
      expect(
        validations(() => {
          try {
            attempt();
          } catch (caught) {
            error = caught;
          }
        }),
      ).toBe(1);
      expect(error).toBeInstanceOf(MountPlanError);
      expect((error as MountPlanError).errors).toEqual(expected);
      expect((error as MountPlanError).message).toMatch(/^Invalid mount plan \(2 errors\):/);
    }

    // ownMountPlan gives a mutable copy to edit; it is parsed (validated) like any plan.
    const draft = ownMountPlan(parsed) as MountPlan;
    expect(Object.isFrozen(draft)).toBe(false);
    draft.session.context = '';
    expect(() => new AmplifierSession(draft, { loader })).toThrow(/session\.context/);
  });

  it('functions and class instances in config are kept as they are, not frozen', () => {
    const respond = (): string => 'hi';
    const when = new Date(0);
    const parsed = parseMountPlan({
      ...plan(),
      providers: [{ module: 'provider-mock', config: { respond, when } }],
    });
    expect(parsed.providers?.[0]?.config?.respond).toBe(respond);
    expect(parsed.providers?.[0]?.config?.when).toBe(when);
    expect(Object.isFrozen(respond)).toBe(false);
    expect(Object.isFrozen(when)).toBe(false);
  });

  it('a class instance where the schema looks (kept, not frozen) leaves the plan unmarked: a session validates it again', () => {
    class Spec {
      module = 'tool-a';
    }
    const spec = new Spec();
    const parsed = parseMountPlan({ ...plan(), tools: [spec] });
    expect(parsed.tools?.[0]).toBe(spec);
    // Changing the instance after parsing cannot slip past the session.
    spec.module = '';
    expect(() => new AmplifierSession(parsed, { loader })).toThrow(MountPlanError);
    expect(() => new AmplifierSession(parsed, { loader })).toThrow(/tools\[0\]\.module/);
  });
});
