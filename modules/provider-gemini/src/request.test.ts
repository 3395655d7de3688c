/**
 * The request body on its own: JSON Schema as Gemini's Schema subset,
 * toolConfig, thinkingConfig (2.5 budget vs Gemini 3 level, never both),
 * contents (roles, system hoisting, results in call order, foreign thinking
 * dropped, the Gemini 3 stand-in signature for unsigned history).
 */
import type { ChatRequest, Message } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { SKIP_SIGNATURE, toContents } from './convert.js';
import { type BodyOptions, endpoint, thinkingConfig, toGeminiSchema, toWireBody } from './request.js';

const OPTIONS: BodyOptions = {
  model: 'gemini-2.5-flash',
  thinks: true,
  vertex: false,
  maxTokens: undefined,
  temperature: 0.7,
  topP: undefined,
  thinkingBudget: undefined,
  thinkingLevel: undefined,
  includeThoughts: true,
  safetySettings: [],
  extraBody: {},
};
const ask = (extra: Partial<ChatRequest> = {}): ChatRequest => ({
  messages: [{ role: 'user', content: 'Hi' }],
  ...extra,
});

describe('toGeminiSchema', () => {
  it('inlines $refs, turns null unions into nullable, const into enum, oneOf into anyOf, drops unknown keywords', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      additionalProperties: false,
      $defs: { point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] } },
      properties: {
        at: { $ref: '#/$defs/point' },
        name: { type: ['string', 'null'], description: 'who' },
        mode: { const: 'fast' },
        either: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
        maybe: { anyOf: [{ type: 'boolean' }, { type: 'null' }] },
        list: { type: 'array', items: { $ref: '#/$defs/point' }, minItems: 1 },
      },
    };
    expect(toGeminiSchema(schema)).toEqual({
      type: 'object',
      properties: {
        at: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] },
        name: { type: 'string', nullable: true, description: 'who' },
        mode: { enum: ['fast'] },
        either: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
        maybe: { type: 'boolean', nullable: true },
        list: {
          type: 'array',
          items: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] },
          minItems: 1,
        },
      },
    });
  });

  it('a recursive $ref ends as an open object instead of recursing forever; a dangling one too', () => {
    const tree = {
      $defs: { node: { type: 'object', properties: { child: { $ref: '#/$defs/node' } } } },
      type: 'object',
      properties: {
        root: { $ref: '#/$defs/node' },
        lost: { $ref: '#/$defs/missing' },
        far: { $ref: 'http://x/y' },
      },
    };
    expect(toGeminiSchema(tree)).toEqual({
      type: 'object',
      properties: {
        root: { type: 'object', properties: { child: { type: 'object' } } },
        lost: { type: 'object' },
        far: { type: 'object' },
      },
    });
  });

  it('hostile schemas (non-objects, __proto__ keys) give plain data', () => {
    expect(toGeminiSchema(null)).toEqual({});
    expect(toGeminiSchema([1, 2])).toEqual({});
    const out = toGeminiSchema(JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}'));
    expect(Object.getPrototypeOf(out.properties)).toBe(Object.prototype);
    expect(Object.keys(out.properties as object)).toEqual(['__proto__']);
  });
});

describe('toWireBody', () => {
  it('tools: no parameters for an empty object schema; tool_choice as functionCallingConfig', () => {
    const tools = [
      { name: 'now', parameters: { type: 'object', properties: {} } },
      { name: 'read', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
    ];
    const auto = toWireBody(ask({ tools, tool_choice: 'required' }), ask().messages, OPTIONS);
    expect((auto.tools as { functionDeclarations: unknown[] }[])[0]!.functionDeclarations[0]).toEqual({
      name: 'now',
    });
    expect(auto.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY' } });
    const named = toWireBody(
      ask({ tools, tool_choice: { type: 'tool', name: 'read' } }),
      ask().messages,
      OPTIONS,
    );
    expect(named.toolConfig).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['read'] },
    });
    expect(toWireBody(ask({ tools, tool_choice: 'none' }), ask().messages, OPTIONS).toolConfig).toEqual({
      functionCallingConfig: { mode: 'NONE' },
    });
  });

  it('JSON output, stop sequences, safety settings, extra_body', () => {
    const body = toWireBody(
      ask({
        response_format: {
          type: 'json_schema',
          schema: { type: 'object', properties: { a: { type: 'string' } } },
        },
        stop: ['END'],
      }),
      ask().messages,
      {
        ...OPTIONS,
        safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
        extraBody: { cachedContent: 'cachedContents/1' },
      },
    );
    expect(body.generationConfig).toMatchObject({
      responseMimeType: 'application/json',
      responseSchema: { type: 'object', properties: { a: { type: 'string' } } },
      stopSequences: ['END'],
    });
    expect(body.safetySettings).toEqual([{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }]);
    expect(body.cachedContent).toBe('cachedContents/1');
  });

  it('endpoints: models/<id>, tuned models as they are, streaming with alt=sse', () => {
    expect(endpoint('gemini-2.5-pro', false)).toBe('/models/gemini-2.5-pro:generateContent');
    expect(endpoint('tunedModels/mine', true)).toBe('/tunedModels/mine:streamGenerateContent?alt=sse');
  });
});

describe('thinkingConfig', () => {
  it('2.5: budget from metadata, else reasoning_effort, else config; includeThoughts unless thinking is off', () => {
    expect(thinkingConfig(ask(), OPTIONS)).toEqual({ includeThoughts: true });
    expect(thinkingConfig(ask(), { ...OPTIONS, thinkingBudget: 2048 })).toEqual({
      thinkingBudget: 2048,
      includeThoughts: true,
    });
    expect(thinkingConfig(ask({ reasoning_effort: 'low' }), OPTIONS)).toEqual({
      thinkingBudget: 4096,
      includeThoughts: true,
    });
    expect(thinkingConfig(ask({ reasoning_effort: 'none' }), OPTIONS)).toEqual({ thinkingBudget: 0 });
    expect(
      thinkingConfig(ask({ metadata: { thinking_budget: 512, include_thoughts: false } }), OPTIONS),
    ).toEqual({
      thinkingBudget: 512,
    });
  });

  it('Gemini 3: thinkingLevel from reasoning_effort or config, never together with a budget', () => {
    const g3 = { ...OPTIONS, model: 'gemini-3-pro-preview' };
    expect(thinkingConfig(ask({ reasoning_effort: 'high' }), g3)).toEqual({
      thinkingLevel: 'high',
      includeThoughts: true,
    });
    expect(thinkingConfig(ask(), { ...g3, thinkingLevel: 'low' })).toEqual({
      thinkingLevel: 'low',
      includeThoughts: true,
    });
    expect(thinkingConfig(ask(), { ...g3, thinkingLevel: 'low', thinkingBudget: 100 })).toEqual({
      thinkingBudget: 100,
      includeThoughts: true,
    });
  });

  it('a model that does not think gets no thinkingConfig unless asked for', () => {
    expect(thinkingConfig(ask(), { ...OPTIONS, thinks: false })).toBeUndefined();
    expect(thinkingConfig(ask({ reasoning_effort: 'low' }), { ...OPTIONS, thinks: false })).toEqual({
      thinkingBudget: 4096,
      includeThoughts: true,
    });
  });
});

describe('toContents', () => {
  const options = { vertex: false, signCalls: false };

  it('system before the conversation is systemInstruction, later ones stay as user reminders; roles merge', () => {
    const messages: Message[] = [
      { role: 'system', content: 'Rules.' },
      { role: 'developer', content: 'More rules.' },
      { role: 'user', content: 'a' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'b' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
        ],
      },
      { role: 'assistant', content: 'ok' },
      { role: 'system', content: 'Injected.' },
    ];
    expect(toContents(messages, options)).toEqual({
      systemInstruction: { parts: [{ text: 'Rules.' }, { text: 'More rules.' }] },
      contents: [
        {
          role: 'user',
          parts: [{ text: 'a' }, { text: 'b' }, { inlineData: { mimeType: 'image/png', data: 'AAAA' } }],
        },
        { role: 'model', parts: [{ text: 'ok' }] },
        { role: 'user', parts: [{ text: '<system-reminder>\nInjected.\n</system-reminder>' }] },
      ],
    });
  });

  it("another provider's thinking (and signature) is not sent; text signatures only from Gemini's own answers", () => {
    const messages: Message[] = [
      { role: 'user', content: 'a' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Claude thought', signature: 'anthropic-sig' },
          { type: 'text', text: 'answer', signature: 'x' } as never,
        ],
      },
    ];
    expect(toContents(messages, options).contents[1]).toEqual({ role: 'model', parts: [{ text: 'answer' }] });
  });

  it('Gemini 3: the first call of an unsigned turn gets the stand-in signature, the others none', () => {
    const messages: Message[] = [
      { role: 'user', content: 'a' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: 'c1', tool: 'f', arguments: {} },
          { id: 'c2', tool: 'g', arguments: { x: 1 } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'one' },
      { role: 'tool', tool_call_id: 'c2', content: 'two' },
    ];
    const { contents } = toContents(messages, { vertex: false, signCalls: true });
    expect(contents[1]).toEqual({
      role: 'model',
      parts: [
        { functionCall: { name: 'f', args: {} }, thoughtSignature: SKIP_SIGNATURE },
        { functionCall: { name: 'g', args: { x: 1 } } },
      ],
    });
    expect(contents[2]).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { name: 'f', response: { result: 'one' } } },
        { functionResponse: { name: 'g', response: { result: 'two' } } },
      ],
    });
  });

  it('a result whose call is unknown keeps its own name, or a placeholder', () => {
    const { contents } = toContents(
      [
        { role: 'user', content: 'a' },
        { role: 'tool', tool_call_id: 'ghost', name: 'lookup', content: 'x' },
        { role: 'tool', tool_call_id: 'ghost2', content: 'y' },
      ],
      options,
    );
    expect((contents[0]!.parts as unknown[]).slice(1)).toEqual([
      { functionResponse: { name: 'lookup', response: { result: 'x' } } },
      { functionResponse: { name: 'unknown_function', response: { result: 'y' } } },
    ]);
  });
});
