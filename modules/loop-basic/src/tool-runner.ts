/**
 * One round of tool calls (all the calls of one model response): `tool:pre`
 * hooks and input validation in the model's order, then execution scheduled by
 * resource keys with a per-call timeout and the run's signal, then `tool:post`.
 * Every call ends with a result text; nothing here throws for a bad call.
 */
import { randomUUID } from 'node:crypto';
import {
  type CancellationToken,
  type Coordinator,
  type EmitAndProcessOptions,
  errorMessage,
  errorType,
  events,
  failureType,
  type HookRegistry,
  type HookResult,
  type InvalidToolArguments,
  type StepRunner,
  type SubSessions,
  sanitizeForLlm,
  serializeToolOutput,
  stringifyJson,
  type ToolCall,
  type ToolResult,
} from '@amplifier/core';
import type { AbortHub } from './abort-hub.js';
import { type CallOutcome, CallRun, type Deadlines, formatMs } from './call-run.js';
import { MAX_ARGUMENT_DEPTH, nestedDeeperThan } from './depth.js';
import { EXCLUSIVE, FREE, type ScheduleEntry, scheduleCalls } from './scheduler.js';
import { describe, InvalidResult, resultOf, thrownMessage } from './tool-outcome.js';
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
  contents: string[];
  injections: readonly DeferredInjection[];
}

/** What the calls of a turn share. */
export interface RoundContext {
  readonly table: ToolTable;
  readonly settings: RunnerSettings;
  readonly hooks: HookRegistry;
  readonly coordinator: Coordinator;
  /** Watches the run's signal. */
  readonly hub: AbortHub;
  readonly deadlines: Deadlines;
  /** The session's `session.step` runner, read once per turn (undefined: calls run directly). */
  readonly step?: StepRunner | undefined;
  /** The turn's current model call (1 for the first), for step info. */
  readonly iteration?: () => number;
}

/** A call of the round while it runs: the model's call (`tc.name` is the name the model used) and its state. */
interface CallState {
  readonly tc: ToolCall;
  entry: ToolEntry | undefined;
  input: Record<string, unknown>;
  content: string | undefined;
  /** Set once the call is ready to run. */
  schedule: ScheduleEntry | undefined;
  /** A failure found before running, reported as tool:error. */
  failure: { type: string; msg: string } | undefined;
  /** Injections of this call's tool:pre and tool:post, applied after the round. */
  injections: DeferredInjection[] | undefined;
}

/** The reference's text for a call that cancellation cut off (Python's json.dumps spacing). */
export function cancelledContent(tool: string): string {
  return `{"error": "Tool execution was cancelled by user", "cancelled": true, "tool": ${JSON.stringify(tool)}}`;
}

/** tool:pre and tool:post injections wait until every result of the round is in context. */
const DEFER_INJECTION: EmitAndProcessOptions = Object.freeze({ deferInjection: true });
const NO_INJECTIONS: readonly DeferredInjection[] = Object.freeze([]);

interface Round {
  readonly ctx: RoundContext;
  /** Created on first use: only events carry it. */
  groupId: string | undefined;
}

/**
 * Run every call of one response; see the module comment. Without hooks a
 * call is prepared without any await: this is every step's hot path.
 */
export async function runToolRound(calls: readonly ToolCall[], ctx: RoundContext): Promise<RoundOutcome> {
  const round: Round = { ctx, groupId: undefined };
  const { hooks, coordinator } = ctx;
  const n = calls.length;
  const states: CallState[] = [];
  let ready = 0;
  let last: CallState | undefined;
  try {
    // Phase 1, in the model's order: parse, tool:pre (approvals), resolve, validate.
    for (let i = 0; i < n; i++) {
      const tc = calls[i]!;
      const call: CallState = {
        tc,
        entry: ctx.table.lookup(tc.name),
        input: {},
        content: undefined,
        schedule: undefined,
        failure: undefined,
        injections: undefined,
      };
      states.push(call);
      begin(round, call);
      if (call.content === undefined && hooks.has(TOOL_PRE)) await preHooks(round, call);
      if (call.content === undefined) resolve(round, call);
      if (call.failure !== undefined && hooks.has(TOOL_ERROR)) await toolError(round, call, call.failure);
      if (call.schedule !== undefined) {
        ready++;
        last = call;
      }
    }
    // Phase 2: execution, scheduled by resource keys; then tool:post.
    if (ready === 1) {
      await new Promise<void>((done) => execute(round, last!, done));
    } else if (ready > 1) {
      const pending = states.filter((call) => call.schedule !== undefined);
      const entries = pending.map((call) => call.schedule!);
      const limit = ctx.settings.maxConcurrentTools;
      await new Promise<void>((done) =>
        scheduleCalls(entries, limit, (k, finished) => execute(round, pending[k]!, finished), done),
      );
    }
  } finally {
    for (const call of states) coordinator.cancellation.registerToolComplete(call.tc.id);
  }
  const contents: string[] = [];
  let injections: DeferredInjection[] | undefined;
  for (const call of states) {
    contents.push(call.content ?? cancelledContent(call.entry?.name ?? call.tc.name));
    if (call.injections === undefined) continue;
    if (injections === undefined) injections = [...call.injections];
    else injections.push(...call.injections);
  }
  return { contents, injections: injections ?? NO_INJECTIONS };
}

function groupOf(round: Round): string {
  round.groupId ??= randomUUID();
  return round.groupId;
}

async function toolError(
  round: Round,
  call: CallState,
  failure: { type: string; msg: string },
): Promise<void> {
  await round.ctx.hooks.emit(TOOL_ERROR, {
    tool_name: call.entry?.name ?? call.tc.name,
    tool_call_id: call.tc.id,
    error: { type: failure.type, msg: failure.msg },
    parallel_group_id: groupOf(round),
  });
}

function fail(call: CallState, content: string, type: string, msg: string = content): void {
  call.content = content;
  call.failure = { type, msg };
}

/** Refuse input nested deeper than any real one, before anything walks it recursively. */
function failTooDeep(call: CallState, what: string, advice: string): void {
  const msg = `${what} nested deeper than ${MAX_ARGUMENT_DEPTH} levels of objects and arrays`;
  fail(call, `Error: ${msg}; the tool was not run. ${advice}`, failureType('TOOL_INVALID_ARGUMENTS'), msg);
}

/**
 * Register the call, stop if cancelled, refuse invalid arguments (read by the
 * provider: `invalid_arguments`) and absurdly deep ones.
 */
function begin(round: Round, call: CallState): void {
  const cancellation = round.ctx.coordinator.cancellation;
  const { tc } = call;
  cancellation.registerToolStart(tc.id, tc.name);
  if (cancellation.isImmediate || round.ctx.hub.aborted) {
    call.content = cancelledContent(tc.name);
    return;
  }
  const name = call.entry?.name ?? tc.name;
  const invalid = tc.invalid_arguments;
  if (invalid !== undefined) {
    const msg = invalidArgumentsMessage(name, invalid);
    fail(
      call,
      `Error: ${msg}; the tool was not run. Call '${name}' again with its arguments as one JSON object.`,
      failureType('TOOL_INVALID_ARGUMENTS'),
      msg,
    );
    return;
  }
  const input = tc.arguments;
  if (!isRecord(input)) {
    // A provider outside this repository may still hand over something else.
    const msg = `the arguments of this call to '${name}' must be an object, got ${describe(input)}`;
    fail(call, `Error: ${msg}; the tool was not run.`, failureType('TOOL_INVALID_ARGUMENTS'), msg);
    return;
  }
  if (nestedDeeperThan(input, MAX_ARGUMENT_DEPTH)) {
    failTooDeep(call, `the arguments of this call to '${name}' are`, 'Send flatter arguments.');
    return;
  }
  call.input = input;
  const subSessions = call.entry?.tool.subSessions;
  if (subSessions !== undefined) registerSession(cancellation, tc.id, subSessions, input);
}

/** A call that runs a sub-session is listed under the session's name; a failing declaration is ignored. */
function registerSession(
  cancellation: CancellationToken,
  id: string,
  subSessions: SubSessions,
  input: Record<string, unknown>,
): void {
  try {
    const name = subSessions.sessionName(input);
    if (typeof name === 'string' && name !== '') cancellation.registerToolStart(id, name);
  } catch {
    // The call keeps its tool's name; the tool itself reports a bad input when it runs.
  }
}

/** What was wrong with a call's arguments, quoting (the start of) what the model sent. */
function invalidArgumentsMessage(name: string, invalid: InvalidToolArguments): string {
  const raw = typeof invalid.raw === 'string' ? invalid.raw.slice(0, 200) : '';
  const what =
    invalid.problem === 'invalid_json'
      ? `not valid JSON (${invalid.detail})`
      : `JSON of ${/^[aeiou]/.test(invalid.detail) ? 'an' : 'a'} ${invalid.detail}, not an object`;
  return `the arguments of this call to '${name}' are ${what}: ${raw}`;
}

/** tool:pre: deny, ask_user (through the coordinator), modify (the input), inject_context (deferred). */
async function preHooks(round: Round, call: CallState): Promise<void> {
  const { coordinator } = round.ctx;
  const name = call.entry?.name ?? call.tc.name;
  const input = call.input;
  try {
    const pre = await coordinator.emitAndProcess(
      TOOL_PRE,
      { tool_name: name, tool_call_id: call.tc.id, tool_input: input, parallel_group_id: groupOf(round) },
      name,
      DEFER_INJECTION,
    );
    if (pre.action === 'inject_context') defer(call, { result: pre, event: TOOL_PRE, hookName: name });
    if (pre.action === 'deny') {
      call.content = `Denied by hook: ${pre.reason ?? ''}`;
      return;
    }
    const modified = pre.data?.tool_input;
    if (modified !== undefined && modified !== input) {
      if (!isRecord(modified)) {
        fail(
          call,
          `Error: a tool:pre hook replaced the input of '${name}' with a non-object`,
          failureType('TOOL_INVALID_ARGUMENTS'),
        );
      } else if (nestedDeeperThan(modified, MAX_ARGUMENT_DEPTH)) {
        failTooDeep(call, `the input a tool:pre hook gave '${name}' is`, 'Check the tool:pre hooks.');
      } else {
        call.input = modified;
      }
    }
  } catch (error) {
    failError(call, error);
  }
}

/** Find the tool, validate the (final) input, and compute the call's resource keys. */
function resolve(round: Round, call: CallState): void {
  const entry = call.entry;
  if (entry === undefined) {
    const available = round.ctx.table.available || '(none)';
    const msg = `Error: Tool '${call.tc.name}' not found`;
    fail(call, `${msg}. Available tools: ${available}`, failureType('TOOL_NOT_FOUND'), msg);
    return;
  }
  try {
    const problem = checkInput(entry, call.input);
    if (problem !== undefined) fail(call, problem, failureType('TOOL_INPUT_INVALID'));
    else call.schedule = scheduleEntry(entry, call.input);
  } catch (error) {
    failError(call, error);
  }
}

/**
 * Run one prepared call (with its timeout), then tool:post; sets `call.content`,
 * then calls `done` once (at once when the call cannot start). Never throws.
 * Callbacks rather than an async function: a call's usual path (no tool:post
 * handler) costs one promise turn after the tool's own, not three.
 */
function execute(round: Round, call: CallState, done: () => void): void {
  const entry = call.entry!;
  const { coordinator, hub, settings } = round.ctx;
  if (coordinator.cancellation.isImmediate || hub.aborted) {
    call.content = cancelledContent(entry.name);
    done();
    return;
  }
  let step: { run: StepRunner; target: string; iteration: number } | undefined;
  let timeoutMs: number | null;
  try {
    const profile = entry.tool.executionProfile;
    timeoutMs = profile?.disableTimeout ? null : (profile?.timeoutMs ?? settings.toolTimeoutMs);
    if (timeoutMs === Number.POSITIVE_INFINITY) timeoutMs = null;
    if (timeoutMs !== null && !(typeof timeoutMs === 'number' && timeoutMs >= 0)) {
      const msg = `'${entry.name}' has executionProfile.timeoutMs ${describe(timeoutMs)}; it must be a number of milliseconds, 0 or more`;
      fail(
        call,
        `Error: ${msg}; the tool was not run. Fix the tool's execution profile.`,
        failureType('TOOL_PROFILE_INVALID'),
        msg,
      );
      report(round, call, done);
      return;
    }
    const run = round.ctx.step;
    if (run !== undefined) step = { run, target: entry.name, iteration: round.ctx.iteration?.() ?? 0 };
  } catch (error) {
    failError(call, error);
    report(round, call, done);
    return;
  }
  try {
    // Throws only before the call is registered (see CallRun): `done` is then still ours to call.
    new CallRun(entry.tool, call.input, call.tc.id, timeoutMs, hub, round.ctx.deadlines, step, (outcome) =>
      settle(round, call, outcome, done),
    );
  } catch (error) {
    failError(call, error);
    report(round, call, done);
  }
}

/** The call's content from its outcome (tool:post first, with handlers), then `report`. Never throws. */
function settle(round: Round, call: CallState, outcome: CallOutcome, done: () => void): void {
  const entry = call.entry!;
  try {
    switch (outcome.kind) {
      case 'stopped':
        call.content = cancelledContent(entry.name);
        break;
      case 'timed_out': {
        const msg = `Tool '${entry.name}' timed out after ${formatMs(outcome.ms)} and was stopped`;
        fail(call, `Error: ${msg}. Try a smaller or faster request.`, failureType('TOOL_TIMED_OUT'), msg);
        break;
      }
      case 'threw':
        failThrown(call, outcome.thrown);
        break;
      case 'returned': {
        // A returned Error is a failure like a thrown one (a tool that meant to throw it).
        if (outcome.value instanceof Error) {
          failThrown(call, outcome.value);
          break;
        }
        const result = resultOf(outcome.value);
        if (result instanceof InvalidResult) {
          const msg = `Tool '${entry.name}' returned ${result.what} instead of a result ({ success, output?, error? })`;
          fail(
            call,
            `Error: ${msg}, so whether it worked is unknown. Check what it did before calling it again.`,
            failureType('TOOL_RESULT_INVALID'),
            msg,
          );
          break;
        }
        if (round.ctx.hooks.has(TOOL_POST)) {
          postHooks(round, call, result).then(
            () => report(round, call, done),
            (error: unknown) => {
              failError(call, error);
              report(round, call, done);
            },
          );
          return;
        }
        // Without tool:post handlers the content is made here, in the tool's own promise turn.
        call.content = truncateOutput(serializeToolOutput(result), round.ctx.settings.maxToolOutputBytes);
      }
    }
  } catch (error) {
    failError(call, error);
  }
  report(round, call, done);
}

/** tool:error for a failed call (with handlers), then `done`. */
function report(round: Round, call: CallState, done: () => void): void {
  if (call.failure !== undefined && round.ctx.hooks.has(TOOL_ERROR)) {
    toolError(round, call, call.failure).then(done, done);
  } else {
    done();
  }
}

/** A failure of the loop's own work around a call (not the tool's throw: see `failThrown`). */
function failError(call: CallState, error: unknown): void {
  const msg = errorMessage(error);
  fail(call, `Error executing tool: ${msg}`, errorType(error), msg);
}

function failThrown(call: CallState, thrown: unknown): void {
  const msg = thrownMessage(thrown);
  fail(call, `Error executing tool: ${msg}`, errorType(thrown), msg);
}

/** tool:post (modify replaces what the model sees; injections are deferred), then the call's content (with handlers only). */
async function postHooks(round: Round, call: CallState, result: ToolResult): Promise<void> {
  const entry = call.entry!;
  const { coordinator, settings } = round.ctx;
  const post = await coordinator.emitAndProcess(
    TOOL_POST,
    {
      tool_name: entry.name,
      tool_call_id: call.tc.id,
      tool_input: call.input,
      result,
      parallel_group_id: groupOf(round),
    },
    entry.name,
    DEFER_INJECTION,
  );
  if (post.action === 'inject_context') defer(call, { result: post, event: TOOL_POST, hookName: entry.name });
  let content: string;
  const replaced = post.data?.result;
  if (post.action === 'continue' && replaced !== undefined && replaced !== result) {
    content = sanitizeForLlm(
      typeof replaced === 'object' && replaced !== null ? stringifyJson(replaced) : String(replaced),
    );
  } else {
    content = serializeToolOutput(result);
  }
  call.content = truncateOutput(content, settings.maxToolOutputBytes);
}

function defer(call: CallState, injection: DeferredInjection): void {
  if (call.injections === undefined) call.injections = [injection];
  else call.injections.push(injection);
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
