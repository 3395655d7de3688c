/**
 * Private copies of messages and their JSON length, in one walk. The context
 * manager stores deep, frozen copies (so neither the caller's later changes nor
 * a change to a request view can reach the history; data already deeply frozen
 * is kept as it is, see `frozenLength`) and needs each message's
 * `JSON.stringify` length for its token estimate: the walk that copies also
 * counts, so a message is read once and no JSON text is built. Data nested
 * deeper than core's `MAX_DATA_DEPTH` is stored as `MAX_DEPTH_MARKER`: a walk
 * never throws, whatever a model or a caller hands over.
 */
import { MAX_DATA_DEPTH, MAX_DEPTH_MARKER, stringifyJson } from '@amplifier/core';

/** Characters `JSON.stringify` writes as more than themselves (any surrogate: lone ones are escaped). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** `JSON.stringify(text).length`, without building the text when there is nothing to escape. */
function stringLength(text: string): number {
  const n = text.length;
  if (n > 64) return NEEDS_ESCAPE.test(text) ? JSON.stringify(text).length : n + 2;
  // Keys and short values: a loop is cheaper than entering the regexp engine.
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) {
      return JSON.stringify(text).length;
    }
  }
  return n + 2;
}

/**
 * `stringLength(key) + 1` (the key and its colon) for keys seen before: messages repeat a few
 * dozen keys (`role`, `content`, `tool_calls`, `id`, ...), so a key is measured once. Bounded:
 * data with many distinct keys stops adding to it.
 */
const keyLengths = new Map<string, number>();
const KEY_LENGTHS_MAX = 4096;

function keyLength(key: string): number {
  let length = keyLengths.get(key);
  if (length === undefined) {
    length = stringLength(key) + 1;
    if (keyLengths.size < KEY_LENGTHS_MAX) keyLengths.set(key, length);
  }
  return length;
}

/** The last stamp measured: every message of the same millisecond carries the same stamp string. */
let lastStamp = '';
let lastStampLength = 2;

/** The frozen `{ timestamp }` of the last stamp. */
let lastStampOnly: Readonly<{ timestamp: string }> = Object.freeze({ timestamp: '' });

function stampLength(stamp: string): number {
  if (stamp !== lastStamp) {
    lastStampLength = stringLength(stamp);
    lastStamp = stamp;
  }
  return lastStampLength;
}

/** Plain data: an object literal or a null-prototype object (arrays are handled apart). */
function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** True when Object.prototype has an enumerable property (normally it has none). */
function prototypeHasEnumerable(): boolean {
  for (const _key in Object.prototype) return true;
  return false;
}

/** `out.__proto__ = value` as an own data property (JSON.parse makes such keys), not a prototype change. */
function putProto(out: Record<string, unknown>, value: unknown): void {
  Object.defineProperty(out, '__proto__', { value, writable: true, enumerable: true, configurable: true });
}

/** A plain object JSON writes as is (no `toJSON`). */
function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    isPlainObject(value) &&
    typeof (value as { toJSON?: unknown }).toJSON !== 'function'
  );
}

/** `snapshot`: copy, freeze and measure; `copy`: a mutable copy only. */
type Mode = 'snapshot' | 'copy';

/** `"timestamp":` and `"metadata":`. */
const TIMESTAMP_KEY_LENGTH = 12;
const METADATA_KEY_LENGTH = 11;

/** Nesting deeper than this is walked again watching for cycles and depth (messages are a few levels deep). */
const FAST_DEPTH = 64;

/** `JSON.stringify(MAX_DEPTH_MARKER).length`. */
const MARKER_LENGTH = JSON.stringify(MAX_DEPTH_MARKER).length;

/** Thrown inside a fast walk that went deeper than `FAST_DEPTH`. */
const TOO_DEEP: unique symbol = Symbol('too deep');

/** `Object.prototype.__lookupGetter__` and `__lookupSetter__` (Annex B, in every engine Node runs on). */
interface AccessorLookups {
  __lookupGetter__(this: object, key: PropertyKey): unknown;
  __lookupSetter__(this: object, key: PropertyKey): unknown;
}

/** Own accessors are found with these: unlike a property descriptor, nothing is allocated for a data property. */
const lookupGetter = (Object.prototype as unknown as AccessorLookups).__lookupGetter__;
const lookupSetter = (Object.prototype as unknown as AccessorLookups).__lookupSetter__;

/**
 * `JSON.stringify(value).length` when `value` (an object, `depth` levels
 * down) is deeply frozen plain data, which a snapshot may share instead of
 * copying: nothing anyone does to it can change it, so sharing is observably
 * the same as a frozen copy. -1 otherwise (the caller copies it as before):
 * anything not frozen, an array that is not a plain `Array` or has holes, an
 * object whose prototype is not `Object.prototype` or null, an accessor
 * property, a `toJSON`, a bigint, or nesting past `FAST_DEPTH` (which is also
 * how a frozen cycle ends). Counts exactly as `Walk` does.
 */
function frozenLength(value: object, depth: number): number {
  if (!Object.isFrozen(value) || depth >= FAST_DEPTH) return -1;
  let length = 0;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return -1;
    const n = value.length;
    for (let i = 0; i < n; i++) {
      const item: unknown = value[i];
      if (item === undefined && !Object.hasOwn(value, i)) return -1;
      if (lookupGetter.call(value, i) !== undefined) return -1;
      const counted = itemLength(item, depth);
      if (counted < 0) return -1;
      length += counted === 0 ? 4 : counted; // undefined, functions, symbols: null
    }
    return length + (n === 0 ? 2 : n + 1);
  }
  if (!isPlainObject(value) || typeof (value as { toJSON?: unknown }).toJSON === 'function') return -1;
  let written = 0;
  for (const key in value) {
    if (lookupGetter.call(value, key) !== undefined) return -1;
    const item: unknown = (value as Record<string, unknown>)[key];
    if (item === undefined && lookupSetter.call(value, key) !== undefined) return -1;
    const counted = itemLength(item, depth);
    if (counted < 0) return -1;
    if (counted === 0) continue; // JSON leaves the key out
    length += counted + keyLength(key);
    written++;
  }
  return length + (written === 0 ? 2 : written + 1);
}

/** JSON length of a value inside frozen data; 0 for what JSON skips in an object, -1 for what cannot be shared. */
function itemLength(item: unknown, depth: number): number {
  switch (typeof item) {
    case 'string':
      return stringLength(item);
    case 'number':
      return Number.isFinite(item) ? String(item).length : 4;
    case 'boolean':
      return item ? 4 : 5;
    case 'object':
      return item === null ? 4 : frozenLength(item, depth + 1);
    case 'bigint':
      return -1;
    default:
      return 0;
  }
}

/** Frozen empty arrays are all alike: one is shared. */
const FROZEN_EMPTY: readonly unknown[] = Object.freeze([]);

/**
 * One walk over plain data (arrays and plain objects; anything else is shared,
 * not copied). `length` is exactly `JSON.stringify(value).length` while `exact`
 * holds; values JSON treats specially (`toJSON`, class instances, bigint,
 * cycles) clear it and the caller measures the old way. A fast walk keeps no
 * list of ancestors; past `FAST_DEPTH` levels it gives up (`TOO_DEEP`) and the
 * caller walks again with `watch`, which finds cycles and keeps them in the
 * copy, and writes `MAX_DEPTH_MARKER` for an array or object with
 * `MAX_DATA_DEPTH` ancestors (the copy has at most that many levels, so a
 * walk's recursion is bounded too).
 */
class Walk {
  /** The copy made by `copyRoot`. */
  result: unknown;
  length = 0;
  exact = true;
  /** Snapshot mode: freeze the copies and count the JSON length. */
  #snapshot = true;
  #depth = 0;
  /** Object.prototype has an enumerable property (someone added one): for-in lists it on every object. */
  #inherits = false;
  /**
   * Deeply frozen plain data is shared, not copied (a snapshot's fast walk, nothing inherited): a
   * whole message, or one of its values (what a stamped message, a new object, holds).
   */
  #shares = true;
  /** In a watching walk: the objects being copied, root first, and their copies. */
  #path: object[] | undefined;
  #copies: object[] | undefined;

  /** Start a new walk (a walker is reused: walks are synchronous). */
  reset(mode: Mode, watch = false): this {
    this.result = undefined;
    this.length = 0;
    this.exact = true;
    this.#snapshot = mode === 'snapshot';
    this.#depth = 0;
    this.#inherits = prototypeHasEnumerable();
    this.#path = watch ? [] : undefined;
    this.#copies = watch ? [] : undefined;
    this.#shares = this.#snapshot && !watch && !this.#inherits;
    return this;
  }

  /** The copy `copyRoot` made, handed over (the walker, reused, keeps no reference to it). */
  take(): unknown {
    const result = this.result;
    this.result = undefined;
    return result;
  }

  /** Copy a message (or any value); with `metadataStamp`, see `object`. */
  copyRoot(value: unknown, metadataStamp: string | undefined): void {
    this.result =
      metadataStamp === undefined
        ? this.value(value)
        : this.object(value as Record<string, unknown>, undefined, metadataStamp);
  }

  /** Copy `value`, which JSON writes as a value (an array element writes `null` for undefined). */
  value(value: unknown): unknown {
    switch (typeof value) {
      case 'string':
        if (this.#snapshot) this.length += stringLength(value);
        return value;
      case 'number':
        this.length += Number.isFinite(value) ? String(value).length : 4;
        return value;
      case 'boolean':
        this.length += value ? 4 : 5;
        return value;
      case 'object':
        if (value === null) {
          this.length += 4;
          return value;
        }
        // Asked of a message and of its own values only: the check is a runtime call (tens of ns),
        // too dear to make on every object of the usual unfrozen message.
        if (this.#shares && this.#depth <= 1 && Object.isFrozen(value)) {
          const length = frozenLength(value, this.#depth);
          if (length >= 0) {
            this.length += length;
            return value;
          }
        }
        if (Array.isArray(value)) return this.#array(value);
        if (!isPlainObject(value) || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
          this.exact = false;
          return value;
        }
        return this.object(value as Record<string, unknown>);
      case 'bigint':
        this.exact = false;
        return value;
      default:
        // undefined, functions and symbols: `null` in an array (their keys are skipped in objects).
        this.length += 4;
        return value;
    }
  }

  #array(value: readonly unknown[]): unknown {
    const n = value.length;
    if (n === 0 && (this.#path === undefined || this.#path.length < MAX_DATA_DEPTH)) {
      this.length += 2;
      return this.#snapshot ? FROZEN_EMPTY : [];
    }
    const stop = this.#enter(value);
    if (stop !== undefined) return stop;
    const out: unknown[] = new Array(n);
    this.#copies?.push(out);
    this.length += n + 1; // brackets and commas
    for (let i = 0; i < n; i++) out[i] = this.value(value[i]);
    return this.#leave(out);
  }

  /**
   * Copy a plain object. With `stamp`, a missing or null
   * `timestamp` is set to it (in place when the key exists, else last), as
   * `{ ...value, timestamp: stamp }` would. With `metadataStamp`, the same is
   * done to the `metadata` object (created when missing or null), as
   * `{ ...value, metadata: { ...value.metadata, timestamp } }` would; a
   * `metadata` that is not a plain object is left to the caller.
   */
  object(value: Record<string, unknown>, stamp?: string, metadataStamp?: string): unknown {
    const stop = this.#enter(value);
    if (stop !== undefined) return stop;
    const out: Record<string, unknown> = {};
    this.#copies?.push(out);
    let written = 0;
    let stamped = stamp === undefined;
    let metadataDone = metadataStamp === undefined;
    for (const key in value) {
      // Only Object.prototype could lend an inherited enumerable key (plain objects only are walked).
      if (this.#inherits && !Object.hasOwn(value, key)) continue;
      let item = value[key];
      if (!stamped && key === 'timestamp') {
        if (item === undefined || item === null) item = stamp;
        stamped = true;
      }
      let copied: unknown;
      if (!metadataDone && key === 'metadata') {
        metadataDone = true;
        copied =
          item === undefined || item === null
            ? this.#stampOnly(metadataStamp!)
            : this.object(item as Record<string, unknown>, metadataStamp);
      } else if (item === undefined || typeof item === 'function' || typeof item === 'symbol') {
        // JSON leaves the key out; the copy keeps it as it was.
        if (key === '__proto__') putProto(out, item);
        else out[key] = item;
        continue;
      } else {
        copied = this.value(item);
      }
      if (this.#snapshot) this.length += keyLength(key); // "key":
      written++;
      if (key === '__proto__') putProto(out, copied);
      else out[key] = copied;
    }
    if (!stamped) {
      this.length += TIMESTAMP_KEY_LENGTH + stampLength(stamp!);
      written++;
      out.timestamp = stamp;
    }
    if (!metadataDone) {
      out.metadata = this.#stampOnly(metadataStamp!);
      this.length += METADATA_KEY_LENGTH;
      written++;
    }
    this.length += written === 0 ? 2 : written + 1; // braces and commas
    return this.#leave(out);
  }

  /** `{ timestamp: stamp }`, counted (frozen ones are alike: the messages of one millisecond share one). */
  #stampOnly(stamp: string): Record<string, unknown> {
    this.length += TIMESTAMP_KEY_LENGTH + stampLength(stamp) + 2;
    if (!this.#snapshot) return { timestamp: stamp };
    if (stamp !== lastStampOnly.timestamp) lastStampOnly = Object.freeze({ timestamp: stamp });
    return lastStampOnly;
  }

  /**
   * Go one level down into `value`. Returns what to write instead of a copy:
   * the copy of `value` when it is its own ancestor, `MAX_DEPTH_MARKER` (counted)
   * when it has `MAX_DATA_DEPTH` ancestors; undefined to copy it.
   */
  #enter(value: object): unknown {
    const path = this.#path;
    if (path === undefined) {
      if (++this.#depth > FAST_DEPTH) throw TOO_DEEP;
      return undefined;
    }
    const at = path.indexOf(value);
    if (at >= 0) {
      this.exact = false; // JSON.stringify throws on a cycle
      return this.#copies![at];
    }
    if (path.length >= MAX_DATA_DEPTH) {
      if (this.#snapshot) this.length += MARKER_LENGTH;
      return MAX_DEPTH_MARKER;
    }
    path.push(value);
    return undefined;
  }

  #leave<T extends object>(out: T): T {
    if (this.#path === undefined) this.#depth--;
    else {
      this.#path.pop();
      this.#copies!.pop();
    }
    return this.#snapshot ? Object.freeze(out) : out;
  }
}

/** The walker not in use; taken by a walk and put back after it (a getter could start a walk inside a walk). */
let idle: Walk | undefined = new Walk();

/**
 * Copy `value` (through `object(value, undefined, metadataStamp)` with a
 * stamp) on a reset walker, again watching for cycles if it went too deep.
 * Returns the walker: `take()` the copy and read `length` and `exact` before the next walk.
 */
function walk(mode: Mode, value: unknown, metadataStamp?: string): Walk {
  const walker = idle ?? new Walk();
  idle = undefined;
  try {
    walker.reset(mode).copyRoot(value, metadataStamp);
  } catch (error) {
    if (error !== TOO_DEEP) throw error;
    walker.reset(mode, true).copyRoot(value, metadataStamp);
  }
  idle = walker;
  return walker;
}

/**
 * The JSON length of `value` as the context would store it (deeper than
 * `MAX_DATA_DEPTH`: the marker): `JSON.stringify(value).length` for the data
 * messages hold; never throws.
 */
export function jsonLength(value: unknown): number {
  // What JSON.stringify writes nothing for (its result is undefined).
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return 0;
  const walker = walk('snapshot', value);
  const copy = walker.take();
  return walker.exact ? walker.length : stringifiedLength(copy);
}

/**
 * `JSON.stringify(copy).length` for a copy the walk made (no deeper than the
 * limit in its plain data), falling back to core's `stringifyJson` where
 * JSON.stringify throws (bigint, cycles, a throwing `toJSON`).
 */
function stringifiedLength(copy: unknown): number {
  let json: string | undefined;
  try {
    json = JSON.stringify(copy);
  } catch {
    json = stringifyJson(copy);
  }
  return json?.length ?? 0;
}

/** A stored message: a frozen deep copy and its JSON length. */
export interface Snapshot<T> {
  value: T;
  jsonLength: number;
}

/**
 * A frozen deep copy of a message (arrays and plain objects are copied and
 * frozen; other objects are shared, and so is deeply frozen plain data: the
 * message itself, or one of its values) and its JSON length. With `stamp`,
 * `metadata.timestamp` is set to it when missing or null, as
 * `{ ...message, metadata: { ...message.metadata, timestamp: stamp } }` would;
 * the caller's objects are never changed.
 */
export function snapshotMessage<T extends object>(message: T, stamp?: string): Snapshot<T> {
  let source: unknown = message;
  let metadataStamp: string | undefined;
  if (stamp !== undefined) {
    const metadata = (message as { metadata?: unknown }).metadata;
    const inPlace =
      isPlainRecord(message) &&
      (metadata === undefined || metadata === null || (isPlainRecord(metadata) && metadata !== message));
    // The common case stamps while copying; anything unusual is spread first, as the shape says.
    if (inPlace) metadataStamp = stamp;
    else source = { ...message, metadata: { ...(metadata as object), timestamp: stamp } };
  }
  const walker = walk('snapshot', source, metadataStamp);
  const result = walker.take();
  return { value: result as T, jsonLength: walker.exact ? walker.length : stringifiedLength(result) };
}

/** A mutable deep copy of plain data (arrays and plain objects; other values are shared). */
export function copyPlain<T>(value: T): T {
  return walk('copy', value).take() as T;
}
