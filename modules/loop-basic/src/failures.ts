/**
 * Why a tool call failed before or around the tool: the `error.type` of
 * `tool:error` (the row's `name`; Amplifier's names, kept on the wire), declared
 * in core's error factory. The model reads the message in the call's result.
 */
import { defineErrors, type ErrorTable } from '@amplifier/core';

const rows = {
  TOOL_INVALID_ARGUMENTS: {
    name: 'InvalidArguments',
    description:
      "the call's arguments are not a JSON object or nest too deep, or a tool:pre hook replaced them with a non-object",
  },
  TOOL_NOT_FOUND: { name: 'ToolNotFoundError', description: 'no mounted tool has the name the model called' },
  TOOL_INPUT_INVALID: {
    name: 'ValidationError',
    description: "the input does not match the tool's input schema",
  },
  TOOL_TIMED_OUT: { name: 'TimeoutError', description: 'the tool ran past its timeout and was stopped' },
  TOOL_PROFILE_INVALID: {
    name: 'InvalidToolProfile',
    description: "the tool's executionProfile.timeoutMs is not valid",
  },
  TOOL_RESULT_INVALID: {
    name: 'InvalidToolResult',
    description: 'the tool returned something that is not a result',
  },
} as const;

/** The tool runner's failure types: code to `error.type` (`name`) and when it happens. */
export const TOOL_FAILURES: ErrorTable<typeof rows> = defineErrors(rows);

/** A code of `TOOL_FAILURES`. */
export type ToolFailure = keyof typeof rows;

/** The `error.type` that `tool:error` reports for `failure`. */
export function failureType(failure: ToolFailure): string {
  return TOOL_FAILURES.codes[failure].name;
}
