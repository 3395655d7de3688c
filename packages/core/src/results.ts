/**
 * Results: what a tool returns (`ToolResult`, serialized for the model by
 * `serializeToolOutput`) and what a hook returns (`HookResult`, its actions
 * and defaults). Plain JSON-able objects with Amplifier's snake_case names,
 * typed by their JSON Schemas (`FromSchema`; `schemas/*.json` are written from them).
 */
import { defineErrors, type ErrorTable } from './errors.js';
import type { FromSchema } from './from-schema.js';
import { MAX_DATA_DEPTH, MAX_DEPTH_MARKER, setOwn } from './plain-data.js';

// ---------------------------------------------------------------- ToolResult

/** The JSON Schema of `ToolResult` (`schemas/tool-result.json`). */
export const TOOL_RESULT_SCHEMA = {
  title: 'ToolResult',
  type: 'object',
  required: ['success'],
  properties: {
    success: { type: 'boolean' },
    output: true,
    error: {
      type: ['object', 'null'],
      required: ['message'],
      properties: { message: { type: 'string' }, type: { type: 'string' } },
      additionalProperties: true,
    },
  },
} as const;

/** What a tool returns. A tool never throws for a bad call: it returns `success: false`. */
export type ToolResult = FromSchema<typeof TOOL_RESULT_SCHEMA, { nullIsAbsent: true }>;

const failures = {
  TOOL_INVALID_ARGUMENTS: {
    name: 'InvalidArguments',
    description:
      'the arguments are not a JSON object or nest too deep, or a tool:pre hook made them a non-object',
  },
  TOOL_NOT_FOUND: { name: 'ToolNotFoundError', description: 'no mounted tool has the name the model called' },
  TOOL_INPUT_INVALID: {
    name: 'ValidationError',
    description: "the input does not match the tool's input schema",
  },
  TOOL_TIMED_OUT: { name: 'TimeoutError', description: 'the tool ran past its timeout and was stopped' },
  TOOL_PROFILE_INVALID: {
    name: 'InvalidToolProfile',
    description: "the tool's executionProfile.timeoutMs is invalid",
  },
  TOOL_RESULT_INVALID: {
    name: 'InvalidToolResult',
    description: 'the tool returned something that is not a result',
  },
} as const;

/**
 * Why a tool call failed before or around the tool, as whoever runs tools (the loop, the MCP
 * server) reports it: the row's `name` is the `error.type` of the failed result and of
 * `tool:error` (Amplifier's names, kept on the wire); the model reads the message.
 */
export const TOOL_FAILURES: ErrorTable<typeof failures> = defineErrors(failures);

/** A code of `TOOL_FAILURES`. */
export type ToolFailure = keyof typeof failures;

/** The `error.type` a failed call reports for `failure` (`InvalidArguments`, ...). */
export function failureType(failure: ToolFailure): string {
  return TOOL_FAILURES.codes[failure].name;
}

/**
 * Remove what must never reach a model: C0/C1 control characters except tab, LF
 * and CR, and lone UTF-16 surrogates.
 */
export function sanitizeForLlm(text: string): string {
  // Fast path: most text has nothing to strip.
  if (!UNSAFE.test(text)) return text;
  return text.replace(UNSAFE_G, '');
}
// C0/C1 controls except \t \n \r, a high surrogate not followed by a low one, a low one not preceded by a high one.
const UNSAFE_SOURCE =
  '[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F]|[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]';
const UNSAFE = new RegExp(UNSAFE_SOURCE);
const UNSAFE_G = new RegExp(UNSAFE_SOURCE, 'g');

/**
 * The text that goes back to the model for a tool result: objects and arrays as
 * JSON (even on failure: bash puts stderr and the exit code there), other
 * output as a string; no output gives the error message, `"Error: ..."`, or
 * `"Success"`. Always sanitized.
 */
export function serializeToolOutput(result: ToolResult): string {
  let text: string;
  const { output } = result;
  if (output !== undefined && output !== null) {
    text = typeof output === 'object' ? stringifyJson(output) : String(output);
  } else if (!result.success) {
    const message = result.error?.message;
    if (result.error && message)
      text = message; // the reference's auto-populated output
    else text = result.error ? 'Error: Unknown error' : 'Error: Failed';
  } else {
    text = 'Success';
  }
  return sanitizeForLlm(text);
}

/**
 * JSON.stringify that never throws: bigints and other non-JSON values become
 * strings, cycles become "[Circular]", objects nested deeper than
 * `MAX_DATA_DEPTH` become "[MaxDepth]", and a value that cannot be written at
 * all (a throwing getter or `toJSON`) becomes a JSON string saying why.
 */
export function stringifyJson(value: unknown, space?: number): string {
  try {
    return stringifyBounded(value, space);
  } catch (error) {
    let why: string;
    try {
      why = error instanceof Error ? error.message : String(error);
    } catch {
      why = 'unknown error';
    }
    return JSON.stringify(`[Unserializable: ${why}]`);
  }
}

function stringifyBounded(value: unknown, space?: number): string {
  // The chain from the root to the value being written: `holders` are the
  // objects JSON.stringify walks (a Map's converted object), `originals` what
  // they came from. Only a value that is its own ancestor is a cycle; the same
  // object referenced twice side by side is written twice.
  const holders: unknown[] = [];
  const originals: unknown[] = [];
  return (
    JSON.stringify(
      value,
      function (this: unknown, _key, v: unknown) {
        if (typeof v === 'bigint') return v.toString();
        if (typeof v === 'function' || typeof v === 'symbol') return String(v);
        if (typeof v !== 'object' || v === null) return v;
        while (holders.length > 0 && holders[holders.length - 1] !== this) {
          holders.pop();
          originals.pop();
        }
        if (originals.includes(v)) return '[Circular]';
        if (holders.length >= MAX_DATA_DEPTH) return MAX_DEPTH_MARKER;
        let out: unknown = v;
        if (v instanceof Map) out = Object.fromEntries(v);
        else if (v instanceof Set) out = [...v];
        else if (v instanceof Error) out = { name: v.name, message: v.message };
        holders.push(out);
        originals.push(v);
        return out;
      },
      space,
    ) ?? 'null'
  );
}

// ---------------------------------------------------------------- HookResult

/** The JSON Schema of `HookResult` (`schemas/hook-result.json`), with the reference defaults. */
export const HOOK_RESULT_SCHEMA = {
  title: 'HookResult',
  type: 'object',
  properties: {
    action: { enum: ['continue', 'deny', 'modify', 'inject_context', 'ask_user'], default: 'continue' },
    /** With `modify`: the new event data. Also the payload collected by `emitAndCollect`. */
    data: { type: ['object', 'null'], default: null },
    reason: { type: ['string', 'null'], default: null },
    context_injection: { type: ['string', 'null'], default: null },
    context_injection_role: { enum: ['system', 'user', 'assistant'], default: 'system' },
    /** Only for the current LLM call; never stored in history. */
    ephemeral: { type: 'boolean', default: false },
    approval_prompt: { type: ['string', 'null'], default: null },
    approval_options: { type: ['array', 'null'], items: { type: 'string' }, default: null },
    /** Seconds. */
    approval_timeout: { type: 'number', exclusiveMinimum: 0, default: 300 },
    approval_default: { enum: ['allow', 'deny'], default: 'deny' },
    suppress_output: { type: 'boolean', default: false },
    user_message: { type: ['string', 'null'], default: null },
    user_message_level: { enum: ['info', 'warning', 'error'], default: 'info' },
    user_message_source: { type: ['string', 'null'], default: null },
    append_to_last_tool_result: { type: 'boolean', default: false },
  },
} as const;

/**
 * What a hook handler tells the kernel. Every field is optional; absent fields
 * take the defaults in `HOOK_RESULT_DEFAULTS`.
 */
export type HookResult = FromSchema<typeof HOOK_RESULT_SCHEMA>;

/**
 * What a hook result asks for: `continue`, `deny` (stop the chain), `modify` (hand
 * on new event data), `inject_context` (add text to the context) or `ask_user`
 * (ask for approval).
 */
export type HookAction = NonNullable<HookResult['action']>;
/**
 * The role of the message a hook's `context_injection` becomes: `system` (the
 * default), `user` or `assistant`.
 */
export type InjectionRole = NonNullable<HookResult['context_injection_role']>;
/** The severity of a hook's `user_message` on the display: `info` (the default), `warning` or `error`. */
export type MessageLevel = NonNullable<HookResult['user_message_level']>;

/** A HookResult with every field present. */
export type FullHookResult = Required<HookResult>;

/** The reference defaults of every HookResult field (the schema's `default`s). */
export const HOOK_RESULT_DEFAULTS: Readonly<FullHookResult> = Object.freeze(
  Object.fromEntries(
    Object.entries(HOOK_RESULT_SCHEMA.properties).map(([key, schema]) => [key, schema.default]),
  ) as FullHookResult,
);

/** Fill in every default of a HookResult (a new object). */
export function hookResult(partial: HookResult = {}): FullHookResult {
  const result: FullHookResult = { ...HOOK_RESULT_DEFAULTS };
  for (const key of Object.keys(partial) as (keyof HookResult)[]) {
    const value = partial[key];
    if (value !== undefined) setOwn(result, key, value);
  }
  return result;
}

/** The five valid `HookResult.action` values; `emit` logs and ignores a result with another action. */
export const HOOK_ACTIONS: ReadonlySet<string> = new Set<string>(HOOK_RESULT_SCHEMA.properties.action.enum);
