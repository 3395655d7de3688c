/**
 * One tool call coming from outside the loop (an MCP host), run the way loop-basic runs a model's call: `tool:pre`
 * (a `deny` refuses it, `ask_user` goes to the approval provider, `modify`
 * rewrites the input), the input checked against the tool's schema, `execute`
 * with the caller's signal and progress callback, then `tool:post` (a `modify`
 * replaces what the caller sees) or `tool:error`. Hook injections have no
 * conversation to land in here and are left out. Never throws.
 */
import { randomUUID } from 'node:crypto';
import {
  type Coordinator,
  ERROR_CODES,
  errorMessage,
  errorType,
  events,
  failureType,
  type HookResult,
  sanitizeForLlm,
  serializeToolOutput,
  stringifyJson,
  type Tool,
  type ToolResult,
} from '@amplifier/core';
import { compileSchema } from '@amplifier/schema';

const { TOOL_ERROR, TOOL_POST, TOOL_PRE } = events;

/** What the caller gets back: the text the model would see, and whether the call worked. */
export interface ServedCallResult {
  text: string;
  isError: boolean;
  /** What stopped it before the tool ran (`denied`, `invalid_input`), if anything did. */
  refused?: 'denied' | 'invalid_input';
}

/** How one served call runs. */
export interface ServedCallOptions {
  /** Aborts the call (the host cancelled it, or the server stops). */
  signal: AbortSignal;
  /** Progress the tool reports (`options.onProgress` of its `execute`). */
  onProgress?: ((progress: unknown) => void) | undefined;
  /** The call id events carry (default: a fresh `mcp_<uuid>`). */
  toolCallId?: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Schema problems of `input`, as one line, or undefined when it fits (or the schema cannot be compiled). */
export function inputProblem(tool: Tool, input: Record<string, unknown>): string | undefined {
  if (tool.inputSchema === undefined) return undefined;
  let errors: ReturnType<ReturnType<typeof compileSchema>>;
  try {
    errors = compileSchema(tool.inputSchema)(input);
  } catch {
    return undefined; // a schema ajv cannot compile: the tool checks its own input
  }
  if (errors.length === 0) return undefined;
  return errors.map((e) => `${e.path || '(input)'}: ${e.message}`).join('; ');
}

/** Run `tool` with `input` through the session's hooks; see the module comment. */
export async function runServedCall(
  coordinator: Coordinator,
  tool: Tool,
  rawInput: Record<string, unknown>,
  options: ServedCallOptions,
): Promise<ServedCallResult> {
  const name = tool.name;
  const id = options.toolCallId ?? `mcp_${randomUUID()}`;
  const hooks = coordinator.hooks;
  const failed = async (type: string, msg: string, text = `Error: ${msg}`): Promise<ServedCallResult> => {
    await hooks
      .emit(TOOL_ERROR, { tool_name: name, tool_call_id: id, error: { type, msg } })
      .catch(() => undefined);
    return { text, isError: true };
  };
  let input = rawInput;
  try {
    const pre: HookResult = await coordinator.emitAndProcess(
      TOOL_PRE,
      { tool_name: name, tool_call_id: id, tool_input: input },
      name,
    );
    if (pre.action === 'deny') {
      return { text: `Denied by hook: ${pre.reason ?? ''}`.trim(), isError: true, refused: 'denied' };
    }
    const modified = pre.data?.tool_input;
    if (modified !== undefined && modified !== input) {
      if (!isRecord(modified)) {
        return await failed(
          failureType('TOOL_INVALID_ARGUMENTS'),
          `a tool:pre hook replaced the input of '${name}' with a non-object`,
        );
      }
      input = modified;
    }
  } catch (error) {
    return failed(errorType(error), errorMessage(error), `Error executing tool: ${errorMessage(error)}`);
  }
  const problem = inputProblem(tool, input);
  if (problem !== undefined) {
    const result = await failed(
      failureType('TOOL_INPUT_INVALID'),
      `invalid input for tool '${name}': ${problem}`,
      `Error: invalid input for tool '${name}': ${problem}. The tool was not run; fix the arguments and call it again.`,
    );
    return { ...result, refused: 'invalid_input' };
  }
  if (options.signal.aborted)
    return failed(ERROR_CODES.CANCELLED.name, `the call to '${name}' was cancelled`);
  let result: ToolResult;
  try {
    const value: unknown = await tool.execute(input, {
      signal: options.signal,
      toolCallId: id,
      ...(options.onProgress && { onProgress: options.onProgress }),
    });
    if (!isRecord(value) || typeof value.success !== 'boolean') {
      return failed(
        failureType('TOOL_RESULT_INVALID'),
        `tool '${name}' returned no result ({ success, output?, error? })`,
      );
    }
    result = value as unknown as ToolResult;
  } catch (error) {
    if (options.signal.aborted)
      return failed(ERROR_CODES.CANCELLED.name, `the call to '${name}' was cancelled`);
    return failed(errorType(error), errorMessage(error), `Error executing tool: ${errorMessage(error)}`);
  }
  try {
    const post = await coordinator.emitAndProcess(
      TOOL_POST,
      { tool_name: name, tool_call_id: id, tool_input: input, result },
      name,
    );
    const replaced = post.data?.result;
    if (post.action === 'continue' && replaced !== undefined && replaced !== result) {
      const text =
        typeof replaced === 'object' && replaced !== null ? stringifyJson(replaced) : String(replaced);
      return { text: sanitizeForLlm(text), isError: !result.success };
    }
  } catch (error) {
    return failed(errorType(error), errorMessage(error), `Error executing tool: ${errorMessage(error)}`);
  }
  return { text: serializeToolOutput(result), isError: !result.success };
}
