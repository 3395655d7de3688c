/**
 * What a tool's `execute` settled with, as the ToolResult the loop works
 * with, or the reason it is none. The contract is a ToolResult; anything else
 * a tool returns or throws still gets a specific result, never a crash.
 */
import { errorMessage, type ToolResult } from '@amplifier/core';

/**
 * A return value that is no result at all, and what it was. A class the loop
 * alone makes: no object a tool returns can be mistaken for one.
 */
export class InvalidResult {
  readonly what: string;
  constructor(what: string) {
    this.what = what;
  }
}

/**
 * The ToolResult for a returned `value`:
 * - a ToolResult (an object whose `success` is a boolean) as it is; an
 *   `error` given as a string becomes `{ message }`;
 * - an object with `output` or `error` but no `success`: success when it has
 *   no error (the reference ToolResult's defaults);
 * - other data (a string, number, boolean, bigint, array or object): the
 *   tool's output, `{ success: true, output: value }`;
 * - `undefined`, `null`, a function or a symbol, or an object whose `success`
 *   is not a boolean: `InvalidResult`, since nothing says whether the tool worked.
 */
export function resultOf(value: unknown): ToolResult | InvalidResult {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const success = record.success;
    if (typeof success === 'boolean') return withErrorObject(record as unknown as ToolResult);
    if (success !== undefined) {
      return new InvalidResult(`a result whose success is ${describe(success)} (wanted true or false)`);
    }
    if ('output' in record || 'error' in record) {
      const error = record.error;
      return withErrorObject({ ...record, success: error === undefined || error === null } as ToolResult);
    }
    return { success: true, output: value };
  }
  if (value === undefined || value === null || typeof value === 'function' || typeof value === 'symbol') {
    return new InvalidResult(describe(value));
  }
  return { success: true, output: value };
}

/** The message for a tool that threw (or rejected with) `thrown`, whatever it is. */
export function thrownMessage(thrown: unknown): string {
  if (thrown === undefined || thrown === null) {
    return `the tool failed without an error message (it threw ${String(thrown)})`;
  }
  if (!(thrown instanceof Error) && typeof thrown === 'object') {
    try {
      const message = (thrown as { message?: unknown }).message;
      if (typeof message === 'string' && message !== '') return message;
    } catch {
      // an unreadable message: described below
    }
  }
  return errorMessage(thrown);
}

/** `undefined`, `a symbol`, `a string ("yes")`, for messages. */
export function describe(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  switch (typeof value) {
    case 'string':
      return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)})`;
    case 'number':
    case 'bigint':
      return `a number (${String(value)})`;
    case 'object':
      return Array.isArray(value) ? 'an array' : 'an object';
    default:
      return `a ${typeof value}`;
  }
}

/** `result`, with an `error` given as a bare string turned into `{ message }`. */
function withErrorObject(result: ToolResult): ToolResult {
  const error: unknown = result.error;
  if (typeof error !== 'string') return result;
  return { ...result, error: { message: error } };
}
