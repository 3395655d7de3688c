/**
 * The sandbox policy of a subprocess tool, read from its config: the mode
 * (`sandbox: auto | required | off`) and `sandbox_policy` (extra writable
 * paths, network on or off, extra hidden paths, a process limit, the size of
 * the private /tmp). Both keys are safety keys: a misspelling, or an unknown
 * key inside `sandbox_policy`, is refused, never ignored.
 */
import os from 'node:os';
import path from 'node:path';
import { getOwn, type JSONSchema } from '@amplifier/core';
import { SECRET_HOME_PATHS } from '@amplifier/secrets/paths';

/** `auto`: sandbox when bubblewrap works, else run unconfined with one notice; `required`: refuse without it; `off`: never. */
export type SandboxMode = 'auto' | 'required' | 'off';

export interface SandboxPolicy {
  mode: SandboxMode;
  /** Writable besides the workspace (absolute, `~/...`, or relative to the workspace). */
  writable: readonly string[];
  /** All or nothing: true shares the host's network (no allow-list proxy). */
  network: boolean;
  /** Hidden besides `DEFAULT_HIDDEN` (an empty directory or an empty file over each). */
  hidden: readonly string[];
  /** Processes the command may have at once (a pids cgroup where one can be made, else RLIMIT_NPROC for non-root). */
  max_processes: number;
  /** Size of the sandbox's private /tmp, in MiB. */
  tmp_size_mb: number;
  /**
   * When the kernel runs as root: the unprivileged host user (a name, or a
   * uid) bubblewrap and the command run as, so that permission checks see
   * that user and not root. The workspace and writable paths must be
   * writable by it. Ignored when the kernel is not root.
   */
  run_as?: string | number;
}

/**
 * Hidden by default, relative to the home directory: credentials a command has
 * no business reading (`SECRET_HOME_PATHS` of `@amplifier/secrets/paths`, the
 * list the config file resolver refuses too).
 */
export const DEFAULT_HIDDEN: readonly string[] = SECRET_HOME_PATHS;

export const SANDBOX_DEFAULTS: Readonly<SandboxPolicy> = Object.freeze({
  mode: 'auto',
  writable: [],
  network: false,
  hidden: [],
  max_processes: 512,
  tmp_size_mb: 512,
});

const stringList: JSONSchema = { type: 'array', items: { type: 'string', minLength: 1 } };

/** Schema properties to merge into a module's config schema. */
export const SANDBOX_CONFIG_PROPERTIES: Readonly<Record<string, JSONSchema>> = {
  sandbox: { enum: ['auto', 'required', 'off'] },
  sandbox_policy: {
    type: 'object',
    properties: {
      writable: stringList,
      network: { type: 'boolean' },
      hidden: stringList,
      max_processes: { type: 'integer', minimum: 8 },
      tmp_size_mb: { type: 'integer', minimum: 1 },
      run_as: {
        anyOf: [
          { type: 'string', minLength: 1 },
          { type: 'integer', minimum: 1 },
        ],
      },
    },
  },
};

/** Safety keys to merge into a module's `SAFETY_KEYS`. */
export const SANDBOX_SAFETY_KEYS: Readonly<Record<string, string>> = {
  sandbox: 'ignoring it could run commands unconfined that the config wants confined',
  sandbox_policy:
    'ignoring it could give commands more of the filesystem, the network or the process table than the config allows',
};

/** The policy from a config already read by `readModuleConfig` with the properties above. */
export function sandboxPolicyFrom(config: Record<string, unknown>): SandboxPolicy {
  const section = getOwn<Record<string, unknown>>(config, 'sandbox_policy') ?? {};
  const own = <T>(key: string): T | undefined => getOwn<T>(section, key);
  const runAs = own<string | number>('run_as');
  return {
    ...(runAs === undefined ? {} : { run_as: runAs }),
    mode: getOwn<SandboxMode>(config, 'sandbox') ?? SANDBOX_DEFAULTS.mode,
    writable: [...(own<string[]>('writable') ?? [])],
    network: own<boolean>('network') ?? SANDBOX_DEFAULTS.network,
    hidden: [...(own<string[]>('hidden') ?? [])],
    max_processes: own<number>('max_processes') ?? SANDBOX_DEFAULTS.max_processes,
    tmp_size_mb: own<number>('tmp_size_mb') ?? SANDBOX_DEFAULTS.tmp_size_mb,
  };
}

/** `~/x` -> `<home>/x`; other relative paths are relative to `base`; absolute ones as given. */
export function policyPath(entry: string, base: string, home: string = os.homedir()): string {
  if (entry === '~') return home;
  if (entry.startsWith('~/')) return path.join(home, entry.slice(2));
  return path.resolve(base, entry);
}
