import type { StreamEvent } from '@amplifier/core';
import { depthOf, nestedJson } from '@amplifier/testing';
import { describe, expect, it } from 'vitest';
import { messageEvents } from './stream.js';

const context = { provider: 'anthropic', model: 'm' };

async function run(events: [string, Record<string, unknown>][]): Promise<StreamEvent[]> {
  async function* messages() {
    for (const [type, payload] of events)
      yield { event: type, data: JSON.stringify({ type, ...payload }), id: undefined };
  }
  const out: StreamEvent[] = [];
  for await (const e of messageEvents(messages(), context)) out.push(e);
  return out;
}

describe('message accumulation', () => {
  it('server-side blocks and citation deltas are skipped; a tool call without input gets {}', async () => {
    const events = await run([
      [
        'message_start',
        { message: { id: 'msg', model: 'claude', usage: { input_tokens: 3, output_tokens: 0 } } },
      ],
      [
        'content_block_start',
        {
          index: 0,
          content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} },
        },
      ],
      ['content_block_stop', { index: 0 }],
      ['content_block_start', { index: 1, content_block: { type: 'text', text: 'Hi' } }],
      [
        'content_block_delta',
        { index: 1, delta: { type: 'citations_delta', citation: { cited_text: 'x' } } },
      ],
      ['content_block_delta', { index: 1, delta: { type: 'text_delta', text: ' there' } }],
      ['content_block_stop', { index: 1 }],
      [
        'content_block_start',
        { index: 2, content_block: { type: 'tool_use', id: 'toolu_1', name: 'now', input: {} } },
      ],
      ['content_block_stop', { index: 2 }],
      ['message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } }],
      ['message_stop', {}],
    ]);
    expect(events.map((e) => e.type)).toEqual([
      'message.start',
      'text.delta',
      'text.delta',
      'tool_call.start',
      'tool_call.end',
      'message.end',
    ]);
    const end = events.at(-1) as Extract<StreamEvent, { type: 'message.end' }>;
    expect(end.response.content).toEqual([{ type: 'text', text: 'Hi there' }]);
    expect(end.response.tool_calls).toEqual([{ id: 'toolu_1', name: 'now', arguments: {} }]);
    expect(end.response.usage).toEqual({ input_tokens: 3, output_tokens: 9, total_tokens: 12 });
  });

  it('tool input that is not a JSON object is a typed failure on the call (invalid_arguments), never a made-up input', async () => {
    const events = await run([
      ['message_start', { message: {} }],
      [
        'content_block_start',
        { index: 0, content_block: { type: 'tool_use', id: 't', name: 'x', input: {} } },
      ],
      ['content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '{"a": ' } }],
      ['content_block_stop', { index: 0 }],
      ['message_stop', {}],
    ]);
    const end = events.at(-1) as Extract<StreamEvent, { type: 'message.end' }>;
    const call = end.response.tool_calls![0]!;
    expect(call.arguments).toEqual({});
    expect(call.invalid_arguments).toMatchObject({ raw: '{"a": ', problem: 'invalid_json' });
    expect(events).toContainEqual({ type: 'tool_call.end', id: 't', name: 'x', arguments: {} });
    expect(end.response.content).toEqual([]);
  });
});

describe('deep tool input', () => {
  it('input_json_delta nested 100,000 deep is parsed as sent (no recursion), without a RangeError', async () => {
    const events = await run([
      ['message_start', { message: { id: 'm1', model: 'm', usage: {} } }],
      [
        'content_block_start',
        { index: 0, content_block: { type: 'tool_use', id: 't1', name: 'echo', input: {} } },
      ],
      [
        'content_block_delta',
        { index: 0, delta: { type: 'input_json_delta', partial_json: `{"q":${nestedJson(100_000)}}` } },
      ],
      ['content_block_stop', { index: 0 }],
      ['message_delta', { delta: { stop_reason: 'tool_use' } }],
      ['message_stop', {}],
    ]);
    const end = events.find((e) => e.type === 'tool_call.end') as { arguments: unknown };
    expect(depthOf(end.arguments)).toBe(100_001);
  });
});
