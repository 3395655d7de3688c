/** What the provider-call and tool-call spans need from their session's tracer. */
import type { Context, Tracer } from '@opentelemetry/api';
import type { OtelConfig } from './config.js';

export interface SpanScope {
  readonly tracer: Tracer;
  readonly config: OtelConfig;
  /** The current turn's context, the parent of every call span (a turn is opened when none is). */
  turnContext(data: Record<string, unknown>): Context;
  /** A content attribute (redacted, shortened), for `capture_content`. */
  content(value: unknown): string;
}
