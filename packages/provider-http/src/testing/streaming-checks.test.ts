/**
 * The streaming contract checks: `streamingContractProblems` finds each kind
 * of drift, and `ProviderCalls` over the in-memory wire passes the suite.
 */

import { createLLMError, type StreamEvent } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { RESPONSE, setup, textEvents } from '../__fixtures__/scripted-wire.js';
import { streamingConformance, streamingContractProblems } from './index.js';
import {
  type RecordedStreamEvent,
  type StreamingScenario,
  streamingContractChecks,
} from './streaming-checks.js';

const ID = '6f1c2a3b-4d5e-4f60-8a1b-2c3d4e5f6a7b';
const start = (i: number, type: string, extra = {}): RecordedStreamEvent => [
  'llm:stream_block_start',
  { request_id: ID, block_index: i, block_type: type, ...extra },
];
const delta = (i: number, type: string, sequence: number, text = 'x'): RecordedStreamEvent => [
  'llm:stream_block_delta',
  { request_id: ID, block_index: i, block_type: type, sequence, text },
];
const end = (i: number, type: string): RecordedStreamEvent => [
  'llm:stream_block_end',
  { request_id: ID, block_index: i, block_type: type },
];
const aborted: RecordedStreamEvent = [
  'llm:stream_aborted',
  { request_id: ID, error: { type: 'StreamError', msg: 'lost' } },
];

describe('streamingContractProblems', () => {
  it('accepts a stream of the contract', () => {
    const events = [
      ['llm:request', {}] as RecordedStreamEvent,
      start(0, 'thinking'),
      delta(0, 'thinking', 0),
      end(0, 'thinking'),
      start(1, 'text'),
      delta(1, 'text', 0),
      delta(1, 'text', 1),
      end(1, 'text'),
      start(2, 'tool_use', { name: 'read' }),
      end(2, 'tool_use'),
    ];
    expect(streamingContractProblems(events, 'ok')).toEqual([]);
    expect(streamingContractProblems([start(0, 'text'), delta(0, 'text', 0), aborted], 'failed')).toEqual([]);
    expect(streamingContractProblems([start(0, 'tool_use')], 'failed')).toEqual([]);
  });

  it.each<[string, RecordedStreamEvent[], 'ok' | 'failed', RegExp]>([
    [
      'an old payload',
      [['llm:stream_block_start', { request_id: ID, index: 0, block_type: 'text' }]],
      'ok',
      /fields/,
    ],
    [
      'two request_ids',
      [
        start(0, 'text'),
        ['llm:stream_block_end', { request_id: ID.replace('6', '7'), block_index: 0, block_type: 'text' }],
      ],
      'ok',
      /2 request_ids/,
    ],
    [
      'not a uuid',
      [['llm:stream_block_start', { request_id: 'r1', block_index: 0, block_type: 'text' }]],
      'failed',
      /not a uuid/,
    ],
    [
      'a gap in block_index',
      [start(0, 'text'), end(0, 'text'), start(2, 'text'), end(2, 'text')],
      'ok',
      /expected 1/,
    ],
    [
      'block_type tool_call',
      [start(0, 'tool_call'), end(0, 'tool_call')],
      'ok',
      /not text, thinking or tool_use/,
    ],
    ['a name on text', [start(0, 'text', { name: 'x' }), end(0, 'text')], 'ok', /only a tool_use block/],
    [
      'a global sequence',
      [
        start(0, 'text'),
        delta(0, 'text', 0),
        end(0, 'text'),
        start(1, 'text'),
        delta(1, 'text', 1),
        end(1, 'text'),
      ],
      'ok',
      /sequence 1, expected 0/,
    ],
    ['an empty delta', [start(0, 'text'), delta(0, 'text', 0, ''), end(0, 'text')], 'ok', /empty text/],
    [
      'a tool-input delta',
      [start(0, 'tool_use', { name: 'a' }), delta(0, 'tool_use', 0, '{"'), end(0, 'tool_use')],
      'ok',
      /tool-input JSON/,
    ],
    [
      'a delta before its start',
      [delta(0, 'text', 0), start(0, 'text'), end(0, 'text')],
      'ok',
      /never started/,
    ],
    ['a delta after its end', [start(0, 'text'), end(0, 'text'), delta(0, 'text', 0)], 'ok', /already ended/],
    ['a block never ended', [start(0, 'text'), delta(0, 'text', 0)], 'ok', /never ended/],
    ['aborted without a delta', [start(0, 'text'), aborted], 'failed', /no delta was/],
    [
      'aborted on success',
      [start(0, 'text'), delta(0, 'text', 0), end(0, 'text'), aborted],
      'ok',
      /succeeded/,
    ],
    [
      'no aborted after a delta',
      [start(0, 'text'), delta(0, 'text', 0)],
      'failed',
      /without llm:stream_aborted/,
    ],
    [
      'events after aborted',
      [start(0, 'text'), delta(0, 'text', 0), aborted, end(0, 'text')],
      'failed',
      /after llm:stream_aborted/,
    ],
    [
      'a thinking_delta event',
      [['llm:stream_thinking_delta', { request_id: ID }]],
      'ok',
      /not an event of the contract/,
    ],
  ])('finds %s', (_what, events, outcome, problem) => {
    expect(streamingContractProblems(events, outcome).join('\n')).toMatch(problem);
  });
});

const toolEvents = (): StreamEvent[] => [
  { type: 'message.start' },
  { type: 'text.delta', text: 'Reading.' },
  { type: 'tool_call.start', id: 'c1', name: 'read_file' },
  { type: 'tool_call.delta', id: 'c1', arguments_fragment: '{"path":"a"}' },
  { type: 'tool_call.end', id: 'c1', name: 'read_file', arguments: { path: 'a' } },
  {
    type: 'message.end',
    response: {
      content: [{ type: 'text', text: 'Reading.' }],
      tool_calls: [{ id: 'c1', name: 'read_file', arguments: { path: 'a' } }],
    },
  },
];

const outcomes = {
  text: () => ({ events: textEvents() }),
  tool_use: () => ({ events: toolEvents() }),
  fail_after_delta: () => ({ events: textEvents().slice(0, 2), fail: createLLMError('stream', 'lost') }),
  fail_before_delta: () => createLLMError('invalid_request', 'bad request', { status_code: 400 }),
  non_streaming: () => ({ events: textEvents(structuredClone(RESPONSE)) }),
} satisfies Record<StreamingScenario, unknown>;

describe('ProviderCalls', () => {
  streamingConformance({
    async start(scenario, hooks) {
      const { runner } = setup([outcomes[scenario]()], {}, hooks);
      return { provider: { complete: (request) => runner.complete(request, {}, true) } };
    },
  });
});

describe('the tool_use check: each call once, in tool_calls, its arguments read', () => {
  const check = streamingContractChecks.find((c) => c.name.startsWith('tool_use'))!;
  /** A subject whose streamed tool call ends in `response`. */
  const subject = (response: Extract<StreamEvent, { type: 'message.end' }>['response']) => ({
    async start(_scenario: StreamingScenario, hooks: Parameters<typeof setup>[2]) {
      const events = toolEvents().slice(0, -1);
      events.push({ type: 'message.end', response });
      const { runner } = setup([{ events }], {}, hooks);
      return {
        provider: {
          complete: (request: Parameters<typeof runner.complete>[0]) => runner.complete(request, {}, true),
        },
      };
    },
  });
  const call = { id: 'c1', name: 'read_file', arguments: { path: 'a' } };

  it.each([
    [
      'a call stored twice (block and tool_calls)',
      {
        content: [{ type: 'tool_call' as const, id: 'c1', name: 'read_file', input: { path: 'a' } }],
        tool_calls: [call],
      },
      /tool_call content block/,
    ],
    [
      'arguments left as JSON text',
      { content: [], tool_calls: [{ ...call, arguments: '{"path":"a"}' }] },
      /must be an object/,
    ],
    [
      'arguments that are an array',
      { content: [], tool_calls: [{ ...call, arguments: ['a'] }] },
      /must be an object/,
    ],
  ])('refuses %s', async (_what, response, problem) => {
    await expect(check.run(subject(response as never))).rejects.toThrow(problem);
  });

  it('accepts a call with invalid_arguments (arguments {})', async () => {
    const invalid = {
      ...call,
      arguments: {},
      invalid_arguments: { raw: '{"pa', problem: 'invalid_json' as const, detail: 'x' },
    };
    await expect(check.run(subject({ content: [], tool_calls: [invalid] }))).resolves.toBeUndefined();
  });
});
