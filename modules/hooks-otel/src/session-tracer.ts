/**
 * One session's spans, built from its events: the session span
 * (`invoke_agent`), one span per turn, and under the turn the provider calls
 * (`chat`, chat-spans.ts) and the tool calls (`execute_tool`, tool-spans.ts),
 * so the concurrent calls of one round are siblings. Spans start with explicit
 * parents, never through the active context, so concurrency cannot mix them up.
 */
import type {
  CancelCompletedEvent,
  CancelRequestedEvent,
  LLMRequestEvent,
  LLMResponseEvent,
  OrchestratorCompleteEvent,
  PromptCompleteEvent,
  PromptSubmitEvent,
  ProviderErrorEvent,
  ProviderRequestEvent,
  ProviderResponseEvent,
  ProviderRetryEvent,
  SessionEndEvent,
  ToolErrorEvent,
  ToolPostEvent,
  ToolPreEvent,
} from '@amplifier/core';
import { type Attributes, type Context, type Span, SpanKind, type Tracer, trace } from '@opentelemetry/api';
import { ChatSpans } from './chat-spans.js';
import type { OtelConfig } from './config.js';
import { contentAttribute } from './content.js';
import { isRecord, stringOf } from './event-fields.js';
import { CANCELLED, type Failure, fail, failureOf, NO_RESULT } from './failure.js';
import type { GenAiMetrics } from './metrics.js';
import * as A from './semconv.js';
import { type LiveSession, parentContext, registerSession, unregisterSession } from './session-links.js';
import type { SpanScope } from './span-scope.js';
import { ToolSpans } from './tool-spans.js';

export class SessionTracer {
  readonly #tracer: Tracer;
  readonly #config: OtelConfig;
  readonly #chats: ChatSpans;
  readonly #tools: ToolSpans;

  #sessionId: string | undefined;
  #session: Span | undefined;
  #sessionCtx: Context | undefined;
  #live: LiveSession | undefined;
  #sessionInput = 0;
  #sessionOutput = 0;

  #turn: Span | undefined;
  #turnCtx: Context | undefined;
  #turnNumber = 0;
  #turnFailure: Failure | undefined;
  #turnCancelled = false;
  #turnInput = 0;
  #turnOutput = 0;

  constructor(tracer: Tracer, metrics: GenAiMetrics | undefined, config: OtelConfig) {
    this.#tracer = tracer;
    this.#config = config;
    const scope: SpanScope = {
      tracer,
      config,
      turnContext: (data) => this.#turnCtx ?? this.#ensureTurn(data),
      content: (value) => this.#content(value),
    };
    this.#chats = new ChatSpans(scope, metrics, (input, output) => {
      this.#turnInput += input;
      this.#turnOutput += output;
      this.#sessionInput += input;
      this.#sessionOutput += output;
    });
    this.#tools = new ToolSpans(scope);
  }

  // ---------------------------------------------------------------- session

  /** `session:fork`, `session:start`, `session:resume`: the session span, under its parent's when there is one. */
  startSession(data: Record<string, unknown>): void {
    if (this.#session !== undefined) return;
    const sessionId = stringOf(data.session_id);
    const parentId = stringOf(data.parent) ?? stringOf(data.parent_id);
    const metadata = isRecord(data.metadata) ? data.metadata : undefined;
    const agent = stringOf(metadata?.agent_name) ?? this.#config.agent_name;
    const attributes: Attributes = {
      [A.OPERATION_NAME]: A.OP_INVOKE_AGENT,
      [A.AGENT_NAME]: agent,
    };
    if (sessionId !== undefined) {
      attributes[A.CONVERSATION_ID] = sessionId;
      attributes[A.SESSION_ID] = sessionId;
    }
    if (parentId !== undefined) attributes[A.PARENT_SESSION_ID] = parentId;
    const span = this.#tracer.startSpan(
      `${A.OP_INVOKE_AGENT} ${agent}`,
      { kind: SpanKind.INTERNAL, attributes },
      parentContext(parentId, stringOf(metadata?.tool_call_id)),
    );
    this.#session = span;
    this.#sessionCtx = trace.setSpan(parentContext(undefined, undefined), span);
    this.#sessionId = sessionId;
    if (sessionId !== undefined) {
      this.#live = { span, tools: this.#tools.open };
      registerSession(sessionId, this.#live);
    }
  }

  /** `session:end` (or the module's cleanup): end whatever is open, the session span last. */
  endSession(data?: SessionEndEvent): void {
    const status = data?.status;
    const failure: Failure | undefined =
      status === 'failed'
        ? { type: 'session_failed', message: 'the session failed' }
        : status === 'cancelled'
          ? CANCELLED
          : undefined;
    this.#endTurn(this.#turnFailure ?? (this.#turnCancelled ? CANCELLED : failure));
    const span = this.#session;
    if (span === undefined) return;
    if (typeof status === 'string') span.setAttribute(A.SESSION_STATUS, status);
    span.setAttribute(A.USAGE_INPUT_TOKENS, this.#sessionInput);
    span.setAttribute(A.USAGE_OUTPUT_TOKENS, this.#sessionOutput);
    if (failure !== undefined) fail(span, failure, false);
    span.end();
    this.#session = undefined;
    this.#sessionCtx = undefined;
    if (this.#sessionId !== undefined && this.#live !== undefined)
      unregisterSession(this.#sessionId, this.#live);
    this.#live = undefined;
  }

  #ensureSession(data: Record<string, unknown>): Context {
    if (this.#sessionCtx === undefined) this.startSession(data);
    return this.#sessionCtx!;
  }

  // ---------------------------------------------------------------- turns

  /** `prompt:submit`: a new turn (a turn left open by a failure ends first). */
  startTurn(data: PromptSubmitEvent): void {
    this.#endTurn(this.#turnFailure ?? NO_RESULT);
    const parent = this.#ensureSession(data);
    this.#turnNumber++;
    const attributes: Attributes = { [A.TURN_NUMBER]: this.#turnNumber };
    if (this.#sessionId !== undefined) attributes[A.CONVERSATION_ID] = this.#sessionId;
    if (this.#config.capture_content && typeof data.prompt === 'string') {
      attributes[A.INPUT_MESSAGES] = this.#content([
        { role: 'user', parts: [{ type: 'text', content: data.prompt }] },
      ]);
    }
    this.#openTurn(parent, attributes);
  }

  #openTurn(parent: Context, attributes: Attributes): Context {
    const span = this.#tracer.startSpan('turn', { kind: SpanKind.INTERNAL, attributes }, parent);
    const turnCtx = trace.setSpan(parent, span);
    this.#turn = span;
    this.#turnCtx = turnCtx;
    this.#turnFailure = undefined;
    this.#turnCancelled = false;
    this.#turnInput = 0;
    this.#turnOutput = 0;
    return turnCtx;
  }

  /** The current turn's context; a call outside a turn (no `prompt:submit`) opens one. */
  #ensureTurn(data: Record<string, unknown>): Context {
    if (this.#turnCtx !== undefined) return this.#turnCtx;
    const parent = this.#ensureSession(data);
    this.#turnNumber++;
    return this.#openTurn(parent, { [A.TURN_NUMBER]: this.#turnNumber });
  }

  /** `prompt:complete`: the answer, when content is captured. */
  completeTurn(data: PromptCompleteEvent): void {
    const span = this.#turn;
    if (span === undefined || !this.#config.capture_content) return;
    const text = stringOf(data.response) ?? stringOf(data.response_preview);
    if (text === undefined) return;
    span.setAttribute(
      A.OUTPUT_MESSAGES,
      this.#content([{ role: 'assistant', parts: [{ type: 'text', content: text }] }]),
    );
  }

  /** `orchestrator:complete`: the turn ends with the orchestrator's status. */
  finishTurn(data: OrchestratorCompleteEvent): void {
    const span = this.#turn;
    if (span === undefined) return;
    if (typeof data.status === 'string') span.setAttribute(A.TURN_STATUS, data.status);
    if (typeof data.turn_count === 'number') span.setAttribute(A.TURN_ITERATIONS, data.turn_count);
    this.#endTurn(data.status === 'cancelled' || this.#turnCancelled ? CANCELLED : undefined);
  }

  /** `cancel:requested`: an event on the turn. */
  cancelRequested(data: CancelRequestedEvent): void {
    const attributes: Attributes = {};
    const level = data.level ?? data.state;
    if (typeof level === 'string') attributes['amplifier.cancel.level'] = level;
    this.#turn?.addEvent('amplifier.cancel.requested', attributes);
  }

  /** `cancel:completed`: whatever is still running was cancelled; the turn ends cancelled. */
  cancelCompleted(data: CancelCompletedEvent): void {
    if (this.#turn === undefined) return;
    this.#turnCancelled = true;
    this.#turn.addEvent('amplifier.cancel.completed', {
      'amplifier.cancel.immediate': data.was_immediate === true,
    });
    this.#chats.end(CANCELLED);
    this.#tools.endAll(CANCELLED);
  }

  #endTurn(failure: Failure | undefined): void {
    this.#chats.end(failure ?? NO_RESULT);
    this.#tools.endAll(failure ?? NO_RESULT);
    const span = this.#turn;
    if (span === undefined) return;
    span.setAttribute(A.USAGE_INPUT_TOKENS, this.#turnInput);
    span.setAttribute(A.USAGE_OUTPUT_TOKENS, this.#turnOutput);
    if (failure !== undefined) fail(span, failure, true);
    span.end();
    this.#turn = undefined;
    this.#turnCtx = undefined;
  }

  // ---------------------------------------------------------------- provider calls (chat-spans.ts)

  /** `provider:request`: a `chat` span (the previous round's tool calls are over by now). */
  providerRequest(data: ProviderRequestEvent): void {
    this.#tools.endAll(NO_RESULT);
    this.#chats.providerRequest(data);
  }

  /** `llm:request`: the model is known now (`chat {model}`). */
  llmRequest(data: LLMRequestEvent): void {
    this.#chats.llmRequest(data);
  }

  /** `llm:response`: the served model, usage and finish reason (or the error). */
  llmResponse(data: LLMResponseEvent): void {
    this.#chats.llmResponse(data);
  }

  /** `provider:response`: the call is done. */
  providerResponse(data: ProviderResponseEvent): void {
    this.#chats.providerResponse(data);
  }

  /** `provider:error`: the call failed; the turn fails with it unless the orchestrator carries on. */
  providerError(data: ProviderErrorEvent): void {
    const failure = failureOf(data.error, 'provider_error');
    this.#turnFailure = failure;
    this.#chats.providerError(failure);
  }

  /** `provider:retry`: an event on the call. */
  providerRetry(data: ProviderRetryEvent): void {
    this.#chats.providerRetry(data);
  }

  /** `content_block:end` (only with `capture_content`): the response's parts. */
  contentBlock(block: unknown): void {
    this.#chats.contentBlock(block);
  }

  // ---------------------------------------------------------------- tool calls (tool-spans.ts)

  /** `tool:pre`: an `execute_tool` span under the turn (a finished provider call is written first). */
  toolPre(data: ToolPreEvent): void {
    this.#chats.flush();
    this.#tools.pre(data);
  }

  /** `tool:post`: the call returned; `success: false` is an error on the span. */
  toolPost(data: ToolPostEvent): void {
    this.#tools.post(data);
  }

  /** `tool:error`: the call failed (unknown tool, invalid input, the tool threw or timed out). */
  toolError(data: ToolErrorEvent): void {
    this.#tools.error(data);
  }

  #content(value: unknown): string {
    return contentAttribute(value, this.#config.max_content_chars);
  }
}
