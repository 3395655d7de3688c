/**
 * The config policy every module follows (one implementation, part of the
 * module contract): a module's config is read through its own properties only;
 * keys the module does not know are warned about once (module id and key) and
 * ignored, never a reason to drop the module; the known keys are validated
 * with the module's JSON Schema (a wrong type fails with the key's path); a key
 * is refused only where ignoring it would make the session less safe than
 * asked, with the reason, and a refusal stops the session (`required`).
 */
import {
  AmplifierError,
  ConfigRefusedError,
  type DataError,
  DataValidationError,
  errorMessage,
  type FromSchema,
  formatDataErrors,
  getOwn,
  isPlainObject,
  type JSONSchema,
  type Logger,
  ownConfig,
  setOwn,
} from '@amplifier/core';
import { compileSchema } from './compile.js';

/** What a module tells `readModuleConfig` about its config. */
export interface ModuleConfigPolicy {
  /** The module id, for messages (`tool-filesystem`). */
  module: string;
  /**
   * JSON Schema of the config: an object schema whose `properties` are the
   * keys the module reads (reference keys included). Unknown keys are taken
   * out before it is checked, at every level `properties` describes; a map
   * (`additionalProperties: <schema>`) keeps its keys and checks each value.
   */
  schema: JSONSchema;
  /**
   * The safety-relevant top-level keys -> why ignoring
   * it would make the session less safe (`'a misspelt deny rule would approve
   * what it should deny'`). Inside such a section (a rule of `rules`, the
   * `redaction` object) an unknown key is refused, not ignored; a top-level
   * unknown key that looks like a misspelling of one of them
   * (`denied_command`, `Denied-Paths`) is refused too.
   */
  safety?: Readonly<Record<string, string>>;
  /**
   * Rules the schema cannot state (`max_iterations` is -1 or at least 1, an
   * entry must parse as a CIDR): called with the known keys, before they are
   * checked (read them as `unknown`); the problems it returns are reported with
   * the schema's, in one error.
   */
  check?: ((config: Readonly<Record<string, unknown>>) => readonly DataError[]) | undefined;
  /** The error message's last line, what to do (default `Fix these keys in the module's config.`). */
  hint?: string | undefined;
  /** Where warnings go: the coordinator's logger. Without one, nothing is warned. */
  logger?: Pick<Logger, 'warn'> | undefined;
}

const DEFAULT_HINT = "Fix these keys in the module's config.";

/** Warned keys per logger (`module\0path`): each warning once per logger, so once per app. */
const warned = new WeakMap<object, Set<string>>();

/**
 * Warn once per logger about a config key: `<module>: unknown config key
 * '<key>' is ignored`, or with `note`, `<module>: config key '<key>' <note>`
 * (for a key a module accepts but cannot fully honour: say why). Modules call
 * `readModuleConfig`, which uses it for unknown keys.
 */
export function warnConfigKey(
  logger: Pick<Logger, 'warn'> | undefined,
  module: string,
  key: string,
  note?: string,
): void {
  if (logger === undefined) return;
  const seen = warned.get(logger) ?? new Set<string>();
  warned.set(logger, seen);
  const id = `${module}\0${key}\0${note ?? ''}`;
  if (seen.has(id)) return;
  seen.add(id);
  logger.warn(
    note === undefined
      ? `${module}: unknown config key '${key}' is ignored`
      : `${module}: config key '${key}' ${note}`,
  );
}

/**
 * Read a module's config by the policy (see the file header): an own copy
 * without the unknown keys, each warned about once through `policy.logger`;
 * the rest checked against `policy.schema`. Throws a `DataValidationError`
 * naming every bad key (`tools must be array`), or a `ConfigRefusedError`
 * naming the refused keys and why. `undefined` and `null` read as `{}`.
 */
export function readModuleConfig(raw: unknown, policy: ModuleConfigPolicy): Record<string, unknown> {
  const { module } = policy;
  const config = ownConfig(raw, module);
  const safety = policy.safety ?? {};
  const unknown: string[] = [];
  const refused: { path: string; why: string }[] = [];
  const kept = prune(config, policy.schema, '', (path, section) => {
    const why = section === undefined ? undefined : safety[section];
    if (why !== undefined) {
      refused.push({ path, why });
      return;
    }
    const near = section === undefined ? lookalike(path, Object.keys(safety)) : undefined;
    if (near !== undefined)
      refused.push({ path, why: `it looks like a misspelt '${near}': ${safety[near]}` });
    else unknown.push(path);
  }) as Record<string, unknown>;
  if (refused.length > 0) {
    const lines = refused.map((r) => `  - '${r.path}' is refused: ${r.why}`).join('\n');
    throw new ConfigRefusedError(
      module,
      refused.map((r) => r.path),
      `${module}: config refused, because ignoring these keys would make the session less safe than asked:\n${lines}\nFix or remove them in the module's config (the session does not start without it).`,
    );
  }
  const errors = [...compileSchema(policy.schema)(kept), ...(policy.check?.(kept) ?? [])];
  if (errors.length > 0) {
    throw new DataValidationError(
      `${module}: invalid config:\n${formatDataErrors(errors)}\n${policy.hint ?? DEFAULT_HINT}`,
      errors,
    );
  }
  for (const path of unknown) warnConfigKey(policy.logger, module, path);
  return kept;
}

/** What a module declares about its config once, at module load: `defineModuleConfig`'s input. */
export interface ModuleConfigSpec<S extends JSONSchema> {
  /** The module id, for messages (`tool-web`). */
  module: string;
  /** The config's JSON Schema, written `as const` so that `FromSchema` derives its type. */
  schema: S;
  /** The safety-relevant keys and why (see `ModuleConfigPolicy.safety`). */
  safety?: Readonly<Record<string, string>>;
  /** Rules the schema cannot state, reported with its problems (see `ModuleConfigPolicy.check`). */
  check?: (config: Readonly<Record<string, unknown>>) => readonly DataError[];
  /** The last line of every `MOUNT_FAILED` message, what to do (default `Fix these keys in the module's config.`). */
  hint?: string;
}

/** A module's config reader (`defineModuleConfig`). */
export interface ModuleConfig<S extends JSONSchema> extends ModuleConfigSpec<S> {
  /**
   * Read a mount config by the config policy (`readModuleConfig`): the known
   * keys, typed by the schema. A refused key throws the `ConfigRefusedError`
   * as is; any other problem throws an `AmplifierError` `MOUNT_FAILED` naming
   * the keys to change, which is what `mount` reports.
   */
  read(raw: unknown, logger?: Pick<Logger, 'warn'>): ConfigOf<S>;
  /**
   * `read`, then `build` the settings from the typed config (defaults, units,
   * parsed entries). An error `build` throws (an unknown profile, a bad CIDR,
   * two keys that disagree) is the same `MOUNT_FAILED` as a bad key's: its
   * message, prefixed with the module id, and the hint; an `AmplifierError`
   * `MOUNT_FAILED` or `CONFIG_REFUSED` passes as is.
   */
  resolve<R>(raw: unknown, logger: Pick<Logger, 'warn'> | undefined, build: (config: ConfigOf<S>) => R): R;
}

/** The config type of schema `S`: derived by `FromSchema`, or a plain record when `S` is typed only as `JSONSchema`. */
export type ConfigOf<S extends JSONSchema> = JSONSchema extends S ? Record<string, unknown> : FromSchema<S>;

/**
 * Declare a module's config once: its schema (the one source of its type,
 * `FromSchema<typeof schema>`), its safety keys, the rules the schema cannot
 * state, and `read` / `resolve`, which turn every problem but a refusal into
 * the `MOUNT_FAILED` error a mount reports: the one config wrapper.
 */
export function defineModuleConfig<const S extends JSONSchema>(spec: ModuleConfigSpec<S>): ModuleConfig<S> {
  const passes = (error: unknown): error is AmplifierError =>
    AmplifierError.is(error, 'CONFIG_REFUSED') || AmplifierError.is(error, 'MOUNT_FAILED');
  const read = (raw: unknown, logger?: Pick<Logger, 'warn'>): ConfigOf<S> => {
    try {
      return readModuleConfig(raw, { ...spec, logger }) as ConfigOf<S>;
    } catch (error) {
      if (passes(error)) throw error;
      throw new AmplifierError('MOUNT_FAILED', errorMessage(error));
    }
  };
  return {
    ...spec,
    read,
    resolve(raw, logger, build) {
      const config = read(raw, logger);
      try {
        return build(config);
      } catch (error) {
        if (passes(error)) throw error;
        const message = errorMessage(error);
        const prefixed = message.startsWith(`${spec.module}: `) ? message : `${spec.module}: ${message}`;
        throw new AmplifierError('MOUNT_FAILED', `${prefixed}\n${spec.hint ?? DEFAULT_HINT}`);
      }
    },
  };
}

/** The keys `properties` describes at the top level of a config schema. */
export function configKeys(schema: JSONSchema): string[] {
  const properties = schema.properties;
  return isPlainObject(properties) ? Object.keys(properties) : [];
}

/**
 * A duration from a module config, in milliseconds: `key` in seconds (the
 * convention of Amplifier's config keys: `timeout`, `approval_timeout`), or
 * its documented alias `<key>_ms` in milliseconds. Absent: `undefined`. Both
 * present with different values, or a value that is not a finite number ≥ 0,
 * is a DataValidationError naming the keys. Reads own properties only.
 */
export function configDurationMs(
  config: Record<string, unknown>,
  key: string,
  moduleId: string,
): number | undefined {
  const msKey = `${key}_ms`;
  const seconds = getOwn(config, key);
  const ms = getOwn(config, msKey);
  const check = (name: string, value: unknown): number => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new DataValidationError(
        `${moduleId}: config.${name} must be a number >= 0, got ${JSON.stringify(value)}`,
        [{ path: name, message: 'must be a number >= 0' }],
      );
    }
    return value;
  };
  const fromSeconds = seconds === undefined ? undefined : check(key, seconds) * 1000;
  const fromMs = ms === undefined ? undefined : check(msKey, ms);
  if (fromSeconds !== undefined && fromMs !== undefined && fromSeconds !== fromMs) {
    throw new DataValidationError(
      `${moduleId}: config.${key} (${seconds} s) and config.${msKey} (${ms} ms) disagree; give one (${key}, in seconds)`,
      [{ path: msKey, message: `disagrees with ${key}` }],
    );
  }
  return fromSeconds ?? fromMs;
}

type OnUnknown = (path: string, section: string | undefined) => void;

/**
 * A copy of `value` without the keys `schema` does not describe, reported to
 * `onUnknown` with their path and the top-level key they sit under.
 */
function prune(value: unknown, schema: unknown, path: string, onUnknown: OnUnknown): unknown {
  if (!isPlainObject(schema)) return value;
  if (Array.isArray(value)) {
    const items = schema.items;
    if (!isPlainObject(items)) return value;
    return value.map((item, i) => prune(item, items, `${path}[${i}]`, onUnknown));
  }
  if (!isPlainObject(value)) return value;
  const shape = objectBranch(schema, value);
  if (shape === undefined) return value;
  const properties = isPlainObject(shape.properties) ? shape.properties : undefined;
  const extra = shape.additionalProperties;
  if (properties === undefined && !isPlainObject(extra)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const keyPath = path === '' ? key : `${path}.${key}`;
    const section = path === '' ? undefined : path.split(/[.[]/)[0];
    if (properties !== undefined && Object.hasOwn(properties, key)) {
      setOwn(out, key, prune(value[key], properties[key], keyPath, onUnknown));
    } else if (isPlainObject(extra)) {
      setOwn(out, key, prune(value[key], extra, keyPath, onUnknown));
    } else if (extra === true) {
      setOwn(out, key, value[key]);
    } else {
      onUnknown(keyPath, section);
    }
  }
  return out;
}

/** The object-shaped schema that applies to `value` (itself, or the first `anyOf`/`oneOf` branch with properties). */
function objectBranch(schema: Record<string, unknown>, value: unknown): Record<string, unknown> | undefined {
  if (isPlainObject(schema.properties) || isPlainObject(schema.additionalProperties)) return schema;
  for (const list of [schema.anyOf, schema.oneOf]) {
    if (!Array.isArray(list)) continue;
    for (const branch of list) {
      if (isPlainObject(branch) && (branch.type === 'object' || isPlainObject(branch.properties))) {
        return objectBranch(branch, value);
      }
    }
  }
  return undefined;
}

/** The safety key `key` looks like a misspelling of, if any. */
function lookalike(key: string, safetyKeys: readonly string[]): string | undefined {
  const norm = normalize(key);
  if (norm.length < 4) return undefined;
  for (const candidate of safetyKeys) {
    if (candidate.includes('.')) continue;
    const other = normalize(candidate);
    if (norm === other) return candidate;
    const allowed = other.length >= 10 ? 2 : 1;
    if (editDistance(norm, other, allowed) <= allowed) return candidate;
  }
  return undefined;
}

/** Lower case, without `_`, `-` and a final `s`: `Denied-Paths` and `denied_path` are the same. */
function normalize(key: string): string {
  return key
    .toLowerCase()
    .replace(/[-_\s]/g, '')
    .replace(/s$/, '');
}

/** Levenshtein distance with adjacent transpositions, cut off above `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, before[j - 2]! + 1);
      }
      current.push(best);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}
