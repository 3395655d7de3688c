/**
 * What the hook handler keeps of an event on the emitting call: a copy of its
 * plain data (objects and arrays are copied, strings and other primitives are
 * immutable and shared), cheap enough for the hot path. Serialising and
 * redacting it happen later, in the writer's batch (`buildRecord` on the
 * copy gives exactly the line it gives on the original). Anything the copy
 * cannot take as plain data (class instances, `Error`, `Map`, `Date`, buffers,
 * a `toJSON`, a getter that throws, nesting deeper than `MAX_CAPTURE_DEPTH`,
 * which is also how a cycle ends) makes the capture give up: the caller then
 * builds the record on the emitting call, as before.
 */
import { setOwn } from '@amplifier/core';

/** Plain data nested deeper than this is serialised on the emitting call instead. */
export const MAX_CAPTURE_DEPTH = 32;

/** An event kept for the writer: its name, the copy of its data and about how many bytes its line takes. */
export interface CapturedEvent {
  readonly event: string;
  readonly data: Record<string, unknown>;
  readonly bytes: number;
}

/** Thrown inside the walk when the data is not plain. */
const NOT_PLAIN: unique symbol = Symbol('not plain');

class Capture {
  /** About the JSON length of what was copied (strings, keys and a few bytes per value). */
  bytes = 0;

  value(value: unknown, depth: number): unknown {
    switch (typeof value) {
      case 'string':
        this.bytes += value.length + 2;
        return value;
      case 'object':
        break;
      default:
        this.bytes += 6;
        return value;
    }
    if (value === null) {
      this.bytes += 4;
      return value;
    }
    if (depth >= MAX_CAPTURE_DEPTH) throw NOT_PLAIN;
    if (Array.isArray(value)) {
      if (Object.getPrototypeOf(value) !== Array.prototype) throw NOT_PLAIN;
      const n = value.length;
      const out: unknown[] = new Array(n);
      this.bytes += n + 2;
      for (let i = 0; i < n; i++) if (i in value) out[i] = this.value(value[i], depth + 1);
      return out;
    }
    return this.object(value, depth);
  }

  object(value: object, depth: number): Record<string, unknown> {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) throw NOT_PLAIN;
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') throw NOT_PLAIN;
    const source = value as Record<string, unknown>;
    this.bytes += 2;
    if (proto === null) {
      const out: Record<string, unknown> = Object.create(null);
      for (const key of Object.keys(source)) {
        this.bytes += key.length + 4;
        // A getter runs here, on the emitting call, as it would have when the record was built there.
        setOwn(out, key, this.value(source[key], depth + 1));
      }
      return out;
    }
    // A spread copies the own properties in one step (getters run here, once, on the emitting
    // call); then the objects and arrays in it are replaced by their copies, in place.
    const out: Record<string, unknown> = { ...source };
    for (const key in out) {
      if (!Object.hasOwn(out, key)) continue;
      this.bytes += key.length + 4;
      const item = out[key];
      if (typeof item === 'object' && item !== null) setOwn(out, key, this.value(item, depth + 1));
      else this.value(item, depth + 1);
    }
    return out;
  }
}

/**
 * A copy of `data` for the writer, with `timestamp` set to now when the data
 * has none (the record's `ts` is the emit time); undefined when the data is
 * not plain (see the module comment). Never throws.
 */
export function captureEvent(event: string, data: Record<string, unknown>): CapturedEvent | undefined {
  const capture = new Capture();
  let copy: Record<string, unknown>;
  try {
    copy = capture.object(data, 0);
  } catch {
    // Not plain data, or a getter threw: the record is built on the emitting call, which handles both.
    return undefined;
  }
  if (typeof copy.timestamp !== 'string') {
    setOwn(copy, 'timestamp', new Date().toISOString());
  }
  return { event, data: copy, bytes: capture.bytes + event.length + 96 };
}
