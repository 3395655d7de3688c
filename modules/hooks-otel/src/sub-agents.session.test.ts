/**
 * Sub-agents: a child session (a second real AmplifierSession with `parentId`
 * set, started from a tool of the parent, as the delegate tool does) gets its
 * session span under the parent's tool span, or under the parent's session
 * span when its metadata names no tool call.
 */
import type { AmplifierSession, Tool } from '@amplifier/core';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, expect, it } from 'vitest';
import { parentOf, registerTestSdk } from './__fixtures__/sdk.js';
import { createSession } from './__fixtures__/session.js';

const sdk = registerTestSdk();
afterEach(() => sdk.exporter.reset());
afterAll(() => sdk.shutdown());

/** A `delegate` tool that runs a child session; `withCallId` puts the parent's tool call id in its metadata. */
function delegateTool(parent: () => AmplifierSession, withCallId: boolean): Tool {
  return {
    name: 'delegate',
    description: 'runs a sub-agent',
    async execute(input, options) {
      const child = createSession({
        parentId: parent().sessionId,
        metadata: {
          agent_name: 'helper',
          ...(withCallId && options?.toolCallId !== undefined && { tool_call_id: options.toolCallId }),
        },
        script: [{ text: `child did ${String(input.task)}`, usage: { input_tokens: 7, output_tokens: 3 } }],
      });
      try {
        return { success: true, output: await child.execute(String(input.task)) };
      } finally {
        await child.cleanup();
      }
    },
  };
}

async function runParent(withCallId: boolean): Promise<ReadableSpan[]> {
  let parent: AmplifierSession | undefined;
  parent = createSession({
    tools: [delegateTool(() => parent!, withCallId)],
    script: [
      { tool_calls: [{ id: 'd1', name: 'delegate', arguments: { task: 'the sums' } }] },
      { text: 'The helper did it.' },
    ],
  });
  expect(await parent.execute('Delegate the sums')).toBe('The helper did it.');
  await parent.cleanup();
  return sdk.spans();
}

const spanId = (span: ReadableSpan): string => span.spanContext().spanId;

it("hangs the child's session span under the parent's delegate tool span", async () => {
  const spans = await runParent(true);
  const parentSession = spans.find((s) => s.name === 'invoke_agent amplifier')!;
  const delegate = spans.find((s) => s.name === 'execute_tool delegate')!;
  const child = spans.find((s) => s.name === 'invoke_agent helper')!;
  expect(parentOf(parentSession)).toBeUndefined();
  expect(parentOf(child)).toBe(spanId(delegate));
  expect(child.spanContext().traceId).toBe(parentSession.spanContext().traceId);
  expect(child.attributes['amplifier.session.parent_id']).toBe(
    parentSession.attributes['amplifier.session.id'],
  );
  expect(child.attributes['gen_ai.agent.name']).toBe('helper');
  expect(child.attributes['gen_ai.usage.input_tokens']).toBe(7);
  // The child's own turn and model call hang under its session span.
  const childTurn = spans.find((s) => s.name === 'turn' && parentOf(s) === spanId(child))!;
  expect(spans.some((s) => s.name.startsWith('chat ') && parentOf(s) === spanId(childTurn))).toBe(true);
});

it("hangs the child under the parent's session span when no tool call id is known", async () => {
  const spans = await runParent(false);
  const parentSession = spans.find((s) => s.name === 'invoke_agent amplifier')!;
  const child = spans.find((s) => s.name === 'invoke_agent helper')!;
  expect(parentOf(child)).toBe(spanId(parentSession));
});

it('starts a root span for a child whose parent is not traced here', async () => {
  const child = createSession({ parentId: 'elsewhere', script: ['hi'] });
  await child.execute('hello');
  await child.cleanup();
  const span = sdk.spans().find((s) => s.name === 'invoke_agent amplifier')!;
  expect(parentOf(span)).toBeUndefined();
  expect(span.attributes['amplifier.session.parent_id']).toBe('elsewhere');
});
