/**
 * One event -> one JSON line in Amplifier's log record format:
 * `{ts, lvl, schema, event, <promoted keys>, data}`. The data is copied into
 * JSON-safe values (cycles, bigints, errors, buffers, maps, throwing getters,
 * oversized strings) with secrets redacted on the way; the event data itself
 * is never modified. The copy is bounded: data nested deeper than core's
 * `MAX_DATA_DEPTH` is written as `MAX_DEPTH_MARKER`, and keys such as
 * `__proto__` stay keys (own data properties, never the prototype).
 */
import { MAX_DATA_DEPTH, MAX_DEPTH_MARKER, setOwn } from '@amplifier/core';
import type { Redactor } from '@amplifier/secrets';
import type { CapturedEvent } from './capture.js';

/** The `schema` of every record: Amplifier's log format, `amplifier.log` 1.0.0. */
export const LOG_SCHEMA: Readonly<{ name: string; ver: string }> = Object.freeze({
  name: 'amplifier.log',
  ver: '1.0.0',
});

/** Keys lifted from the event data to the top level of the record. */
const PROMOTED: ReadonlySet<string> = new Set([
  'redaction',
  'status',
  'duration_ms',
  'module',
  'component',
  'error',
  'request_id',
  'span_id',
  'parent_span_id',
  'session_id',
]);

/** How a record is built: the redactor (none: not redacted), whether `raw` payloads are dropped, the longest string kept. */
export interface RecordOptions {
  redactor: Redactor | undefined;
  stripRaw: boolean;
  maxValueChars: number;
}

/** A serialized record and the session it belongs to. */
export interface BuiltRecord {
  sessionId: string;
  line: string;
  level: string;
}

class Sanitizer {
  readonly fired = new Set<string>();
  /** The objects being copied, outermost first (a value found among them is a cycle). */
  readonly #path: object[] = [];
  options: RecordOptions;
  /**
   * The data is a capture's copy (see `capture.ts`), owned by the record
   * being built: only plain objects and arrays, no cycle, no getter, not
   * deeper than `MAX_CAPTURE_DEPTH`. Its objects are sanitized in place
   * instead of copied again.
   */
  owned = false;
  constructor(options: RecordOptions) {
    this.options = options;
  }

  /** Ready for the next record (a sanitizer is reused: records are built synchronously). */
  reset(options: RecordOptions, owned = false): this {
    this.options = options;
    this.owned = owned;
    // clear() allocates a new table even for an empty Set: most records fire no rule.
    if (this.fired.size > 0) this.fired.clear();
    this.#path.length = 0;
    return this;
  }

  value(value: unknown, key: string | undefined, depth: number): unknown {
    if (
      key !== undefined &&
      this.options.redactor?.isSecretKey(key) &&
      value !== null &&
      value !== undefined &&
      value !== ''
    ) {
      if (typeof value !== 'object' || Array.isArray(value)) {
        this.fired.add('secret_key');
        return '[REDACTED:key]';
      }
    }
    switch (typeof value) {
      case 'string':
        return this.string(value);
      case 'number':
        return Number.isFinite(value) ? value : String(value);
      case 'boolean':
        return value;
      case 'bigint':
        return value.toString();
      case 'undefined':
        return undefined;
      case 'function':
        return `[Function ${value.name || 'anonymous'}]`;
      case 'symbol':
        return value.toString();
      default:
        break;
    }
    if (value === null) return null;
    const object = value as object;
    if (this.owned) return depth >= MAX_DATA_DEPTH ? MAX_DEPTH_MARKER : this.#inPlace(object, depth + 1);
    const path = this.#path;
    if (path.includes(object)) return '[Circular]';
    if (depth >= MAX_DATA_DEPTH) return MAX_DEPTH_MARKER;
    path.push(object);
    try {
      return this.object(object, depth + 1);
    } catch (error) {
      return `[Unserializable: ${(error as Error)?.message ?? 'error'}]`;
    } finally {
      path.pop();
    }
  }

  string(text: string): string {
    let out = text;
    if (out.length > this.options.maxValueChars) {
      out = `${out.slice(0, this.options.maxValueChars)}…[truncated ${out.length - this.options.maxValueChars} chars]`;
    }
    return this.options.redactor ? this.options.redactor.redactString(out, this.fired) : out;
  }

  /**
   * An object or array of owned data, sanitized in place: a value is
   * replaced only where its safe form differs (a redacted or cut string, a
   * secret key's value, a number JSON has no form for), so a record with
   * nothing to change allocates nothing here. Gives what `object` gives on
   * the same data.
   */
  #inPlace(object: object, depth: number): object {
    if (Array.isArray(object)) {
      const array = object as unknown[];
      for (let i = 0; i < array.length; i++) {
        const item = array[i];
        const safe = this.value(item, undefined, depth);
        if (safe !== item) array[i] = safe ?? null;
      }
      return array;
    }
    const record = object as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const item = record[key];
      const safe = this.value(item, key, depth);
      if (safe !== item) setOwn(record, key, safe);
    }
    return record;
  }

  object(object: object, depth: number): unknown {
    if (Array.isArray(object)) return object.map((item) => this.value(item, undefined, depth) ?? null);
    if (object instanceof Date) return Number.isNaN(object.getTime()) ? 'Invalid Date' : object.toISOString();
    if (object instanceof Error) {
      return {
        name: object.name,
        message: this.string(object.message),
        ...(object.stack !== undefined && { stack: this.string(object.stack) }),
      };
    }
    if (ArrayBuffer.isView(object) || object instanceof ArrayBuffer) {
      const bytes =
        object instanceof ArrayBuffer
          ? new Uint8Array(object)
          : new Uint8Array(object.buffer, object.byteOffset, object.byteLength);
      return {
        type: object.constructor.name,
        length: bytes.length,
        base64_head: Buffer.from(bytes.subarray(0, 64)).toString('base64'),
      };
    }
    if (object instanceof Map) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of object) setOwn(out, String(k), this.value(v, String(k), depth));
      return out;
    }
    if (object instanceof Set) return [...object].map((item) => this.value(item, undefined, depth) ?? null);
    const toJSON = (object as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return this.value(toJSON.call(object), undefined, depth);
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(object)) {
      let v: unknown;
      try {
        v = (object as Record<string, unknown>)[k];
      } catch (error) {
        v = `[Unserializable: ${(error as Error)?.message ?? 'getter threw'}]`;
      }
      const safe = this.value(v, k, depth);
      if (safe !== undefined) setOwn(out, k, safe);
    }
    return out;
  }
}

const SEPARATORS = /[\u2028\u2029]/;

/** JSON.stringify plus escapes for U+2028/U+2029, so no reader sees a line break inside a record. */
function toLine(record: Record<string, unknown>): string {
  const json = JSON.stringify(record);
  if (!SEPARATORS.test(json)) return json;
  return json.replace(/[\u2028\u2029]/g, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));
}

/** The sanitizer not in use (taken by a record and put back after it; a getter could log inside a log). */
let idle: Sanitizer | undefined;

/**
 * Build the record for `event`; undefined when the data has no session id
 * (the reference skips those). Never throws.
 */
export function buildRecord(
  event: string,
  data: Record<string, unknown> | undefined,
  options: RecordOptions,
): BuiltRecord | undefined {
  return buildWith(event, data, options, false);
}

/**
 * `buildRecord` for a capture's copy (`captureEvent`), which the record
 * owns: the same line, with the copy sanitized in place (it is changed; use
 * it for nothing else afterwards).
 */
export function buildCapturedRecord(
  captured: CapturedEvent,
  options: RecordOptions,
): BuiltRecord | undefined {
  return buildWith(captured.event, captured.data, options, true);
}

function buildWith(
  event: string,
  data: Record<string, unknown> | undefined,
  options: RecordOptions,
  owned: boolean,
): BuiltRecord | undefined {
  const source = data ?? {};
  const sessionId = source.session_id;
  if (typeof sessionId !== 'string' || sessionId === '') return undefined;
  const sanitizer = idle?.reset(options, owned) ?? new Sanitizer(options).reset(options, owned);
  idle = undefined;
  try {
    return build(event, source, sessionId, sanitizer);
  } finally {
    sanitizer.reset(NO_OPTIONS);
    idle = sanitizer;
  }
}

const NO_OPTIONS: RecordOptions = { redactor: undefined, stripRaw: false, maxValueChars: 0 };

/** What `sanitizeValue` gives: the copy, and the names of the redaction rules that fired (sorted). */
export interface SanitizedValue {
  value: unknown;
  rules: string[];
}

/**
 * Any value as the log would write it: a JSON-safe copy (the same handling
 * of cycles, bigints, errors, buffers, throwing getters and depth as a
 * record), with secrets redacted when a redactor is given. For apps that
 * print event data and want the log's rules (the CLI's `--redact`). Never
 * throws.
 */
export function sanitizeValue(
  value: unknown,
  options: { redactor?: Redactor | undefined; maxValueChars?: number } = {},
): SanitizedValue {
  const sanitizer = new Sanitizer({
    redactor: options.redactor,
    stripRaw: false,
    maxValueChars: options.maxValueChars ?? Number.POSITIVE_INFINITY,
  });
  const copy = sanitizer.value(value, undefined, 0);
  return { value: copy, rules: [...sanitizer.fired].sort() };
}

function build(
  event: string,
  source: Record<string, unknown>,
  sessionId: string,
  sanitizer: Sanitizer,
): BuiltRecord {
  const options = sanitizer.options;
  const ts = typeof source.timestamp === 'string' ? source.timestamp : new Date().toISOString();
  let level = typeof source.lvl === 'string' ? source.lvl : 'INFO';
  const record: Record<string, unknown> = { ts, lvl: level, schema: LOG_SCHEMA, event };
  try {
    const rest: Record<string, unknown> = {};
    let restKeys = 0;
    for (const key of Object.keys(source)) {
      if (key === 'timestamp' || key === 'lvl') continue;
      if (options.stripRaw && key === 'raw') continue;
      let value: unknown;
      try {
        value = source[key];
      } catch (error) {
        value = `[Unserializable: ${(error as Error)?.message}]`;
      }
      const safe = sanitizer.value(value, key, 0);
      if (safe === undefined) continue;
      if (PROMOTED.has(key)) {
        setOwn(record, key, safe);
      } else {
        setOwn(rest, key, safe);
        restKeys++;
      }
    }
    if (restKeys > 0) record.data = rest;
  } catch (error) {
    record.error = {
      type: (error as Error)?.name ?? 'Error',
      msg: String((error as Error)?.message ?? error),
    };
  }
  if (sanitizer.fired.size > 0) {
    const previous =
      typeof record.redaction === 'object' && record.redaction !== null ? record.redaction : {};
    record.redaction = { ...previous, applied: true, rules: [...sanitizer.fired].sort() };
  }
  const isError = record.status === 'error' || Boolean(record.error) || event.includes('error');
  if (isError && level !== 'DEBUG') level = 'ERROR';
  record.lvl = level;
  return { sessionId, line: `${toLine(record)}\n`, level };
}
