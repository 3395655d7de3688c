/**
 * The `chat` span of a provider call, one at a time per session: opened by
 * `provider:request` (or by `llm:request` from a provider whose orchestrator
 * sends no `provider:request`), named `chat {model}` once the model is known,
 * closed by `provider:response` / `provider:error` (or `llm:response`). The
 * call's end time is taken when it ends; with `capture_content` the span is
 * written at the next event, once the response's content blocks are in. The
 * duration and token metrics are recorded when the call ends.
 */
import type {
  ContentBlock,
  LLMRequestEvent,
  LLMResponseEvent,
  ProviderRequestEvent,
  ProviderResponseEvent,
  ProviderRetryEvent,
} from '@amplifier/core';
import { type Attributes, type Span, SpanKind } from '@opentelemetry/api';
import { isRecord, stringOf } from './event-fields.js';
import { type Failure, fail, NO_RESULT } from './failure.js';
import type { GenAiMetrics } from './metrics.js';
import * as A from './semconv.js';
import type { SpanScope } from './span-scope.js';

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

/** Tokens of a finished call, for the turn's and the session's totals. */
export type UsageSink = (input: number, output: number) => void;

const now = (): number => performance.timeOrigin + performance.now();

export class ChatSpans {
  readonly #scope: SpanScope;
  readonly #metrics: GenAiMetrics | undefined;
  readonly #usage: UsageSink;
  #chat: ChatCall | undefined;

  constructor(scope: SpanScope, metrics: GenAiMetrics | undefined, usage: UsageSink) {
    this.#scope = scope;
    this.#metrics = metrics;
    this.#usage = usage;
  }

  /** `provider:request`: a new call (a call still open ends first). */
  providerRequest(data: ProviderRequestEvent): void {
    this.end(NO_RESULT);
    const chat = this.#start(data, stringOf(data.provider) ?? 'unknown', true);
    if (typeof data.iteration === 'number') chat.span.setAttribute(A.ITERATION, data.iteration);
  }

  /** `llm:request`: the model is known now (`chat {model}`). */
  llmRequest(data: LLMRequestEvent): void {
    this.flush();
    const provider = stringOf(data.provider) ?? 'unknown';
    const chat = this.#chat ?? this.#start(data, provider, false);
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
    if (isRecord(data.usage)) recordUsage(chat, data.usage);
    if (typeof data.finish_reason === 'string') {
      chat.finishReason = data.finish_reason;
      chat.span.setAttribute(A.RESPONSE_FINISH_REASONS, [data.finish_reason]);
    }
    if (data.status === 'error') {
      const failure = {
        type: stringOf(data.error_kind) ?? 'error',
        message: stringOf(data.error) ?? 'the model call failed',
      };
      if (!chat.byProvider) this.#finish(failure);
      else fail(chat.span, failure, true);
    } else if (!chat.byProvider) this.#finish(undefined);
  }

  /** `provider:response`: the call is done (usage from here when the provider sent no `llm:response`). */
  providerResponse(data: ProviderResponseEvent): void {
    const chat = this.#chat;
    if (chat === undefined || chat.endTime !== undefined) return;
    if (chat.input === undefined && isRecord(data.usage)) recordUsage(chat, data.usage);
    this.#finish(undefined);
  }

  /** `provider:error`: the call failed with `failure`. */
  providerError(failure: Failure): void {
    const chat = this.#chat;
    if (chat === undefined || chat.endTime !== undefined) return;
    this.#finish(failure);
  }

  /** `provider:retry`: an event on the call. */
  providerRetry(data: ProviderRetryEvent): void {
    const attributes: Attributes = {};
    if (typeof data.attempt === 'number') attributes['amplifier.retry.attempt'] = data.attempt;
    if (typeof data.error_type === 'string') attributes[A.ERROR_TYPE] = data.error_type;
    this.#chat?.span.addEvent('amplifier.provider.retry', attributes);
  }

  /** `content_block:end` (only with `capture_content`): one of the response's parts. */
  contentBlock(block: unknown): void {
    const chat = this.#chat;
    if (chat === undefined || !isRecord(block)) return;
    if (chat.parts === undefined) chat.parts = [];
    chat.parts.push(partOf(block as unknown as ContentBlock));
  }

  /** Write a finished call's span (with the content blocks that followed it). */
  flush(): void {
    const chat = this.#chat;
    if (chat === undefined || chat.endTime === undefined) return;
    if (chat.parts !== undefined) {
      const message: Record<string, unknown> = { role: 'assistant', parts: chat.parts };
      if (chat.finishReason !== undefined) message.finish_reason = chat.finishReason;
      chat.span.setAttribute(A.OUTPUT_MESSAGES, this.#scope.content([message]));
    }
    chat.span.end(chat.endTime);
    this.#chat = undefined;
  }

  /** End a call that is still open (finished: written; running: failed with `failure`). */
  end(failure: Failure): void {
    const chat = this.#chat;
    if (chat === undefined) return;
    if (chat.endTime === undefined) this.#finish(failure);
    this.flush();
  }

  #start(data: Record<string, unknown>, provider: string, byProvider: boolean): ChatCall {
    const scope = this.#scope;
    const parent = scope.turnContext(data);
    const span = scope.tracer.startSpan(
      A.OP_CHAT,
      {
        kind: SpanKind.CLIENT,
        attributes: { [A.OPERATION_NAME]: A.OP_CHAT, [A.PROVIDER_NAME]: provider },
      },
      parent,
    );
    const chat: ChatCall = { span, started: performance.now(), byProvider, provider };
    this.#chat = chat;
    return chat;
  }

  /** The call ended: metrics now; the span ends now, or at the next event when content blocks may follow. */
  #finish(failure: Failure | undefined): void {
    const chat = this.#chat!;
    if (failure !== undefined) fail(chat.span, failure, true);
    chat.endTime = now();
    this.#usage(chat.input ?? 0, chat.output ?? 0);
    if (this.#metrics !== undefined) {
      const attributes: Attributes = { [A.OPERATION_NAME]: A.OP_CHAT, [A.PROVIDER_NAME]: chat.provider };
      if (chat.requestModel !== undefined) attributes[A.REQUEST_MODEL] = chat.requestModel;
      if (chat.responseModel !== undefined) attributes[A.RESPONSE_MODEL] = chat.responseModel;
      const seconds = (performance.now() - chat.started) / 1000;
      if (failure === undefined) this.#metrics.record(attributes, seconds, chat.input, chat.output);
      else this.#metrics.record({ ...attributes, [A.ERROR_TYPE]: failure.type }, seconds);
    }
    if (!this.#scope.config.capture_content) this.flush();
  }
}

function recordUsage(
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
