/**
 * tool-agentpm configuration: defaults and validation (ajv through @amplifier/schema), and
 * the environment a tool process gets: only what its manifest declares, plus
 * the pass-through variables (PATH always). The config is read through its
 * own properties only (core's `ownConfig`); an own `__proto__` key is an
 * unknown key like any other.
 */
import { getOwn, type JSONSchema, type Logger, setOwn } from '@amplifier/core';
import {
  childEnvironment,
  SANDBOX_CONFIG_PROPERTIES,
  SANDBOX_DEFAULTS,
  SANDBOX_SAFETY_KEYS,
  type SandboxPolicy,
  sandboxPolicyFrom,
} from '@amplifier/process';
import { configDurationMs, defineModuleConfig, type FromSchema } from '@amplifier/schema';
import type { AgentManifest } from './manifest.js';

/**
 * JSON Schema of the config: the one source of `AgentPmConfigInput` (`FromSchema`); `readModuleConfig`
 * (@amplifier/schema) warns about unknown keys. The sandbox keys are `@amplifier/process`'s
 * `SANDBOX_CONFIG_PROPERTIES`, named one by one (an exported `as const` schema is one literal under
 * `isolatedDeclarations`; a test checks none is missing).
 */
export const CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    /** The tools to load: a string entry is `{ source: entry, pass_env: [] }`. */
    tools: {
      type: 'array',
      items: {
        anyOf: [
          { type: 'string', minLength: 1 },
          {
            type: 'object',
            properties: {
              /** A tool folder holding agent.json (absolute, or `./`/`../` relative to the working dir) or a package name. */
              source: { type: 'string', minLength: 1 },
              /**
               * Variables of the caller (the config's `env`, else the host's environment)
               * passed to this tool only, by name, whether or not its manifest declares
               * them (`OPENAI_API_KEY` for a tool that calls a model). Never the whole
               * environment. A listed name with no value is left out and reported.
               */
              pass_env: { type: 'array', items: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' } },
            },
            required: ['source'],
          },
        ],
      },
    },
    /** Values for the variables manifests declare in `environment.vars` (undeclared names are never passed). */
    env: { type: 'object', additionalProperties: { type: 'string' } },
    /** Per-call time limit in seconds for manifests without `entrypoint.timeout_ms` (or its alias `timeout_ms`); at most 2^31 - 1 ms, the longest timer Node keeps. */
    timeout: { type: 'number', exclusiveMinimum: 0, maximum: 2_147_483.647 },
    timeout_ms: { type: 'integer', minimum: 1, maximum: 2_147_483_647 },
    /** Per-stream limit (stdout, stderr): a process writing more is stopped. */
    max_output_bytes: { type: 'integer', minimum: 1 },
    /** Seconds between SIGTERM and SIGKILL when a process group is stopped (or its alias `kill_grace_ms`). */
    kill_grace: { type: 'number', minimum: 0, maximum: 60 },
    kill_grace_ms: { type: 'integer', minimum: 0, maximum: 60_000 },
    /**
     * Host variables every tool gets when set (PATH is always passed), secret-named
     * or not; also the opt-in for a secret-named variable a manifest declares.
     */
    pass_env: { type: 'array', items: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' } },
    /** Base for relative tool paths and package lookup; null: the `session.working_dir` capability, else the cwd. */
    working_dir: { type: ['string', 'null'] },
    sandbox: SANDBOX_CONFIG_PROPERTIES.sandbox as JSONSchema,
    sandbox_policy: SANDBOX_CONFIG_PROPERTIES.sandbox_policy as JSONSchema,
  },
} as const;

/** The config as written in a mount plan (every key optional): derived from `CONFIG_SCHEMA`. */
export type AgentPmConfigInput = FromSchema<typeof CONFIG_SCHEMA>;

/** One `tools` entry: where the tool is, and the caller's variables passed to it by name. */
export type ToolEntry = Required<Exclude<NonNullable<AgentPmConfigInput['tools']>[number], string>>;

/** The config with its defaults filled in (value types from `CONFIG_SCHEMA`). */
export type AgentPmConfig = Required<
  Pick<AgentPmConfigInput, 'env' | 'max_output_bytes' | 'pass_env' | 'working_dir'>
> & {
  /** The tools to load, each string entry as `{ source: entry, pass_env: [] }`. */
  tools: ToolEntry[];
  /** Per-call time limit in ms (config: `timeout` in seconds, or its alias `timeout_ms`). */
  timeout_ms: number;
  /** Time in ms between SIGTERM and SIGKILL (config: `kill_grace` in seconds, or `kill_grace_ms`). */
  kill_grace_ms: number;
  /** The OS sandbox (`sandbox` and `sandbox_policy`, see @amplifier/process): the working dir is the writable root. */
  sandbox: SandboxPolicy;
};

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

/** The config's reader: the policy, and `MOUNT_FAILED` for a bad key. */
const AGENTPM_CONFIG = defineModuleConfig({
  module: 'tool-agentpm',
  schema: CONFIG_SCHEMA,
  safety: SANDBOX_SAFETY_KEYS,
});

/**
 * Validate a mount config and fill in defaults. Throws an AmplifierError
 * (MOUNT_FAILED) listing every bad key, or naming two duration keys that
 * disagree; unknown keys (an own `__proto__` among them, or one inside a
 * `tools` entry) are warned about once and ignored (the config policy,
 * `readModuleConfig`).
 */
export function parseConfig(raw: unknown, logger?: Logger): AgentPmConfig {
  return AGENTPM_CONFIG.resolve(raw, logger, (config) => {
    // Durations are seconds (`timeout`, `kill_grace`), as in Amplifier's configs; `*_ms` are aliases.
    const timeoutMs = configDurationMs(config, 'timeout', 'tool-agentpm');
    const killGraceMs = configDurationMs(config, 'kill_grace', 'tool-agentpm');
    const env: Record<string, string> = {};
    const given = config.env ?? {};
    for (const name of Object.keys(given)) setOwn(env, name, given[name]);
    return {
      tools: toolEntries(config.tools ?? []),
      env,
      timeout_ms: timeoutMs === undefined ? DEFAULTS.timeout_ms : Math.max(1, Math.round(timeoutMs)),
      max_output_bytes: config.max_output_bytes ?? DEFAULTS.max_output_bytes,
      kill_grace_ms: killGraceMs === undefined ? DEFAULTS.kill_grace_ms : Math.round(killGraceMs),
      pass_env: [...(config.pass_env ?? DEFAULT_PASS_ENV)],
      working_dir: config.working_dir ?? DEFAULTS.working_dir,
      sandbox: sandboxPolicyFrom(config),
    };
  });
}

/** `tools` as entries: a string is a source with no caller variables (unknown keys were left out by the policy). */
function toolEntries(items: NonNullable<AgentPmConfigInput['tools']>): ToolEntry[] {
  return items.map((item) =>
    typeof item === 'string'
      ? { source: item, pass_env: [] }
      : { source: item.source, pass_env: [...(item.pass_env ?? [])] },
  );
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
