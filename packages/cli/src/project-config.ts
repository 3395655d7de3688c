/**
 * What a workspace's `.amplifier/` may change in a session (docs/trust.md).
 *
 * - An agent of an untrusted folder keeps who it is (name, description,
 *   instruction, provider and model preferences, roster filter), the settings
 *   of providers the session already mounts (not their endpoints), and only
 *   the tightening keys of tools the session already mounts (`TIGHTENING`),
 *   each kept only when it is at least as strict as the session's own value.
 *   Every other key (a module `source:`, a new module, hooks, `session`, a
 *   looser value) is dropped and reported.
 * - Whatever the trust, provider endpoints and credentials (`base_url`,
 *   headers, key variables...), `sandbox: off` and writable paths outside the
 *   workspace never come from a project file: they are dropped and reported.
 */
import path from 'node:path';
import type { AgentConfig, ModuleEntry } from '@amplifier/bundles';
import { isPlainObject, type ModuleSpec, type MountPlan, setOwn } from '@amplifier/core';

/** A project key that was not used, and why. */
export interface IgnoredKey {
  file: string;
  key: string;
  why: string;
}

/** What the restriction of one project file needs to know. */
export interface ProjectContext {
  /** The folder was trusted (`amplifier trust`, `--trust-project`...). */
  trusted: boolean;
  /** The workspace folder (the session's cwd): writable paths must stay inside it. */
  workspace: string;
  /** The session's plan: the values a project value must be at least as strict as. */
  plan: MountPlan;
}

const NOT_TRUSTED = 'the folder is not trusted, and a project may only tighten safety';

/**
 * Provider config keys that route requests or name credentials: never from a
 * project. `options` is a client's constructor options passed as they are
 * (provider-ai-sdk: `baseURL`, `apiKey`, `headers`, `fetch` of the package);
 * Azure's `azure`, `use_default_credential`, `use_managed_identity` and
 * `managed_identity_client_id` choose its credentials.
 */
const ENDPOINT_KEY =
  /^(base_url|baseURL|api_base|endpoint|azure_endpoint|azure|url|host|proxy|headers|default_headers|extra_headers|api_key|api_key_env|env|env_var|organization|project|region|location|profile|credentials|options)$|_(url|endpoint|env|env_var|key|token|headers|credential|identity|client_id)$/i;

/** Provider config keys that name code to load (provider-ai-sdk's `package` and its `factory`): like a module `source`. */
const CODE_KEY = /^(package|factory)$/i;

export const PROVIDER_WHY =
  'provider endpoints and credentials never come from a project file, even a trusted one (a repository could send your API key to its own server, as in CVE-2026-21852); set them in your own plan or environment';

function rank(order: readonly string[]): (value: unknown) => number {
  return (value) => (typeof value === 'string' ? order.indexOf(value) : -1);
}
const sandboxRank = rank(['off', 'auto', 'required']);
const profileRank = rank(['unrestricted', 'permissive', 'standard', 'strict']);

/** A tightening rule: true when `value` is at least as strict as `current` (the session's value, or undefined). */
type Rule = (value: unknown, current: unknown) => boolean;

const atMost =
  (fallback: number | null): Rule =>
  (value, current) => {
    const limit = typeof current === 'number' ? current : fallback;
    return typeof value === 'number' && value > 0 && (limit === null || value <= limit);
  };
const isTrue: Rule = (value) => value === true;
const stringList: Rule = (value) => Array.isArray(value) && value.every((v) => typeof v === 'string');

/**
 * The keys an untrusted project may set, per module, with the test each value
 * must pass. Lists are merged into the session's (deny lists only grow).
 */
const TIGHTENING: Readonly<Record<string, Readonly<Record<string, Rule>>>> = {
  'tool-bash': {
    sandbox: (value, current) => sandboxRank(value) >= Math.max(1, sandboxRank(current ?? 'auto')),
    safety_profile: (value, current) =>
      profileRank(value) >= 0 && profileRank(value) >= profileRank(current ?? 'strict'),
    timeout: atMost(30),
    max_output_bytes: atMost(100_000),
    max_concurrent: atMost(null),
    denied_commands: stringList,
    'safety_overrides.block': stringList,
    env: (value) => value === 'allowlist',
    require_approval: isTrue,
    'sandbox_policy.network': (value) => value === false,
    'sandbox_policy.hidden': stringList,
    'sandbox_policy.max_processes': atMost(512),
    'sandbox_policy.tmp_size_mb': atMost(512),
  },
  'tool-filesystem': {
    denied_paths: stringList,
    denied_write_paths: stringList,
    max_read_bytes: atMost(10 * 1024 * 1024),
    require_read_before_edit: isTrue,
    require_approval: isTrue,
  },
};

/** Keys that name paths a module may write: they stay inside the workspace, whatever the trust. */
const WRITE_PATH_KEYS = new Set([
  'sandbox_policy.writable',
  'allowed_write_paths',
  'allowed_paths',
  'allowed_write_files',
]);

function entryKey(entry: { module?: string | undefined; id?: string | undefined }): string {
  return entry.id ?? entry.module ?? '(no module)';
}

/** The leaves of a config as dotted keys (one level into plain objects: `sandbox_policy.network`). */
function leaves(config: Record<string, unknown>): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const [key, value] of Object.entries(config)) {
    if (isPlainObject(value) && Object.keys(value).length > 0) {
      for (const [sub, v] of Object.entries(value)) out.push([`${key}.${sub}`, v]);
    } else out.push([key, value]);
  }
  return out;
}

function getPath(config: Record<string, unknown> | undefined, key: string): unknown {
  let at: unknown = config;
  for (const part of key.split('.')) {
    if (!isPlainObject(at) || !Object.hasOwn(at, part)) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

function setPath(config: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  let at = config;
  for (const part of parts.slice(0, -1)) {
    if (!isPlainObject(at[part])) setOwn(at, part, {});
    at = at[part] as Record<string, unknown>;
  }
  setOwn(at, parts[parts.length - 1]!, value);
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** True when `entry` (a path as a module reads it: relative to the workspace, `~` is home) stays inside `workspace`. */
function insideWorkspace(entry: unknown, workspace: string): boolean {
  if (typeof entry !== 'string' || entry.startsWith('~') || entry.includes('$')) return false;
  const resolved = path.resolve(workspace, entry);
  const rel = path.relative(workspace, resolved);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The config keys of one project tool entry that may be used, and the ignored ones. */
function restrictConfig(
  module: string,
  config: Record<string, unknown>,
  current: Record<string, unknown> | undefined,
  at: string,
  context: ProjectContext,
  file: string,
  ignored: IgnoredKey[],
): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  const rules = TIGHTENING[module] ?? {};
  for (const [key, value] of leaves(config)) {
    const name = `${at}.config.${key}`;
    if (module === 'tool-bash' && key === 'sandbox' && value === 'off') {
      ignored.push({
        file,
        key: name,
        why: `${show(value)} turns the OS sandbox off, which no project may do`,
      });
      continue;
    }
    if (WRITE_PATH_KEYS.has(key)) {
      const list = Array.isArray(value) ? value : [value];
      const outside = list.filter((p) => !insideWorkspace(p, context.workspace));
      if (outside.length > 0 || !context.trusted) {
        ignored.push({
          file,
          key: name,
          why:
            outside.length > 0
              ? `${show(outside)} is outside the workspace ${context.workspace}, which no project may make writable`
              : `${show(value)} widens writable paths: ${NOT_TRUSTED}`,
        });
        continue;
      }
    }
    if (context.trusted) {
      setPath(kept, key, value);
      continue;
    }
    const rule = Object.hasOwn(rules, key) ? rules[key] : undefined;
    if (rule === undefined) {
      ignored.push({ file, key: name, why: `not a tightening key: ${NOT_TRUSTED}` });
    } else if (!rule(value, getPath(current, key))) {
      const was = getPath(current, key);
      ignored.push({
        file,
        key: name,
        why: `${show(value)} is not stricter than the session's ${was === undefined ? 'default' : show(was)}: ${NOT_TRUSTED}`,
      });
    } else setPath(kept, key, value);
  }
  return kept;
}

/**
 * Provider entries with endpoint and credential keys dropped (reported), and,
 * unless the folder is trusted, keys that name code to load.
 */
function restrictProviders(
  entries: readonly ModuleEntry[],
  file: string,
  ignored: IgnoredKey[],
  trusted: boolean,
): ModuleEntry[] {
  return entries.map((entry, i) => {
    const config: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(entry.config ?? {})) {
      const at = `providers[${entryKey(entry) || i}].config.${key}`;
      if (ENDPOINT_KEY.test(key)) {
        ignored.push({ file, key: at, why: PROVIDER_WHY });
      } else if (CODE_KEY.test(key) && !trusted) {
        ignored.push({ file, key: at, why: `it loads code (${show(value)}): ${NOT_TRUSTED}` });
      } else setOwn(config, key, value);
    }
    return { ...entry, config };
  });
}

/**
 * A project agent as a session may use it (see the module comment), and what
 * was dropped. The agent file is named in every ignored key.
 */
export function restrictProjectAgent(
  agent: AgentConfig,
  context: ProjectContext,
): { agent: AgentConfig; ignored: IgnoredKey[] } {
  const file = agent.file ?? agent.name;
  const ignored: IgnoredKey[] = [];
  const out: AgentConfig = { ...agent };
  const planTools = (context.plan.tools ?? []) as ModuleSpec[];
  if (agent.providers !== undefined) {
    const planProviders = (context.plan.providers ?? []) as ModuleSpec[];
    const providers: ModuleEntry[] = [];
    for (const entry of agent.providers) {
      const at = `providers[${entryKey(entry)}]`;
      if (!context.trusted && !planProviders.some((p) => entryKey(p) === entryKey(entry))) {
        ignored.push({
          file,
          key: at,
          why: `it adds the provider '${entryKey(entry)}', which the session does not mount: ${NOT_TRUSTED}`,
        });
        continue;
      }
      if (entry.source !== undefined && !context.trusted) {
        ignored.push({
          file,
          key: `${at}.source`,
          why: `it loads code (${show(entry.source)}): ${NOT_TRUSTED}`,
        });
        const { source: _dropped, ...rest } = entry;
        providers.push(rest);
      } else providers.push(entry);
    }
    out.providers = restrictProviders(providers, file, ignored, context.trusted);
  }
  if (!context.trusted) {
    if (agent.hooks !== undefined) {
      delete out.hooks;
      for (const entry of agent.hooks)
        ignored.push({ file, key: `hooks[${entryKey(entry)}]`, why: `a hook runs code: ${NOT_TRUSTED}` });
    }
    if (agent.session !== undefined) {
      delete out.session;
      ignored.push({
        file,
        key: 'session',
        why: `it changes the child session's orchestrator or context: ${NOT_TRUSTED}`,
      });
    }
  }
  if (agent.tools !== undefined) {
    const tools: ModuleEntry[] = [];
    for (const entry of agent.tools) {
      const at = `tools[${entryKey(entry)}]`;
      const current = planTools.find((t) => entryKey(t) === entryKey(entry));
      if (!context.trusted && current === undefined) {
        ignored.push({
          file,
          key: at,
          why: `it adds the module '${entryKey(entry)}', which the session does not mount: ${NOT_TRUSTED}`,
        });
        continue;
      }
      const kept: ModuleEntry = {
        ...(entry.module !== undefined && { module: entry.module }),
        ...(entry.id !== undefined && { id: entry.id }),
      };
      if (entry.source !== undefined) {
        if (context.trusted) kept.source = entry.source;
        else
          ignored.push({
            file,
            key: `${at}.source`,
            why: `it loads code (${show(entry.source)}): ${NOT_TRUSTED}`,
          });
      }
      if (entry.config !== undefined) {
        kept.config = restrictConfig(
          entry.module ?? '',
          entry.config,
          current?.config,
          at,
          context,
          file,
          ignored,
        );
      }
      tools.push(kept);
    }
    out.tools = tools;
  }
  return { agent: out, ignored };
}

/**
 * A trusted project bundle's composed plan data without what never comes from
 * a project (provider endpoints and credentials, `sandbox: off`, writable
 * paths outside the workspace), and what was dropped.
 */
export function restrictProjectPlanData(
  data: Record<string, unknown>,
  file: string,
  workspace: string,
): { data: Record<string, unknown>; ignored: IgnoredKey[] } {
  const ignored: IgnoredKey[] = [];
  const out: Record<string, unknown> = { ...data };
  const entries = (value: unknown): ModuleEntry[] | undefined =>
    Array.isArray(value)
      ? value.filter((p): p is ModuleEntry => isPlainObject(p) && typeof p.module === 'string')
      : undefined;
  const providers = entries(data.providers);
  if (providers !== undefined) out.providers = restrictProviders(providers, file, ignored, true);
  const tools = entries(data.tools);
  if (tools !== undefined) {
    const context: ProjectContext = { trusted: true, workspace, plan: {} as MountPlan };
    out.tools = tools.map((entry) =>
      entry.config === undefined
        ? entry
        : {
            ...entry,
            config: restrictConfig(
              entry.module ?? '',
              entry.config,
              undefined,
              `tools[${entryKey(entry)}]`,
              context,
              file,
              ignored,
            ),
          },
    );
  }
  return { data: out, ignored };
}

/**
 * The plan with tool-mcp told that the folder is trusted: `trust_project:
 * true` on each tool-mcp entry that does not set it (an entry of the user's
 * own plan that sets it keeps its value). Undefined when nothing changes.
 */
export function withProjectMcpTrust(plan: MountPlan): MountPlan | undefined {
  const tools = plan.tools ?? [];
  if (!tools.some((t) => t.module === 'tool-mcp' && !Object.hasOwn(t.config ?? {}, 'trust_project'))) {
    return undefined;
  }
  return {
    ...plan,
    tools: tools.map((t) =>
      t.module === 'tool-mcp' && !Object.hasOwn(t.config ?? {}, 'trust_project')
        ? { ...t, config: { ...t.config, trust_project: true } }
        : t,
    ),
  };
}
