/**
 * tool-bash configuration: defaults, validation (core's config policy,
 * `readModuleConfig`) and the environment policy. The config is read through
 * its own properties only: nothing inherited is ever read, and an own
 * `__proto__` key is an unknown key like any other.
 */
import fs from 'node:fs';
import type { JSONSchema, Logger } from '@amplifier/core';
import {
  type ChildEnv,
  childEnvironment,
  SANDBOX_CONFIG_PROPERTIES,
  SANDBOX_SAFETY_KEYS,
  type SandboxPolicy,
  sandboxPolicyFrom,
} from '@amplifier/process';
import { defineModuleConfig, type FromSchema } from '@amplifier/schema';
import { resolveProfile, type SafetyProfileName } from './profiles.js';

/**
 * JSON Schema of the config: the one source of `BashConfigInput` (`FromSchema`); `readModuleConfig`
 * (@amplifier/schema) warns about unknown keys. The sandbox keys are `@amplifier/process`'s
 * `SANDBOX_CONFIG_PROPERTIES`, named one by one (an exported `as const` schema is one literal under
 * `isolatedDeclarations`; a test checks none is missing).
 */
export const CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    /** cwd of every command; null: the `session.working_dir` capability at call time, else the process cwd. */
    working_dir: { type: ['string', 'null'] },
    /** Default per-call timeout in seconds. Default 30. */
    timeout: { type: 'number', exclusiveMinimum: 0 },
    /** Per-stream limit (stdout and stderr each) before head + tail truncation. Default 100000. */
    max_output_bytes: { type: 'integer', minimum: 1 },
    /** strict (default), standard, permissive or unrestricted. */
    safety_profile: { type: 'string' },
    allowed_commands: { type: 'array', items: { type: 'string' } },
    denied_commands: { type: 'array', items: { type: 'string' } },
    safety_overrides: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          properties: {
            allow: { type: 'array', items: { type: 'string' } },
            block: { type: 'array', items: { type: 'string' } },
          },
        },
      ],
    },
    /** Commands allowed to run at once in this mount; null: no limit. */
    max_concurrent: { anyOf: [{ type: 'null' }, { type: 'integer', minimum: 1 }] },
    /** Reported by `getMetadata()` only (the reference's default: true). */
    require_approval: { type: 'boolean' },
    /** `inherit`: the host's variables minus secret-named ones; `allowlist`: only `env_allowlist`. */
    env: { enum: ['inherit', 'allowlist'] },
    /** Names passed to commands under `env: allowlist`; a trailing `*` matches a prefix (`LC_*`). */
    env_allowlist: { type: 'array', items: { type: 'string' } },
    /** Host variables passed by name even when secret-named (`GITHUB_TOKEN`): the explicit opt-in. */
    pass_env: { type: 'array', items: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' } },
    /** Seconds between SIGTERM and SIGKILL when a command's process group is stopped. */
    kill_grace: { type: 'number', minimum: 0 },
    /** The bash binary. */
    shell: { type: 'string', minLength: 1 },
    sandbox: SANDBOX_CONFIG_PROPERTIES.sandbox as JSONSchema,
    sandbox_policy: SANDBOX_CONFIG_PROPERTIES.sandbox_policy as JSONSchema,
  },
} as const;

/** The config as written in a mount plan (every key optional): derived from `CONFIG_SCHEMA`. */
export type BashConfigInput = FromSchema<typeof CONFIG_SCHEMA>;

export type EnvPolicy = NonNullable<BashConfigInput['env']>;

/** The config with its defaults filled in (value types from `CONFIG_SCHEMA`). */
export type BashConfig = Required<
  Omit<BashConfigInput, 'safety_profile' | 'safety_overrides' | 'sandbox' | 'sandbox_policy'>
> & {
  safety_profile: SafetyProfileName;
  safety_overrides: { allow: string[]; block: string[] } | null;
  /** The OS sandbox: the `sandbox` mode and the `sandbox_policy` section (see @amplifier/process). */
  sandbox: SandboxPolicy;
};

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

export const DEFAULTS: Readonly<Omit<BashConfig, 'shell' | 'sandbox'>> = Object.freeze({
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
  pass_env: [],
  kill_grace: 0.5,
});

const LOOSER = 'ignoring it would let commands run that the config restricts';

/**
 * The safety-relevant keys (see README): a misspelling of one of them, or an
 * unknown key inside `safety_overrides`, is refused with the reason, never ignored.
 */
export const SAFETY_KEYS: Readonly<Record<string, string>> = {
  safety_profile: `${LOOSER} (the profile)`,
  denied_commands: `${LOOSER} (a deny list)`,
  safety_overrides: `${LOOSER} (a misspelt block list)`,
  max_concurrent: `${LOOSER} (a concurrency limit)`,
  env: 'ignoring it would pass more of the environment to commands than the config allows',
  env_allowlist: 'ignoring it would pass more of the environment to commands than the config allows',
  ...SANDBOX_SAFETY_KEYS,
};

/** The config's reader: the policy, and `MOUNT_FAILED` for a bad key or an unknown profile. */
const BASH_CONFIG = defineModuleConfig({ module: 'tool-bash', schema: CONFIG_SCHEMA, safety: SAFETY_KEYS });

/**
 * Read a mount config by the config policy (`@amplifier/schema`) and fill in defaults. Throws an
 * AmplifierError (MOUNT_FAILED) that says which key to change, or a
 * ConfigRefusedError for a misspelt safety key (`SAFETY_KEYS`); unknown keys
 * (an own `__proto__` among them) are warned about once and ignored.
 */
export function parseConfig(raw: unknown, logger?: Logger): BashConfig {
  return BASH_CONFIG.resolve(raw, logger, (config) => {
    const profile = config.safety_profile ?? DEFAULTS.safety_profile;
    resolveProfile(profile);
    const overrides = config.safety_overrides;
    return {
      working_dir: config.working_dir ?? DEFAULTS.working_dir,
      timeout: config.timeout ?? DEFAULTS.timeout,
      max_output_bytes: config.max_output_bytes ?? DEFAULTS.max_output_bytes,
      safety_profile: profile as SafetyProfileName,
      allowed_commands: [...(config.allowed_commands ?? DEFAULTS.allowed_commands)],
      denied_commands: [...(config.denied_commands ?? DEFAULTS.denied_commands)],
      safety_overrides: overrides
        ? { allow: [...(overrides.allow ?? [])], block: [...(overrides.block ?? [])] }
        : null,
      max_concurrent: config.max_concurrent ?? DEFAULTS.max_concurrent,
      require_approval: config.require_approval ?? DEFAULTS.require_approval,
      // Giving an allowlist without `env` means using it.
      env: config.env ?? (config.env_allowlist ? 'allowlist' : 'inherit'),
      env_allowlist: [...(config.env_allowlist ?? DEFAULT_ENV_ALLOWLIST)],
      pass_env: [...(config.pass_env ?? DEFAULTS.pass_env)],
      kill_grace: config.kill_grace ?? DEFAULTS.kill_grace,
      shell: config.shell ?? defaultShell(),
      sandbox: sandboxPolicyFrom(config),
    };
  });
}

function defaultShell(): string {
  return fs.existsSync('/bin/bash') ? '/bin/bash' : 'bash';
}

/**
 * The environment a command gets (the process kit's `childEnvironment`, read from the
 * host's at call time), and the secret-named variables left out:
 * - `inherit`: every host variable whose name is not secret-named (core's
 *   `isSecretKey`, the rule log redaction uses);
 * - `allowlist`: only the `env_allowlist` names, a `*` pattern never
 *   matching a secret-named one;
 * - either way, `pass_env` names (and exact `env_allowlist` names: naming a
 *   variable is the opt-in) are passed even when secret-named.
 */
export function commandEnvironment(
  config: Pick<BashConfig, 'env' | 'env_allowlist' | 'pass_env'>,
  host: NodeJS.ProcessEnv = process.env,
): ChildEnv {
  if (config.env === 'inherit') return childEnvironment(host, { inherit: 'all', pass: config.pass_env });
  const exact = config.env_allowlist.filter((name) => !name.endsWith('*'));
  return childEnvironment(host, { inherit: config.env_allowlist, pass: [...config.pass_env, ...exact] });
}

/** The environment a command gets (see `commandEnvironment`). */
export function commandEnv(
  config: Pick<BashConfig, 'env' | 'env_allowlist' | 'pass_env'>,
  host: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  return commandEnvironment(config, host).env;
}
