/**
 * Streamed Gemini answers (`streamGenerateContent?alt=sse`): each SSE message
 * is a whole `GenerateContentResponse` with only the new parts. Block
 * boundaries are synthesised from part-type transitions (thought → text →
 * function call) by the kit's `BlockEvents`; a call arrives whole (start and
 * end at once). An `error` payload mid-stream, a blocked prompt or answer,
 * and a stream that ends before any `finishReason` throw LLMErrors.
 */
import { type ChatResponse, createLLMError, type StreamEvent, stringifyJson } from '@amplifier/core';
import { type RequestContext, type SseMessage, sseJson, streamPayloadError } from '@amplifier/provider-http';
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
  const events: StreamEvent[] = [
    typeof model === 'string' ? { type: 'message.start', model } : { type: 'message.start' },
  ];
  for (const [index, block] of response.content.entries()) {
    if (block.type === 'thinking') events.push({ type: 'thinking.delta', index, text: block.thinking });
    else if (block.type === 'text') events.push({ type: 'text.delta', index, text: block.text });
  }
  for (const { id, name, arguments: args } of response.tool_calls ?? []) {
    events.push({ type: 'tool_call.start', id, name });
    events.push({ type: 'tool_call.delta', id, arguments_fragment: stringifyJson(args) });
    events.push({ type: 'tool_call.end', id, name, arguments: args });
  }
  events.push({ type: 'message.end', response });
  return events;
}
