/**
 * The event records the viewer reads: one line of `events.jsonl` as
 * hooks-logging writes it (here and in Python Amplifier): `ts`, `lvl`,
 * `event`, the promoted keys (`status`, `duration_ms`, `error`,
 * `request_id`, `session_id`, ...) and the rest under `data`.
 */
export interface EventRecord {
  event: string;
  ts?: string;
  data?: Record<string, unknown>;
  [key: string]: unknown;
}

/** A key of the record, promoted or under `data` (writers differ on which keys they promote). */
export function field(record: EventRecord, key: string): unknown {
  const top = record[key];
  if (top !== undefined && key !== 'data') return top;
  const data = record.data;
  return typeof data === 'object' && data !== null ? (data as Record<string, unknown>)[key] : undefined;
}

export function asString(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

export function asNumber(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  // Money travels as a decimal string (`cost_usd: "0.0123"`) so it stays exact on the wire.
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  return null;
}

export function asObject(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/** Milliseconds of an ISO time (`Z` and `+00:00` alike), or null. */
export function timeOf(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}

/** An error payload as one line: `{type, msg}` (reference), `{message}` (here), or a string. */
export function errorText(value: unknown): string | null {
  if (value === undefined || value === null || value === false) return null;
  if (typeof value === 'string') return value;
  const object = asObject(value);
  if (object === null) return String(value);
  const message = asString(object.message) ?? asString(object.msg) ?? JSON.stringify(object);
  const type = asString(object.type);
  return type !== null && !message.startsWith(type) ? `${type}: ${message}` : message;
}
