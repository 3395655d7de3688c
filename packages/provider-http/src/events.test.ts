import { createLLMError } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import {
  llmErrorPayload,
  llmRequestPayload,
  llmResponsePayload,
  providerRetryPayload,
  usagePayload,
} from './events.js';

const context = { provider: 'p', model: 'm' };

describe('payloads', () => {
  it('usage: gross input, output; cache, reasoning and cost only when present and non-zero', () => {
    expect(usagePayload(undefined)).toEqual({ input_tokens: 0, output_tokens: 0 });
    expect(
      usagePayload({
        input_tokens: 10,
        output_tokens: 5,
        total_tokens: 15,
        cache_read_tokens: 0,
        cache_write_tokens: 3,
        reasoning_tokens: 2,
        cost_usd: '0',
      }),
    ).toEqual({
      input_tokens: 10,
      output_tokens: 5,
      cache_write_tokens: 3,
      reasoning_tokens: 2,
      cost_usd: '0',
    });
  });

  it('llm:request: the reference fields, API extras after has_instructions, raw redacted', () => {
    const payload = llmRequestPayload(context, {
      messageCount: 2,
      hasInstructions: true,
      thinking: { enabled: true, budget: 4096 },
      stream: false,
      toolCount: 3,
      extra: { has_system: true },
      raw: { model: 'm', api_key: 'sk-live-123' },
    });
    expect(payload).toEqual({
      provider: 'p',
      model: 'm',
      message_count: 2,
      has_instructions: true,
      has_system: true,
      reasoning_enabled: true,
      thinking_enabled: true,
      thinking_budget: 4096,
      background_mode: false,
      stream: false,
      tool_count: 3,
      raw: { model: 'm', api_key: expect.not.stringContaining('sk-live') },
    });
    expect(Object.keys(payload).indexOf('has_system')).toBe(4);
    const plain = llmRequestPayload(context, {
      messageCount: 0,
      hasInstructions: false,
      thinking: { enabled: false, budget: null },
      stream: true,
      toolCount: 0,
    });
    expect(plain).not.toHaveProperty('raw');
  });

  it('llm:response ok and error; provider:retry', () => {
    const response = { content: [], usage: { input_tokens: 1, output_tokens: 2, total_tokens: 3 } };
    expect(llmResponsePayload(context, response, { durationMs: 12.6 })).toEqual({
      provider: 'p',
      model: 'm',
      usage: { input_tokens: 1, output_tokens: 2 },
      status: 'ok',
      duration_ms: 13,
      continuation_count: 0,
    });
    expect(
      llmResponsePayload(
        context,
        { ...response, finish_reason: 'stop' },
        {
          durationMs: 1,
          rateLimits: { requests_remaining: 9 },
          raw: true,
        },
      ),
    ).toMatchObject({ finish_reason: 'stop', rate_limits: { requests_remaining: 9 }, raw: response });
    const error = createLLMError('rate_limit', 'slow down', { status_code: 429, retry_after: 2 });
    expect(llmErrorPayload(context, error, 5)).toEqual({
      provider: 'p',
      model: 'm',
      status: 'error',
      duration_ms: 5,
      error: 'slow down',
      error_kind: 'rate_limit',
      status_code: 429,
    });
    expect(providerRetryPayload(context, 1, 5, 2500, error)).toEqual({
      provider: 'p',
      model: 'm',
      attempt: 1,
      max_retries: 5,
      delay: 2.5,
      error_type: 'RateLimitError',
      error_kind: 'rate_limit',
      status_code: 429,
      retry_after: 2,
      error: 'slow down',
    });
    // The innermost cause says what happened (fetch wraps the socket error).
    const socket = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    const refused = createLLMError('network', 'p: could not reach the server', {
      cause: new TypeError('fetch failed', { cause: socket }),
    });
    expect(providerRetryPayload(context, 1, 1, 800, refused)).toMatchObject({
      error: 'p: could not reach the server',
      cause: 'connect ECONNREFUSED 127.0.0.1:9',
    });
  });
});
