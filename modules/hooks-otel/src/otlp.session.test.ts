/**
 * End to end over the wire: a real session traced by the SDK with the OTLP
 * HTTP exporter, sent to a receiver this test starts on 127.0.0.1, decoded
 * there and checked (names, parents, attributes, status).
 */
import { type OtlpReceiver, startOtlpReceiver } from '@amplifier/testing';
import { trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSession, failingTool } from './__fixtures__/session.js';

let receiver: OtlpReceiver;
let provider: BasicTracerProvider;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'hooks-otel-test' }),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: `${receiver.endpoint}/v1/traces` })),
    ],
  });
  trace.setGlobalTracerProvider(provider);
});

afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  await receiver.close();
});

it('exports the span tree over OTLP/HTTP', async () => {
  const session = createSession({
    tools: [failingTool],
    script: [
      { tool_calls: [{ id: 'f1', name: 'fail_tool' }], usage: { input_tokens: 11, output_tokens: 2 } },
      { text: 'It failed.', usage: { input_tokens: 13, output_tokens: 3 } },
    ],
  });
  expect(await session.execute('Try it')).toBe('It failed.');
  await session.cleanup();
  await provider.forceFlush();

  expect(receiver.requests.every((r) => r.status === 200)).toBe(true);
  const spans = receiver.spans;
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const named = (name: string) => spans.filter((s) => s.name === name);

  const [root] = named('invoke_agent amplifier');
  expect(root).toBeDefined();
  expect(root!.parentSpanId).toBeUndefined();
  expect(root!.scope).toBe('@amplifier/hooks-otel');
  expect(root!.resource['service.name']).toBe('hooks-otel-test');
  expect(root!.attributes['gen_ai.usage.input_tokens']).toBe(24);

  const [turn] = named('turn');
  expect(turn!.parentSpanId).toBe(root!.spanId);

  const chats = named('chat mock-model');
  expect(chats).toHaveLength(2);
  for (const chat of chats) {
    expect(byId.get(chat.parentSpanId!)?.name).toBe('turn');
    expect(chat.kind).toBe(3); // client
    expect(chat.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'mock',
      'gen_ai.request.model': 'mock-model',
    });
  }
  expect(chats.map((c) => c.attributes['gen_ai.usage.output_tokens']).sort()).toEqual([2, 3]);

  const [tool] = named('execute_tool fail_tool');
  expect(tool!.parentSpanId).toBe(turn!.spanId);
  expect(tool!.attributes).toMatchObject({
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'fail_tool',
    'gen_ai.tool.call.id': 'f1',
    'error.type': 'NotFound',
  });
  expect(tool!.status).toEqual({ code: 2, message: 'the file is missing' });
  expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
});
