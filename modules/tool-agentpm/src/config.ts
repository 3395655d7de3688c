/**
 * tool-agentpm configuration: defaults and validation (ajv through core), and
 * the environment a tool process gets: only what its manifest declares, plus
 * the pass-through variables (PATH always).
 */
import {
  AmplifierError,
  compileSchema,
  formatDataErrors,
  type JSONSchema,
  type Logger,
} from '@amplifier/core';
import type { AgentManifest } from './manifest.js';

export interface AgentPmConfig {
  /** Tool folders holding agent.json (absolute, or `./`/`../` relative to the working dir) or package names. */
  tools: string[];
  /** Values for the variables manifests declare in `environment.vars` (undeclared names are never passed). */
  env: Record<string, string>;
  /** Per-call time limit for manifests without `entrypoint.timeout_ms`. */
  timeout_ms: number;
  /** Per-stream limit (stdout, stderr): a process writing more is stopped. */
  max_output_bytes: number;
  /** Time between SIGTERM and SIGKILL when a process group is stopped. */
  kill_grace_ms: number;
  /** Host variables every tool gets when set (PATH is always passed). */
  pass_env: string[];
  /** Base for relative tool paths and package lookup; null: the `session.working_dir` capability, else the cwd. */
  working_dir: string | null;
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
});

const CONFIG_SCHEMA: JSONSchema = {
  type: 'object',
  properties: {
    tools: { type: 'array', items: { type: 'string', minLength: 1 } },
    env: { type: 'object', additionalProperties: { type: 'string' } },
    timeout_ms: { type: 'integer', minimum: 1, maximum: 2 ** 31 - 1 },
    max_output_bytes: { type: 'integer', minimum: 1 },
    kill_grace_ms: { type: 'integer', minimum: 0, maximum: 60_000 },
    pass_env: { type: 'array', items: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' } },
    working_dir: { type: ['string', 'null'] },
  },
};

const KNOWN_KEYS = new Set(Object.keys(CONFIG_SCHEMA.properties as object));

/**
 * Validate a mount config and fill in defaults. Throws an AmplifierError
 * (MOUNT_FAILED) listing every bad key; unknown keys are logged as warnings.
 */
export function parseConfig(raw: Record<string, unknown> | undefined, logger?: Logger): AgentPmConfig {
  const config = raw ?? {};
  const errors = compileSchema(CONFIG_SCHEMA)(config);
  if (errors.length > 0) {
    throw new AmplifierError(
      'MOUNT_FAILED',
      `tool-agentpm: invalid config:\n${formatDataErrors(errors)}\nFix the module's config in the mount plan.`,
    );
  }
  for (const key of Object.keys(config)) {
    if (!KNOWN_KEYS.has(key)) logger?.warn(`tool-agentpm: unknown config key '${key}' ignored`);
  }
  const known = Object.fromEntries(Object.entries(config).filter(([key]) => KNOWN_KEYS.has(key)));
  return {
    ...DEFAULTS,
    ...(known as Partial<AgentPmConfig>),
    tools: [...((config.tools as string[] | undefined) ?? [])],
    env: { ...((config.env as Record<string, string> | undefined) ?? {}) },
    pass_env: [...((config.pass_env as string[] | undefined) ?? DEFAULT_PASS_ENV)],
  };
}

/** The environment of a tool process, or the required variables that have no value. */
export type ToolEnv = { env: Record<string, string>; missing: [] } | { env: undefined; missing: string[] };

/**
 * Build a tool's environment, never from the host's whole environment:
 * 1. `pass_env` names (and PATH) that are set on the host;
 * 2. the manifest's fixed `entrypoint.env`;
 * 3. each declared `environment.vars` name: the config's `env`, else the host's, else its `default`.
 * A required variable left without a value is reported in `missing`.
 */
export function toolEnvironment(
  manifest: AgentManifest,
  config: Pick<AgentPmConfig, 'env' | 'pass_env'>,
  hostEnv: NodeJS.ProcessEnv,
): ToolEnv {
  const env: Record<string, string> = Object.create(null);
  for (const name of new Set(['PATH', ...config.pass_env])) {
    const value = hostEnv[name];
    if (value !== undefined) env[name] = value;
  }
  Object.assign(env, manifest.entrypoint.env ?? {});
  const missing: string[] = [];
  for (const [name, spec] of Object.entries(manifest.environment?.vars ?? {})) {
    const value = own(config.env, name) ?? hostEnv[name] ?? spec.default;
    if (value !== undefined) env[name] = value;
    else if (spec.required) missing.push(name);
  }
  if (missing.length > 0) return { env: undefined, missing };
  return { env: { ...env }, missing: [] };
}

function own(record: Record<string, string>, key: string): string | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
