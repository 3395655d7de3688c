/**
 * tool-bash configuration: defaults, validation (ajv through core) and the
 * environment policy.
 */
import fs from 'node:fs';
import {
  AmplifierError,
  compileSchema,
  formatDataErrors,
  type JSONSchema,
  type Logger,
} from '@amplifier/core';
import { resolveProfile, type SafetyPolicy, type SafetyProfileName } from './safety.js';

export type EnvPolicy = 'inherit' | 'allowlist';

export interface BashConfig extends SafetyPolicy {
  /** cwd of every command; null: the `session.working_dir` capability at call time, else the process cwd. */
  working_dir: string | null;
  /** Default per-call timeout in seconds. */
  timeout: number;
  /** Per-stream limit (stdout and stderr each) before head + tail truncation. */
  max_output_bytes: number;
  safety_profile: SafetyProfileName;
  allowed_commands: string[];
  denied_commands: string[];
  safety_overrides: { allow: string[]; block: string[] } | null;
  /** Commands allowed to run at once in this mount; null: no limit. */
  max_concurrent: number | null;
  /** Reported by `getMetadata()` only (the reference's default: true). */
  require_approval: boolean;
  env: EnvPolicy;
  /** Names passed to commands under `env: allowlist`; a trailing `*` matches a prefix (`LC_*`). */
  env_allowlist: string[];
  /** Seconds between SIGTERM and SIGKILL when a command's process group is stopped. */
  kill_grace: number;
  /** The bash binary. */
  shell: string;
}

/** Variables a command gets under `env: allowlist` unless `env_allowlist` says otherwise. */
export const DEFAULT_ENV_ALLOWLIST: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'LC_*',
  'TERM',
  'TZ',
  'TMPDIR',
];

export const DEFAULTS: Readonly<Omit<BashConfig, 'shell'>> = Object.freeze({
  working_dir: null,
  timeout: 30,
  max_output_bytes: 100_000,
  safety_profile: 'strict',
  allowed_commands: [],
  denied_commands: [],
  safety_overrides: null,
  max_concurrent: null,
  require_approval: true,
  env: 'inherit',
  env_allowlist: [...DEFAULT_ENV_ALLOWLIST],
  kill_grace: 0.5,
});

const stringList: JSONSchema = { type: 'array', items: { type: 'string' } };

const CONFIG_SCHEMA: JSONSchema = {
  type: 'object',
  properties: {
    working_dir: { type: ['string', 'null'] },
    timeout: { type: 'number', exclusiveMinimum: 0 },
    max_output_bytes: { type: 'integer', minimum: 1 },
    safety_profile: { type: 'string' },
    allowed_commands: stringList,
    denied_commands: stringList,
    safety_overrides: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          properties: { allow: stringList, block: stringList },
          additionalProperties: false,
        },
      ],
    },
    max_concurrent: { anyOf: [{ type: 'null' }, { type: 'integer', minimum: 1 }] },
    require_approval: { type: 'boolean' },
    env: { enum: ['inherit', 'allowlist'] },
    env_allowlist: stringList,
    kill_grace: { type: 'number', minimum: 0 },
    shell: { type: 'string', minLength: 1 },
  },
};

const KNOWN_KEYS = new Set(Object.keys(CONFIG_SCHEMA.properties as object));

/**
 * Validate a mount config and fill in defaults. Throws an AmplifierError
 * (MOUNT_FAILED) that says which key to change; unknown keys are logged.
 */
export function parseConfig(raw: Record<string, unknown>, logger?: Logger): BashConfig {
  const config = raw ?? {};
  const errors = compileSchema(CONFIG_SCHEMA)(config);
  if (errors.length > 0) {
    throw new AmplifierError('MOUNT_FAILED', `tool-bash: invalid config:\n${formatDataErrors(errors)}`);
  }
  const profile = config.safety_profile ?? DEFAULTS.safety_profile;
  try {
    resolveProfile(String(profile));
  } catch (error) {
    throw new AmplifierError('MOUNT_FAILED', `tool-bash: ${(error as Error).message}`);
  }
  for (const key of Object.keys(config)) {
    if (!KNOWN_KEYS.has(key)) logger?.warn(`tool-bash: unknown config key '${key}' ignored`);
  }
  const overrides = config.safety_overrides as { allow?: string[]; block?: string[] } | null | undefined;
  const envAllowlist = config.env_allowlist as string[] | undefined;
  return {
    ...DEFAULTS,
    ...(config as Partial<BashConfig>),
    safety_profile: profile as SafetyProfileName,
    safety_overrides: overrides ? { allow: overrides.allow ?? [], block: overrides.block ?? [] } : null,
    // Giving an allowlist without `env` means using it.
    env: (config.env as EnvPolicy | undefined) ?? (envAllowlist ? 'allowlist' : 'inherit'),
    env_allowlist: envAllowlist ?? [...DEFAULT_ENV_ALLOWLIST],
    shell: (config.shell as string | undefined) ?? defaultShell(),
  } as BashConfig;
}

function defaultShell(): string {
  return fs.existsSync('/bin/bash') ? '/bin/bash' : 'bash';
}

/** The environment a command gets: the process's own, or only the allowlisted names. */
export function commandEnv(config: Pick<BashConfig, 'env' | 'env_allowlist'>): NodeJS.ProcessEnv {
  if (config.env === 'inherit') return process.env;
  const exact = new Set(config.env_allowlist.filter((name) => !name.endsWith('*')));
  const prefixes = config.env_allowlist.filter((name) => name.endsWith('*')).map((name) => name.slice(0, -1));
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (exact.has(name) || prefixes.some((prefix) => name.startsWith(prefix))) env[name] = value;
  }
  return env;
}
