/**
 * tool-agentpm configuration: defaults and validation (ajv through @amplifier/schema), and
 * the environment a tool process gets: only what its manifest declares, plus
 * the pass-through variables (PATH always). The config is read through its
 * own properties only (core's `ownConfig`); an own `__proto__` key is an
 * unknown key like any other.
 */
import { AmplifierError, errorMessage, getOwn, type JSONSchema, type Logger, setOwn } from '@amplifier/core';
import {
  childEnvironment,
  SANDBOX_CONFIG_PROPERTIES,
  SANDBOX_DEFAULTS,
  SANDBOX_SAFETY_KEYS,
  type SandboxPolicy,
  sandboxPolicyFrom,
} from '@amplifier/process';
import { configDurationMs, defineModuleConfig } from '@amplifier/schema';
import type { AgentManifest } from './manifest.js';

/** One `tools` entry: where the tool is, and the caller's variables passed to it by name. */
export interface ToolEntry {
  /** A tool folder holding agent.json (absolute, or `./`/`../` relative to the working dir) or a package name. */
  source: string;
  /**
   * Variables of the caller (the config's `env`, else the host's environment)
   * passed to this tool only, by name, whether or not its manifest declares
   * them (`OPENAI_API_KEY` for a tool that calls a model). Never the whole
   * environment. A listed name with no value is left out and reported.
   */
  pass_env: string[];
}

export interface AgentPmConfig {
  /** The tools to load: a string entry is `{ source: entry, pass_env: [] }`. */
  tools: ToolEntry[];
  /** Values for the variables manifests declare in `environment.vars` (undeclared names are never passed). */
  env: Record<string, string>;
  /** Per-call time limit in ms for manifests without `entrypoint.timeout_ms` (config: `timeout` in seconds, or its alias `timeout_ms`). */
  timeout_ms: number;
  /** Per-stream limit (stdout, stderr): a process writing more is stopped. */
  max_output_bytes: number;
  /** Time in ms between SIGTERM and SIGKILL when a process group is stopped (config: `kill_grace` in seconds, or `kill_grace_ms`). */
  kill_grace_ms: number;
  /**
   * Host variables every tool gets when set (PATH is always passed), secret-named
   * or not; also the opt-in for a secret-named variable a manifest declares.
   */
  pass_env: string[];
  /** Base for relative tool paths and package lookup; null: the `session.working_dir` capability, else the cwd. */
  working_dir: string | null;
  /** The OS sandbox (`sandbox` and `sandbox_policy`, see @amplifier/process): the working dir is the writable root. */
  sandbox: SandboxPolicy;
}

/** Host variables passed to every tool unless `pass_env` says otherwise. */
export const DEFAULT_PASS_ENV: readonly string[] = ['PATH', 'HOME', 'LANG', 'TMPDIR'];

export const DEFAULTS: Readonly<AgentPmConfig> = Object.freeze({
  tools: [],
  env: {},
  timeout_ms: 120_000,
  max_output_bytes: 1024 * 1024,
  kill_grace_ms: 1000,
  pass_env: [...DEFAULT_PASS_ENV],
  working_dir: null,
  sandbox: { ...SANDBOX_DEFAULTS },
});

const ENV_NAME = '^[A-Za-z_][A-Za-z0-9_]*$';

/** JSON Schema of the config (`readModuleConfig` (@amplifier/schema) warns about unknown keys). */
export const CONFIG_SCHEMA: JSONSchema = {
  type: 'object',
  properties: {
    tools: {
      type: 'array',
      items: {
        anyOf: [
          { type: 'string', minLength: 1 },
          {
            type: 'object',
            properties: {
              source: { type: 'string', minLength: 1 },
              pass_env: { type: 'array', items: { type: 'string', pattern: ENV_NAME } },
            },
            required: ['source'],
          },
        ],
      },
    },
    env: { type: 'object', additionalProperties: { type: 'string' } },
    timeout: { type: 'number', exclusiveMinimum: 0, maximum: (2 ** 31 - 1) / 1000 },
    timeout_ms: { type: 'integer', minimum: 1, maximum: 2 ** 31 - 1 },
    max_output_bytes: { type: 'integer', minimum: 1 },
    kill_grace: { type: 'number', minimum: 0, maximum: 60 },
    kill_grace_ms: { type: 'integer', minimum: 0, maximum: 60_000 },
    pass_env: { type: 'array', items: { type: 'string', pattern: ENV_NAME } },
    working_dir: { type: ['string', 'null'] },
    ...SANDBOX_CONFIG_PROPERTIES,
  },
};

/** The config's reader: the policy, and `MOUNT_FAILED` for a bad key. */
const AGENTPM_CONFIG = defineModuleConfig({
  module: 'tool-agentpm',
  schema: CONFIG_SCHEMA,
  safety: SANDBOX_SAFETY_KEYS,
});

/**
 * Validate a mount config and fill in defaults. Throws an AmplifierError
 * (MOUNT_FAILED) listing every bad key; unknown keys (an own `__proto__`
 * among them) are warned about once and ignored (core's config policy,
 * `readModuleConfig`).
 */
export function parseConfig(raw: unknown, logger?: Logger): AgentPmConfig {
  const config = AGENTPM_CONFIG.read(raw, logger);
  let timeoutMs: number | undefined;
  let killGraceMs: number | undefined;
  try {
    // Durations are seconds (`timeout`, `kill_grace`), as in Amplifier's configs; `*_ms` are aliases.
    timeoutMs = configDurationMs(config, 'timeout', 'tool-agentpm');
    killGraceMs = configDurationMs(config, 'kill_grace', 'tool-agentpm');
  } catch (error) {
    throw new AmplifierError(
      'MOUNT_FAILED',
      `${errorMessage(error)}\nFix the module's config in the mount plan.`,
    );
  }
  const own = <K extends keyof AgentPmConfig>(key: K): AgentPmConfig[K] | undefined =>
    getOwn<AgentPmConfig[K]>(config, key);
  const env: Record<string, string> = {};
  const given = own('env') ?? {};
  for (const name of Object.keys(given)) setOwn(env, name, given[name]);
  return {
    tools: toolEntries(getOwn<unknown[]>(config, 'tools') ?? [], logger),
    env,
    timeout_ms: timeoutMs === undefined ? DEFAULTS.timeout_ms : Math.max(1, Math.round(timeoutMs)),
    max_output_bytes: own('max_output_bytes') ?? DEFAULTS.max_output_bytes,
    kill_grace_ms: killGraceMs === undefined ? DEFAULTS.kill_grace_ms : Math.round(killGraceMs),
    pass_env: [...(own('pass_env') ?? DEFAULT_PASS_ENV)],
    working_dir: own('working_dir') ?? DEFAULTS.working_dir,
    sandbox: sandboxPolicyFrom(config),
  };
}

/** `tools` as entries: a string is a source with no caller variables (read through own properties only). */
function toolEntries(raw: readonly unknown[], logger?: Logger): ToolEntry[] {
  return raw.map((item, i) => {
    if (typeof item === 'string') return { source: item, pass_env: [] };
    const entry = item as Record<string, unknown>;
    for (const key of Object.keys(entry)) {
      if (key !== 'source' && key !== 'pass_env') {
        logger?.warn(`tool-agentpm: unknown key '${key}' in tools[${i}] ignored (known: source, pass_env)`);
      }
    }
    return {
      source: getOwn<string>(entry, 'source') ?? '',
      pass_env: [...(getOwn<string[]>(entry, 'pass_env') ?? [])],
    };
  });
}

/**
 * The environment of a tool process, or the required variables that have no
 * value. `withheld`: declared secret-named variables set on the host whose
 * value was not passed (no `pass_env` opt-in). `unset`: names the tool's own
 * `pass_env` lists that have no value anywhere (left out).
 */
export type ToolEnv =
  | { env: Record<string, string>; missing: []; withheld: string[]; unset: string[] }
  | { env: undefined; missing: string[]; withheld: string[]; unset: string[] };

/**
 * Build a tool's environment, never from the host's whole environment (core's
 * `childEnvironment`):
 * 1. `pass_env` names (and PATH) that are set on the host;
 * 2. the manifest's fixed `entrypoint.env`;
 * 3. each declared `environment.vars` name: the config's `env`, else the
 *    host's, else its `default`. A declared name that is secret-named (core's
 *    `isSecretKey`: `OPENAI_API_KEY`, `GITHUB_TOKEN`) is taken from the host
 *    only when `pass_env` (the mount's or the tool's own) names it too: a
 *    manifest is the tool author's request, the opt-in is the user's;
 * 4. the caller's variables the tool's entry lists (`callerVars`, its own
 *    `pass_env`): the config's `env`, else the host's, declared or not.
 * A required variable left without a value is reported in `missing`.
 */
export function toolEnvironment(
  manifest: AgentManifest,
  config: Pick<AgentPmConfig, 'env' | 'pass_env'>,
  hostEnv: NodeJS.ProcessEnv,
  callerVars: readonly string[] = [],
): ToolEnv {
  const declared = manifest.environment?.vars ?? {};
  const names = Object.keys(declared);
  const optIn = [...config.pass_env, ...callerVars];
  const passed = childEnvironment(hostEnv, { inherit: [], pass: ['PATH', ...config.pass_env] }).env;
  const fromHost = childEnvironment(hostEnv, { inherit: names, pass: optIn });
  const callers = childEnvironment(hostEnv, { inherit: [], pass: [...callerVars] }).env;
  const env: Record<string, string> = Object.create(null);
  Object.assign(env, passed, manifest.entrypoint.env ?? {});
  const missing: string[] = [];
  for (const name of names) {
    const spec = declared[name]!;
    const value = getOwn<string>(config.env, name) ?? getOwn<string>(fromHost.env, name) ?? spec.default;
    if (value !== undefined) env[name] = value;
    else if (spec.required) missing.push(name);
  }
  const unset: string[] = [];
  for (const name of callerVars) {
    const value = getOwn<string>(config.env, name) ?? getOwn<string>(callers, name);
    if (value !== undefined) env[name] = value;
    else if (!(name in env)) unset.push(name);
  }
  const withheld = fromHost.withheld.filter((name) => getOwn(config.env, name) === undefined);
  if (missing.length > 0) return { env: undefined, missing, withheld, unset };
  return { env: { ...env }, missing: [], withheld, unset };
}
