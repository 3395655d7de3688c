/**
 * How a span records a failure: status ERROR with the message, the
 * `error.type` attribute and, for errors (not outcomes such as a tool's
 * `success: false`), an `exception` event.
 */
import type { EventErrorInfo } from '@amplifier/core';
import { type Span, SpanStatusCode } from '@opentelemetry/api';
import { isRecord, stringOf } from './event-fields.js';
import { ERROR_TYPE } from './semconv.js';

/** Why a span ended in error, or without its closing event. */
export interface Failure {
  type: string;
  message: string;
}

export const CANCELLED: Failure = { type: 'cancelled', message: 'the turn was cancelled' };
export const NO_RESULT: Failure = { type: 'no_result', message: 'the call ended without a result event' };

/** Status ERROR, `error.type`, and with `exception` an `exception` event. */
export function fail(span: Span, failure: Failure, exception: boolean): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: failure.message });
  span.setAttribute(ERROR_TYPE, failure.type);
  if (exception) span.recordException({ name: failure.type, message: failure.message });
}

/** The failure an event's `error` field (`{ type, msg }`) describes. */
export function failureOf(given: unknown, fallback: string): Failure {
  const error = isRecord(given) ? (given as Partial<EventErrorInfo>) : undefined;
  return {
    type: stringOf(error?.type) ?? fallback,
    message: stringOf(error?.msg) ?? 'unknown error',
  };
}
