/**
 * One session's spans, built from its events: the session span
 * (`invoke_agent`), one span per turn, one per provider call (`chat`) and one
 * per tool call (`execute_tool`), parented session > turn > call, so the
 * concurrent calls of one round are siblings. Spans start with explicit
 * parents, never through the active context, so concurrency cannot mix them up.
 */
import type {
  CancelCompletedEvent,
  CancelRequestedEvent,
  ContentBlock,
  EventErrorInfo,
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
  ToolResult,
} from '@amplifier/core';
import {
  type Attributes,
  type Context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { OtelConfig } from './config.js';
import { contentAttribute } from './content.js';
import type { GenAiMetrics } from './metrics.js';
import * as A from './semconv.js';
import { type LiveSession, parentContext, registerSession, unregisterSession } from './session-links.js';

/** Why a span ended without its closing event. */
interface Failure {
  type: string;
  message: string;
}

interface ChatCall {
  span: Span;
  /** `performance.now()` at the start, for the duration metric. */
  started: number;
  /** Opened by `llm:request` (no `provider:request` before it): `llm:response` closes it. */
  byProvider: boolean;
  provider: string;
  requestModel?: string;
  responseModel?: string;
  input?: number;
  output?: number;
  /** Set once the call ended; the span stays open for the response's content blocks. */
  endTime?: number;
  parts?: unknown[];
  finishReason?: string;
}

const CANCELLED: Failure = { type: 'cancelled', message: 'the turn was cancelled' };
const NO_RESULT: Failure = { type: 'no_result', message: 'the call ended without a result event' };

const now = (): number => performance.timeOrigin + performance.now();

export class SessionTracer {
  readonly #tracer: Tracer;
  readonly #metrics: GenAiMetrics | undefined;
  readonly #config: OtelConfig;

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

  #chat: ChatCall | undefined;
  readonly #tools = new Map<string, Span>();

  constructor(tracer: Tracer, metrics: GenAiMetrics | undefined, config: OtelConfig) {
    this.#tracer = tracer;
    this.#metrics = metrics;
    this.#config = config;
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
      this.#live = { span, tools: this.#tools };
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

  #openTurn(parent: Context, attributes: Attributes): void {
    const span = this.#tracer.startSpan('turn', { kind: SpanKind.INTERNAL, attributes }, parent);
    this.#turn = span;
    this.#turnCtx = trace.setSpan(parent, span);
    this.#turnFailure = undefined;
    this.#turnCancelled = false;
    this.#turnInput = 0;
    this.#turnOutput = 0;
  }

  #ensureTurn(data: Record<string, unknown>): Context {
    if (this.#turnCtx !== undefined) return this.#turnCtx;
    const parent = this.#ensureSession(data);
    this.#turnNumber++;
    this.#openTurn(parent, { [A.TURN_NUMBER]: this.#turnNumber });
    return this.#turnCtx!;
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
    this.#endChat(CANCELLED);
    this.#endTools(CANCELLED);
  }

  #endTurn(failure: Failure | undefined): void {
    this.#endChat(failure ?? NO_RESULT);
    this.#endTools(failure ?? NO_RESULT);
    const span = this.#turn;
    if (span === undefined) return;
    span.setAttribute(A.USAGE_INPUT_TOKENS, this.#turnInput);
    span.setAttribute(A.USAGE_OUTPUT_TOKENS, this.#turnOutput);
    if (failure !== undefined) fail(span, failure, true);
    span.end();
    this.#turn = undefined;
    this.#turnCtx = undefined;
  }

  // ---------------------------------------------------------------- provider calls

  /** `provider:request`: a `chat` span (the previous round's tool calls are over by now). */
  providerRequest(data: ProviderRequestEvent): void {
    this.#endTools(NO_RESULT);
    this.#endChat(NO_RESULT);
    this.#startChat(data, stringOf(data.provider) ?? 'unknown', true);
    if (typeof data.iteration === 'number') this.#chat!.span.setAttribute(A.ITERATION, data.iteration);
  }

  #startChat(data: Record<string, unknown>, provider: string, byProvider: boolean): void {
    const parent = this.#ensureTurn(data);
    const span = this.#tracer.startSpan(
      A.OP_CHAT,
      {
        kind: SpanKind.CLIENT,
        attributes: { [A.OPERATION_NAME]: A.OP_CHAT, [A.PROVIDER_NAME]: provider },
      },
      parent,
    );
    this.#chat = { span, started: performance.now(), byProvider, provider };
  }

  /** `llm:request`: the model is known now (`chat {model}`). */
  llmRequest(data: LLMRequestEvent): void {
    this.#flushChat();
    const provider = stringOf(data.provider) ?? 'unknown';
    if (this.#chat === undefined) this.#startChat(data, provider, false);
    const chat = this.#chat!;
    chat.provider = provider;
    chat.span.setAttribute(A.PROVIDER_NAME, provider);
    const model = stringOf(data.model);
    if (model !== undefined) {
      chat.requestModel = model;
      chat.span.setAttribute(A.REQUEST_MODEL, model);
      chat.span.updateName(`${A.OP_CHAT} ${model}`);
    }
  }

  /** `llm:response`: the served model, usage and finish reason (or the error). */
  llmResponse(data: LLMResponseEvent): void {
    const chat = this.#chat;
    if (chat === undefined || chat.endTime !== undefined) return;
    const model = stringOf(data.model);
    if (model !== undefined) {
      chat.responseModel = model;
      chat.span.setAttribute(A.RESPONSE_MODEL, model);
    }
    if (isRecord(data.usage)) this.#usage(chat, data.usage);
    if (typeof data.finish_reason === 'string') {
      chat.finishReason = data.finish_reason;
      chat.span.setAttribute(A.RESPONSE_FINISH_REASONS, [data.finish_reason]);
    }
    if (data.status === 'error') {
      const failure = {
        type: stringOf(data.error_kind) ?? 'error',
        message: stringOf(data.error) ?? 'the model call failed',
      };
      if (!chat.byProvider) this.#finishChat(failure);
      else fail(chat.span, failure, true);
    } else if (!chat.byProvider) this.#finishChat(undefined);
  }

  /** `provider:response`: the call is done (usage from here when the provider sent no `llm:response`). */
  providerResponse(data: ProviderResponseEvent): void {
    const chat = this.#chat;
    if (chat === undefined || chat.endTime !== undefined) return;
    if (chat.input === undefined && isRecord(data.usage)) this.#usage(chat, data.usage);
    this.#finishChat(undefined);
  }

  /** `provider:error`: the call failed; the turn fails with it unless the orchestrator carries on. */
  providerError(data: ProviderErrorEvent): void {
    const failure = failureOf(data.error, 'provider_error');
    this.#turnFailure = failure;
    const chat = this.#chat;
    if (chat === undefined || chat.endTime !== undefined) return;
    this.#finishChat(failure);
  }

  /** `provider:retry`: an event on the call. */
  providerRetry(data: ProviderRetryEvent): void {
    const attributes: Attributes = {};
    if (typeof data.attempt === 'number') attributes['amplifier.retry.attempt'] = data.attempt;
    if (typeof data.error_type === 'string') attributes[A.ERROR_TYPE] = data.error_type;
    this.#chat?.span.addEvent('amplifier.provider.retry', attributes);
  }

  /** `content_block:end` (only with `capture_content`): the response's parts. */
  contentBlock(block: unknown): void {
    const chat = this.#chat;
    if (chat === undefined || !isRecord(block)) return;
    if (chat.parts === undefined) chat.parts = [];
    chat.parts.push(partOf(block as unknown as ContentBlock));
  }

  #usage(
    chat: ChatCall,
    usage: { input_tokens?: unknown; output_tokens?: unknown; cost_usd?: unknown },
  ): void {
    if (typeof usage.input_tokens === 'number') {
      chat.input = usage.input_tokens;
      chat.span.setAttribute(A.USAGE_INPUT_TOKENS, usage.input_tokens);
    }
    if (typeof usage.output_tokens === 'number') {
      chat.output = usage.output_tokens;
      chat.span.setAttribute(A.USAGE_OUTPUT_TOKENS, usage.output_tokens);
    }
    if (typeof usage.cost_usd === 'string') chat.span.setAttribute(A.COST_USD, usage.cost_usd);
  }

  /** The call ended: metrics now; the span ends now, or at the next event when content blocks may follow. */
  #finishChat(failure: Failure | undefined): void {
    const chat = this.#chat!;
    if (failure !== undefined) fail(chat.span, failure, true);
    chat.endTime = now();
    this.#turnInput += chat.input ?? 0;
    this.#turnOutput += chat.output ?? 0;
    this.#sessionInput += chat.input ?? 0;
    this.#sessionOutput += chat.output ?? 0;
    if (this.#metrics !== undefined) {
      const attributes: Attributes = { [A.OPERATION_NAME]: A.OP_CHAT, [A.PROVIDER_NAME]: chat.provider };
      if (chat.requestModel !== undefined) attributes[A.REQUEST_MODEL] = chat.requestModel;
      if (chat.responseModel !== undefined) attributes[A.RESPONSE_MODEL] = chat.responseModel;
      const seconds = (performance.now() - chat.started) / 1000;
      if (failure === undefined) this.#metrics.record(attributes, seconds, chat.input, chat.output);
      else this.#metrics.record({ ...attributes, [A.ERROR_TYPE]: failure.type }, seconds);
    }
    if (!this.#config.capture_content) this.#flushChat();
  }

  /** End a finished call's span (with the content blocks that followed it). */
  #flushChat(): void {
    const chat = this.#chat;
    if (chat === undefined || chat.endTime === undefined) return;
    if (chat.parts !== undefined) {
      const message: Record<string, unknown> = { role: 'assistant', parts: chat.parts };
      if (chat.finishReason !== undefined) message.finish_reason = chat.finishReason;
      chat.span.setAttribute(A.OUTPUT_MESSAGES, this.#content([message]));
    }
    chat.span.end(chat.endTime);
    this.#chat = undefined;
  }

  /** End a call that is still open (finished: flushed; running: failed with `failure`). */
  #endChat(failure: Failure): void {
    const chat = this.#chat;
    if (chat === undefined) return;
    if (chat.endTime === undefined) this.#finishChat(failure);
    this.#flushChat();
  }

  // ---------------------------------------------------------------- tool calls

  /** `tool:pre`: an `execute_tool` span under the turn (calls of one round are siblings). */
  toolPre(data: ToolPreEvent): void {
    this.#flushChat();
    const id = stringOf(data.tool_call_id);
    this.#startTool(data, id);
  }

  #startTool(data: ToolPreEvent | ToolErrorEvent | ToolPostEvent, id: string | undefined): Span {
    const parent = this.#ensureTurn(data);
    const name = String(data.tool_name);
    const attributes: Attributes = {
      [A.OPERATION_NAME]: A.OP_EXECUTE_TOOL,
      [A.TOOL_NAME]: name,
      [A.TOOL_TYPE]: 'function',
    };
    if (id !== undefined) attributes[A.TOOL_CALL_ID] = id;
    if (typeof data.parallel_group_id === 'string') attributes[A.PARALLEL_GROUP_ID] = data.parallel_group_id;
    if (this.#config.capture_content && data.tool_input !== undefined)
      attributes[A.TOOL_CALL_ARGUMENTS] = this.#content(data.tool_input);
    const span = this.#tracer.startSpan(
      `${A.OP_EXECUTE_TOOL} ${name}`,
      { kind: SpanKind.INTERNAL, attributes },
      parent,
    );
    if (id !== undefined) {
      // A repeated id (a model that reuses ids) must not leave the first span open forever.
      const previous = this.#tools.get(id);
      if (previous !== undefined) previous.end();
      this.#tools.set(id, span);
    }
    return span;
  }

  #takeTool(data: ToolPostEvent | ToolErrorEvent): Span {
    const id = stringOf(data.tool_call_id);
    const span = id === undefined ? undefined : this.#tools.get(id);
    if (span === undefined) return this.#startTool(data, undefined);
    this.#tools.delete(id!);
    return span;
  }

  /** `tool:post`: the call returned; `success: false` is an error on the span. */
  toolPost(data: ToolPostEvent): void {
    const span = this.#takeTool(data);
    const result = isRecord(data.result) ? (data.result as Partial<ToolResult>) : undefined;
    if (this.#config.capture_content && result !== undefined)
      span.setAttribute(A.TOOL_CALL_RESULT, this.#content(result.success ? result.output : result));
    if (result !== undefined && result.success === false) {
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
    span.end();
  }

  /** `tool:error`: the call failed (unknown tool, invalid input, the tool threw or timed out). */
  toolError(data: ToolErrorEvent): void {
    const span = this.#takeTool(data);
    fail(span, failureOf(data.error, 'tool_error'), true);
    span.end();
  }

  #endTools(failure: Failure): void {
    if (this.#tools.size === 0) return;
    for (const span of this.#tools.values()) {
      fail(span, failure, false);
      span.end();
    }
    this.#tools.clear();
  }

  #content(value: unknown): string {
    return contentAttribute(value, this.#config.max_content_chars);
  }
}

/** Status ERROR, `error.type`, and with `exception` an `exception` event. */
function fail(span: Span, failure: Failure, exception: boolean): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: failure.message });
  span.setAttribute(A.ERROR_TYPE, failure.type);
  if (exception) span.recordException({ name: failure.type, message: failure.message });
}

function failureOf(given: unknown, fallback: string): Failure {
  const error = isRecord(given) ? (given as Partial<EventErrorInfo>) : undefined;
  return {
    type: stringOf(error?.type) ?? fallback,
    message: stringOf(error?.msg) ?? 'unknown error',
  };
}

/** A content block as a message part of the GenAI conventions. */
function partOf(block: ContentBlock): Record<string, unknown> {
  switch (block.type) {
    case 'text':
      return { type: 'text', content: block.text };
    case 'thinking':
      return { type: 'reasoning', content: block.thinking };
    case 'tool_call':
      return { type: 'tool_call', id: block.id, name: block.name, arguments: block.input };
    default:
      return { type: block.type };
  }
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
