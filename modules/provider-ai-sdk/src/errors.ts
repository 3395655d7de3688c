/**
 * The AI SDK's failures as core's LLMError kinds, through the provider kit's
 * classifier: an `APICallError` (an HTTP error answer; `isRetryable`, and the
 * `retry-after-ms` / `retry-after` headers for the kit's retry), a failed
 * connection, an abort or the bridge's own timeout, and the `error` parts of
 * a stream (a wire error object, or an Error the provider package raised).
 */
import { createLLMError, errorMessage, LLMError } from '@amplifier/core';
import {
  type ApiErrorStyle,
  abortError,
  httpStatusError,
  type RequestContext,
  streamPayloadError,
  transportError,
} from '@amplifier/provider-http';

type Json = Record<string, unknown>;

/** Error codes and types the AI SDK's vendors put in their error bodies, by kind. */
export const ERROR_STYLE: ApiErrorStyle = {
  kinds: {
    insufficient_quota: 'quota_exceeded',
    billing_hard_limit_reached: 'quota_exceeded',
    context_length_exceeded: 'context_length',
    rate_limit_exceeded: 'rate_limit',
    invalid_api_key: 'authentication',
    model_not_found: 'not_found',
    content_filter: 'content_filter',
    overloaded_error: 'unavailable',
  },
};

/** The fields of an `APICallError` the bridge reads (duck-typed: no runtime dependency on `@ai-sdk/provider`). */
interface ApiCallErrorLike {
  message: string;
  statusCode?: number;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
  isRetryable?: boolean;
  cause?: unknown;
}

/** The marker `@ai-sdk/provider` puts on its errors (`Symbol.for('vercel.ai.error.AI_APICallError')`). */
const API_CALL_MARKER = Symbol.for('vercel.ai.error.AI_APICallError');

/** An `APICallError` of any `@ai-sdk/provider` copy (by its marker or its name). */
export function isApiCallError(error: unknown): error is ApiCallErrorLike {
  if (typeof error !== 'object' || error === null) return false;
  return (
    (error as Record<symbol, unknown>)[API_CALL_MARKER] === true ||
    (error as { name?: unknown }).name === 'AI_APICallError'
  );
}

function isAbort(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'AbortError' || name === 'TimeoutError';
}

/** Why the bridge aborted a call itself: no part arrived within the timeout. */
export class BridgeTimeout extends Error {
  override readonly name: string = 'BridgeTimeout';
  constructor(ms: number) {
    super(`no answer within ${ms / 1000}s`);
  }
}

/** What a call knows when it maps a failure. */
export interface FailureContext {
  context: RequestContext;
  /** The caller's signal (its abort is an `abort` error). */
  signal: AbortSignal | undefined;
  /** The bridge's own abort (a `BridgeTimeout` reason is a `timeout` error). */
  own: AbortSignal;
  maxRetryAfterMs: number;
  /** True once the stream delivered a part. */
  midStream: boolean;
  /** The failure came while reading the stream (a part the package could not read): a `stream` error. */
  reading?: boolean;
}

/** A failure of `doStream`/`doGenerate` (rejected, or thrown while the stream is read) as an LLMError. */
export function toLlmError(error: unknown, at: FailureContext): LLMError {
  const { context } = at;
  if (LLMError.is(error)) return error;
  if (at.signal?.aborted) return abortError(context, at.signal.reason);
  if (at.own.aborted && at.own.reason instanceof BridgeTimeout) {
    const what = at.midStream ? 'between two parts of the stream' : 'for the response';
    return createLLMError(
      'timeout',
      `${context.provider}: timed out waiting ${what} (${at.own.reason.message})`,
      { ...context, cause: error },
    );
  }
  if (isApiCallError(error)) {
    if (typeof error.statusCode === 'number') {
      // isRetryable is the package's verdict (408/409/429/5xx by default): the kit reads it as x-should-retry.
      const headers: Record<string, string> = { ...error.responseHeaders };
      if (typeof error.isRetryable === 'boolean') headers['x-should-retry'] = String(error.isRetryable);
      return httpStatusError(
        ERROR_STYLE,
        { status: error.statusCode, headers, body: error.responseBody ?? error.message },
        context,
        at.maxRetryAfterMs,
      );
    }
    // No status: the request never got an answer (fetch failed); the cause says why.
    return transportError(error.cause ?? error, context, undefined, at.midStream);
  }
  if (isAbort(error)) return abortError(context, error);
  if (error instanceof TypeError && /fetch failed|network/i.test(error.message)) {
    return transportError(error.cause ?? error, context, undefined, at.midStream);
  }
  if (at.reading) {
    return createLLMError('stream', `${context.provider}: the stream failed: ${errorMessage(error)}`, {
      ...context,
      cause: error,
    });
  }
  return createLLMError('unknown', `${context.provider}: ${errorMessage(error)}`, {
    ...context,
    cause: error,
  });
}

/**
 * The first `error` part of a stream as an LLMError: an `APICallError` as
 * above; a wire error object (`{error: {message, code}}`, `{message, type}`)
 * by the kit's in-stream classifier; an Error (a chunk that did not parse) as
 * a `stream` error.
 */
export function streamPartError(error: unknown, at: FailureContext): LLMError {
  if (isApiCallError(error) || LLMError.is(error)) return toLlmError(error, at);
  if (error instanceof Error) {
    return createLLMError('stream', `${at.context.provider}: ${errorMessage(error)}`, {
      ...at.context,
      cause: error,
    });
  }
  if (typeof error === 'string') return streamPayloadError(ERROR_STYLE, { message: error }, at.context);
  return streamPayloadError(ERROR_STYLE, error as Json, at.context);
}
