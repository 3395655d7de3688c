/**
 * Small, correct in-memory modules of each type (the conformance suites must
 * pass on them) and helpers to break them one way at a time.
 */
import type {
  ChatRequest,
  ChatResponse,
  ContextManager,
  Message,
  ModelInfo,
  MountFunction,
  Orchestrator,
  OrchestratorRun,
  Provider,
  ProviderInfo,
  Tool,
  ToolCall,
  ToolResult,
} from '@amplifier/core';
import { toMessageToolCall } from '@amplifier/core';

export function greetTool(overrides: Partial<Tool> = {}): Tool {
  return {
    name: 'greet',
    description: 'Greets a person by name.',
    inputSchema: {
      type: 'object',
      properties: { name: { type: 'string' }, times: { type: 'integer' } },
      required: ['name'],
    },
    executionProfile: { resourceKeys: () => [{ key: 'greeting', mode: 'read' }] },
    async execute(input, options): Promise<ToolResult> {
      if (options?.signal?.aborted) return { success: false, error: { message: 'Cancelled' } };
      if (typeof input.name !== 'string') {
        return { success: false, error: { message: 'name is required and must be a string' } };
      }
      const times = typeof input.times === 'number' ? input.times : 1;
      return { success: true, output: `Hello, ${input.name}!`.repeat(times) };
    },
    ...overrides,
  };
}

/** A tool module mounting `tools` (default: one greet tool) and unmounting them on cleanup. */
export function toolModule(tools: () => Tool[] = () => [greetTool()]): MountFunction {
  return (coordinator) => {
    const mounted = tools();
    for (const tool of mounted) coordinator.mount('tools', tool);
    return () => {
      for (const tool of mounted) coordinator.unmount('tools', { name: tool.name });
    };
  };
}

export class ArrayContext implements ContextManager {
  protected messages: Message[] = [];
  async addMessage(message: Message): Promise<void> {
    this.messages.push(message);
  }
  async getMessagesForRequest(): Promise<Message[]> {
    return this.messages.filter((m) => typeof m?.role === 'string');
  }
  async getMessages(): Promise<Message[]> {
    return [...this.messages];
  }
  async setMessages(messages: Message[]): Promise<void> {
    this.messages = [...messages];
  }
  async clear(): Promise<void> {
    this.messages = [];
  }
}

export function contextModule(make: () => ContextManager = () => new ArrayContext()): MountFunction {
  return (coordinator) => {
    coordinator.mount('context', make());
  };
}

/** Denies bash commands containing `rm -rf`; counts session starts. */
export function hookModule(): MountFunction {
  return (coordinator) => {
    const offs = [
      coordinator.hooks.register(
        'tool:pre',
        (_event, data) => {
          const input = data.tool_input as { command?: unknown } | null | undefined;
          if (
            data.tool_name === 'bash' &&
            typeof input?.command === 'string' &&
            input.command.includes('rm -rf')
          ) {
            return { action: 'deny', reason: 'rm -rf is not allowed' };
          }
          return undefined;
        },
        { name: 'no-rm-rf' },
      ),
      coordinator.hooks.register('session:start', () => ({ action: 'continue' }), { name: 'count-starts' }),
    ];
    return () => {
      for (const off of offs) off();
    };
  };
}

/** A minimal agent loop: ask the first provider, run its tool calls, repeat until it answers. */
export class MiniLoop implements Orchestrator {
  async execute(prompt: string, run: OrchestratorRun): Promise<string> {
    await run.context.addMessage({ role: 'user', content: prompt });
    const provider = [...run.providers.values()][0];
    if (provider === undefined) throw new Error('no provider mounted');
    for (let step = 0; step < 10; step++) {
      if (run.signal?.aborted) return '';
      const response = await provider.complete({ messages: await run.context.getMessagesForRequest() });
      const text = response.content
        .map((b) => (b.type === 'text' ? b.text : ''))
        .filter(Boolean)
        .join('\n');
      const calls = provider.parseToolCalls(response);
      await run.context.addMessage({
        role: 'assistant',
        content: text,
        ...(calls.length > 0 && {
          tool_calls: calls.map(toMessageToolCall),
        }),
      });
      if (calls.length === 0) return text;
      for (const call of calls) {
        const tool = run.tools.get(call.name);
        const result = tool
          ? await tool.execute(call.arguments, { toolCallId: call.id })
          : { success: false, error: { message: `no tool ${call.name}` } };
        await run.context.addMessage({
          role: 'tool',
          tool_call_id: call.id,
          content: JSON.stringify(result),
        });
      }
    }
    return '';
  }
}

export function orchestratorModule(make: () => Orchestrator = () => new MiniLoop()): MountFunction {
  return (coordinator) => {
    coordinator.mount('orchestrator', make());
  };
}

/** Answers with the last user message echoed back. */
export class EchoProvider implements Provider {
  readonly name = 'echo';
  getInfo(): ProviderInfo {
    return { id: 'echo', display_name: 'Echo' };
  }
  async listModels(): Promise<ModelInfo[]> {
    return [{ id: 'echo-1', display_name: 'Echo 1', context_window: 1000, max_output_tokens: 100 }];
  }
  async complete(request: ChatRequest, options?: { signal?: AbortSignal }): Promise<ChatResponse> {
    options?.signal?.throwIfAborted();
    const last = [...request.messages].reverse().find((m) => m.role === 'user');
    const text = typeof last?.content === 'string' ? last.content : '';
    return { content: [{ type: 'text', text: `echo: ${text}` }], finish_reason: 'stop' };
  }
  parseToolCalls(response: ChatResponse): ToolCall[] {
    return response.tool_calls ?? [];
  }
}

export function providerModule(make: () => Provider = () => new EchoProvider()): MountFunction {
  return (coordinator, config) => {
    if (config.api_key === undefined) return; // like a real provider without credentials
    coordinator.mount('providers', make());
  };
}
