/**
 * Results: what a tool returns (`ToolResult`, serialized for the model by
 * `serializeToolOutput`) and what a hook returns (`HookResult`, its actions
 * and defaults). Plain JSON-able objects with Amplifier's snake_case names.
 */
import { defineErrors, type ErrorTable } from './errors.js';
import { MAX_DATA_DEPTH, MAX_DEPTH_MARKER, setOwn } from './plain-data.js';

// ---------------------------------------------------------------- ToolResult

/** What a tool returns. A tool never throws for a bad call: it returns `success: false`. */
export interface ToolResult {
  success: boolean;
  output?: unknown;
  error?: { message: string; type?: string; [key: string]: unknown };
}

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

/**
 * What a hook result asks for: `continue`, `deny` (stop the chain), `modify` (hand
 * on new event data), `inject_context` (add text to the context) or `ask_user`
 * (ask for approval).
 */
export type HookAction = 'continue' | 'deny' | 'modify' | 'inject_context' | 'ask_user';
/**
 * The role of the message a hook's `context_injection` becomes: `system` (the
 * default), `user` or `assistant`.
 */
export type InjectionRole = 'system' | 'user' | 'assistant';
/** The severity of a hook's `user_message` on the display: `info` (the default), `warning` or `error`. */
export type MessageLevel = 'info' | 'warning' | 'error';

/**
 * What a hook handler tells the kernel. Every field is optional; absent fields
 * take the defaults in `HOOK_RESULT_DEFAULTS`.
 */
export interface HookResult {
  action?: HookAction;
  /** With `modify`: the new event data. Also the payload collected by `emitAndCollect`. */
  data?: Record<string, unknown> | null;
  reason?: string | null;
  context_injection?: string | null;
  context_injection_role?: InjectionRole;
  /** Only for the current LLM call; never stored in history. */
  ephemeral?: boolean;
  approval_prompt?: string | null;
  approval_options?: string[] | null;
  /** Seconds. */
  approval_timeout?: number;
  approval_default?: 'allow' | 'deny';
  suppress_output?: boolean;
  user_message?: string | null;
  user_message_level?: MessageLevel;
  user_message_source?: string | null;
  append_to_last_tool_result?: boolean;
}

/** A HookResult with every field present. */
export type FullHookResult = Required<HookResult>;

/** The reference defaults of every HookResult field. */
export const HOOK_RESULT_DEFAULTS: Readonly<FullHookResult> = Object.freeze({
  action: 'continue',
  data: null,
  reason: null,
  context_injection: null,
  context_injection_role: 'system',
  ephemeral: false,
  approval_prompt: null,
  approval_options: null,
  approval_timeout: 300,
  approval_default: 'deny',
  suppress_output: false,
  user_message: null,
  user_message_level: 'info',
  user_message_source: null,
  append_to_last_tool_result: false,
});

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
export const HOOK_ACTIONS: ReadonlySet<string> = new Set<HookAction>([
  'continue',
  'deny',
  'modify',
  'inject_context',
  'ask_user',
]);
