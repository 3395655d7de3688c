/**
 * One round of tool calls (all the calls of one model response): `tool:pre`
 * hooks and input validation in the model's order, then execution scheduled by
 * resource keys with a per-call timeout and the run's signal, then `tool:post`.
 * Every call ends with a result text; nothing here throws for a bad call.
 */
import { randomUUID } from 'node:crypto';
import {
  type Coordinator,
  type EmitResult,
  errorMessage,
  errorType,
  events,
  type HookRegistry,
  type HookResult,
  sanitizeForLlm,
  serializeToolOutput,
  stringifyJson,
  type ToolCall,
  type ToolResult,
} from '@amplifier/core';
import { EXCLUSIVE, FREE, runScheduled, type ScheduleEntry } from './scheduler.js';
import type { ToolEntry, ToolTable } from './tool-table.js';
import { truncateOutput } from './truncate.js';

const { TOOL_ERROR, TOOL_POST, TOOL_PRE } = events;

export interface RunnerSettings {
  maxConcurrentTools: number;
  /** Default timeout in ms; null: none. */
  toolTimeoutMs: number | null;
  maxToolOutputBytes: number;
}

/** A hook result whose context injection waits until every result of the round is in context. */
export interface DeferredInjection {
  result: HookResult;
  event: string;
  hookName: string;
}

/** What a round produced: one content per call and the buffered injections, both in the model's order. */
export interface RoundOutcome {
  groupId: string;
  contents: string[];
  injections: DeferredInjection[];
}

interface Call {
  readonly id: string;
  /** The name the model used. */
  readonly called: string;
  entry: ToolEntry | undefined;
  input: Record<string, unknown>;
  content: string | undefined;
  /** Injections of this call's tool:pre and tool:post, applied after the round. */
  injections: DeferredInjection[] | undefined;
}

/** The reference's text for a call that cancellation cut off (Python's json.dumps spacing). */
export function cancelledContent(tool: string): string {
  return `{"error": "Tool execution was cancelled by user", "cancelled": true, "tool": ${JSON.stringify(tool)}}`;
}

const STOPPED = Symbol('stopped');
const CONTINUE: EmitResult = Object.freeze({ action: 'continue' }) as EmitResult;

/** Run every call of one response; see the module comment. */
export async function runToolRound(
  calls: readonly ToolCall[],
  table: ToolTable,
  settings: RunnerSettings,
  hooks: HookRegistry,
  coordinator: Coordinator,
  signal: AbortSignal,
): Promise<RoundOutcome> {
  const groupId = randomUUID();
  const cancellation = coordinator.cancellation;
  const states: Call[] = [];
  const pending: number[] = [];
  const schedule: ScheduleEntry[] = [];

  const emit = (event: string, data: Record<string, unknown>): Promise<EmitResult> | EmitResult =>
    hooks.has(event) ? hooks.emit(event, data) : CONTINUE;
  const toolError = async (call: Call, type: string, msg: string): Promise<void> => {
    if (!hooks.has(TOOL_ERROR)) return;
    await hooks.emit(TOOL_ERROR, {
      tool_name: call.entry?.name ?? call.called,
      tool_call_id: call.id,
      error: { type, msg },
      parallel_group_id: groupId,
    });
  };

  // Phase 1, in the model's order: parse, tool:pre (approvals), resolve, validate.
  for (const tc of calls) {
    const call: Call = {
      id: tc.id,
      called: tc.name,
      entry: table.lookup(tc.name),
      input: {},
      content: undefined,
      injections: undefined,
    };
    states.push(call);
    cancellation.registerToolStart(call.id, call.called);
    if (cancellation.isImmediate || signal.aborted) {
      call.content = cancelledContent(call.called);
      continue;
    }
    try {
      const parsed = parseArguments(tc.arguments);
      if (typeof parsed === 'string') {
        call.content = `Error: ${parsed}`;
        await toolError(call, 'InvalidArguments', parsed);
        continue;
      }
      call.input = parsed;
      const name = call.entry?.name ?? call.called;
      if (name === 'delegate' && typeof parsed.agent === 'string') {
        cancellation.registerToolStart(call.id, parsed.agent);
      }
      let pre = await emit(TOOL_PRE, {
        tool_name: name,
        tool_call_id: call.id,
        tool_input: parsed,
        parallel_group_id: groupId,
      });
      if (pre.action === 'inject_context') {
        defer(call, { result: pre, event: TOOL_PRE, hookName: name });
      } else if (pre.action !== 'continue' || pre.user_message) {
        pre = (await coordinator.processHookResult(pre, TOOL_PRE, name)) as EmitResult;
      }
      if (pre.action === 'deny') {
        call.content = `Denied by hook: ${pre.reason ?? ''}`;
        continue;
      }
      const modified = pre.data?.tool_input;
      if (modified !== undefined && modified !== parsed) {
        if (!isRecord(modified)) {
          call.content = `Error: a tool:pre hook replaced the input of '${name}' with a non-object`;
          await toolError(call, 'InvalidArguments', call.content);
          continue;
        }
        call.input = modified;
      }
      if (call.entry === undefined) {
        call.content = `Error: Tool '${call.called}' not found. Available tools: ${table.available || '(none)'}`;
        await toolError(call, 'ToolNotFoundError', `Error: Tool '${call.called}' not found`);
        continue;
      }
      const problem = checkInput(call.entry, call.input);
      if (problem !== undefined) {
        call.content = problem;
        await toolError(call, 'ValidationError', problem);
        continue;
      }
      pending.push(states.length - 1);
      schedule.push(scheduleEntry(call.entry, call.input));
    } catch (error) {
      call.content = `Error executing tool: ${errorMessage(error)}`;
      await toolError(call, errorType(error), errorMessage(error));
    }
  }

  // Phase 2: execution, scheduled by resource keys; then tool:post.
  const execute = async (call: Call): Promise<void> => {
    const entry = call.entry!;
    if (cancellation.isImmediate || signal.aborted) {
      call.content = cancelledContent(entry.name);
      return;
    }
    try {
      const profile = entry.tool.executionProfile;
      const timeoutMs = profile?.disableTimeout ? null : (profile?.timeoutMs ?? settings.toolTimeoutMs);
      const outcome = await invoke(entry, call, timeoutMs, signal);
      if (outcome === STOPPED) {
        call.content = cancelledContent(entry.name);
        return;
      }
      if (typeof outcome === 'number') {
        const msg = `Tool '${entry.name}' timed out after ${formatMs(outcome)} and was stopped`;
        call.content = `Error: ${msg}. Try a smaller or faster request.`;
        await toolError(call, 'TimeoutError', msg);
        return;
      }
      const result = normalizeResult(outcome);
      const post = await emit(TOOL_POST, {
        tool_name: entry.name,
        tool_call_id: call.id,
        tool_input: call.input,
        result,
        parallel_group_id: groupId,
      });
      let content: string;
      const replaced = post.data?.result;
      if (post.action === 'continue' && replaced !== undefined && replaced !== result) {
        content = sanitizeForLlm(
          typeof replaced === 'object' && replaced !== null ? stringifyJson(replaced) : String(replaced),
        );
      } else {
        content = serializeToolOutput(result);
      }
      if (post.action === 'inject_context') {
        defer(call, { result: post, event: TOOL_POST, hookName: entry.name });
      } else if (post.action !== 'continue' || post.user_message) {
        await coordinator.processHookResult(post, TOOL_POST, entry.name);
      }
      call.content = truncateOutput(content, settings.maxToolOutputBytes);
    } catch (error) {
      call.content = `Error executing tool: ${errorMessage(error)}`;
      await toolError(call, errorType(error), errorMessage(error));
    }
  };

  try {
    await runScheduled(schedule, settings.maxConcurrentTools, (k) => execute(states[pending[k]!]!));
  } finally {
    for (const call of states) cancellation.registerToolComplete(call.id);
  }
  const contents: string[] = [];
  const injections: DeferredInjection[] = [];
  for (const call of states) {
    contents.push(call.content ?? cancelledContent(call.entry?.name ?? call.called));
    if (call.injections !== undefined) injections.push(...call.injections);
  }
  return { groupId, contents, injections };
}

/**
 * Call the tool with a signal that aborts on timeout or on the run's abort,
 * and stop waiting for it then. Returns the result, STOPPED (run aborted) or
 * the timeout in ms that passed.
 */
async function invoke(
  entry: ToolEntry,
  call: Call,
  timeoutMs: number | null,
  runSignal: AbortSignal,
): Promise<unknown> {
  let wake!: (value: symbol | number) => void;
  const stop = new Promise<symbol | number>((resolve) => {
    wake = resolve;
  });
  let signal = runSignal;
  let controller: AbortController | undefined;
  let timer: NodeJS.Timeout | undefined;
  const onRunAbort = (): void => {
    controller?.abort(runSignal.reason);
    wake(STOPPED);
  };
  if (timeoutMs !== null) {
    const c = new AbortController();
    controller = c;
    signal = c.signal;
    timer = setTimeout(() => {
      c.abort(new Error(`timed out after ${formatMs(timeoutMs)}`));
      wake(timeoutMs);
    }, timeoutMs);
  }
  runSignal.addEventListener('abort', onRunAbort, { once: true });
  try {
    let result: unknown;
    try {
      result = await Promise.race([entry.tool.execute(call.input, { signal, toolCallId: call.id }), stop]);
    } catch (error) {
      if (!signal.aborted) throw error;
    }
    // Once our signal aborted, the call counts as timed out or cancelled, whatever it returned.
    if (signal.aborted) return runSignal.aborted ? STOPPED : timeoutMs;
    return result;
  } finally {
    clearTimeout(timer);
    runSignal.removeEventListener('abort', onRunAbort);
  }
}

function defer(call: Call, injection: DeferredInjection): void {
  if (call.injections === undefined) call.injections = [injection];
  else call.injections.push(injection);
}

function parseArguments(raw: unknown): Record<string, unknown> | string {
  if (raw === undefined || raw === null || raw === '') return {};
  if (isRecord(raw)) return raw;
  if (typeof raw === 'string') {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (isRecord(parsed)) return parsed;
    } catch {
      // reported below
    }
    return `the tool call's arguments are not a JSON object: ${raw.slice(0, 200)}`;
  }
  return `the tool call's arguments must be an object, got ${Array.isArray(raw) ? 'array' : typeof raw}`;
}

function checkInput(entry: ToolEntry, input: Record<string, unknown>): string | undefined {
  const { validate } = entry;
  if (typeof validate !== 'function') return `Error: cannot run '${entry.name}': ${validate.error}`;
  const errors = validate(input);
  if (errors.length === 0) return undefined;
  const details = errors.map((e) => `${e.path || '(input)'}: ${e.message}`).join('; ');
  return `Error: invalid input for tool '${entry.name}': ${details}. The tool was not run; fix the arguments and call it again.`;
}

function scheduleEntry(entry: ToolEntry, input: Record<string, unknown>): ScheduleEntry {
  const profile = entry.tool.executionProfile;
  if (profile === undefined) return EXCLUSIVE;
  if (profile.serial) return EXCLUSIVE;
  if (profile.resourceKeys === undefined) return FREE;
  try {
    return { serial: false, keys: profile.resourceKeys(input) };
  } catch {
    return EXCLUSIVE;
  }
}

function normalizeResult(value: unknown): ToolResult {
  if (isRecord(value) && typeof value.success === 'boolean') return value as unknown as ToolResult;
  if (isRecord(value) && ('output' in value || 'error' in value)) {
    return { ...value, success: value.error === undefined || value.error === null } as ToolResult;
  }
  return { success: true, output: value };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function formatMs(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(3))} s`;
}
