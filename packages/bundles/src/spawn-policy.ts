/**
 * The child's mount plan (reference B5, the CLI's spawn policy): the parent's
 * plan, then the bundle's `spawn` rule, then the caller's inheritance
 * (exclude / inherit), then the agent's overlay (modules merged by id, lists
 * replaced, mappings deep-merged; the agent's own modules always survive),
 * then the caller's orchestrator config and session metadata. The provider
 * the caller, else the agent, prefers gets `priority: 0`. A child never gets
 * more permission than its parent: hooks-approval cannot be left out, and its
 * rules are the parent's first (every parent deny and ask still applies).
 */
import {
  isPlainObject,
  type ModuleSpec,
  type MountPlan,
  type ProviderPreference,
  setOwn,
} from '@amplifier/core';
import type { AgentConfig, AgentRosterFilter } from './agents.js';
import type { ModuleEntry } from './parse.js';

/** The bundle's `spawn` section: `tools` replaces the inherited tool list, else `exclude_tools` filters it. */
export interface SpawnRule {
  tools?: string[];
  exclude_tools?: string[];
  /** The most sub-sessions one top-level turn may start (the whole tree); only lowers the spawner's cap. */
  max_sub_sessions?: number;
}

/** Which modules a caller lets a child inherit (`SpawnRequest.tool_inheritance`). */
export interface Inheritance {
  exclude?: string[];
  inherit?: string[];
}

/** What `childPlan` needs. */
export interface ChildPlanInput {
  /** The parent session's plan. */
  parent: MountPlan;
  /** The agent's overlay; undefined for `self` (the parent's configuration). */
  agent?: AgentConfig | undefined;
  spawn?: SpawnRule | undefined;
  toolInheritance?: Inheritance | undefined;
  hookInheritance?: Inheritance | undefined;
  orchestratorConfig?: Record<string, unknown> | undefined;
  providerPreferences?: readonly ProviderPreference[] | undefined;
  sessionMetadata?: Record<string, unknown> | undefined;
  /** The parent's roster (default: the parent plan's `agents`); the child gets it filtered by the agent's `agents:`. */
  roster?: Readonly<Record<string, unknown>> | undefined;
  /** Model ids per mounted provider name, to resolve a preference's glob (`claude-haiku-*`). */
  models?: Readonly<Record<string, readonly string[]>>;
}

/** The child's plan data and what was decided on the way. */
export interface ChildPlan {
  plan: MountPlan;
  /** The provider preference that matched a provider of the plan, if any. */
  provider?: { name: string; model?: string | undefined } | undefined;
}

/** The module the approval policy lives in: never dropped from a child, its rules merged (parent first). */
export const APPROVAL_MODULE = 'hooks-approval';

const STRICTNESS: Record<string, number> = { allow: 0, ask: 1, deny: 2 };

function clone<T>(value: T): T {
  // Plain data is copied; functions and class instances (code-built config) are shared as they are.
  if (Array.isArray(value)) return value.map(clone) as T;
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) setOwn(out, k, clone(v));
    return out as T;
  }
  return value;
}

/** Deep merge where lists are replaced (the overlay rule of B5, unlike bundle composition). */
export function overlayMerge(base: unknown, over: unknown): unknown {
  if (isPlainObject(base) && isPlainObject(over)) {
    const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
    for (const [k, v] of Object.entries(over as Record<string, unknown>)) {
      setOwn(out, k, Object.hasOwn(out, k) ? overlayMerge(out[k], v) : clone(v));
    }
    return out;
  }
  return clone(over);
}

function idOf(entry: ModuleSpec | ModuleEntry): string {
  const { id, instance_id, module } = entry as ModuleEntry;
  return (id ?? instance_id ?? module ?? '') as string;
}

function asSpec(entry: ModuleEntry | string): ModuleSpec {
  if (typeof entry === 'string') return { module: entry };
  const { id, ...rest } = entry;
  const spec = clone(rest) as ModuleSpec;
  if (id !== undefined && id !== entry.module && spec.instance_id === undefined) spec.instance_id = id;
  return spec;
}

function ruleStrictness(action: unknown): number {
  return typeof action === 'string' ? (STRICTNESS[action] ?? 1) : 1;
}

/**
 * hooks-approval config for a child: the parent's config, to which the agent
 * can only add restrictions. The parent's rules come first (first match wins,
 * so every parent rule decides as it did), then the agent's deny and ask
 * rules (its allow rules only where the parent allows by default); the
 * stricter default action and timeout default win; the default rules stay on
 * if either side has them; the shell tools and path arguments the rules look
 * at are the union; a tool that requires approval on either side requires it;
 * an audit on either side stays on. Every other key is the parent's: an
 * agent file cannot loosen what the user set.
 */
export function mergeApprovalConfig(
  parent: Record<string, unknown> | undefined,
  child: Record<string, unknown> | undefined,
): Record<string, unknown> {
  if (child === undefined) return clone(parent ?? {});
  const base = parent ?? {};
  const out = clone(base) as Record<string, unknown>;
  const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
  const parentDefault = typeof base.default_action === 'string' ? base.default_action : 'ask';
  const childDefault = typeof child.default_action === 'string' ? child.default_action : 'ask';
  const agentRules = list(child.rules).filter(
    (rule) =>
      !isPlainObject(rule) ||
      ruleStrictness((rule as Record<string, unknown>).action) > 0 ||
      parentDefault === 'allow',
  );
  out.rules = clone([...list(base.rules), ...agentRules]);
  out.default_action =
    ruleStrictness(childDefault) >= ruleStrictness(parentDefault) ? childDefault : parentDefault;
  if (base.approval_default !== undefined || child.approval_default !== undefined) {
    // 'allow' (a timeout approves) only where the parent said so and the agent does not deny.
    out.approval_default =
      base.approval_default === 'allow' && child.approval_default !== 'deny' ? 'allow' : 'deny';
  }
  out.default_rules = base.default_rules !== false || child.default_rules !== false;
  for (const key of ['shell_tools', 'path_arguments'] as const) {
    if (base[key] === undefined && child[key] === undefined) continue;
    // Absent on one side means that side's defaults: keep them by not narrowing to the other's list.
    if (base[key] === undefined || child[key] === undefined) {
      delete out[key];
      continue;
    }
    out[key] = [...new Set([...list(base[key]), ...list(child[key])])];
  }
  if (isPlainObject(child.tools)) {
    const tools = isPlainObject(base.tools) ? (clone(base.tools) as Record<string, unknown>) : {};
    for (const [name, setting] of Object.entries(child.tools as Record<string, unknown>)) {
      if (isPlainObject(setting) && (setting as Record<string, unknown>).require_approval === true) {
        tools[name] = {
          ...(isPlainObject(tools[name]) ? (tools[name] as object) : {}),
          require_approval: true,
        };
      }
    }
    out.tools = tools;
  }
  const audited = (value: unknown): boolean =>
    value === true || (isPlainObject(value) && (value as Record<string, unknown>).enabled === true);
  if (audited(child.audit) && !audited(base.audit)) out.audit = clone(child.audit);
  return out;
}

/** Module lists merged by id: the overlay's config deep-merged (lists replaced), its source replacing, new ids appended. */
function mergeSection(base: readonly ModuleSpec[], over: readonly (ModuleEntry | string)[]): ModuleSpec[] {
  const out = base.map((e) => clone(e));
  for (const raw of over) {
    const entry = asSpec(raw);
    const at = out.findIndex((e) => idOf(e) === idOf(entry));
    if (at === -1) {
      out.push(entry);
      continue;
    }
    const earlier = out[at] as ModuleSpec;
    const merged: ModuleSpec = { ...earlier, ...entry };
    if (earlier.module === APPROVAL_MODULE) {
      merged.config = mergeApprovalConfig(earlier.config, entry.config);
    } else if (earlier.config !== undefined || entry.config !== undefined) {
      merged.config = overlayMerge(earlier.config ?? {}, entry.config ?? {}) as Record<string, unknown>;
    }
    if (entry.source === undefined && earlier.source !== undefined) merged.source = earlier.source;
    out[at] = merged;
  }
  return out;
}

/** The parent's modules a child inherits: `inherit` (an allow-list) or `exclude`. */
function inherited(
  entries: readonly ModuleSpec[],
  rule: Inheritance | undefined,
  keep: (entry: ModuleSpec) => boolean = () => false,
): ModuleSpec[] {
  if (rule === undefined) return [...entries];
  const inherit = rule.inherit;
  const exclude = new Set(rule.exclude ?? []);
  return entries.filter((entry) => {
    if (keep(entry)) return true;
    const names = [entry.module, idOf(entry)];
    if (inherit !== undefined) return names.some((n) => inherit.includes(n));
    return !names.some((n) => exclude.has(n));
  });
}

/** The parent's tools after the bundle's `spawn` rule. */
function spawnTools(tools: readonly ModuleSpec[], spawn: SpawnRule | undefined): ModuleSpec[] {
  if (spawn === undefined) return [...tools];
  if (Array.isArray(spawn.tools)) return inherited(tools, { inherit: spawn.tools });
  if (Array.isArray(spawn.exclude_tools)) return inherited(tools, { exclude: spawn.exclude_tools });
  return [...tools];
}

/** `*` and `?` globs, and `[...]` classes, as a whole-string match. */
export function globMatch(pattern: string, value: string): boolean {
  const source = pattern
    .replace(/[.+^${}()|\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  try {
    return new RegExp(`^${source}$`).test(value);
  } catch {
    return pattern === value;
  }
}

function isGlob(pattern: string): boolean {
  return /[*?[]/.test(pattern);
}

/** The provider spec a preference names: its instance id, its module, or `provider-<name>`. */
function providerIndex(providers: readonly ModuleSpec[], name: string): number {
  return providers.findIndex(
    (p) => p.instance_id === name || p.module === name || p.module === `provider-${name}`,
  );
}

/** The mounted provider name of a provider spec (its instance id, else its module without `provider-`). */
export function providerName(spec: ModuleSpec): string {
  return spec.instance_id ?? spec.module.replace(/^provider-/, '');
}

/** Filter a roster by an agent's `agents:` (`none` empties it, a list keeps those names). */
export function filterRoster<T>(
  roster: Record<string, T>,
  filter: AgentRosterFilter | undefined,
): Record<string, T> {
  if (filter === undefined || filter === 'all') return { ...roster };
  if (filter === 'none') return {};
  const out: Record<string, T> = {};
  for (const name of filter) if (Object.hasOwn(roster, name)) setOwn(out, name, roster[name] as T);
  return out;
}

/** Apply the spawn policy: the child's plan (not yet validated: the session does that). */
export function childPlan(input: ChildPlanInput): ChildPlan {
  const { parent, agent } = input;
  const session = clone(parent.session) as unknown as Record<string, unknown>;
  const agentTools = new Set((agent?.tools ?? []).map((t) => idOf(asSpec(t))));
  const agentHooks = new Set((agent?.hooks ?? []).map((h) => idOf(asSpec(h))));
  let tools = spawnTools(parent.tools ?? [], input.spawn);
  tools = inherited(tools, input.toolInheritance, (t) => agentTools.has(idOf(t)));
  let hooks = inherited(
    parent.hooks ?? [],
    input.hookInheritance,
    (h) => agentHooks.has(idOf(h)) || h.module === APPROVAL_MODULE,
  );
  let providers = (parent.providers ?? []).map((p) => clone(p));
  let merged: Record<string, unknown> = session;
  if (agent !== undefined) {
    tools = mergeSection(tools, agent.tools ?? []);
    hooks = mergeSection(hooks, agent.hooks ?? []);
    providers = mergeSection(providers, agent.providers ?? []);
    if (agent.session !== undefined) merged = overlayMerge(session, agent.session) as Record<string, unknown>;
  }
  if (input.orchestratorConfig !== undefined && Object.keys(input.orchestratorConfig).length > 0) {
    const orchestrator = merged.orchestrator;
    const entry =
      typeof orchestrator === 'string' ? { module: orchestrator } : { ...(orchestrator as ModuleSpec) };
    entry.config = overlayMerge(entry.config ?? {}, input.orchestratorConfig) as Record<string, unknown>;
    merged.orchestrator = entry;
  }
  if (input.sessionMetadata !== undefined) {
    merged.metadata = { ...((merged.metadata as Record<string, unknown>) ?? {}), ...input.sessionMetadata };
  }

  let chosen: ChildPlan['provider'];
  const preferences = input.providerPreferences?.length
    ? input.providerPreferences
    : (agent?.provider_preferences ?? []);
  for (const preference of preferences) {
    const at = providerIndex(providers, preference.provider);
    if (at === -1) continue;
    const spec = providers[at] as ModuleSpec;
    const name = providerName(spec);
    let model = preference.model;
    if (model !== undefined && isGlob(model)) {
      const pattern = model;
      model = (input.models?.[name] ?? []).find((m) => globMatch(pattern, m));
    }
    spec.config = {
      ...(spec.config ?? {}),
      priority: 0,
      ...(model !== undefined && { default_model: model }),
    };
    // The chosen provider first too: orchestrators that take the first provider agree.
    providers.splice(at, 1);
    providers.unshift(spec);
    chosen = { name, model };
    break;
  }

  const plan: Record<string, unknown> = { ...clone(parent), session: merged };
  if (providers.length > 0) plan.providers = providers;
  else delete plan.providers;
  if (tools.length > 0) plan.tools = tools;
  else delete plan.tools;
  if (hooks.length > 0) plan.hooks = hooks;
  else delete plan.hooks;
  const roster = filterRoster({ ...(input.roster ?? parent.agents ?? {}) }, agent?.agents);
  if (Object.keys(roster).length > 0) plan.agents = roster;
  else delete plan.agents;
  return { plan: plan as unknown as MountPlan, provider: chosen };
}
