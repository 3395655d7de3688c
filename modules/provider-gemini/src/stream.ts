/**
 * Streamed Gemini answers (`streamGenerateContent?alt=sse`): each SSE message
 * is a whole `GenerateContentResponse` with only the new parts. Block
 * boundaries are synthesised from part-type transitions (thought → text →
 * function call) by the kit's `BlockEvents`; a call arrives whole (start and
 * end at once). An `error` payload mid-stream, a blocked prompt or answer,
 * and a stream that ends before any `finishReason` throw LLMErrors.
 */
import { type ChatResponse, createLLMError, type StreamEvent } from '@amplifier/core';
import {
  responseEvents as finishedEvents,
  type RequestContext,
  type SseMessage,
  sseJson,
  streamPayloadError,
} from '@amplifier/provider-http';
import { AnswerReader } from './convert.js';
import { ERROR_STYLE } from './errors.js';

/** The StreamEvents of a Gemini SSE stream, ending with `message.end`. */
export async function* answerEvents(
  messages: AsyncIterable<SseMessage>,
  context: RequestContext,
): AsyncGenerator<StreamEvent> {
  const reader = new AnswerReader(context);
  for await (const message of messages) {
    const payload = sseJson(message, context);
    if (payload.error !== undefined) throw streamPayloadError(ERROR_STYLE, payload, context);
    yield* reader.push(payload);
  }
  if (!reader.finished) {
    throw createLLMError(
      'stream',
      `${context.provider}: the stream ended before Gemini sent a finishReason`,
      context,
    );
  }
  yield { type: 'message.end', response: reader.response() };
}

/** A finished response as events (for a server that answered a stream request with plain JSON). */
export function responseEvents(response: ChatResponse): StreamEvent[] {
  const model = response.metadata?.['gemini:model_version'];
  return finishedEvents(response, typeof model === 'string' ? model : undefined);
}
