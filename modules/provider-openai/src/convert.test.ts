import {
  type ChatRequest,
  checkData,
  MAX_DATA_DEPTH,
  MAX_DEPTH_MARKER,
  type Message,
  toMessageToolCall,
} from '@amplifier/core';
import { boundedValue, depthOf, nestedJson, nestedValue, randomDeepValue } from '@amplifier/testing';
import { describe, expect, it } from 'vitest';
import { type BodyOptions, fromWireCompletion, toUsage, toWireBody, toWireMessages } from './convert.js';

const options: BodyOptions = {
  model: 'gpt-4o',
  stream: false,
  maxTokens: undefined,
  maxTokensField: 'max_completion_tokens',
  temperature: undefined,
  topP: undefined,
  extraBody: {},
};

describe('messages to Chat Completions', () => {
  it('system and developer become system messages, in place', () => {
    const wire = toWireMessages([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hi' },
      { role: 'developer', content: [{ type: 'text', text: 'context file' }] },
    ]);
    expect(wire).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hi' },
      { role: 'system', content: 'context file' },
    ]);
  });

  it('images: base64 becomes a data URL, url stays a URL, next to the text', () => {
    const wire = toWireMessages([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/a.jpg' } },
        ],
      },
    ]);
    expect(wire).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBOR' } },
          { type: 'image_url', image_url: { url: 'https://example.com/a.jpg' } },
        ],
      },
    ]);
  });

  it('tool calls and results keep their ids; a call given as block and in tool_calls is sent once', () => {
    const wire = toWireMessages([
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 'sig' },
          { type: 'text', text: 'Reading.' },
          { type: 'tool_call', id: 'call_A', name: 'read_file', input: { path: 'a.txt' } },
        ],
        tool_calls: [
          { id: 'call_A', tool: 'read_file', arguments: { path: 'a.txt' } },
          { id: 'call_B', tool: 'grep', arguments: { pattern: 'x' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_A', content: 'contents' },
      { role: 'user', content: [{ type: 'tool_result', tool_call_id: 'call_B', output: { matches: 2 } }] },
    ]);
    expect(wire).toEqual([
      {
        role: 'assistant',
        content: 'Reading.',
        tool_calls: [
          { id: 'call_A', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } },
          { id: 'call_B', type: 'function', function: { name: 'grep', arguments: '{"pattern":"x"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_A', content: 'contents' },
      { role: 'tool', tool_call_id: 'call_B', content: '{"matches":2}' },
    ]);
  });

  it('an assistant turn with nothing to say is left out', () => {
    expect(toWireMessages([{ role: 'assistant', content: '' }])).toEqual([]);
  });

  it('round trip: a response stored the way loop-basic stores it converts back to the same wire message', () => {
    const wireAssistant = {
      role: 'assistant',
      content: 'Let me check.',
      tool_calls: [
        { id: 'call_9', type: 'function', function: { name: 'bash', arguments: '{"command":"ls -la"}' } },
      ],
    };
    const response = fromWireCompletion({
      id: 'chatcmpl-1',
      model: 'gpt-4o',
      choices: [{ index: 0, message: wireAssistant, finish_reason: 'tool_calls' }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
    expect(checkData('chat-response', response)).toEqual([]);
    const stored: Message = {
      role: 'assistant',
      content: response.content,
      tool_calls: response.tool_calls!.map(toMessageToolCall),
    };
    expect(checkData('message', stored)).toEqual([]);
    expect(toWireMessages([stored])).toEqual([wireAssistant]);
  });
});

describe('request body', () => {
  const request: ChatRequest = {
    messages: [{ role: 'user', content: 'hi' }],
    tools: [
      {
        name: 'read_file',
        description: 'Read a file',
        parameters: { type: 'object', properties: { path: { type: 'string' } } },
      },
      { name: 'now', parameters: {} },
    ],
  };

  it('tools, tool_choice, response_format, reasoning_effort, stop, limits', () => {
    const body = toWireBody(
      {
        ...request,
        tool_choice: { type: 'tool', name: 'read_file' },
        response_format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true },
        reasoning_effort: 'low',
        stop: ['END'],
        max_output_tokens: 100,
        temperature: 0.2,
      },
      request.messages,
      { ...options, topP: 0.9 },
    );
    expect(body).toMatchObject({
      model: 'gpt-4o',
      tools: [
        {
          type: 'function',
          function: {
            name: 'read_file',
            description: 'Read a file',
            parameters: request.tools![0]!.parameters,
          },
        },
        { type: 'function', function: { name: 'now', parameters: { type: 'object', properties: {} } } },
      ],
      tool_choice: { type: 'function', function: { name: 'read_file' } },
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'answer', schema: { type: 'object' }, strict: true },
      },
      reasoning_effort: 'low',
      stop: ['END'],
      max_completion_tokens: 100,
      temperature: 0.2,
      top_p: 0.9,
    });
    expect(body.stream).toBeUndefined();
  });

  it('tool_choice strings pass through; json mode; max_tokens for other servers; streaming asks for usage', () => {
    const body = toWireBody(
      { ...request, tool_choice: 'required', response_format: { type: 'json' } },
      request.messages,
      {
        ...options,
        stream: true,
        maxTokens: 50,
        maxTokensField: 'max_tokens',
        extraBody: { top_k: 20, model: 'ignored' },
      },
    );
    expect(body).toMatchObject({
      tool_choice: 'required',
      response_format: { type: 'json_object' },
      max_tokens: 50,
      stream: true,
      stream_options: { include_usage: true },
      top_k: 20,
      model: 'gpt-4o',
    });
    expect(body.max_completion_tokens).toBeUndefined();
    expect(body.temperature).toBeUndefined();
  });
});

describe('responses', () => {
  it('reasoning text (reasoning_content) becomes a thinking block; usage maps cache and reasoning tokens', () => {
    const response = fromWireCompletion({
      choices: [
        { message: { role: 'assistant', content: '42', reasoning_content: 'think' }, finish_reason: 'stop' },
      ],
      usage: {
        prompt_tokens: 100,
        completion_tokens: 20,
        total_tokens: 120,
        prompt_tokens_details: { cached_tokens: 64 },
        completion_tokens_details: { reasoning_tokens: 12 },
      },
    });
    expect(response.content).toEqual([
      { type: 'thinking', thinking: 'think' },
      { type: 'text', text: '42' },
    ]);
    expect(response.usage).toEqual({
      input_tokens: 100,
      output_tokens: 20,
      total_tokens: 120,
      cache_read_tokens: 64,
      reasoning_tokens: 12,
    });
    expect(response.finish_reason).toBe('stop');
  });

  it('tool arguments are read once: empty is {}, bad JSON or a non-object is a typed failure, never a made-up object', () => {
    const completion = (args: unknown) =>
      fromWireCompletion({
        choices: [
          {
            message: { tool_calls: [{ id: 'c1', function: { name: 'read_file', arguments: args } }] },
            finish_reason: 'tool_calls',
          },
        ],
      }).tool_calls![0]!;
    expect(completion('')).toEqual({ id: 'c1', name: 'read_file', arguments: {} });
    expect(completion('{"a":1}')).toEqual({ id: 'c1', name: 'read_file', arguments: { a: 1 } });
    expect(completion({ a: 2 })).toEqual({ id: 'c1', name: 'read_file', arguments: { a: 2 } });
    const broken = completion('{"a":');
    expect(broken.arguments).toEqual({});
    expect(broken.invalid_arguments).toMatchObject({ raw: '{"a":', problem: 'invalid_json' });
    for (const [raw, detail] of [
      ['[1]', 'array'],
      ['"text"', 'string'],
      ['42', 'number'],
      ['null', 'null'],
      [[1, 2], 'array'],
      [true, 'boolean'],
    ] as const) {
      const call = completion(raw);
      expect(call.arguments).toEqual({});
      expect(call.invalid_arguments).toMatchObject({ problem: 'not_object', detail });
      expect(Object.keys(call.arguments)).not.toContain('_raw_arguments');
    }
    // A huge invalid text is kept only in part.
    expect(completion(`{${'x'.repeat(10_000)}`).invalid_arguments!.raw.length).toBeLessThan(2100);
  });

  it('toUsage without usage is undefined; total defaults to input + output', () => {
    expect(toUsage(undefined)).toBeUndefined();
    expect(toUsage({ prompt_tokens: 3, completion_tokens: 4 })).toEqual({
      input_tokens: 3,
      output_tokens: 4,
      total_tokens: 7,
    });
  });
});

describe('deep arguments', () => {
  const callMessage = (args: Record<string, unknown>): Message => ({
    role: 'assistant',
    content: [{ type: 'tool_call', id: 'b1', name: 'echo', input: args }],
    tool_calls: [{ id: 'c1', tool: 'echo', arguments: args }],
  });
  const sentArguments = (args: Record<string, unknown>): unknown[] => {
    const [wire] = toWireMessages([callMessage(args)]);
    return (wire!.tool_calls as { function: { arguments: string } }[]).map((c) =>
      JSON.parse(c.function.arguments),
    );
  };

  it('are written bounded at every depth: the same data up to MAX_DATA_DEPTH, the marker below it', () => {
    for (let depth = 0; depth <= MAX_DATA_DEPTH + 8; depth++) {
      for (const width of [0, 3]) {
        const args = { deep: randomDeepValue(depth, { depth, width }) };
        for (const sent of sentArguments(args)) {
          expect(sent).toEqual(boundedValue(args));
          if (depthOf(args) <= MAX_DATA_DEPTH) expect(sent).toEqual(args);
          else expect(JSON.stringify(sent)).toContain(JSON.stringify(MAX_DEPTH_MARKER));
        }
      }
    }
  });

  it('3,000 and 100,000 levels: no RangeError, bounded JSON text', () => {
    for (const depth of [3_000, 100_000]) {
      const args = { deep: nestedValue(depth) };
      for (const sent of sentArguments(args)) {
        expect(depthOf(sent)).toBe(MAX_DATA_DEPTH);
        expect(JSON.stringify(sent)).toContain(JSON.stringify(MAX_DEPTH_MARKER));
      }
      expect(() => toWireBody({ messages: [callMessage(args)] }, [callMessage(args)], options)).not.toThrow();
    }
  });

  it('a response with arguments 100,000 deep (JSON text, or an object from a compatible server) is read as sent', () => {
    const text = `{"q":${nestedJson(100_000)}}`;
    const asObject = JSON.parse(text);
    for (const args of [text, asObject]) {
      const response = fromWireCompletion({
        choices: [
          {
            message: {
              role: 'assistant',
              tool_calls: [{ id: 'c1', function: { name: 'echo', arguments: args } }],
            },
            finish_reason: 'tool_calls',
          },
        ],
      });
      const call = response.tool_calls![0]!;
      expect(depthOf(call.arguments)).toBe(100_001);
      expect(response.content).toEqual([]);
    }
  });
});
