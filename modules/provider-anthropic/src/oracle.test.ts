/**
 * The official `@anthropic-ai/sdk` as a test oracle: the bytes the fake
 * server sends must parse with the SDK to the same content this provider
 * produces (thinking signatures included, byte for byte).
 */

import { type ChatRequest, type ContentBlock, LLMError, type ToolCall } from '@amplifier/core';
import { FakeLlmServer, type FakeReply, reply } from '@amplifier/provider-http/testing';
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  errorBody,
  MODEL,
  message,
  REDACTED,
  SIGNATURE,
  textStream,
  thinkingToolStream,
} from './__fixtures__/wire.js';
import { resolveConfig } from './config.js';
import { AnthropicProvider } from './provider.js';

const REQUEST: ChatRequest = { messages: [{ role: 'user', content: 'hi' }] };
const PARAMS = { model: MODEL, max_tokens: 1024, messages: [{ role: 'user' as const, content: 'hi' }] };

let server: FakeLlmServer;
let sdk: Anthropic;
let provider: AnthropicProvider;

// The SDK warns on the console about a model near its end of life: the fixtures use a current one.
let warnings: unknown[][];
beforeEach(() => {
  warnings = [];
  vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => {
    warnings.push(args);
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  expect(warnings).toEqual([]);
});

beforeEach(async () => {
  server = await FakeLlmServer.start();
  sdk = new Anthropic({ apiKey: 'sk-ant-test', baseURL: server.url, maxRetries: 0 });
  provider = new AnthropicProvider(
    resolveConfig({ api_key: 'sk-ant-test', base_url: server.url, default_model: MODEL, max_retries: 0 }, {}),
  );
});
afterEach(async () => {
  await provider.close();
  await server.close();
});

/** The SDK's content blocks in Amplifier's shape (only the block types both know). */
function amplifierBlocks(content: Anthropic.ContentBlock[]): ContentBlock[] {
  return content.flatMap((block): ContentBlock[] => {
    switch (block.type) {
      case 'text':
        return [{ type: 'text', text: block.text }];
      case 'thinking':
        return [{ type: 'thinking', thinking: block.thinking, signature: block.signature }];
      case 'redacted_thinking':
        return [{ type: 'redacted_thinking', data: block.data }];
      default:
        return []; // tool_use: a call, not content (see amplifierCalls)
    }
  });
}

/** The SDK's tool_use blocks as Amplifier's calls (stored once, in `tool_calls`). */
function amplifierCalls(content: Anthropic.ContentBlock[]): ToolCall[] {
  return content.flatMap((block): ToolCall[] =>
    block.type === 'tool_use'
      ? [{ id: block.id, name: block.name, arguments: block.input as Record<string, unknown> }]
      : [],
  );
}

async function sdkStream(handler: FakeReply): Promise<Anthropic.Message> {
  server.enqueue(handler);
  return sdk.messages.stream(PARAMS).finalMessage();
}

describe('the official SDK parses the same bytes to the same content', () => {
  it('thinking with signature, redacted thinking, text and a tool call whose input arrives in pieces', async () => {
    const oracle = await sdkStream(reply.sse(thinkingToolStream()));
    server.enqueue(reply.sse(thinkingToolStream()));
    const ours = await provider.complete(REQUEST);
    expect(ours.content).toEqual(amplifierBlocks(oracle.content));
    expect(ours.tool_calls).toEqual(amplifierCalls(oracle.content));
    expect(ours.tool_calls).toHaveLength(1);
    const thinking = oracle.content[0] as Anthropic.ThinkingBlock;
    expect(thinking.signature).toBe(SIGNATURE);
    expect((ours.content[0] as { signature: string }).signature).toBe(thinking.signature);
    expect((ours.content[1] as { data: string }).data).toBe(REDACTED);
    const usage = oracle.usage;
    expect(ours.usage).toMatchObject({
      input_tokens:
        usage.input_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0),
      output_tokens: usage.output_tokens,
      cache_read_tokens: usage.cache_read_input_tokens,
      cache_write_tokens: usage.cache_creation_input_tokens,
    });
    expect(ours.metadata?.['anthropic:stop_reason']).toBe(oracle.stop_reason);
  });

  it('a streamed text answer split in pieces, with a ping', async () => {
    const pieces = textStream(['Hel', 'lo, ', 'wörld ✓']);
    const oracle = await sdkStream(reply.sse(pieces));
    server.enqueue(reply.sse(pieces));
    expect((await provider.complete(REQUEST)).content).toEqual(amplifierBlocks(oracle.content));
  });

  it('a stream with CRLF line ends', async () => {
    const pieces = textStream(['a\r\nb']).map((e) => e.replaceAll('\n', '\r\n'));
    const oracle = await sdkStream(reply.sse(pieces));
    server.enqueue(reply.sse(pieces));
    expect((await provider.complete(REQUEST)).content).toEqual(amplifierBlocks(oracle.content));
  });

  it('a non-streamed message', async () => {
    const body = message(
      [
        { type: 'thinking', thinking: 'hm', signature: SIGNATURE },
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'ls' } },
      ],
      'tool_use',
    );
    server.enqueue(reply.json(200, body), reply.json(200, body));
    const oracle = await sdk.messages.create(PARAMS);
    const p = new AnthropicProvider(
      resolveConfig({ api_key: 'k', base_url: server.url, use_streaming: false, max_retries: 0 }, {}),
    );
    const ours = await p.complete(REQUEST);
    await p.close();
    expect(ours.content).toEqual(amplifierBlocks(oracle.content));
    expect(ours.tool_calls ?? []).toEqual(amplifierCalls(oracle.content));
    expect(ours.metadata?.['anthropic:message_id']).toBe(oracle.id);
  });

  it('HTTP errors: the SDK error class and our kind agree', async () => {
    const cases: [number, string, string, string][] = [
      [400, 'invalid_request_error', 'BadRequestError', 'invalid_request'],
      [401, 'authentication_error', 'AuthenticationError', 'authentication'],
      [403, 'permission_error', 'PermissionDeniedError', 'access_denied'],
      [404, 'not_found_error', 'NotFoundError', 'not_found'],
      [429, 'rate_limit_error', 'RateLimitError', 'rate_limit'],
      [500, 'api_error', 'InternalServerError', 'unavailable'],
      [529, 'overloaded_error', 'OverloadedError', 'unavailable'],
    ];
    for (const [status, type, sdkClass, kind] of cases) {
      const handler = reply.json(status, errorBody(type, `status ${status}`));
      server.enqueue(handler, handler);
      const sdkError = await sdk.messages.create(PARAMS).catch((e: unknown) => e);
      const ours = await provider.complete(REQUEST).catch((e: unknown) => e);
      expect((sdkError as Error).constructor.name).toBe(sdkClass);
      expect(LLMError.is(ours) && ours.kind).toBe(kind);
    }
  });
});
