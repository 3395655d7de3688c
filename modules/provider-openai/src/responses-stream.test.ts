/**
 * The Responses stream reader on hostile or malformed events: wrong types
 * where objects, strings and indexes belong, `__proto__` keys, events out of
 * order. It never throws anything but an LLMError and never pollutes a
 * prototype; what it cannot read adds nothing.
 */
import { LLMError } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { toResponsesInput } from './responses-convert.js';
import { ResponsesStreamReader, responsesError } from './responses-stream.js';

const CONTEXT = { provider: 'openai', model: 'gpt-5-mini' };

function feed(events: unknown[]): ReturnType<ResponsesStreamReader['response']> {
  const reader = new ResponsesStreamReader(CONTEXT);
  for (const event of events) reader.push(event as Record<string, unknown>);
  return reader.response();
}

describe('malformed Responses events', () => {
  it('wrong types everywhere: no crash, nothing invented', () => {
    const response = feed([
      { type: 'response.created', response: null },
      { type: 'response.output_item.added', output_index: 'zero', item: null },
      { type: 'response.output_item.added', output_index: 1, item: 'text' },
      { type: 'response.output_text.delta', output_index: 2, delta: 42 },
      { type: 'response.reasoning_summary_text.delta', output_index: 3, summary_index: 'x', delta: { a: 1 } },
      { type: 'response.function_call_arguments.delta', output_index: 4, delta: null },
      {
        type: 'response.output_item.done',
        output_index: 5,
        item: { type: 'message', content: 'not a list' },
      },
      {
        type: 'response.output_item.done',
        output_index: 6,
        item: { type: 'reasoning', summary: [null, 7, { text: 5 }] },
      },
      {
        type: 'response.output_item.done',
        output_index: 7,
        item: { type: 'function_call', name: 9, arguments: { path: 'a' } },
      },
      {
        type: 'response.output_item.done',
        output_index: Number.NaN,
        item: { type: 'message', content: [null] },
      },
      { type: 'something.new', output_index: -1 },
      { type: 'response.completed', response: { output: 'none', usage: 'lots', incomplete_details: 'x' } },
    ]);
    expect(response.content.filter((b) => b.type === 'text')).toEqual([]);
    // A call with a name that is not a string: an unknown tool '' the orchestrator reports to the model.
    expect(response.tool_calls).toEqual([{ id: 'call_7', name: '', arguments: { path: 'a' } }]);
    expect(response.usage).toBeUndefined();
  });

  it('__proto__ keys in items and arguments pollute nothing', () => {
    const item = JSON.parse(
      '{"type":"function_call","call_id":"call_p","name":"x","arguments":"{\\"__proto__\\":{\\"polluted\\":1}}","__proto__":{"polluted":2}}',
    );
    const response = feed([
      { type: 'response.output_item.added', output_index: 0, item },
      { type: 'response.function_call_arguments.delta', output_index: 0, delta: '{"__proto__":' },
      { type: 'response.output_item.done', output_index: 0, item },
      { type: 'response.completed', response: { status: 'completed' } },
    ]);
    expect(Object.hasOwn(response.tool_calls![0]!.arguments, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(response.finish_reason).toBe('tool_calls');
  });

  it('error payloads of any shape are LLMErrors with a message', () => {
    for (const payload of [
      { type: 'error' },
      { type: 'error', error: 'plain text' },
      { type: 'error', message: 7, code: {} },
      { type: 'error', error: { type: 'invalid_request_error', message: 'Bad input' } },
      null,
    ]) {
      const error = responsesError(payload, CONTEXT);
      expect(LLMError.is(error)).toBe(true);
      expect(error.message).toMatch(/^openai: /);
    }
    const reader = new ResponsesStreamReader(CONTEXT);
    expect(() => reader.push({ type: 'response.failed', response: { error: 'gone' } })).toThrow(LLMError);
  });

  it('history with malformed reasoning state or output order is replayed without it', () => {
    const { input } = toResponsesInput([
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 't', content: [123, {}] as unknown as string[] },
          { type: 'text', text: 'ok' },
        ],
        metadata: { 'openai:output_items': 'reasoning,message' },
      },
      {
        role: 'assistant',
        content: [{ type: 'text', text: 'two' }],
        metadata: { 'openai:output_items': [null, 5, 'function_call', 'message', 'message'] },
      },
    ]);
    expect(input.map((i) => i.type)).toEqual(['message', 'message']);
  });
});
