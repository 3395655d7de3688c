/**
 * Event sequences other orchestrators and providers may send, emitted on a
 * bare coordinator with this module mounted and the real SDK registered.
 */
import { Coordinator, silentLogger } from '@amplifier/core';
import { SpanStatusCode } from '@opentelemetry/api';
import { afterAll, afterEach, expect, it } from 'vitest';
import { parentOf, registerTestSdk } from './__fixtures__/sdk.js';
import { mount } from './index.js';

const sdk = registerTestSdk();
afterEach(() => sdk.exporter.reset());
afterAll(() => sdk.shutdown());

async function mounted(config: Record<string, unknown> = {}) {
  const coordinator = new Coordinator({ sessionId: 's1', logger: silentLogger });
  coordinator.hooks.setDefaultFields({ session_id: 's1', parent_id: null });
  const cleanup = await mount(coordinator, config);
  return { hooks: coordinator.hooks, cleanup };
}

it('a provider call announced only by llm:request / llm:response (no orchestrator events)', async () => {
  const { hooks, cleanup } = await mounted();
  await hooks.emit('llm:request', { provider: 'openai', model: 'gpt-x', message_count: 1 });
  await hooks.emit('provider:retry', {
    provider: 'openai',
    model: 'gpt-x',
    attempt: 1,
    max_retries: 3,
    delay: 1,
    error_type: 'RateLimitError',
    error_kind: 'rate_limit',
    status_code: 429,
  });
  await hooks.emit('llm:response', {
    provider: 'openai',
    model: 'gpt-x-2026',
    status: 'ok',
    duration_ms: 5,
    usage: { input_tokens: 9, output_tokens: 4 },
    finish_reason: 'stop',
  });
  await cleanup();
  const spans = sdk.spans();
  const chat = spans.find((s) => s.name === 'chat gpt-x')!;
  expect(chat.attributes).toMatchObject({
    'gen_ai.provider.name': 'openai',
    'gen_ai.request.model': 'gpt-x',
    'gen_ai.response.model': 'gpt-x-2026',
    'gen_ai.usage.input_tokens': 9,
    'gen_ai.response.finish_reasons': ['stop'],
  });
  expect(chat.events.map((e) => [e.name, e.attributes?.['error.type']])).toEqual([
    ['amplifier.provider.retry', 'RateLimitError'],
  ]);
  // Opened on demand: a turn and the session around it.
  const turn = spans.find((s) => s.spanContext().spanId === parentOf(chat))!;
  expect(turn.name).toBe('turn');
  expect(spans.find((s) => s.spanContext().spanId === parentOf(turn))?.name).toBe('invoke_agent amplifier');
});

it('a failed llm:response fails the call', async () => {
  const { hooks, cleanup } = await mounted();
  await hooks.emit('llm:request', { provider: 'anthropic', model: 'claude-x', message_count: 1 });
  await hooks.emit('llm:response', {
    provider: 'anthropic',
    model: 'claude-x',
    status: 'error',
    duration_ms: 5,
    error: 'overloaded',
    error_kind: 'unavailable',
  });
  await cleanup();
  const chat = sdk.spans().find((s) => s.name === 'chat claude-x')!;
  expect(chat.status).toEqual({ code: SpanStatusCode.ERROR, message: 'overloaded' });
  expect(chat.attributes['error.type']).toBe('unavailable');
});

it('tool:error without tool:pre, and a call left without a result', async () => {
  const { hooks, cleanup } = await mounted();
  await hooks.emit('prompt:submit', { prompt: 'go' });
  await hooks.emit('tool:error', {
    tool_name: 'nope',
    tool_call_id: 'x1',
    error: { type: 'ToolNotFoundError', msg: "Error: Tool 'nope' not found" },
  });
  await hooks.emit('tool:pre', { tool_name: 'slow', tool_call_id: 'x2', tool_input: {} });
  await hooks.emit('orchestrator:complete', { orchestrator: 'custom', turn_count: 1, status: 'success' });
  await cleanup();
  const spans = sdk.spans();
  const missing = spans.find((s) => s.name === 'execute_tool nope')!;
  expect(missing.attributes['error.type']).toBe('ToolNotFoundError');
  expect(missing.events[0]?.attributes?.['exception.message']).toBe("Error: Tool 'nope' not found");
  const slow = spans.find((s) => s.name === 'execute_tool slow')!;
  expect(slow.attributes['error.type']).toBe('no_result');
  // Cleanup without session:end still ends the session span.
  expect(spans.some((s) => s.name === 'invoke_agent amplifier')).toBe(true);
});

it('the metrics can be turned off', async () => {
  const before = (await sdk.metrics()).scopeMetrics.flatMap((s) => s.metrics).length;
  const { hooks, cleanup } = await mounted({ metrics: false, instrumentation_name: 'quiet' });
  await hooks.emit('llm:request', { provider: 'p', model: 'm', message_count: 1 });
  await hooks.emit('llm:response', { provider: 'p', model: 'm', status: 'ok', duration_ms: 1 });
  await cleanup();
  const scopes = (await sdk.metrics()).scopeMetrics;
  expect(scopes.some((s) => s.scope.name === 'quiet')).toBe(false);
  expect(scopes.flatMap((s) => s.metrics).length).toBe(before);
  expect(sdk.spans().find((s) => s.name === 'chat m')?.instrumentationScope.name).toBe('quiet');
});
