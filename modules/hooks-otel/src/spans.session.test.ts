/**
 * Whole sessions (loop-basic, context-simple, provider-mock and real tools)
 * traced by the real OpenTelemetry SDK into an in-memory exporter: the span
 * tree, the GenAI attributes, errors, cancellation and the metrics.
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { childrenOf, parentOf, registerTestSdk } from './__fixtures__/sdk.js';
import {
  barrierTools,
  createSession,
  failingTool,
  hangingTool,
  throwingTool,
} from './__fixtures__/session.js';

const sdk = registerTestSdk();
afterEach(() => sdk.exporter.reset());
afterAll(() => sdk.shutdown());

const byName = (spans: readonly ReadableSpan[], name: string): ReadableSpan[] =>
  spans.filter((s) => s.name === name);
const one = (spans: readonly ReadableSpan[], name: string): ReadableSpan => {
  const found = byName(spans, name);
  expect(found, name).toHaveLength(1);
  return found[0]!;
};

/** Turn 1: four calls in one round (two must run concurrently, two fail), then an answer. Turn 2 is cancelled, turn 3 fails. */
async function runScenario(otel: Record<string, unknown> = {}): Promise<ReadableSpan[]> {
  const controller = new AbortController();
  const session = createSession({
    otel,
    tools: [...barrierTools(), failingTool, throwingTool, hangingTool(() => controller.abort())],
    script: [
      {
        text: 'Working on it.',
        tool_calls: [
          { id: 'c1', name: 'wait_a', arguments: { api_key: 'sk-live-123456789', path: 'a.txt' } },
          { id: 'c2', name: 'wait_b' },
          { id: 'c3', name: 'fail_tool' },
          { id: 'c4', name: 'throw_tool' },
        ],
        usage: { input_tokens: 100, output_tokens: 20 },
      },
      { text: 'All done.', usage: { input_tokens: 150, output_tokens: 5 } },
      { tool_calls: [{ id: 'c5', name: 'hang' }], usage: { input_tokens: 30, output_tokens: 3 } },
      { error: { kind: 'unavailable', message: 'the model is down', retryable: false } },
    ],
  });
  await session.initialize();
  expect(await session.execute('Read the files, password=hunter2')).toBe('All done.');
  await session.execute('Wait forever', { signal: controller.signal });
  await expect(session.execute('Once more')).rejects.toThrow('the model is down');
  await session.cleanup();
  return sdk.spans();
}

describe('the span tree of a session', () => {
  it('nests turns, model calls and tool calls under the session span, concurrent calls as siblings', async () => {
    const spans = await runScenario();
    const session = one(spans, 'invoke_agent amplifier');
    expect(parentOf(session)).toBeUndefined();
    expect(session.attributes['gen_ai.operation.name']).toBe('invoke_agent');
    expect(session.attributes['gen_ai.agent.name']).toBe('amplifier');
    expect(session.attributes['gen_ai.conversation.id']).toBe(session.attributes['amplifier.session.id']);
    expect(session.attributes['gen_ai.usage.input_tokens']).toBe(280);
    expect(session.attributes['gen_ai.usage.output_tokens']).toBe(28);
    expect(session.attributes['amplifier.session.status']).toBe('failed');
    expect(session.status.code).toBe(SpanStatusCode.ERROR);

    const turns = childrenOf(spans, session);
    expect(turns.map((t) => t.name)).toEqual(['turn', 'turn', 'turn']);
    expect(turns.map((t) => t.attributes['amplifier.turn.number'])).toEqual([1, 2, 3]);
    const [first, cancelled, failed] = turns as [ReadableSpan, ReadableSpan, ReadableSpan];

    // Turn 1: chat, the four tool calls (siblings, all under the turn), chat.
    const children = childrenOf(spans, first);
    const model = children[0]!.attributes['gen_ai.request.model'];
    expect(typeof model).toBe('string');
    expect(children.map((c) => c.name)).toHaveLength(6);
    expect(children[0]!.name).toBe(`chat ${model}`);
    expect(children[5]!.name).toBe(`chat ${model}`);
    // The round's calls start in whatever order the scheduler gives them.
    expect(
      children
        .slice(1, 5)
        .map((c) => c.name)
        .sort(),
    ).toEqual([
      'execute_tool fail_tool',
      'execute_tool throw_tool',
      'execute_tool wait_a',
      'execute_tool wait_b',
    ]);
    expect(first.status.code).toBe(SpanStatusCode.UNSET);
    expect(first.attributes['amplifier.turn.status']).toBe('success');
    expect(first.attributes['gen_ai.usage.input_tokens']).toBe(250);

    const chat = children[0]!;
    expect(chat.kind).toBe(SpanKind.CLIENT);
    expect(chat.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'mock',
      'gen_ai.response.model': model,
      'gen_ai.usage.input_tokens': 100,
      'gen_ai.usage.output_tokens': 20,
      'amplifier.provider.iteration': 0,
    });

    const tool = (name: string): ReadableSpan => one(children, `execute_tool ${name}`);
    const [a, b, failing, throwing] = [tool('wait_a'), tool('wait_b'), tool('fail_tool'), tool('throw_tool')];
    expect(a.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'wait_a',
      'gen_ai.tool.call.id': 'c1',
      'gen_ai.tool.type': 'function',
    });
    expect(a.attributes['amplifier.tool.parallel_group_id']).toBe(
      b.attributes['amplifier.tool.parallel_group_id'],
    );
    // wait_a could only finish after wait_b started: the spans overlap.
    expect(compare(b.startTime, a.endTime)).toBeLessThan(0);
    expect(a.status.code).toBe(SpanStatusCode.UNSET);

    expect(failing.status).toEqual({ code: SpanStatusCode.ERROR, message: 'the file is missing' });
    expect(failing.attributes['error.type']).toBe('NotFound');
    expect(throwing.status.code).toBe(SpanStatusCode.ERROR);
    expect(throwing.attributes['error.type']).toBe('TypeError');
    expect(
      throwing.events.map((e) => [
        e.name,
        e.attributes?.['exception.type'],
        e.attributes?.['exception.message'],
      ]),
    ).toEqual([['exception', 'TypeError', 'boom']]);

    // Turn 2: cancelled while the tool ran.
    expect(cancelled.status.code).toBe(SpanStatusCode.ERROR);
    expect(cancelled.attributes['error.type']).toBe('cancelled');
    expect(cancelled.attributes['amplifier.turn.status']).toBe('cancelled');
    expect(cancelled.events.map((e) => e.name)).toEqual(
      expect.arrayContaining(['amplifier.cancel.requested', 'amplifier.cancel.completed', 'exception']),
    );
    const hang = one(childrenOf(spans, cancelled), 'execute_tool hang');
    expect(hang.status.code).toBe(SpanStatusCode.ERROR);
    expect(hang.attributes['error.type']).toBe('cancelled');

    // Turn 3: the provider failed, and the turn with it.
    const failedChat = childrenOf(spans, failed)[0]!;
    expect(failedChat.name).toBe(`chat ${model}`);
    expect(failedChat.status.code).toBe(SpanStatusCode.ERROR);
    expect(failedChat.attributes['error.type']).toBeTypeOf('string');
    expect(failedChat.events.some((e) => e.name === 'exception')).toBe(true);
    expect(failed.status.code).toBe(SpanStatusCode.ERROR);

    // Every span is in the one trace.
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
  });

  it('keeps content off by default', async () => {
    const spans = await runScenario();
    for (const span of spans) {
      for (const key of Object.keys(span.attributes)) {
        expect(key).not.toMatch(/messages|arguments|result/);
      }
    }
  });

  it('captures content when asked, redacted by core rules', async () => {
    const spans = await runScenario({ capture_content: true });
    const turn = byName(spans, 'turn')[0]!;
    expect(JSON.parse(String(turn.attributes['gen_ai.input.messages']))).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Read the files, password=hunter2' }] },
    ]);
    expect(JSON.parse(String(turn.attributes['gen_ai.output.messages']))[0].parts[0].content).toBe(
      'All done.',
    );
    const a = one(spans, 'execute_tool wait_a');
    expect(JSON.parse(String(a.attributes['gen_ai.tool.call.arguments']))).toEqual({
      api_key: '[REDACTED]',
      path: 'a.txt',
    });
    expect(a.attributes['gen_ai.tool.call.result']).toBe('a done');
    const chat = spans.find(
      (s) => s.name.startsWith('chat ') && s.attributes['amplifier.provider.iteration'] === 0,
    )!;
    // The response's tool calls are parts of its output message (the loop emits them as
    // `tool_call` content blocks), and their arguments are redacted like everything else.
    const output = JSON.parse(String(chat.attributes['gen_ai.output.messages']));
    expect(output).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'text', content: 'Working on it.' },
          {
            type: 'tool_call',
            id: 'c1',
            name: 'wait_a',
            arguments: { api_key: '[REDACTED]', path: 'a.txt' },
          },
          { type: 'tool_call', id: 'c2', name: 'wait_b', arguments: {} },
          { type: 'tool_call', id: 'c3', name: 'fail_tool', arguments: {} },
          { type: 'tool_call', id: 'c4', name: 'throw_tool', arguments: {} },
        ],
      },
    ]);
  });

  it('records the GenAI metrics', async () => {
    await runScenario();
    const scopes = (await sdk.metrics()).scopeMetrics;
    const all = scopes.flatMap((s) => s.metrics);
    const tokens = all.find((m) => m.descriptor.name === 'gen_ai.client.token.usage')!;
    const duration = all.find((m) => m.descriptor.name === 'gen_ai.client.operation.duration')!;
    expect(tokens.descriptor.unit).toBe('{token}');
    expect(duration.descriptor.unit).toBe('s');
    const sums = Object.fromEntries(
      tokens.dataPoints.map((p) => [
        String(p.attributes['gen_ai.token.type']),
        (p.value as { sum: number }).sum,
      ]),
    );
    expect(sums.input).toBeGreaterThanOrEqual(280);
    expect(sums.output).toBeGreaterThanOrEqual(28);
    const errored = duration.dataPoints.filter((p) => p.attributes['error.type'] !== undefined);
    expect(errored.length).toBeGreaterThan(0);
    expect(duration.dataPoints.every((p) => p.attributes['gen_ai.operation.name'] === 'chat')).toBe(true);
  });
});

function compare(a: [number, number], b: [number, number]): number {
  return a[0] - b[0] || a[1] - b[1];
}
