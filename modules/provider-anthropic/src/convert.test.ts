import { type ChatRequest, checkData, type Message, toMessageToolCall } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { message, REDACTED, SIGNATURE } from './__fixtures__/wire.js';
import { fromWireMessage, toWireMessages } from './convert.js';
import { type BodyOptions, toWireBody } from './request.js';

describe('messages to the Messages API', () => {
  it('system/developer hoisting: leading ones go to `system`, later ones stay in place as reminders', () => {
    const { system, messages } = toWireMessages([
      { role: 'system', content: 'You are terse.' },
      { role: 'developer', content: [{ type: 'text', text: 'AGENTS.md says hi' }] },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
      { role: 'system', content: 'lint found 2 errors' },
      { role: 'user', content: 'fix them' },
    ]);
    expect(system).toEqual([
      { type: 'text', text: 'You are terse.' },
      { type: 'text', text: 'AGENTS.md says hi' },
    ]);
    expect(messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: '<system-reminder>\nlint found 2 errors\n</system-reminder>' },
          { type: 'text', text: 'fix them' },
        ],
      },
    ]);
  });

  it('tool calls and results keep their ids; consecutive results merge into one user turn, results first', () => {
    const { messages } = toWireMessages([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: [{ type: 'tool_call', id: 'toolu_1', name: 'read_file', input: { path: 'a' } }],
        tool_calls: [
          { id: 'toolu_1', tool: 'read_file', arguments: { path: 'a' } },
          { id: 'toolu_2', tool: 'grep', arguments: { pattern: 'x' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'A' },
      {
        role: 'tool',
        tool_call_id: 'toolu_2',
        content: [{ type: 'tool_result', tool_call_id: 'toolu_2', output: { n: 1 } }],
      },
      { role: 'user', content: 'thanks' },
    ]);
    expect(messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a' } },
          { type: 'tool_use', id: 'toolu_2', name: 'grep', input: { pattern: 'x' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'A' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: '{"n":1}' },
          { type: 'text', text: 'thanks' },
        ],
      },
    ]);
  });

  it('thinking signatures preserved: thinking and redacted_thinking go back byte-for-byte, in order', () => {
    const { messages } = toWireMessages([
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'step 1\n  step 2 ✓', signature: SIGNATURE },
          { type: 'redacted_thinking', data: REDACTED },
          { type: 'text', text: 'answer' },
          { type: 'thinking', thinking: 'from another provider' }, // no signature: cannot be verified, left out
        ],
      },
    ]);
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'step 1\n  step 2 ✓', signature: SIGNATURE },
        { type: 'redacted_thinking', data: REDACTED },
        { type: 'text', text: 'answer' },
      ],
    });
  });

  it('images: base64 and url sources', () => {
    const { messages } = toWireMessages([
      {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.png' } },
          { type: 'text', text: 'which is a cat?' },
        ],
      },
    ]);
    expect(messages[0]!.content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.png' } },
      { type: 'text', text: 'which is a cat?' },
    ]);
  });

  it('empty messages are left out (the API rejects empty content)', () => {
    expect(
      toWireMessages([
        { role: 'assistant', content: '' },
        { role: 'user', content: '' },
      ]).messages,
    ).toEqual([]);
  });

  it('round trip: a response stored the way loop-basic stores it converts back to the same content', () => {
    const wireContent = [
      { type: 'thinking', thinking: 'Let me look.', signature: SIGNATURE },
      { type: 'redacted_thinking', data: REDACTED },
      { type: 'text', text: 'Looking.' },
      { type: 'tool_use', id: 'toolu_9', name: 'bash', input: { command: 'ls -la', env: { A: '1' } } },
    ];
    const response = fromWireMessage(message(wireContent, 'tool_use'));
    expect(checkData('chat-response', response)).toEqual([]);
    expect(response.finish_reason).toBe('tool_calls');
    expect(response.metadata).toMatchObject({
      'anthropic:stop_reason': 'tool_use',
      'anthropic:message_id': 'msg_01XYZ',
    });
    const stored: Message = {
      role: 'assistant',
      content: response.content,
      tool_calls: response.tool_calls!.map(toMessageToolCall),
    };
    expect(checkData('message', stored)).toEqual([]);
    const roundTripped = toWireMessages([{ role: 'user', content: 'q' }, stored]).messages[1]!;
    expect(roundTripped).toEqual({ role: 'assistant', content: wireContent });
    expect(JSON.stringify((roundTripped.content as unknown[])[0])).toBe(JSON.stringify(wireContent[0]));
  });

  it('usage: input_tokens is the gross input; cache reads and writes reported', () => {
    const response = fromWireMessage(
      message([{ type: 'text', text: 'x' }], 'end_turn', {
        input_tokens: 10,
        cache_read_input_tokens: 1000,
        cache_creation_input_tokens: 200,
        output_tokens: 5,
      }),
    );
    const thinking = fromWireMessage({
      ...message([{ type: 'text', text: 'x' }]),
      usage: { input_tokens: 1, output_tokens: 50, output_tokens_details: { thinking_tokens: 40 } },
    });
    expect(thinking.usage).toMatchObject({ output_tokens: 50, reasoning_tokens: 40 });
    expect(response.usage).toEqual({
      input_tokens: 1210,
      output_tokens: 5,
      total_tokens: 1215,
      cache_read_tokens: 1000,
      cache_write_tokens: 200,
    });
  });
});

describe('request body', () => {
  const base: BodyOptions = {
    model: 'claude-sonnet-4-5',
    stream: false,
    maxTokens: undefined,
    modelMaxOutput: 64_000,
    temperature: 0.7,
    topP: undefined,
    promptCaching: false,
    extendedThinking: false,
    thinkingBudget: 32_000,
    thinkingType: 'enabled',
    extraBody: {},
  };
  const request: ChatRequest = {
    messages: [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'hi' },
    ],
    tools: [
      {
        name: 'read_file',
        description: 'Read',
        parameters: { type: 'object', properties: { path: { type: 'string' } } },
      },
    ],
  };

  it('tools, tool_choice, max_tokens (default: the model max output), temperature, stop, json_schema output', () => {
    const body = toWireBody(
      {
        ...request,
        tool_choice: 'required',
        stop: ['###'],
        response_format: { type: 'json_schema', schema: { type: 'object' } },
      },
      request.messages,
      base,
    );
    expect(body).toEqual({
      model: 'claude-sonnet-4-5',
      system: [{ type: 'text', text: 'sys' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      tools: [{ name: 'read_file', description: 'Read', input_schema: request.tools![0]!.parameters }],
      tool_choice: { type: 'any' },
      max_tokens: 64_000,
      temperature: 0.7,
      stop_sequences: ['###'],
      output_config: { format: { type: 'json_schema', schema: { type: 'object' } } },
    });
    expect(
      toWireBody({ ...request, tool_choice: { type: 'tool', name: 'read_file' } }, request.messages, base)
        .tool_choice,
    ).toEqual({
      type: 'tool',
      name: 'read_file',
    });
    expect(toWireBody({ ...request, tool_choice: 'none' }, request.messages, base).tool_choice).toEqual({
      type: 'none',
    });
  });

  it('reasoning_effort enables thinking with a budget below max_tokens and leaves temperature out', () => {
    const body = toWireBody(
      { ...request, reasoning_effort: 'low', max_output_tokens: 1000 },
      request.messages,
      base,
    );
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 4096 });
    expect(body.max_tokens).toBe(4096 + 4096);
    expect(body.temperature).toBeUndefined();
    const off = toWireBody({ ...request, reasoning_effort: 'none' }, request.messages, {
      ...base,
      extendedThinking: true,
    });
    expect(off.thinking).toBeUndefined();
  });

  it('extended_thinking uses the configured budget, capped by the model max output', () => {
    const body = toWireBody(request, request.messages, {
      ...base,
      extendedThinking: true,
      modelMaxOutput: 8192,
    });
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 4096 });
    expect(body.max_tokens).toBe(8192);
  });

  it('adaptive thinking sends the effort in output_config', () => {
    const body = toWireBody({ ...request, reasoning_effort: 'high' }, request.messages, {
      ...base,
      thinkingType: 'adaptive',
    });
    expect(body.thinking).toEqual({ type: 'adaptive' });
    expect(body.output_config).toEqual({ effort: 'high' });
  });

  it('prompt caching marks the system prompt, the last tool and the last message', () => {
    const body = toWireBody(request, request.messages, {
      ...base,
      promptCaching: true,
      stream: true,
      extraBody: { metadata: { user_id: 'u' } },
    });
    expect((body.system as { cache_control?: unknown }[])[0]!.cache_control).toEqual({ type: 'ephemeral' });
    expect((body.tools as { cache_control?: unknown }[])[0]!.cache_control).toEqual({ type: 'ephemeral' });
    expect(
      (body.messages as { content: { cache_control?: unknown }[] }[])[0]!.content[0]!.cache_control,
    ).toEqual({ type: 'ephemeral' });
    expect(body).toMatchObject({ stream: true, metadata: { user_id: 'u' } });
  });
});
