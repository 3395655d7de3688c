/**
 * The Responses API request body and the parse of whole response objects,
 * against the recorded answers (`__fixtures__/recorded/openai-responses-*`).
 */
import { readFileSync } from 'node:fs';
import { type ChatRequest, checkData, type Message } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import {
  fromResponseObject,
  type ResponsesBodyOptions,
  toResponsesBody,
  toResponsesInput,
  toResponsesUsage,
} from './responses-convert.js';

const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`./__fixtures__/recorded/${name}`, import.meta.url), 'utf8'));
const CONTEXT = { provider: 'openai', model: 'gpt-5-mini' };
const OPTIONS: ResponsesBodyOptions = {
  model: 'gpt-5-mini',
  stream: false,
  reasons: true,
  reasoningSummary: 'auto',
  store: false,
  maxTokens: undefined,
  temperature: undefined,
  topP: undefined,
  extraBody: {},
  messageIds: false,
  sessionKey: 'session-1',
};
const body = (request: Partial<ChatRequest>, options: Partial<ResponsesBodyOptions> = {}) =>
  toResponsesBody({ messages: [], ...request }, request.messages ?? [], { ...OPTIONS, ...options });

describe('the request body (R2, R3, R4, R15, R19)', () => {
  it('system messages are the instructions (blank line between); developer ones are <context_file> user messages', () => {
    const sent = body({
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'developer', content: 'AGENTS.md says: use tabs' },
        { role: 'system', content: [{ type: 'text', text: 'Answer in French.' }] },
        { role: 'user', content: 'Hi' },
      ],
    });
    expect(sent.instructions).toBe('You are terse.\n\nAnswer in French.');
    expect(sent.input).toEqual([
      { role: 'user', content: '<context_file>\nAGENTS.md says: use tabs\n</context_file>' },
      { role: 'user', content: 'Hi' },
    ]);
  });

  it('function tools are flat and strict:false unless the tool opts in; tool_choice and json schema output', () => {
    const sent = body({
      messages: [{ role: 'user', content: 'x' }],
      tools: [
        { name: 'read', description: 'Read a file', parameters: { type: 'object', properties: { p: {} } } },
        { name: 'now', parameters: {}, strict: true } as NonNullable<ChatRequest['tools']>[number],
      ],
      tool_choice: { type: 'tool', name: 'read' },
      response_format: { type: 'json_schema', name: 'r', schema: { type: 'object' }, strict: true },
    });
    expect(sent.tools).toEqual([
      {
        type: 'function',
        name: 'read',
        description: 'Read a file',
        parameters: { type: 'object', properties: { p: {} } },
        strict: false,
      },
      // A strict tool's schema is the strict rewrite (strict-tools.ts): closed, every property required.
      {
        type: 'function',
        name: 'now',
        parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
        strict: true,
      },
    ]);
    expect(sent.tool_choice).toEqual({ type: 'function', name: 'read' });
    expect(sent.text).toEqual({
      format: { type: 'json_schema', name: 'r', schema: { type: 'object' }, strict: true },
    });
    expect(body({ response_format: { type: 'json' } }).text).toEqual({ format: { type: 'json_object' } });
    expect(body({ tool_choice: 'required' }).tool_choice).toBe('required');
  });

  it('a reasoning model: reasoning effort and summary, encrypted reasoning included, no sampling parameters', () => {
    const sent = body(
      { messages: [{ role: 'user', content: 'x' }], reasoning_effort: 'high', temperature: 0.2, top_p: 0.5 },
      { maxTokens: 900 },
    );
    expect(sent).toMatchObject({
      model: 'gpt-5-mini',
      reasoning: { effort: 'high', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
      store: false,
      max_output_tokens: 900,
      prompt_cache_key: 'session-1',
    });
    expect(sent).not.toHaveProperty('temperature');
    expect(sent).not.toHaveProperty('top_p');
    expect(sent).not.toHaveProperty('truncation');
    expect(sent).not.toHaveProperty('stream');
  });

  it('a model that does not reason (or effort none): sampling parameters, no reasoning, no include', () => {
    const plain = body({ temperature: 0.2 }, { reasons: false, model: 'gpt-4o' });
    expect(plain).toMatchObject({ temperature: 0.2, store: false });
    expect(plain).not.toHaveProperty('reasoning');
    expect(plain).not.toHaveProperty('include');
    const none = body({ reasoning_effort: 'none', temperature: 0.3 });
    expect(none).not.toHaveProperty('reasoning');
    expect(none.temperature).toBe(0.3);
  });

  it('store, cache key and retention, truncation and stream come from the settings; config wins over the session key', () => {
    const sent = body(
      { conversation_id: 'conv-9' },
      { store: true, promptCacheKey: 'mine', promptCacheRetention: '24h', truncation: 'auto', stream: true },
    );
    expect(sent).toMatchObject({
      store: true,
      prompt_cache_key: 'mine',
      prompt_cache_retention: '24h',
      truncation: 'auto',
      stream: true,
    });
    expect(sent).not.toHaveProperty('include');
    expect(body({ conversation_id: 'conv-9' }).prompt_cache_key).toBe('conv-9');
    expect(body({}, { promptCacheRetention: 'in_memory' }).prompt_cache_retention).toBe('in_memory');
    expect(body({}, { promptCacheRetention: 'in_memory', model: 'gpt-5.5' })).not.toHaveProperty(
      'prompt_cache_retention',
    );
    expect(body({}, { promptCacheRetention: '24h', model: 'gpt-5.5-pro' }).prompt_cache_retention).toBe(
      '24h',
    );
    expect(body({}, { sessionKey: undefined })).not.toHaveProperty('prompt_cache_key');
  });
});

describe('replaying earlier turns (R15, R16, R21)', () => {
  const reasoningResponse = fromResponseObject(
    fixture('openai-responses-nonstream-reasoning-encrypted.json'),
    CONTEXT,
  );
  const callResponse = fromResponseObject(fixture('openai-responses-nonstream-function-call.json'), CONTEXT);
  const assistant = (response: typeof reasoningResponse): Message => ({
    role: 'assistant',
    content: response.content,
    ...(response.tool_calls && {
      tool_calls: response.tool_calls.map((c) => ({ id: c.id, tool: c.name, arguments: c.arguments })),
    }),
    ...(response.metadata && { metadata: response.metadata }),
  });

  it('a recorded reasoning item goes back byte for byte, with its summary, right before the message that followed it', () => {
    const recorded = (
      fixture('openai-responses-nonstream-reasoning-encrypted.json').output as Record<string, unknown>[]
    )[0]!;
    const { input } = toResponsesInput([
      { role: 'user', content: 'compute' },
      assistant(reasoningResponse),
      { role: 'user', content: 'thanks' },
    ]);
    expect(input[1]).toEqual({
      type: 'reasoning',
      id: recorded.id,
      encrypted_content: recorded.encrypted_content,
      summary: recorded.summary,
    });
    expect(input[2]).toEqual({
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [
        {
          type: 'output_text',
          text: '12 + 7 = 19\n19 × 3 = 57\n57 × 10 = 570\n\nFinal result: 570',
          annotations: [],
        },
      ],
    });
    expect(input[3]).toEqual({ role: 'user', content: 'thanks' });
  });

  it('calls go back by call_id with their outputs; replayed messages get a fresh msg_ id only for other servers', () => {
    const { input } = toResponsesInput(
      [
        assistant(callResponse),
        { role: 'tool', tool_call_id: 'call_YfwRsW8sUxDKipwyhWTzOXCA', content: 'Potato City' },
        { role: 'user', content: [{ type: 'tool_result', tool_call_id: 'call_2', output: { ok: 1 } }] },
        { role: 'assistant', content: 'Done.' },
      ],
      true,
    );
    expect(input[0]).toEqual({
      type: 'function_call',
      call_id: 'call_YfwRsW8sUxDKipwyhWTzOXCA',
      name: 'get_capital',
      arguments: '{"country":"PotatoLand"}',
    });
    expect(input[1]).toEqual({
      type: 'function_call_output',
      call_id: 'call_YfwRsW8sUxDKipwyhWTzOXCA',
      output: 'Potato City',
    });
    expect(input[2]).toMatchObject({ type: 'function_call_output', call_id: 'call_2' });
    expect(input[3]).toMatchObject({
      type: 'message',
      role: 'assistant',
      id: expect.stringMatching(/^msg_[0-9a-f]{32}$/),
    });
    expect(input).toHaveLength(4);
  });

  it('interleaved reasoning and calls keep the order the model produced (openai:output_items)', () => {
    const message: Message = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'first', content: ['enc-1', 'rs_1'] },
        { type: 'thinking', thinking: 'second', content: ['enc-2', 'rs_2'] },
        { type: 'text', text: 'Both done.' },
      ],
      tool_calls: [
        { id: 'call_a', tool: 'a', arguments: {} },
        { id: 'call_b', tool: 'b', arguments: { x: 1 } },
      ],
      metadata: {
        'openai:output_items': ['reasoning', 'function_call', 'reasoning', 'function_call', 'message'],
      },
    };
    const types = toResponsesInput([message]).input.map(
      (i) => `${i.type}:${String(i.id ?? i.call_id ?? '')}`,
    );
    expect(types).toEqual([
      'reasoning:rs_1',
      'function_call:call_a',
      'reasoning:rs_2',
      'function_call:call_b',
      'message:',
    ]);
  });

  it('orphans are never sent: thinking without encrypted state (other providers, Chat Completions) and a reasoning item nothing follows', () => {
    const { input } = toResponsesInput([
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'signed', signature: 'sig' },
          { type: 'text', text: 'A' },
        ],
      },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'cut', content: ['enc-x', 'rs_x'] }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: '', content: ['', 'rs_y'] },
          { type: 'text', text: 'B' },
        ],
      },
    ]);
    expect(input.map((i) => i.type)).toEqual(['message', 'message']);
  });

  it("an Amplifier transcript's thinking block (content [encrypted_content, rs_id], visibility internal) is replayed", () => {
    // A line of a Python Amplifier transcript (JSON: `signature` is null there).
    const line =
      '{"role":"assistant","content":[{"type":"thinking","thinking":"","signature":null,"visibility":"internal","content":["gAAA-enc","rs_py"]},{"type":"text","text":"ok"}]}';
    const { input } = toResponsesInput([JSON.parse(line) as Message]);
    expect(input[0]).toEqual({ type: 'reasoning', id: 'rs_py', encrypted_content: 'gAAA-enc', summary: [] });
  });

  it('user images are input_image parts', () => {
    const { input } = toResponsesInput([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } },
          { type: 'image', source: { type: 'url', url: 'https://example.test/a.png' } },
        ],
      },
    ]);
    expect(input[0]).toEqual({
      role: 'user',
      content: [
        { type: 'input_text', text: 'What is this?' },
        { type: 'input_image', image_url: 'data:image/png;base64,iVBOR' },
        { type: 'input_image', image_url: 'https://example.test/a.png' },
      ],
    });
  });
});

describe('whole response objects (R5, R6, R11, R18)', () => {
  it('a recorded function call: the id is call_id, arguments parsed, finish tool_calls, usage', () => {
    const response = fromResponseObject(fixture('openai-responses-nonstream-function-call.json'), CONTEXT);
    expect(checkData('chat-response', response)).toEqual([]);
    expect(response.tool_calls).toEqual([
      { id: 'call_YfwRsW8sUxDKipwyhWTzOXCA', name: 'get_capital', arguments: { country: 'PotatoLand' } },
    ]);
    expect(response.content).toEqual([]);
    expect(response.finish_reason).toBe('tool_calls');
    expect(response.usage).toEqual({ input_tokens: 40, output_tokens: 18, total_tokens: 58 });
    expect(response.metadata).toMatchObject({
      'openai:response_id': 'resp_04907f5d3de791830068fbaa19bb908195a91378279dba0f14',
      'openai:model': 'gpt-4o-2024-08-06',
      'openai:status': 'completed',
      'openai:output_items': ['function_call'],
    });
  });

  it('recorded reasoning: a thinking block with the summary and [encrypted_content, id], then the text; reasoning tokens', () => {
    const raw = fixture('openai-responses-nonstream-reasoning-encrypted.json');
    const item = (raw.output as Record<string, unknown>[])[0]!;
    const response = fromResponseObject(raw, CONTEXT);
    expect(response.content[0]).toEqual({
      type: 'thinking',
      thinking: (item.summary as { text: string }[])[0]!.text,
      content: [item.encrypted_content, item.id],
    });
    expect(response.content[1]).toMatchObject({
      type: 'text',
      text: expect.stringContaining('Final result: 570'),
    });
    expect(response.usage).toEqual({
      input_tokens: 865,
      output_tokens: 163,
      total_tokens: 1028,
      reasoning_tokens: 128,
    });
    expect(response.finish_reason).toBe('stop');
  });

  it('empty arguments are {}; hosted-tool items add nothing; refusals are text', () => {
    const response = fromResponseObject(
      {
        id: 'resp_1',
        status: 'completed',
        output: [
          { type: 'web_search_call', id: 'ws_1', status: 'completed' },
          { type: 'function_call', call_id: 'call_n', name: 'now', arguments: '' },
          { type: 'message', content: [{ type: 'refusal', refusal: 'I cannot.' }] },
        ],
      },
      CONTEXT,
    );
    expect(response.tool_calls).toEqual([{ id: 'call_n', name: 'now', arguments: {} }]);
    expect(response.content).toEqual([{ type: 'text', text: 'I cannot.' }]);
    expect(response.metadata?.['openai:refusal']).toBe('I cannot.');
  });

  it('usage: a cache_write_tokens subset leaves input, cached tokens are cache reads, reasoning stays in output', () => {
    expect(
      toResponsesUsage({
        input_tokens: 5000,
        input_tokens_details: { cached_tokens: 3072, cache_write_tokens: 1000 },
        output_tokens: 300,
        output_tokens_details: { reasoning_tokens: 64 },
        total_tokens: 5300,
      }),
    ).toEqual({
      input_tokens: 4000,
      output_tokens: 300,
      total_tokens: 5300,
      cache_read_tokens: 3072,
      cache_write_tokens: 1000,
      reasoning_tokens: 64,
    });
    expect(toResponsesUsage(null)).toBeUndefined();
    expect(toResponsesUsage({ input_tokens: 'x', output_tokens: -3 })).toEqual({
      input_tokens: 0,
      output_tokens: 0,
      total_tokens: 0,
    });
  });

  it('incomplete: finish length / content_filter with the partial content', () => {
    const cut = fromResponseObject(
      {
        status: 'incomplete',
        incomplete_details: { reason: 'max_output_tokens' },
        output: [
          { type: 'message', status: 'incomplete', content: [{ type: 'output_text', text: 'Half an ans' }] },
        ],
      },
      CONTEXT,
    );
    expect(cut.finish_reason).toBe('length');
    expect(cut.content).toEqual([{ type: 'text', text: 'Half an ans' }]);
    expect(cut.metadata?.['openai:incomplete_reason']).toBe('max_output_tokens');
    const filtered = fromResponseObject(
      { status: 'incomplete', incomplete_details: { reason: 'content_filter' }, output: [] },
      CONTEXT,
    );
    expect(filtered.finish_reason).toBe('content_filter');
  });

  it('a call cut off by an incomplete response is an invalid_tool_call error, never a call with partial arguments', () => {
    expect(() =>
      fromResponseObject(
        {
          status: 'incomplete',
          incomplete_details: { reason: 'max_output_tokens' },
          output: [
            {
              type: 'function_call',
              call_id: 'call_1',
              name: 'write_file',
              arguments: '{"path":"a',
              status: 'incomplete',
            },
          ],
        },
        CONTEXT,
      ),
    ).toThrow(
      expect.objectContaining({
        kind: 'invalid_tool_call',
        retryable: false,
        message: expect.stringMatching(/cut off .* write_file.*max_tokens/),
      }),
    );
  });
});
