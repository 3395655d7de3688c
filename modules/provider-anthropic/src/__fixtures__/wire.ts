/** Messages API payloads as Anthropic sends them, for the fake server. */
import { sseEvent } from '@amplifier/provider-http/testing';

export const MODEL = 'claude-sonnet-4-6';

/** One SSE event: `event: <type>` and the JSON with the same `type`. */
export function ev(type: string, payload: Record<string, unknown> = {}): string {
  return sseEvent({ type, ...payload }, type);
}

export function messageStart(usage: Record<string, number> = {}): string {
  return ev('message_start', {
    message: {
      id: 'msg_01ABC',
      type: 'message',
      role: 'assistant',
      model: MODEL,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: 25,
        output_tokens: 1,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        ...usage,
      },
    },
  });
}

export const start = (index: number, block: Record<string, unknown>) =>
  ev('content_block_start', { index, content_block: block });
export const delta = (index: number, d: Record<string, unknown>) =>
  ev('content_block_delta', { index, delta: d });
export const stop = (index: number) => ev('content_block_stop', { index });
export const messageDelta = (stopReason: string, outputTokens = 15) =>
  ev('message_delta', {
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: outputTokens },
  });
export const messageStop = () => ev('message_stop');
export const ping = () => ev('ping');

/** Signatures as the API produces them: opaque base64 that must come back unchanged. */
export const SIGNATURE = 'EqQBCkgIBhABGAIiQL7+/z8sK2Yq1c3Jx0bq5v1Vf3u6sJb0yGm9n0bIaQ==';
export const REDACTED = 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP';

/** A streamed text answer, split into `pieces`. */
export function textStream(pieces: string[]): string[] {
  return [
    messageStart(),
    start(0, { type: 'text', text: '' }),
    ping(),
    ...pieces.map((text) => delta(0, { type: 'text_delta', text })),
    stop(0),
    messageDelta('end_turn'),
    messageStop(),
  ];
}

/** Thinking (with its signature), redacted thinking, text, then a tool_use whose input arrives in pieces. */
export function thinkingToolStream(): string[] {
  return [
    messageStart({ cache_read_input_tokens: 100, cache_creation_input_tokens: 20 }),
    start(0, { type: 'thinking', thinking: '', signature: '' }),
    delta(0, { type: 'thinking_delta', thinking: 'The user wants ' }),
    delta(0, { type: 'thinking_delta', thinking: 'a file read.' }),
    delta(0, { type: 'signature_delta', signature: SIGNATURE }),
    stop(0),
    start(1, { type: 'redacted_thinking', data: REDACTED }),
    stop(1),
    start(2, { type: 'text', text: '' }),
    delta(2, { type: 'text_delta', text: 'Reading it.' }),
    stop(2),
    start(3, { type: 'tool_use', id: 'toolu_01A', name: 'read_file', input: {} }),
    delta(3, { type: 'input_json_delta', partial_json: '' }),
    delta(3, { type: 'input_json_delta', partial_json: '{"pa' }),
    delta(3, { type: 'input_json_delta', partial_json: 'th": "a.t' }),
    delta(3, { type: 'input_json_delta', partial_json: 'xt", "n": [1, 2]}' }),
    stop(3),
    messageDelta('tool_use', 42),
    messageStop(),
  ];
}

/** A non-streamed `message`. */
export function message(
  content: Record<string, unknown>[],
  stopReason = 'end_turn',
  usage: Record<string, number> = {},
) {
  return {
    id: 'msg_01XYZ',
    type: 'message',
    role: 'assistant',
    model: MODEL,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: {
      input_tokens: 25,
      output_tokens: 15,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      ...usage,
    },
  };
}

/** An error body. */
export function errorBody(type: string, message: string) {
  return { type: 'error', error: { type, message } };
}
