/** Chat Completions payloads as OpenAI sends them, for the fake server. */
import { sseEvent } from '@amplifier/provider-http/testing';

export const MODEL = 'gpt-4o-mini';

/** A `chat.completion.chunk` SSE event with one choice delta. */
export function chunk(delta: Record<string, unknown>, finishReason: string | null = null): string {
  return sseEvent({
    id: 'chatcmpl-abc',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: MODEL,
    system_fingerprint: 'fp_1',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
}

/** The final usage chunk (`stream_options.include_usage`). */
export function usageChunk(prompt = 12, completion = 7, cached = 0): string {
  return sseEvent({
    id: 'chatcmpl-abc',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: MODEL,
    choices: [],
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_tokens_details: { cached_tokens: cached },
      completion_tokens_details: { reasoning_tokens: 0 },
    },
  });
}

export const DONE = 'data: [DONE]\n\n';

/** A streamed text answer, split into `pieces`. */
export function textStream(pieces: string[]): string[] {
  return [
    chunk({ role: 'assistant', content: '', refusal: null }),
    ...pieces.map((p) => chunk({ content: p })),
    chunk({}, 'stop'),
    usageChunk(),
    DONE,
  ];
}

/**
 * Two tool calls whose arguments arrive in pieces split mid-token, the
 * second call's first delta interleaved before the first call finished.
 */
export function toolCallStream(): string[] {
  return [
    chunk({ role: 'assistant', content: null }),
    chunk({
      tool_calls: [
        { index: 0, id: 'call_read', type: 'function', function: { name: 'read_file', arguments: '' } },
      ],
    }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"pa' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: 'th": "a.t' } }] }),
    chunk({
      tool_calls: [
        { index: 1, id: 'call_grep', type: 'function', function: { name: 'grep', arguments: '{"pattern":' } },
      ],
    }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: 'xt"}' } }] }),
    chunk({ tool_calls: [{ index: 1, function: { arguments: ' "é\\n"}' } }] }),
    chunk({}, 'tool_calls'),
    usageChunk(30, 25),
    DONE,
  ];
}

/** A non-streamed `chat.completion`. */
export function completion(
  message: Record<string, unknown>,
  finishReason = 'stop',
  usage = { prompt_tokens: 12, completion_tokens: 7 },
) {
  return {
    id: 'chatcmpl-xyz',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: MODEL,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', refusal: null, ...message },
        logprobs: null,
        finish_reason: finishReason,
      },
    ],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}
