/**
 * Server-Sent Events from a response body, parsed by eventsource-parser (the
 * spec's algorithm: chunks split anywhere, multi-line `data:`, comments and
 * keep-alives, CR/LF/CRLF line ends, UTF-8 characters split across chunks).
 */

import { createLLMError } from '@amplifier/core';
import { createParser } from 'eventsource-parser';
import { type RequestContext, type ResponseBody, transportError } from './transport.js';

/** One SSE message. `event` is undefined when the server named none. */
export interface SseMessage {
  event?: string | undefined;
  id?: string | undefined;
  data: string;
}

/**
 * The messages of an SSE body, one at a time. A transport failure throws a
 * stream (or timeout, abort) LLMError. A message cut off by the end of the
 * body is dropped, as the spec says; callers detect the missing terminal
 * event. Stopping early (a `break`, an error in the consumer) releases the body.
 */
export async function* sseEvents(
  body: ResponseBody,
  context: RequestContext,
  signal: AbortSignal | undefined,
): AsyncGenerator<SseMessage> {
  const pending: SseMessage[] = [];
  const parser = createParser({ onEvent: (message) => pending.push(message) });
  const decoder = new TextDecoder();
  const iterator = body[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      let next: IteratorResult<Uint8Array>;
      try {
        next = await iterator.next();
      } catch (error) {
        finished = true;
        throw transportError(error, context, signal, true);
      }
      finished = next.done === true;
      parser.feed(next.done ? decoder.decode() : decoder.decode(next.value, { stream: true }));
      for (let i = 0; i < pending.length; i++) yield pending[i]!;
      pending.length = 0;
      if (finished) return;
    }
  } finally {
    if (!finished) {
      // Stopped early: release the connection.
      try {
        await iterator.return?.();
      } catch {
        // already failed; nothing left to release
      }
    }
  }
}

/** A message's data as a JSON object; anything else is a (retryable) stream error that quotes it. */
export function sseJson(message: SseMessage, context: RequestContext): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(message.data);
  } catch {
    value = undefined;
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value))
    return value as Record<string, unknown>;
  throw createLLMError(
    'stream',
    `${context.provider}: malformed JSON in the stream: ${message.data.slice(0, 120)}`,
    context,
  );
}
