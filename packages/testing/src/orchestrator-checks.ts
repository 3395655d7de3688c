/**
 * Conformance checks for orchestrators, driven with a MockProvider, a
 * MockContextManager and a MockTool: a turn returns text, the prompt reaches the
 * provider, the context records the exchange, tool calls are executed and
 * answered, and odd inputs never crash.
 */
import {
  type ChatResponse,
  type ContentBlock,
  type Message,
  type Orchestrator,
  type OrchestratorRun,
  type ToolCall,
  toToolCallBlock,
} from '@amplifier/core';
import {
  type ConformanceCheck,
  cleanupCheck,
  describeValue,
  ensure,
  type ModuleUnderTest,
  type MountedModule,
  mustNotThrow,
  settle,
  withMounted,
} from './harness.js';
import { MockContextManager, MockProvider, MockTool } from './mocks.js';

const PROMPT = 'Conformance prompt: say something';
const REPLY = 'Mock response';
const CALL_ID = 'call_conformance_1';

/** What a check gets: the mounted orchestrator, its mock collaborators and the run object. */
interface Harness {
  orchestrator: Orchestrator;
  provider: MockProvider;
  context: MockContextManager;
  tool: MockTool;
  run: OrchestratorRun;
  mounted: MountedModule;
}

/** Mount the module, then the mocks (a session mounts orchestrator first, then the rest). */
function harness(mounted: MountedModule, responses?: ChatResponse[]): Harness {
  const { coordinator } = mounted;
  const orchestrator = coordinator.get('orchestrator');
  ensure(
    orchestrator !== undefined && orchestrator !== null,
    'mount did not mount an orchestrator: call coordinator.mount("orchestrator", orchestrator)',
  );
  ensure(
    typeof orchestrator.execute === 'function',
    `the mounted orchestrator has no execute function (found ${describeValue(orchestrator)})`,
  );
  const provider = new MockProvider(responses === undefined ? {} : { responses });
  const context = new MockContextManager();
  const tool = new MockTool({ name: 'mock_tool', output: 'mock tool output' });
  coordinator.mount('context', context);
  coordinator.mount('providers', provider);
  coordinator.mount('tools', tool);
  const run: OrchestratorRun = {
    context,
    providers: coordinator.get('providers'),
    tools: coordinator.get('tools'),
    hooks: coordinator.hooks,
    coordinator,
    signal: coordinator.cancellation.signal,
  };
  return { orchestrator, provider, context, tool, run, mounted };
}

function textOf(content: string | readonly ContentBlock[] | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b) => (b && typeof b === 'object' && 'text' in b && typeof b.text === 'string' ? b.text : ''))
    .join('\n');
}

function has(messages: readonly Message[], role: string, text: string): boolean {
  return messages.some((m) => m?.role === role && textOf(m.content).includes(text));
}

function summary(messages: readonly Message[]): string {
  return messages.map((m) => `${m?.role}: ${textOf(m?.content).slice(0, 60)}`).join(' | ') || 'none';
}

async function turn(h: Harness, prompt = PROMPT): Promise<string> {
  const result = await mustNotThrow(`execute(${describeValue(prompt)}, run)`, () =>
    h.orchestrator.execute(prompt, h.run),
  );
  ensure(typeof result === 'string', `execute must resolve to a string, resolved ${describeValue(result)}`);
  return result;
}

const toolCallScript = (): ChatResponse[] => {
  const call: ToolCall = { id: CALL_ID, name: 'mock_tool', arguments: {} };
  return [
    {
      content: [{ type: 'text', text: 'Let me call the tool.' }, toToolCallBlock(call)],
      tool_calls: [call],
      finish_reason: 'tool_calls',
    },
    { content: [{ type: 'text', text: 'All done' }], finish_reason: 'stop' },
  ];
};

/** Every check of the orchestrator suite, in order. */
export const orchestratorChecks: readonly ConformanceCheck<ModuleUnderTest>[] = [
  {
    name: 'mount mounts an orchestrator with an execute function',
    run: (module) =>
      withMounted(module, async (mounted) => {
        harness(mounted);
      }),
  },
  {
    name: 'execute returns a non-empty string',
    run: (module) =>
      withMounted(module, async (mounted) => {
        const result = await turn(harness(mounted));
        ensure(result.trim() !== '', 'execute resolved to an empty string for a plain text reply');
      }),
  },
  {
    name: 'the provider was called with the prompt',
    run: (module) =>
      withMounted(module, async (mounted) => {
        const h = harness(mounted);
        await turn(h);
        ensure(h.provider.requests.length > 0, 'the provider was never called');
        const messages = h.provider.requests[0]?.messages ?? [];
        ensure(
          has(messages, 'user', PROMPT),
          `the first request does not carry the prompt as a user message: ${summary(messages)}`,
        );
      }),
  },
  {
    name: 'the context got the user and assistant messages',
    run: (module) =>
      withMounted(module, async (mounted) => {
        const h = harness(mounted);
        await turn(h);
        const messages = h.context.messages;
        ensure(
          has(messages, 'user', PROMPT),
          `no user message with the prompt in the context: ${summary(messages)}`,
        );
        ensure(
          has(messages, 'assistant', REPLY),
          `no assistant message with the reply in the context: ${summary(messages)}`,
        );
      }),
  },
  {
    name: 'an empty prompt does not crash',
    run: (module) =>
      withMounted(module, async (mounted) => {
        await turn(harness(mounted), '');
      }),
  },
  {
    name: 'a tool call is executed and its result is sent back to the provider',
    run: (module) =>
      withMounted(module, async (mounted) => {
        const h = harness(mounted, toolCallScript());
        const result = await turn(h);
        ensure(h.tool.callCount === 1, `mock_tool was called ${h.tool.callCount} times, expected once`);
        ensure(h.provider.requests.length >= 2, 'the provider was not called again after the tool ran');
        const second = h.provider.requests[1]?.messages ?? [];
        ensure(
          second.some((m) => m?.role === 'tool' && m.tool_call_id === CALL_ID),
          `the second request has no tool message answering ${CALL_ID}: ${summary(second)}`,
        );
        ensure(result.includes('All done'), `execute returned ${describeValue(result)}, not the final reply`);
      }),
  },
  {
    name: 'a turn started after immediate cancellation settles',
    run: (module) =>
      withMounted(module, async (mounted) => {
        const h = harness(mounted, toolCallScript());
        await mounted.coordinator.requestCancel({ immediate: true });
        h.run.signal = mounted.coordinator.cancellation.signal;
        // Resolving or rejecting are both fine; hanging is not.
        await settle(
          Promise.resolve()
            .then(() => h.orchestrator.execute(PROMPT, h.run))
            .catch(() => ''),
          'execute after immediate cancellation',
        );
      }),
  },
  cleanupCheck<ModuleUnderTest>(),
];
