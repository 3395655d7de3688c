/**
 * The mount plan: which modules a session loads, from where, with what config.
 * Validated against its schema (`MOUNT_PLAN_SCHEMA`, the source of its type and of
 * `schemas/mount-plan.json`) plus the checks a schema cannot express
 * (multi-instance providers). Every problem comes back with a JSON path:
 * `tools[1].config must be object`.
 */
import { type DataError, MountPlanError } from './errors.js';
import type { FromSchema, SchemaOf } from './from-schema.js';
import type { JSONSchema } from './messages.js';
import { ownData } from './plain-data.js';
import { checkData, formatDataErrors } from './schemas.js';

/** A module entry of the plan (`$defs.moduleSpec`). */
const MODULE_SPEC = {
  type: 'object',
  required: ['module'],
  properties: {
    module: { type: 'string', minLength: 1, description: 'Module id, e.g. tool-bash.' },
    source: { type: 'string', description: 'A path, file: URL or package name to load the module from.' },
    config: { type: 'object', description: "Passed to the module's mount(coordinator, config)." },
    instance_id: {
      type: 'string',
      minLength: 1,
      description: 'Providers only: mount this instance under this name.',
    },
    required: {
      type: 'boolean',
      description:
        'When true, the session stops if this module fails to load, mount or get ready, instead of going on without it.',
    },
  },
} as const;

/** A module entry: `{module, source?, config?, required?}` (`instance_id` for providers). */
export type ModuleSpec = FromSchema<typeof MODULE_SPEC>;

/** The JSON Schema of `MountPlan` (`schemas/mount-plan.json`). */
export const MOUNT_PLAN_SCHEMA = {
  title: 'Amplifier mount plan',
  description:
    "Which modules a session loads and with what configuration. Interchangeable with Amplifier's mount plans.",
  type: 'object',
  required: ['session'],
  properties: {
    session: {
      type: 'object',
      required: ['orchestrator', 'context'],
      properties: {
        orchestrator: {
          $ref: '#/$defs/moduleRef',
          description: 'Orchestrator module id, or {module, source?, config?}.',
        } as SchemaOf<string | ModuleSpec>,
        context: {
          $ref: '#/$defs/moduleRef',
          description: 'Context manager module id, or {module, source?, config?}.',
        } as SchemaOf<string | ModuleSpec>,
        orchestrator_source: {
          type: 'string',
          description: 'Source hint used with the string form of session.orchestrator.',
        },
        context_source: {
          type: 'string',
          description: 'Source hint used with the string form of session.context.',
        },
        injection_budget_per_turn: {
          type: ['integer', 'null'],
          minimum: 0,
          description: 'Soft budget (tokens, chars/4) of hook injections per turn; null is unlimited.',
        },
        injection_size_limit: {
          type: ['integer', 'null'],
          minimum: 0,
          description: 'Hard limit (characters) of one hook injection; null is unlimited.',
        },
        raw: {
          type: 'boolean',
          description: 'Add a redacted copy of the mount plan as `raw` to session:start/resume/fork.',
        },
        debug: { type: 'boolean' },
        raw_debug: { type: 'boolean' },
        metadata: { type: 'object', description: 'Passed through into session:start/resume/fork payloads.' },
      },
    },
    /** Config for the string form of `session.orchestrator`. */
    orchestrator: { $ref: '#/$defs/configSection' } as SchemaOf<ConfigSection>,
    /** Config for the string form of `session.context`. */
    context: { $ref: '#/$defs/configSection' } as SchemaOf<ConfigSection>,
    providers: { type: 'array', items: { $ref: '#/$defs/moduleSpec' } as SchemaOf<ModuleSpec> },
    tools: { type: 'array', items: { $ref: '#/$defs/moduleSpec' } as SchemaOf<ModuleSpec> },
    hooks: { type: 'array', items: { $ref: '#/$defs/moduleSpec' } as SchemaOf<ModuleSpec> },
    agents: {
      type: 'object',
      description: 'App data (agent name -> partial mount plan); the kernel ignores it.',
    },
  },
  $defs: {
    moduleRef: {
      type: ['string', 'object'],
      minLength: 1,
      required: ['module'],
      properties: {
        module: { type: 'string', minLength: 1 },
        source: { type: 'string' },
        config: { type: 'object' },
      },
    },
    moduleSpec: MODULE_SPEC as JSONSchema,
    configSection: { type: 'object', properties: { config: { type: 'object' } } },
  },
} as const;

/** `$defs.configSection`: the top-level `orchestrator` and `context` sections. */
type ConfigSection = { config?: Record<string, unknown> };

/**
 * What a session loads: the `session` section (orchestrator and context) and the
 * `providers`, `tools` and `hooks` lists of `ModuleSpec`s with their config. Plain
 * snake_case JSON data, validated against the `mount-plan` schema before any
 * module loads; unknown sections and keys are warnings, not errors.
 */
export type MountPlan = FromSchema<typeof MOUNT_PLAN_SCHEMA>;

/**
 * The plan's `session` section: the orchestrator and the context (required; an id
 * or a module entry), the hook injection limits, and `metadata` and `raw` for the
 * session events. Snake_case JSON data.
 */
export type SessionSection = MountPlan['session'];

/**
 * What `validateMountPlan` found: `valid`, the `errors` (each with its JSON path)
 * and the `warnings` (unknown sections and keys, not fatal).
 */
export interface MountPlanValidation {
  valid: boolean;
  errors: DataError[];
  /** Unknown sections and keys: reported, not fatal (plans must stay interchangeable). */
  warnings: DataError[];
}

const KNOWN_SECTIONS = new Set(Object.keys(MOUNT_PLAN_SCHEMA.properties));
const KNOWN_SPEC_KEYS = new Set(Object.keys(MODULE_SPEC.properties));
const LIST_SECTIONS = ['providers', 'tools', 'hooks'] as const;

/**
 * The plan as the kernel reads it: own properties only (inherited values are
 * not part of a plan; `__proto__` is an ordinary key). Functions and class
 * instances inside module config are kept as they are, and so is data nested
 * deeper than `MAX_DATA_DEPTH` (never copied, never walked: see `ownData`).
 */
export function ownMountPlan(plan: unknown): unknown {
  return ownData(plan, { onLimit: 'keep' });
}

/**
 * The plans `parseMountPlan` returned: validated, and frozen, so they are still
 * valid. Private to core: there is no flag a caller could set or copy, and a
 * spread or an edited copy is a new object, validated again.
 */
const parsedPlans = new WeakSet<object>();

/** The validator's warnings of each plan `parseMountPlan` returned. */
const planWarnings = new WeakMap<object, readonly DataError[]>();

/**
 * The warnings (unknown sections and keys, with their JSON path) found when
 * `parseMountPlan` parsed `plan`; empty for any other object. The session logs
 * them once, through its logger, when it initializes.
 */
export function mountPlanWarnings(plan: MountPlan): readonly DataError[] {
  return planWarnings.get(plan) ?? [];
}

/**
 * Validate a mount plan without loading anything (own properties only, as the session reads it).
 * Every problem comes back with its JSON path; unknown sections and keys are warnings.
 *
 * @example
 * ```ts
 * import { validateMountPlan } from '@amplifier/core';
 *
 * const result = validateMountPlan({
 *   session: { orchestrator: 'loop-basic' },
 *   tools: [{ module: 'tool-bash', config: 'yes' }],
 *   extras: true,
 * });
 * // result.valid: false
 * // result.errors: [
 * //   { path: 'session.context', message: 'is required' },
 * //   { path: 'tools[0].config', message: 'must be object' },
 * // ]
 * // result.warnings: [{ path: 'extras', message: 'is not a known section (ignored)' }]
 * ```
 */
export function validateMountPlan(input: unknown): MountPlanValidation {
  return inspectMountPlan(input).validation;
}

/** The own copy of `input` (see `ownMountPlan`) and what validating it found; the plan is copied once. */
function inspectMountPlan(input: unknown): { plan: unknown; validation: MountPlanValidation } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return {
      plan: input,
      validation: {
        valid: false,
        errors: [{ path: '', message: 'mount plan must be an object (a dict) with a session section' }],
        warnings: [],
      },
    };
  }
  // Frozen (the arrays and plain objects copied): a plan `parseMountPlan` returns cannot change.
  const plan = ownData(input, { onLimit: 'keep', freeze: true });
  const errors = checkData('mount-plan', plan);
  const warnings: DataError[] = [];
  const record = plan as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!KNOWN_SECTIONS.has(key)) warnings.push({ path: key, message: 'is not a known section (ignored)' });
  }
  for (const section of LIST_SECTIONS) {
    const list = record[section];
    if (!Array.isArray(list)) continue;
    list.forEach((spec, i) => {
      if (typeof spec !== 'object' || spec === null) return;
      for (const key of Object.keys(spec)) {
        if (!KNOWN_SPEC_KEYS.has(key))
          warnings.push({ path: `${section}[${i}].${key}`, message: 'is not a known key (ignored)' });
        else if (key === 'instance_id' && section !== 'providers')
          warnings.push({ path: `${section}[${i}].${key}`, message: 'is only used for providers (ignored)' });
      }
    });
  }
  if (errors.length === 0) errors.push(...checkProviderInstances(record.providers));
  return { plan, validation: { valid: errors.length === 0, errors, warnings } };
}

/** Throw a `MountPlanError` that lists every problem when the plan is invalid. */
export function assertMountPlan(plan: unknown): asserts plan is MountPlan {
  parseMountPlan(plan);
}

/**
 * The plan as a session runs it: its own copy (`ownMountPlan`), validated and
 * frozen (every array and plain object of the copy; functions and class
 * instances in module config are kept as they are, not frozen). Throws a
 * `MountPlanError` that lists every problem when it is invalid.
 *
 * Validate once: a plan this function returned is returned as it is (it cannot
 * have changed), and `new AmplifierSession(plan)` keeps it without validating
 * it again. Any other object, a copy or spread of a parsed plan included, is
 * copied and validated. To change a parsed plan, edit a copy
 * (`ownMountPlan(parsed)` gives a mutable one) and parse that.
 */
export function parseMountPlan(input: unknown): MountPlan {
  if (typeof input === 'object' && input !== null && parsedPlans.has(input)) return input as MountPlan;
  const { plan, validation } = inspectMountPlan(input);
  if (!validation.valid) {
    const { errors } = validation;
    const empty =
      input === null ||
      input === undefined ||
      (typeof input === 'object' && !Array.isArray(input) && Object.keys(input).length === 0);
    const headline = empty
      ? 'Configuration is required: pass a mount plan with a session section'
      : `Invalid mount plan (${errors.length} error${errors.length === 1 ? '' : 's'})`;
    throw new MountPlanError(`${headline}:\n${formatDataErrors(errors)}`, errors);
  }
  if (validation.warnings.length > 0) planWarnings.set(plan as object, Object.freeze(validation.warnings));
  // Only a plan whose every checked part was copied (and so frozen) is known to stay valid.
  if (structureFrozen(plan as Record<string, unknown>)) parsedPlans.add(plan as object);
  return plan as MountPlan;
}

/**
 * Whether every object the schema looks into (the plan, its sections, lists and
 * module entries) is frozen. A class instance there is kept, not copied (so
 * not frozen): such a plan is not marked parsed, and a session validates it again.
 */
function structureFrozen(plan: Record<string, unknown>): boolean {
  const frozen = (value: unknown): boolean =>
    typeof value !== 'object' || value === null || Object.isFrozen(value);
  const session = plan.session as Record<string, unknown>;
  if (!frozen(plan) || !frozen(session) || !frozen(session.orchestrator) || !frozen(session.context)) {
    return false;
  }
  if (!frozen(plan.orchestrator) || !frozen(plan.context)) return false;
  return LIST_SECTIONS.every((section) => {
    const list = plan[section];
    return list === undefined || (frozen(list) && (list as unknown[]).every(frozen));
  });
}

/** A module appearing more than once in providers needs `instance_id` on all but one entry. */
function checkProviderInstances(providers: unknown): DataError[] {
  if (!Array.isArray(providers)) return [];
  const errors: DataError[] = [];
  const withoutInstance = new Map<string, number[]>();
  const instanceIds = new Map<string, number>();
  providers.forEach((spec: ModuleSpec, i) => {
    if (spec.instance_id === undefined) {
      const list = withoutInstance.get(spec.module) ?? [];
      list.push(i);
      withoutInstance.set(spec.module, list);
    } else if (instanceIds.has(spec.instance_id)) {
      errors.push({
        path: `providers[${i}].instance_id`,
        message: `duplicates providers[${instanceIds.get(spec.instance_id)}].instance_id '${spec.instance_id}'`,
      });
    } else {
      instanceIds.set(spec.instance_id, i);
    }
  });
  for (const [module, indexes] of withoutInstance) {
    if (indexes.length > 1) {
      errors.push({
        path: `providers[${indexes[1]}]`,
        message: `repeats module '${module}': multi-instance providers require an explicit 'instance_id' on every entry but one`,
      });
    }
  }
  return errors;
}

/** The orchestrator or context entry in its dict form, whichever form the plan used. */
export function resolveSessionModule(
  plan: MountPlan,
  slot: 'orchestrator' | 'context',
): { module: string; source: string | undefined; config: Record<string, unknown> } {
  const ref = plan.session[slot];
  if (typeof ref === 'string') {
    return {
      module: ref,
      source: slot === 'orchestrator' ? plan.session.orchestrator_source : plan.session.context_source,
      config: plan[slot]?.config ?? {},
    };
  }
  return { module: ref.module, source: ref.source, config: ref.config ?? {} };
}
