/**
 * The fold from turn items to UI message chunks, checked by the AI SDK's own
 * reader (`readUIMessageStream`: a chunk out of protocol fails the test) on
 * item sequences a real session produces.
 */
import { type UIMessageChunk as AiChunk, readUIMessageStream, type UIMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import type { TurnEvent } from './turn-stream.js';
import { toUIMessageChunks, type UIMessageChunk } from './ui-message-stream.js';

async function* items(list: TurnEvent[], error?: Error): AsyncGenerator<TurnEvent> {
  yield* list;
  if (error) throw error;
}

async function fold(
  list: TurnEvent[],
  error?: Error,
): Promise<{ chunks: UIMessageChunk[]; message: UIMessage }> {
  const chunks: UIMessageChunk[] = [];
  for await (const chunk of toUIMessageChunks(items(list, error), { messageId: 'm1' })) chunks.push(chunk);
  const stream = new ReadableStream<AiChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk as AiChunk);
      controller.close();
    },
  });
  let message: UIMessage | undefined;
  // An `error` chunk is what useChat passes to onError and reads on; anything else out of protocol fails.
  const terminateOnError = !chunks.some((c) => c.type === 'error');
  for await (const m of readUIMessageStream({ stream, terminateOnError })) message = m;
  return { chunks, message: message! };
}

const text = (request_id: string, block_index: number, t: string, sequence = 0): TurnEvent => ({
  type: 'text_delta',
  request_id,
  block_index,
  sequence,
  text: t,
});
const usage: TurnEvent = {
  type: 'usage',
  provider: 'p',
  model: 'm',
  usage: { input_tokens: 1, output_tokens: 2 },
};

describe('toUIMessageChunks', () => {
  it('calls without ids get one, reused for their results; a failed result is an output error', async () => {
    const { message } = await fold([
      usage, // a provider that does not stream: the call's usage comes first
      { type: 'tool_call', tool_name: 'a', tool_input: { n: 1 } },
      { type: 'tool_call', tool_name: 'a', tool_input: { n: 2 } },
      { type: 'tool_result', tool_name: 'a', result: { success: true, output: 'one' } },
      { type: 'tool_result', tool_name: 'a', result: { success: false, error: { message: 'two failed' } } },
      usage,
      { type: 'finish', text: '' },
    ]);
    expect(message.id).toBe('m1');
    const tools = message.parts.filter((p) => p.type === 'dynamic-tool');
    expect(tools.map((p) => [p.toolCallId, p.state])).toEqual([
      ['call_1', 'output-available'],
      ['call_2', 'output-error'],
    ]);
    expect(message.parts.filter((p) => p.type === 'step-start')).toHaveLength(2);
    expect(message.metadata).toEqual({ usage: { input_tokens: 1, output_tokens: 2 } });
  });

  it('two text blocks of one call are two parts; empty deltas are skipped; a new call is a new step', async () => {
    const { chunks, message } = await fold([
      text('r1', 0, 'a'),
      text('r1', 0, ''),
      text('r1', 1, 'b'),
      text('r2', 0, 'c'),
      { type: 'finish', text: 'c' },
    ]);
    expect(message.parts.map((p) => (p.type === 'text' ? p.text : p.type))).toEqual([
      'step-start',
      'a',
      'b',
      'step-start',
      'c',
    ]);
    expect(chunks.filter((c) => c.type === 'text-delta')).toHaveLength(3);
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
  });

  it('a dropped stream and a provider error are error chunks; the message goes on', async () => {
    const { chunks, message } = await fold([
      text('r1', 0, 'part'),
      {
        type: 'stream_aborted',
        request_id: 'r1',
        error: { type: 'NetworkError', msg: 'socket hang up at 10.0.0.5' },
      },
      {
        type: 'provider_error',
        provider: 'p',
        error: { type: 'RateLimitError', msg: 'key sk-123 over quota' },
      },
      text('r2', 0, 'again'),
      { type: 'finish', text: 'again' },
    ]);
    expect(chunks.filter((c) => c.type === 'error').map((c) => c.errorText)).toEqual([
      'The turn failed (NetworkError).',
      'The turn failed (RateLimitError).',
    ]);
    expect(JSON.stringify(chunks)).not.toContain('sk-123');
    expect(message.parts.filter((p) => p.type === 'text').map((p) => p.text)).toEqual(['part', 'again']);
  });

  it('a tool error with no call shown (unknown tool) is an input error; a thrown turn ends with finish error', async () => {
    const { chunks, message } = await fold(
      [{ type: 'tool_error', tool_name: 'ghost', error: { type: 'ToolNotFound', msg: "no tool 'ghost'" } }],
      new Error('boom'),
    );
    const [tool] = message.parts.filter((p) => p.type === 'dynamic-tool');
    expect(tool).toMatchObject({ toolName: 'ghost', state: 'output-error', errorText: "no tool 'ghost'" });
    expect(chunks.slice(-2)).toEqual([
      { type: 'error', errorText: 'The turn failed (Error).' },
      { type: 'finish', finishReason: 'error' },
    ]);
  });

  it('a cancelled turn finishes as interrupted, with no error', async () => {
    const cancelled = new Error('cancelled');
    cancelled.name = 'CancelledError';
    const { chunks } = await fold([text('r1', 0, 'x')], cancelled);
    expect(chunks.filter((c) => c.type === 'error')).toEqual([]);
    expect(chunks.slice(-3)).toEqual([
      { type: 'text-end', id: 'r1:0' },
      { type: 'finish-step' },
      { type: 'finish', finishReason: 'interrupted' },
    ]);
  });
});
