/**
 * The mount plan of a composed bundle: the `session` section (orchestrator,
 * context and the keys the plan knows, such as `raw` and `metadata`), the
 * non-empty module lists (each entry's merge `id` dropped, or kept as a
 * provider's `instance_id` when it differs from the module) and the agents
 * roster as the plan's `agents` passthrough. Module ids and sources stay as
 * the bundle wrote them.
 */
import { AmplifierError, type MountPlan, type MountPlanError, parseMountPlan, setOwn } from '@amplifier/core';
import { BundleValidationError } from './errors.js';
import type { Bundle } from './load.js';
import type { ModuleEntry } from './parse.js';

function planEntry(entry: ModuleEntry, section: string): Record<string, unknown> {
  const { id, ...rest } = entry;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rest)) setOwn(out, key, value);
  if (section === 'providers' && id !== undefined && id !== entry.module && out.instance_id === undefined) {
    out.instance_id = id;
  }
  return out;
}

/**
 * The plan data of a bundle, as composed, without validating it: what
 * `amplifier bundle show` prints, runnable or not (a behavior has no session).
 */
export function bundlePlanData(bundle: Bundle): Record<string, unknown> {
  const plan: Record<string, unknown> = {};
  if (Object.keys(bundle.session).length > 0) {
    const session: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(bundle.session)) {
      setOwn(
        session,
        key,
        typeof value === 'object' &&
          value !== null &&
          !Array.isArray(value) &&
          (key === 'orchestrator' || key === 'context')
          ? planEntry(value as ModuleEntry, 'session')
          : value,
      );
    }
    plan.session = session;
  }
  for (const section of ['providers', 'tools', 'hooks'] as const) {
    const entries = bundle[section]
      .filter((e) => typeof e.module === 'string')
      .map((e) => planEntry(e, section));
    if (entries.length > 0) plan[section] = entries;
  }
  if (Object.keys(bundle.agents).length > 0) plan.agents = bundle.agents;
  return plan;
}

/** Why a bundle's plan cannot run, or undefined: a session needs an orchestrator and a context. */
export function notRunnableReason(bundle: Bundle): string | undefined {
  const missing = (['orchestrator', 'context'] as const).filter((k) => bundle.session[k] === undefined);
  if (missing.length === 0) return undefined;
  return `the bundle ${bundle.name || bundle.source} has no session.${missing.join(' and no session.')}: it is a behavior or a provider fragment, to be included from a bundle that has a session`;
}

/**
 * The mount plan `AmplifierSession` runs, validated by core's `parseMountPlan`
 * (frozen). Throws `BundleValidationError` for a bundle that cannot run on its
 * own or whose plan is invalid, listing every problem with its JSON path.
 */
export function bundleToMountPlan(bundle: Bundle): MountPlan {
  const reason = notRunnableReason(bundle);
  if (reason !== undefined) throw new BundleValidationError(`Cannot run ${bundle.source}: ${reason}.`);
  try {
    return parseMountPlan(bundlePlanData(bundle));
  } catch (error) {
    if (!AmplifierError.is(error) || error.code !== 'MOUNT_PLAN_INVALID') throw error;
    const lines = (error as MountPlanError).errors.map((e) => `  - ${e.path || '(root)'} ${e.message}`);
    throw new BundleValidationError(
      `The bundle ${bundle.source} composes into an invalid mount plan:\n${lines.join('\n')}`,
    );
  }
}
