/**
 * The Converse input built from Amplifier requests (pure: no server):
 * alternation and merged tool results, blank text, tool blocks without
 * tools, tool choice, thinking per model family, cache points, and the
 * config keys (Amplifier community keys, endpoints from the environment).
 */
import type { ChatRequest, Message } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { inferenceModelId, resolveConfig } from './config.js';
import { type BodyOptions, toConverseInput } from './request.js';

const OPTIONS: BodyOptions = {
  modelId: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
  family: 'claude',
  maxTokens: 8192,
  modelMaxOutput: 64_000,
  temperature: 0.5,
  topP: undefined,
  promptCaching: false,
  extendedThinking: false,
  thinkingBudget: 16_000,
  additionalFields: {},
  extraBody: {},
};
const TOOLS = [
  { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
];
const HISTORY: Message[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Read a and b.' },
  {
    role: 'assistant',
    content: [{ type: 'text', text: '  ' }],
    tool_calls: [
      { id: 't1', tool: 'read_file', arguments: { path: 'a' } },
      { id: 't2', tool: 'read_file', arguments: { path: 'b' } },
    ],
  },
  { role: 'tool', tool_call_id: 't1', content: 'A' },
  { role: 'tool', tool_call_id: 't2', content: 'B' },
  { role: 'user', content: 'And now?' },
];

describe('messages (BR2, BR3)', () => {
  it('alternate roles: both results in one user turn before the next text; blank text skipped; input is an object', () => {
    const body = toConverseInput({ messages: HISTORY, tools: TOOLS }, HISTORY, OPTIONS);
    expect(body.system).toEqual([{ text: 'Be brief.' }]);
    expect(body.messages).toEqual([
      { role: 'user', content: [{ text: 'Read a and b.' }] },
      {
        role: 'assistant',
        content: [
          { toolUse: { toolUseId: 't1', name: 'read_file', input: { path: 'a' } } },
          { toolUse: { toolUseId: 't2', name: 'read_file', input: { path: 'b' } } },
        ],
      },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: 't1', content: [{ text: 'A' }] } },
          { toolResult: { toolUseId: 't2', content: [{ text: 'B' }] } },
          { text: 'And now?' },
        ],
      },
    ]);
  });

  it.each([
    ['no tools', {}],
    ["tool_choice 'none'", { tools: TOOLS, tool_choice: 'none' as const }],
  ])(
    '%s: no toolConfig, and the history tool blocks go as text (Bedrock refuses them without one)',
    (_name, extra) => {
      const request: ChatRequest = { messages: HISTORY, ...extra };
      const body = toConverseInput(request, HISTORY, OPTIONS);
      expect(body.toolConfig).toBeUndefined();
      const json = JSON.stringify(body.messages);
      expect(json).not.toContain('toolUse');
      expect(json).not.toContain('toolResult');
      expect(json).toContain('[tool call read_file t1] {\\"path\\":\\"a\\"}');
      expect(json).toContain('[tool result t2]\\nB');
    },
  );

  it.each<[ChatRequest['tool_choice'], unknown]>([
    ['auto', { auto: {} }],
    ['required', { any: {} }],
    [{ type: 'tool' as const, name: 'read_file' }, { tool: { name: 'read_file' } }],
  ])('tool_choice %j is %j', (choice, wire) => {
    const body = toConverseInput({ messages: HISTORY, tools: TOOLS, tool_choice: choice }, HISTORY, OPTIONS);
    expect((body.toolConfig as { toolChoice: unknown }).toolChoice).toEqual(wire);
  });

  it('unsigned thinking (another provider) is left out; a system message mid-conversation stays in place as a reminder', () => {
    const messages: Message[] = [
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'no signature' },
          { type: 'text', text: 'a' },
        ],
      },
      { role: 'system', content: 'Note.' },
    ];
    const body = toConverseInput({ messages }, messages, OPTIONS);
    expect(body.messages).toEqual([
      { role: 'user', content: [{ text: 'q' }] },
      { role: 'assistant', content: [{ text: 'a' }] },
      { role: 'user', content: [{ text: '<system-reminder>\nNote.\n</system-reminder>' }] },
    ]);
  });
});

describe('thinking (BR4)', () => {
  it('Claude: extended_thinking sends a budget under maxTokens and drops temperature and topP', () => {
    const body = toConverseInput({ messages: HISTORY, top_p: 0.9 }, HISTORY, {
      ...OPTIONS,
      extendedThinking: true,
    });
    expect(body.additionalModelRequestFields).toEqual({
      thinking: { type: 'enabled', budget_tokens: 16_000 },
    });
    expect(body.inferenceConfig).toEqual({ maxTokens: 20_096 });
  });

  it('Claude: reasoning_effort picks the budget; none turns it off', () => {
    const low = toConverseInput({ messages: HISTORY, reasoning_effort: 'low' }, HISTORY, OPTIONS);
    expect(low.additionalModelRequestFields).toEqual({ thinking: { type: 'enabled', budget_tokens: 4096 } });
    const none = toConverseInput({ messages: HISTORY, reasoning_effort: 'none' }, HISTORY, {
      ...OPTIONS,
      extendedThinking: true,
    });
    expect(none.additionalModelRequestFields).toBeUndefined();
    expect(none.inferenceConfig).toEqual({ maxTokens: 8192, temperature: 0.5 });
  });

  it('Nova: reasoningConfig with the effort; other families get no thinking fields', () => {
    const nova = toConverseInput({ messages: HISTORY, reasoning_effort: 'high' }, HISTORY, {
      ...OPTIONS,
      modelId: 'us.amazon.nova-2-lite-v1:0',
      family: 'nova',
    });
    expect(nova.additionalModelRequestFields).toEqual({
      reasoningConfig: { type: 'enabled', maxReasoningEffort: 'high' },
    });
    const llama = toConverseInput({ messages: HISTORY, reasoning_effort: 'high' }, HISTORY, {
      ...OPTIONS,
      family: 'other',
    });
    expect(llama.additionalModelRequestFields).toBeUndefined();
  });

  it('additional_model_request_fields and extra_body are merged; stop sequences sent', () => {
    const body = toConverseInput({ messages: HISTORY, stop: ['END'] }, HISTORY, {
      ...OPTIONS,
      additionalFields: { top_k: 40 },
      extraBody: { guardrailConfig: { guardrailIdentifier: 'g', guardrailVersion: '1' } },
    });
    expect(body.additionalModelRequestFields).toEqual({ top_k: 40 });
    expect(body.guardrailConfig).toEqual({ guardrailIdentifier: 'g', guardrailVersion: '1' });
    expect(body.inferenceConfig).toEqual({ maxTokens: 8192, temperature: 0.5, stopSequences: ['END'] });
  });
});

describe('cache points (BR12)', () => {
  const count = (body: Record<string, unknown>) => JSON.stringify(body).split('"cachePoint"').length - 1;

  it('after the system prompt, the tools and the last user message: 3, at most 4', () => {
    const body = toConverseInput({ messages: HISTORY, tools: TOOLS }, HISTORY, {
      ...OPTIONS,
      promptCaching: true,
    });
    const point = { cachePoint: { type: 'default' } };
    expect((body.system as unknown[]).at(-1)).toEqual(point);
    expect((body.toolConfig as { tools: unknown[] }).tools.at(-1)).toEqual(point);
    expect((body.messages as { content: unknown[] }[]).at(-1)!.content.at(-1)).toEqual(point);
    expect(count(body)).toBe(3);
  });

  it('none when disabled, and none for families without prompt caching', () => {
    expect(count(toConverseInput({ messages: HISTORY, tools: TOOLS }, HISTORY, OPTIONS))).toBe(0);
    const other = { ...OPTIONS, promptCaching: true, family: 'other' as const };
    expect(count(toConverseInput({ messages: HISTORY, tools: TOOLS }, HISTORY, other))).toBe(0);
  });
});

describe('config (BR1, BR14)', () => {
  it('accepts the community keys: aws_region, aws_profile, use_cross_region_inference, raw_debug, debug', () => {
    const resolved = resolveConfig(
      {
        aws_region: 'eu-west-1',
        aws_profile: 'work',
        use_cross_region_inference: false,
        raw_debug: true,
        debug: true,
      },
      {},
    );
    expect(resolved).toMatchObject({
      region: 'eu-west-1',
      profile: 'work',
      crossRegionInference: false,
      raw: true,
    });
    expect(resolved.baseUrl.href).toBe('https://bedrock-runtime.eu-west-1.amazonaws.com/');
    expect(resolved.endpoint).toBeUndefined();
    expect(resolved.model).toBe('anthropic.claude-sonnet-4-5-20250929-v1:0');
    expect(resolved.maxTokens).toBe(8192);
  });

  it('region, endpoint and Bearer key from the environment, config first', () => {
    const env = {
      AWS_DEFAULT_REGION: 'us-west-2',
      AWS_ENDPOINT_URL: 'http://127.0.0.1:9/generic',
      AWS_BEARER_TOKEN_BEDROCK: 'env-key',
    };
    expect(resolveConfig({}, env)).toMatchObject({
      region: 'us-west-2',
      endpoint: 'http://127.0.0.1:9/generic',
      apiKey: 'env-key',
    });
    const specific = resolveConfig(
      {},
      { ...env, AWS_REGION: 'ap-south-1', AWS_ENDPOINT_URL_BEDROCK_RUNTIME: 'http://127.0.0.1:9/br' },
    );
    expect(specific).toMatchObject({ region: 'ap-south-1', endpoint: 'http://127.0.0.1:9/br' });
    const config = resolveConfig(
      { base_url: 'http://localhost:4566', api_key: 'cfg-key', aws_region: 'eu-central-1' },
      specific as never,
    );
    expect(config).toMatchObject({
      region: 'eu-central-1',
      endpoint: 'http://localhost:4566',
      apiKey: 'cfg-key',
    });
  });

  it('a region that is not one is refused with what to set', () => {
    expect(() => resolveConfig({}, { AWS_REGION: 'US East' })).toThrow(
      /AWS region 'US East' is not a region name; set aws_region/,
    );
  });

  it.each([
    [
      'anthropic.claude-sonnet-4-5-20250929-v1:0',
      'us-east-1',
      'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    ],
    [
      'anthropic.claude-sonnet-4-5-20250929-v1:0',
      'eu-west-3',
      'eu.anthropic.claude-sonnet-4-5-20250929-v1:0',
    ],
    [
      'anthropic.claude-sonnet-4-5-20250929-v1:0',
      'ap-northeast-1',
      'apac.anthropic.claude-sonnet-4-5-20250929-v1:0',
    ],
    [
      'global.anthropic.claude-sonnet-4-5-20250929-v1:0',
      'us-east-1',
      'global.anthropic.claude-sonnet-4-5-20250929-v1:0',
    ],
    [
      'arn:aws:bedrock:us-east-1:123:inference-profile/x',
      'us-east-1',
      'arn:aws:bedrock:us-east-1:123:inference-profile/x',
    ],
    ['cohere.command-r-v1:0', 'us-east-1', 'cohere.command-r-v1:0'],
    ['anthropic.claude-3-haiku-20240307-v1:0', 'sa-east-1', 'anthropic.claude-3-haiku-20240307-v1:0'],
  ])('inference profile of %s in %s is %s', (model, region, id) => {
    expect(inferenceModelId(model, region, true)).toBe(id);
    expect(inferenceModelId(model, region, false)).toBe(model);
  });
});
