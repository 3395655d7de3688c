import type { StreamEvent } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { ChunkAccumulator, chunkEvents } from './stream.js';

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
