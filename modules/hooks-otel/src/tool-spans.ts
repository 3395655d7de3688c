/**
 * The `execute_tool` spans of one session: opened by `tool:pre` under the
 * current turn (so the calls of one round are siblings), closed by `tool:post`
 * or `tool:error` with the same `tool_call_id`. This runs on every tool call,
 * so it does the least it can: one attribute object, one map entry per open
 * call, no content unless `capture_content` is on.
 */
import type { ToolErrorEvent, ToolPostEvent, ToolPreEvent, ToolResult } from '@amplifier/core';
import { type Attributes, type Span, SpanKind } from '@opentelemetry/api';
import { isRecord, stringOf } from './event-fields.js';
import { type Failure, fail, failureOf } from './failure.js';
import * as A from './semconv.js';
import type { SpanScope } from './span-scope.js';

export class ToolSpans {
  readonly #scope: SpanScope;
  /** The calls still running, by tool call id (read by sub-agent sessions: see session-links.ts). */
  readonly #open = new Map<string, Span>();

  constructor(scope: SpanScope) {
    this.#scope = scope;
  }

  /** The spans of the calls still running, by tool call id. */
  get open(): ReadonlyMap<string, Span> {
    return this.#open;
  }

  /** `tool:pre`: a span under the turn. */
  pre(data: ToolPreEvent): void {
    this.#start(data, stringOf(data.tool_call_id));
  }

  /** `tool:post`: the call returned; `success: false` is an error on the span. */
  post(data: ToolPostEvent): void {
    const span = this.#take(data);
    const result = isRecord(data.result) ? (data.result as Partial<ToolResult>) : undefined;
    if (result !== undefined) {
      if (this.#scope.config.capture_content)
        span.setAttribute(A.TOOL_CALL_RESULT, this.#scope.content(result.success ? result.output : result));
      if (result.success === false) {
        const error = isRecord(result.error) ? result.error : undefined;
        fail(
          span,
          {
            type: stringOf(error?.type) ?? 'tool_error',
            message: stringOf(error?.message) ?? 'the tool reported a failure',
          },
          false,
        );
      }
    }
    span.end();
  }

  /** `tool:error`: the call failed (unknown tool, invalid input, the tool threw or timed out). */
  error(data: ToolErrorEvent): void {
    const span = this.#take(data);
    fail(span, failureOf(data.error, 'tool_error'), true);
    span.end();
  }

  /** End every call still running with `failure` (the round, the turn or the session is over). */
  endAll(failure: Failure): void {
    if (this.#open.size === 0) return;
    for (const span of this.#open.values()) {
      fail(span, failure, false);
      span.end();
    }
    this.#open.clear();
  }

  #start(data: ToolPreEvent | ToolErrorEvent | ToolPostEvent, id: string | undefined): Span {
    const scope = this.#scope;
    const parent = scope.turnContext(data);
    const name = String(data.tool_name);
    const group = data.parallel_group_id;
    const attributes: Attributes = {
      [A.OPERATION_NAME]: A.OP_EXECUTE_TOOL,
      [A.TOOL_NAME]: name,
      [A.TOOL_TYPE]: 'function',
    };
    if (id !== undefined) attributes[A.TOOL_CALL_ID] = id;
    if (typeof group === 'string') attributes[A.PARALLEL_GROUP_ID] = group;
    if (scope.config.capture_content && data.tool_input !== undefined)
      attributes[A.TOOL_CALL_ARGUMENTS] = scope.content(data.tool_input);
    const span = scope.tracer.startSpan(
      `${A.OP_EXECUTE_TOOL} ${name}`,
      { kind: SpanKind.INTERNAL, attributes },
      parent,
    );
    if (id !== undefined) {
      // A repeated id (a model that reuses ids) must not leave the first span open forever.
      const previous = this.#open.get(id);
      if (previous !== undefined) previous.end();
      this.#open.set(id, span);
    }
    return span;
  }

  /** The open span of the call, or a new one when the call was never announced by `tool:pre`. */
  #take(data: ToolPostEvent | ToolErrorEvent): Span {
    const id = stringOf(data.tool_call_id);
    const span = id === undefined ? undefined : this.#open.get(id);
    if (span === undefined) return this.#start(data, undefined);
    this.#open.delete(id!);
    return span;
  }
}
