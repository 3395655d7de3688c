/**
 * Plain data from outside (mount plans, module config, JSON and YAML files,
 * model output) read safely: copies that keep only own properties, keep
 * `__proto__`, `constructor` and `prototype` as ordinary keys (never as the
 * prototype), and refuse or mark data nested deeper than any real document.
 */
import { DataValidationError } from './errors.js';

/**
 * Deepest nesting the kernel walks in outside data. Walkers that must not fail
 * (redaction, logging, snapshots) write `MAX_DEPTH_MARKER` below it; copies of
 * configuration refuse it with the path.
 */
export const MAX_DATA_DEPTH = 256;

/** What a walker writes in place of data nested deeper than `MAX_DATA_DEPTH`. */
export const MAX_DEPTH_MARKER = '[MaxDepth]';

/**
 * Set `target[key] = value` as an own data property. Unlike assignment, a key
 * named `__proto__` stays a key: `out[key] = v` with that key would replace
 * the prototype of `out` and make `v`'s properties look like `out`'s.
 */
export function setOwn(target: object, key: string, value: unknown): void {
  // Only `__proto__` has a setter on Object.prototype; other keys are assigned (several times faster).
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    (target as Record<string, unknown>)[key] = value;
  }
}

/** `record[key]` when `record` is an object that has `key` as an own property; otherwise undefined. */
export function getOwn<T = unknown>(record: unknown, key: string): T | undefined {
  if (typeof record !== 'object' || record === null) return undefined;
  return Object.hasOwn(record, key) ? ((record as Record<string, unknown>)[key] as T) : undefined;
}

/**
 * True for objects that are data rather than instances: a prototype of
 * `Object.prototype` or null, or a prototype that is itself a plain object
 * (what `out.__proto__ = {...}` makes). Class instances (Date, Map, URL, your
 * own classes) have a prototype with its own `constructor` and are not plain.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === null || proto === Object.prototype || !Object.hasOwn(proto, 'constructor');
}

/**
 * Options of `ownData`: the `path` of the value (for messages), the `maxDepth`,
 * and what a cycle or deeper data gives (`onLimit`).
 */
export interface OwnDataOptions {
  /** Where the value sits, for error messages (`tools[1].config`). Default: `''` (the root). */
  path?: string;
  /** Default: `MAX_DATA_DEPTH`. */
  maxDepth?: number;
  /**
   * What a cycle or data nested deeper than `maxDepth` gives. `'throw'` (the
   * default): a `DataValidationError` naming the path, for data read from a
   * file. `'keep'`: a cycle points at the copy of its ancestor and data below
   * `maxDepth` is kept as it is (not copied), for data handed over in code.
   */
  onLimit?: 'throw' | 'keep';
  /**
   * Freeze every array and plain object of the copy (`Object.freeze`), so the
   * copy cannot change. Only what was copied is frozen: kept values (functions,
   * class instances, data kept below `maxDepth`) stay as they are. Default: false.
   */
  freeze?: boolean;
}

/**
 * A deep copy of plain data that has only own enumerable properties: arrays
 * and plain objects are copied (onto `Object.prototype`, keys such as
 * `__proto__` kept as keys), anything else (strings, numbers, functions, class
 * instances) is kept as it is. Whatever the input's prototypes say, reading
 * the copy never finds an inherited value. Cycles and nesting deeper than
 * `maxDepth` are handled as `onLimit` says; `freeze` makes the copy read-only.
 */
export function ownData<T>(value: T, options: OwnDataOptions = {}): T {
  const maxDepth = options.maxDepth ?? MAX_DATA_DEPTH;
  const strict = options.onLimit !== 'keep';
  const freeze = options.freeze === true;
  const ancestors: unknown[] = [];
  const copies: unknown[] = [];
  const copy = (item: unknown, path: string): unknown => {
    const array = Array.isArray(item);
    if (!array && !isPlainObject(item)) return item;
    const seen = ancestors.indexOf(item);
    if (seen !== -1) {
      if (strict) throw problem(path, 'refers to itself (a cycle); plain data cannot');
      return copies[seen];
    }
    if (ancestors.length >= maxDepth) {
      if (strict) throw problem(path, `is nested deeper than ${maxDepth} levels; flatten it`);
      return item;
    }
    let out: unknown[] | Record<string, unknown>;
    if (array) {
      const list = item as unknown[];
      const result = new Array<unknown>(list.length);
      ancestors.push(item);
      copies.push(result);
      for (let i = 0; i < list.length; i++) result[i] = copy(list[i], `${path}[${i}]`);
      out = result;
    } else {
      const record = item as Record<string, unknown>;
      const result: Record<string, unknown> = {};
      ancestors.push(item);
      copies.push(result);
      for (const key of Object.keys(record)) setOwn(result, key, copy(record[key], joinPath(path, key)));
      out = result;
    }
    ancestors.pop();
    copies.pop();
    // Frozen once filled: a cycle's reference to this copy (kept, `onLimit: 'keep'`) sees it frozen too.
    return freeze ? Object.freeze(out) : out;
  };
  return copy(value, options.path ?? '') as T;
}

/**
 * A module's config as `ownData` (`onLimit: 'keep'`): undefined and null give
 * `{}`; anything that is not a plain object throws a `DataValidationError`
 * that names the module. Modules call it first, so every later read is of
 * own properties only.
 */
export function ownConfig(config: unknown, moduleId: string): Record<string, unknown> {
  if (config === undefined || config === null) return {};
  if (!isPlainObject(config)) {
    const found = Array.isArray(config) ? 'an array' : typeof config;
    throw new DataValidationError(
      `${moduleId}: config must be an object (a mapping of keys to values), got ${found}`,
      [{ path: '', message: `must be object, got ${found}` }],
    );
  }
  return ownData(config, { onLimit: 'keep' });
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function joinPath(path: string, key: string): string {
  if (IDENTIFIER.test(key)) return path === '' ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(key)}]`;
}

/** Paths of deep data are long: the message shows both ends. */
const SHOWN_PATH_CHARS = 120;

function problem(path: string, message: string): DataValidationError {
  const where =
    path === ''
      ? '(root)'
      : path.length > SHOWN_PATH_CHARS
        ? `${path.slice(0, 60)}…${path.slice(-50)}`
        : path;
  return new DataValidationError(`${where} ${message}`, [{ path, message }]);
}
