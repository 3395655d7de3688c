/**
 * Test doubles for module authors: a coordinator with mount history, a tool, a
 * context manager, a provider and an event recorder. Real objects, not spies:
 * they behave like the contracts say, and record what happened. Plus a loader
 * of in-process modules, to run a real session without installed packages.
 */
import type {
  ChatRequest,
  ChatResponse,
  ContextManager,
  EventData,
  HookRegistry,
  HookResult,
  JSONSchema,
  LoadedModule,
  Message,
  ModelInfo,
  ModuleLoaderLike,
  MountFunction,
  MountPoint,
  Provider,
  ProviderInfo,
  Tool,
  ToolCall,
  ToolCallOptions,
  ToolResult,
} from '@amplifier/core';
import { Coordinator, type CoordinatorOptions, dynamicEvent, silentLogger } from '@amplifier/core';

/** A Coordinator that records every mount and unmount (`mountHistory`, `unmountHistory`). */
export class TestCoordinator extends Coordinator {
  readonly mountHistory: { mountPoint: MountPoint; module: unknown; name: string | undefined }[] = [];
  readonly unmountHistory: { mountPoint: MountPoint; name: string | undefined }[] = [];

  override mount(point: MountPoint, module: unknown, options: { name?: string } = {}): void {
    this.mountHistory.push({ mountPoint: point, module, name: options.name });
    super.mount(point, module, options);
  }

  override unmount(point: MountPoint, options: { name?: string } = {}): void {
    this.unmountHistory.push({ mountPoint: point, name: options.name });
    super.unmount(point, options);
  }
}

/**
 * A TestCoordinator with session id `test-session`, a silent logger, tools
 * `echo` and `fail`, and a MockContextManager (mounted directly, so they are not
 * in `mountHistory`). Pass `{ bare: true }` for an empty one.
 */
export function createTestCoordinator(
  options: CoordinatorOptions & { bare?: boolean } = {},
): TestCoordinator {
  const { bare, ...rest } = options;
  const coordinator = new TestCoordinator({ sessionId: 'test-session', logger: silentLogger, ...rest });
  coordinator.hooks.setDefaultFields({ session_id: coordinator.sessionId, parent_id: coordinator.parentId });
  if (!bare) {
    Coordinator.prototype.mount.call(
      coordinator,
      'tools',
      new MockTool({ name: 'echo', output: 'Echo response' }),
    );
    Coordinator.prototype.mount.call(coordinator, 'tools', new MockTool({ name: 'fail', output: null }));
    Coordinator.prototype.mount.call(coordinator, 'context', new MockContextManager());
  }
  return coordinator;
}

/** A tool that returns `{ success: true, output }` and counts its calls. */
export class MockTool implements Tool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JSONSchema = { type: 'object', properties: {} };
  output: unknown;
  callCount = 0;
  readonly inputs: Record<string, unknown>[] = [];

  constructor(options: { name?: string; output?: unknown; description?: string } = {}) {
    this.name = options.name ?? 'mock_tool';
    this.description = options.description ?? `Mock tool: ${this.name}`;
    this.output = 'output' in options ? options.output : 'Success';
  }

  async execute(input: Record<string, unknown>, _options?: ToolCallOptions): Promise<ToolResult> {
    this.callCount++;
    this.inputs.push(input);
    return { success: true, output: this.output };
  }
}

/** An in-memory context manager: `clear` clears, `setMessages` replaces, no compaction. */
export class MockContextManager implements ContextManager {
  messages: Message[];

  constructor(messages: Message[] = []) {
    this.messages = [...messages];
  }
  async addMessage(message: Message): Promise<void> {
    this.messages.push(message);
  }
  async getMessagesForRequest(): Promise<Message[]> {
    return [...this.messages];
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

/**
 * A provider named `mock` that answers every request with `responses` in turn
 * (then repeats the last one), records the requests, and parses tool calls.
 */
export class MockProvider implements Provider {
  readonly name: string;
  readonly requests: ChatRequest[] = [];
  readonly responses: ChatResponse[];
  #next = 0;

  constructor(options: { name?: string; responses?: ChatResponse[] } = {}) {
    this.name = options.name ?? 'mock';
    this.responses = options.responses ?? [{ content: [{ type: 'text', text: 'Mock response' }] }];
  }
  getInfo(): ProviderInfo {
    return {
      id: this.name,
      display_name: 'Mock Provider',
      defaults: { context_window: 200_000, max_output_tokens: 8192 },
    };
  }
  async listModels(): Promise<ModelInfo[]> {
    return [];
  }
  async complete(request: ChatRequest): Promise<ChatResponse> {
    this.requests.push(request);
    const response = this.responses[Math.min(this.#next, this.responses.length - 1)]!;
    this.#next++;
    return structuredClone(response);
  }
  parseToolCalls(response: ChatResponse): ToolCall[] {
    return response.tool_calls ?? [];
  }
}

/**
 * Records events. Use `recorder.attach(hooks)` to record everything a registry
 * emits (registers one handler per event name given, or a wildcard list), or
 * pass it where a HookRegistry-like `emit` is expected.
 */
export class EventRecorder {
  readonly events: [event: string, data: EventData][] = [];

  async emit(event: string, data: EventData = {}): Promise<HookResult> {
    this.events.push([event, { ...data }]);
    return { action: 'continue' };
  }
  /** Alias of `emit`. */
  record(event: string, data: EventData = {}): Promise<HookResult> {
    return this.emit(event, data);
  }
  /** Register a recording handler (lowest priority runs first: -1e9) for each event. */
  attach(hooks: HookRegistry, events: readonly string[]): () => void {
    const offs = events.map((event) =>
      hooks.register(
        dynamicEvent(event),
        (name, data) => {
          this.events.push([name, { ...data }]);
        },
        { priority: -1e9, name: 'event-recorder' },
      ),
    );
    return () => {
      for (const off of offs) off();
    };
  }
  clear(): void {
    this.events.length = 0;
  }
  /** A copy of the recorded events, filtered by name when given. */
  getEvents(event?: string): [string, EventData][] {
    return this.events.filter(([name]) => event === undefined || name === event).map(([n, d]) => [n, d]);
  }
  /** Just the event names, in order. */
  names(): string[] {
    return this.events.map(([name]) => name);
  }
}

/**
 * A loader that hands out in-process modules by id: `AmplifierSession`'s real
 * loading path, minus npm. Each `mount` gets the config the plan gives it;
 * an id not in `modules` fails to load.
 */
export function inProcessLoader(modules: Record<string, MountFunction>): ModuleLoaderLike {
  return {
    async load(id, config = {}): Promise<LoadedModule> {
      const mount = Object.hasOwn(modules, id) ? modules[id] : undefined;
      if (mount === undefined) throw new Error(`inProcessLoader: no module '${id}'`);
      return { id, type: undefined, mount: async (coordinator) => mount(coordinator, config) };
    },
  };
}
