import { MAX_DATA_DEPTH, MAX_DEPTH_MARKER, type StreamEvent } from '@amplifier/core';
import { depthOf, nestedValue } from '@amplifier/testing';
import { describe, expect, it } from 'vitest';
import { ChunkAccumulator, chunkEvents, responseEvents } from './stream.js';

const context = { provider: 'openai', model: 'm' };

async function run(datas: unknown[]): Promise<StreamEvent[]> {
  async function* messages() {
    for (const data of datas)
      yield { data: typeof data === 'string' ? data : JSON.stringify(data), event: undefined, id: undefined };
  }
  const out: StreamEvent[] = [];
  for await (const e of chunkEvents(messages(), context)) out.push(e);
  return out;
}

const delta = (d: Record<string, unknown>, finish: string | null = null) => ({
  choices: [{ index: 0, delta: d, finish_reason: finish }],
});

describe('chunk accumulation', () => {
  it('reasoning deltas (vLLM reasoning_content, OpenRouter reasoning) become thinking events and a thinking block', async () => {
    const events = await run([
      delta({ reasoning_content: 'Let me ' }),
      delta({ reasoning: 'think.' }),
      delta({ content: 'Done.' }, 'stop'),
      '[DONE]',
    ]);
    expect(events.map((e) => e.type)).toEqual([
      'message.start',
      'thinking.delta',
      'thinking.delta',
      'text.delta',
      'message.end',
    ]);
    const end = events.at(-1) as Extract<StreamEvent, { type: 'message.end' }>;
    expect(end.response.content).toEqual([
      { type: 'thinking', thinking: 'Let me think.' },
      { type: 'text', text: 'Done.' },
    ]);
  });

  it('a whole tool call in one chunk without an id (Ollama style) gets a stable id; object arguments are accepted', async () => {
    const events = await run([
      delta({ tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Oslo' } } }] }),
      delta({}, 'tool_calls'),
    ]);
    expect(events.map((e) => e.type)).toEqual([
      'message.start',
      'tool_call.start',
      'tool_call.delta',
      'tool_call.end',
      'message.end',
    ]);
    const end = events.at(-1) as Extract<StreamEvent, { type: 'message.end' }>;
    expect(end.response.tool_calls).toEqual([
      { id: 'call_0', name: 'get_weather', arguments: { city: 'Oslo' } },
    ]);
  });

  it('a stream without [DONE] ends fine once a finish_reason came', async () => {
    const events = await run([delta({ content: 'hi' }, 'stop')]);
    expect(events.at(-1)?.type).toBe('message.end');
  });

  it('an empty stream still gives message.start and message.end from finish()', () => {
    const { events, response } = new ChunkAccumulator().finish();
    expect(events.map((e) => e.type)).toEqual(['message.start', 'message.end']);
    expect(response).toEqual({ content: [] });
  });
});

describe('deep arguments in streams', () => {
  it('object arguments 100,000 deep in a chunk become a bounded fragment; nothing throws', () => {
    const accumulator = new ChunkAccumulator();
    const events = accumulator.push(
      delta({
        tool_calls: [
          { index: 0, id: 'c1', function: { name: 'echo', arguments: { q: nestedValue(100_000) } } },
        ],
      }),
    );
    const fragment = events.find((e) => e.type === 'tool_call.delta') as { arguments_fragment: string };
    expect(fragment.arguments_fragment).toContain(JSON.stringify(MAX_DEPTH_MARKER));
    const { response } = accumulator.finish();
    expect(depthOf(response.tool_calls![0]!.arguments)).toBe(MAX_DATA_DEPTH);
  });

  it('a whole response replayed as events writes deep arguments bounded', () => {
    const args = { q: nestedValue(100_000) };
    const events = responseEvents(
      { content: [], tool_calls: [{ id: 'c1', name: 'echo', arguments: args }] },
      'm',
    );
    const fragment = events.find((e) => e.type === 'tool_call.delta') as { arguments_fragment: string };
    expect(depthOf(JSON.parse(fragment.arguments_fragment))).toBe(MAX_DATA_DEPTH);
    const end = events.find((e) => e.type === 'tool_call.end') as { arguments: unknown };
    expect(end.arguments).toBe(args);
  });
});
