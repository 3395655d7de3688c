/**
 * Strict mode for tools that ask for it (`tool.strict`, from `defineTool({ strict: true })`):
 * what reaches a local FakeLlmServer (Responses and Chat Completions), and the
 * arguments the tool gets back (the nulls strict mode made the model send for
 * optional properties taken out), whole and streamed.
 */
import type { ChatRequest, ChatResponse } from '@amplifier/core';
import { FakeLlmServer, reply, sseEvent } from '@amplifier/provider-http/testing';
import { RecordingLogger } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type OpenAIConfig, resolveConfig } from './config.js';
import { OpenAIProvider } from './provider.js';

const WEATHER = {
  type: 'object',
  properties: { city: { type: 'string' }, unit: { enum: ['c', 'f'] } },
  required: ['city'],
};
const UNSUPPORTED = {
  type: 'object',
  properties: { v: { oneOf: [{ type: 'string' }, { type: 'number' }] } },
};

const request = (strict: boolean, parameters: Record<string, unknown> = WEATHER): ChatRequest =>
  ({
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
    tools: [{ name: 'weather', description: 'weather', parameters, ...(strict && { strict: true }) }],
  }) as ChatRequest;

let server: FakeLlmServer;
let provider: OpenAIProvider;
let logger: RecordingLogger;

function make(config: OpenAIConfig): OpenAIProvider {
  logger = new RecordingLogger();
  provider = new OpenAIProvider(
    resolveConfig(
      { api_key: 'sk-test', base_url: `${server.url}/v1`, default_model: 'gpt-5-mini', ...config },
      {},
    ),
    { logger },
  );
  return provider;
}

const ARGS = '{"city":"Paris","unit":null}';
const responsesAnswer = {
  id: 'resp_1',
  model: 'gpt-5-mini',
  status: 'completed',
  output: [
    {
      type: 'function_call',
      id: 'fc_1',
      call_id: 'call_1',
      name: 'weather',
      arguments: ARGS,
      status: 'completed',
    },
  ],
  usage: { input_tokens: 5, output_tokens: 5, total_tokens: 10 },
};
const chatAnswer = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  model: 'gpt-4o',
  choices: [
    {
      index: 0,
      finish_reason: 'tool_calls',
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: ARGS } }],
      },
    },
  ],
  usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 },
};

beforeEach(async () => {
  server = await FakeLlmServer.start();
});
afterEach(async () => {
  await provider?.close();
  await server.close();
});

describe('strict tools (Responses API)', () => {
  it('a strict tool is sent with the strict rewrite; its call comes back without the made-up null', async () => {
    server.enqueue(reply.json(200, responsesAnswer));
    const response = await make({ api: 'responses', use_streaming: false }).complete(request(true));
    const [tool] = server.requests[0]!.body.tools;
    expect(tool).toMatchObject({ name: 'weather', strict: true });
    expect(tool.parameters).toMatchObject({ additionalProperties: false, required: ['city', 'unit'] });
    expect(response.tool_calls?.[0]?.arguments).toEqual({ city: 'Paris' });
  });

  it('a tool that does not ask is sent as it is with strict: false, and its arguments are untouched', async () => {
    server.enqueue(reply.json(200, responsesAnswer));
    const response = await make({ api: 'responses', use_streaming: false }).complete(request(false));
    const [tool] = server.requests[0]!.body.tools;
    expect(tool).toMatchObject({ strict: false, parameters: WEATHER });
    expect(response.tool_calls?.[0]?.arguments).toEqual({ city: 'Paris', unit: null });
  });

  it('a schema strict mode cannot express goes without it, said once in the log', async () => {
    server.enqueue(reply.json(200, responsesAnswer), reply.json(200, responsesAnswer));
    make({ api: 'responses', use_streaming: false });
    const req = request(true, UNSUPPORTED);
    await provider.complete(req);
    await provider.complete(req);
    expect(server.requests[0]!.body.tools[0]).toMatchObject({ strict: false, parameters: UNSUPPORTED });
    const warnings = logger
      .problemsSince()
      .filter((m) => m.includes("tool 'weather' is sent without strict mode"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('oneOf');
  });

  it('streamed: the response the stream ends with has the restored arguments', async () => {
    const frame = (data: Record<string, unknown>) => sseEvent(data, String(data.type));
    const item = responsesAnswer.output[0]!;
    server.enqueue(
      reply.sse([
        frame({
          type: 'response.created',
          response: { id: 'resp_1', model: 'gpt-5-mini', status: 'in_progress', output: [] },
        }),
        frame({ type: 'response.output_item.added', output_index: 0, item: { ...item, arguments: '' } }),
        frame({
          type: 'response.function_call_arguments.done',
          output_index: 0,
          item_id: 'fc_1',
          arguments: ARGS,
        }),
        frame({ type: 'response.output_item.done', output_index: 0, item }),
        frame({ type: 'response.completed', response: { ...responsesAnswer } }),
      ]),
    );
    let end: ChatResponse | undefined;
    for await (const event of make({ api: 'responses' }).stream(request(true))) {
      if (event.type === 'message.end') end = event.response;
    }
    expect(end?.tool_calls?.[0]?.arguments).toEqual({ city: 'Paris' });
  });
});

describe('strict tools (Chat Completions)', () => {
  it('strict: true only for a strict tool (compatible servers may not know the key); arguments restored', async () => {
    server.enqueue(reply.json(200, chatAnswer), reply.json(200, chatAnswer));
    make({ api: 'chat', use_streaming: false });
    const strict = await provider.complete(request(true));
    const plain = await provider.complete(request(false));
    expect(server.requests[0]!.body.tools[0].function).toMatchObject({ strict: true });
    expect(server.requests[0]!.body.tools[0].function.parameters.additionalProperties).toBe(false);
    expect(server.requests[1]!.body.tools[0].function).not.toHaveProperty('strict');
    expect(strict.tool_calls?.[0]?.arguments).toEqual({ city: 'Paris' });
    expect(plain.tool_calls?.[0]?.arguments).toEqual({ city: 'Paris', unit: null });
  });
});
