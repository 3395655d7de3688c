/**
 * tool-bash configuration: defaults, validation (core's config policy,
 * `readModuleConfig`) and the environment policy. The config is read through
 * its own properties only: nothing inherited is ever read, and an own
 * `__proto__` key is an unknown key like any other.
 */
import fs from 'node:fs';
import { AmplifierError, errorMessage, getOwn, type JSONSchema, type Logger } from '@amplifier/core';
import {
  type ChildEnv,
  childEnvironment,
  SANDBOX_CONFIG_PROPERTIES,
  SANDBOX_SAFETY_KEYS,
  type SandboxPolicy,
  sandboxPolicyFrom,
} from '@amplifier/process';
import { defineModuleConfig } from '@amplifier/schema';
import { resolveProfile, type SafetyPolicy, type SafetyProfileName } from './profiles.js';

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
  /** `inherit`: the host's variables minus secret-named ones; `allowlist`: only `env_allowlist`. */
  env: EnvPolicy;
  /** Names passed to commands under `env: allowlist`; a trailing `*` matches a prefix (`LC_*`). */
  env_allowlist: string[];
  /** Host variables passed by name even when secret-named (`GITHUB_TOKEN`): the explicit opt-in. */
  pass_env: string[];
  /** Seconds between SIGTERM and SIGKILL when a command's process group is stopped. */
  kill_grace: number;
  /** The bash binary. */
  shell: string;
  /** The OS sandbox: the `sandbox` mode and the `sandbox_policy` section (see @amplifier/process). */
  sandbox: SandboxPolicy;
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

const stringList: JSONSchema = { type: 'array', items: { type: 'string' } };

/** JSON Schema of the config (`readModuleConfig` (@amplifier/schema) warns about unknown keys). */
export const CONFIG_SCHEMA: JSONSchema = {
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
        },
      ],
    },
    max_concurrent: { anyOf: [{ type: 'null' }, { type: 'integer', minimum: 1 }] },
    require_approval: { type: 'boolean' },
    env: { enum: ['inherit', 'allowlist'] },
    env_allowlist: stringList,
    pass_env: { type: 'array', items: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' } },
    kill_grace: { type: 'number', minimum: 0 },
    shell: { type: 'string', minLength: 1 },
    ...SANDBOX_CONFIG_PROPERTIES,
  },
};

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

/** The config's reader: the policy, and `MOUNT_FAILED` for a bad key. */
const BASH_CONFIG = defineModuleConfig({ module: 'tool-bash', schema: CONFIG_SCHEMA, safety: SAFETY_KEYS });

/**
 * Read a mount config by the config policy (`@amplifier/schema`) and fill in defaults. Throws an
 * AmplifierError (MOUNT_FAILED) that says which key to change, or a
 * ConfigRefusedError for a misspelt safety key (`SAFETY_KEYS`); unknown keys
 * (an own `__proto__` among them) are warned about once and ignored.
 */
export function parseConfig(raw: unknown, logger?: Logger): BashConfig {
  const config = BASH_CONFIG.read(raw, logger);
  const profile = getOwn<string>(config, 'safety_profile') ?? DEFAULTS.safety_profile;
  try {
    resolveProfile(profile);
  } catch (error) {
    throw new AmplifierError('MOUNT_FAILED', `tool-bash: ${errorMessage(error)}`);
  }
  const own = <K extends keyof BashConfig>(key: K): BashConfig[K] | undefined =>
    getOwn<BashConfig[K]>(config, key);
  const overrides = own('safety_overrides');
  const envAllowlist = own('env_allowlist');
  return {
    working_dir: own('working_dir') ?? DEFAULTS.working_dir,
    timeout: own('timeout') ?? DEFAULTS.timeout,
    max_output_bytes: own('max_output_bytes') ?? DEFAULTS.max_output_bytes,
    safety_profile: profile as SafetyProfileName,
    allowed_commands: [...(own('allowed_commands') ?? DEFAULTS.allowed_commands)],
    denied_commands: [...(own('denied_commands') ?? DEFAULTS.denied_commands)],
    safety_overrides: overrides
      ? {
          allow: [...(getOwn<string[]>(overrides, 'allow') ?? [])],
          block: [...(getOwn<string[]>(overrides, 'block') ?? [])],
        }
      : null,
    max_concurrent: own('max_concurrent') ?? DEFAULTS.max_concurrent,
    require_approval: own('require_approval') ?? DEFAULTS.require_approval,
    // Giving an allowlist without `env` means using it.
    env: own('env') ?? (envAllowlist ? 'allowlist' : 'inherit'),
    env_allowlist: [...(envAllowlist ?? DEFAULT_ENV_ALLOWLIST)],
    pass_env: [...(own('pass_env') ?? DEFAULTS.pass_env)],
    kill_grace: own('kill_grace') ?? DEFAULTS.kill_grace,
    shell: own('shell') ?? defaultShell(),
    sandbox: sandboxPolicyFrom(config),
  };
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
