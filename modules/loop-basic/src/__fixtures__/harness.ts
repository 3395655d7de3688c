/**
 * Test harness: a coordinator with a MockContextManager, a small scripted
 * provider, recording tools that block on promises the test controls, and
 * one call that runs a turn through the mounted orchestrator.
 */
import {
  ALL_EVENTS,
  type ChatRequest,
  type ChatResponse,
  type CompleteOptions,
  type ExecutionProfile,
  type JSONSchema,
  type ModelInfo,
  type Orchestrator,
  type Provider,
  type ProviderInfo,
  type Tool,
  type ToolCall,
  type ToolCallOptions,
  type ToolResult,
} from '@amplifier/core';
import {
  createTestCoordinator,
  EventRecorder,
  MockContextManager,
  type TestCoordinator,
} from '@amplifier/testing';
import { mount } from '../index.js';

/** A promise with its resolve function exposed. */
export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** The deferred stored under `key`, created on first use. */
export function gateOf(gates: Map<string, Deferred>, key: string): Deferred {
  let gate = gates.get(key);
  if (gate === undefined) {
    gate = deferred();
    gates.set(key, gate);
  }
  return gate;
}

/** Let every pending microtask and I/O callback run (not a timing assumption: no timers involved). */
export async function flush(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Fail instead of hanging when `promise` never settles (a safety net only). */
export function within<T>(promise: Promise<T>, what: string, ms = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`safety net: ${what} did not happen`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

export function text(value: string, extra: Partial<ChatResponse> = {}): ChatResponse {
  return { content: [{ type: 'text', text: value }], ...extra };
}

export function calls(...list: [name: string, args?: Record<string, unknown>, id?: string][]): ChatResponse {
  const toolCalls: ToolCall[] = list.map(([name, args, id], i) => ({
    id: id ?? `call_${i + 1}`,
    name,
    arguments: args ?? {},
  }));
  return { content: [], tool_calls: toolCalls };
}

type Script =
  | ChatResponse
  | Error
  | ((request: ChatRequest, index: number) => ChatResponse | Promise<ChatResponse>);

/** A provider answering from `script` (the last entry repeats), recording requests and options. */
export class ScriptProvider implements Provider {
  readonly name: string;
  readonly priority: number | undefined;
  readonly requests: ChatRequest[] = [];
  readonly options: (CompleteOptions | undefined)[] = [];
  readonly script: Script[];

  constructor(script: Script[], options: { name?: string; priority?: number } = {}) {
    this.name = options.name ?? 'scripted';
    this.priority = options.priority;
    this.script = script;
  }
  getInfo(): ProviderInfo {
    return { id: this.name, display_name: this.name, defaults: { context_window: 100_000 } };
  }
  async listModels(): Promise<ModelInfo[]> {
    return [];
  }
  async complete(request: ChatRequest, options?: CompleteOptions): Promise<ChatResponse> {
    const index = this.requests.length;
    this.requests.push(request);
    this.options.push(options);
    const step = this.script[Math.min(index, this.script.length - 1)]!;
    if (step instanceof Error) throw step;
    if (typeof step === 'function') return step(request, index);
    return structuredClone(step);
  }
  parseToolCalls(response: ChatResponse): ToolCall[] {
    return response.tool_calls ?? [];
  }
}

export interface ToolLogEntry {
  event: 'start' | 'end';
  id: string;
  input: Record<string, unknown>;
}

/** A tool driven by the test: `behave` decides what each call does. */
export class TestTool implements Tool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JSONSchema;
  readonly executionProfile: ExecutionProfile | undefined;
  readonly aliases: readonly string[] | undefined;
  readonly log: ToolLogEntry[];
  readonly signals: AbortSignal[] = [];
  readonly inputs: Record<string, unknown>[] = [];
  behave: (input: Record<string, unknown>, options: ToolCallOptions) => Promise<ToolResult> | ToolResult;

  constructor(options: {
    name: string;
    schema?: JSONSchema;
    profile?: ExecutionProfile;
    aliases?: string[];
    log?: ToolLogEntry[];
    behave?: TestTool['behave'];
  }) {
    this.name = options.name;
    this.description = `test tool ${options.name}`;
    this.inputSchema = options.schema ?? { type: 'object', properties: {} };
    this.executionProfile = options.profile;
    this.aliases = options.aliases;
    this.log = options.log ?? [];
    this.behave = options.behave ?? (() => ({ success: true, output: `${this.name} ok` }));
  }

  async execute(input: Record<string, unknown>, options: ToolCallOptions = {}): Promise<ToolResult> {
    const id = options.toolCallId ?? '?';
    this.inputs.push(input);
    if (options.signal) this.signals.push(options.signal);
    this.log.push({ event: 'start', id, input });
    try {
      return await this.behave(input, options);
    } finally {
      this.log.push({ event: 'end', id, input });
    }
  }
}

/** Resolves with `result` when `signal` aborts (a tool that honours its signal). */
export function untilAborted(signal: AbortSignal | undefined, result: ToolResult): Promise<ToolResult> {
  return new Promise((resolve) => {
    if (signal?.aborted) resolve(result);
    else signal?.addEventListener('abort', () => resolve(result), { once: true });
  });
}

/** A profile that touches nothing (runs concurrently with anything that has a profile). */
export const FREE_PROFILE: ExecutionProfile = { resourceKeys: () => [] };

export interface Harness {
  coordinator: TestCoordinator;
  context: MockContextManager;
  provider: ScriptProvider;
  recorder: EventRecorder;
  orchestrator: Orchestrator;
  run(prompt?: string): Promise<string>;
}

/** Mount loop-basic with `config` on a fresh coordinator with `tools` and a provider answering `script`. */
export function harness(
  script: Script[],
  options: {
    config?: Record<string, unknown>;
    tools?: Tool[];
    provider?: ScriptProvider;
    /** The events the recorder listens to (default: every one; a handler changes the loop's path). */
    events?: readonly string[];
  } = {},
): Harness {
  const coordinator = createTestCoordinator({ bare: true });
  const context = new MockContextManager();
  coordinator.mount('context', context);
  const provider = options.provider ?? new ScriptProvider(script);
  coordinator.mount('providers', provider, { name: provider.name });
  for (const tool of options.tools ?? []) coordinator.mount('tools', tool);
  mount(coordinator, options.config ?? {});
  const orchestrator = coordinator.get('orchestrator')!;
  const recorder = new EventRecorder();
  recorder.attach(coordinator.hooks, options.events ?? ALL_EVENTS);
  return {
    coordinator,
    context,
    provider,
    recorder,
    orchestrator,
    run: (prompt = 'hello') =>
      orchestrator.execute(prompt, {
        context,
        providers: coordinator.get('providers'),
        tools: coordinator.get('tools'),
        hooks: coordinator.hooks,
        coordinator,
        signal: coordinator.cancellation.signal,
      }),
  };
}

/** The tool messages of the context: [tool_call_id, content]. */
export function toolMessages(context: MockContextManager): [string, string][] {
  return context.messages
    .filter((m) => m.role === 'tool')
    .map((m) => [
      m.tool_call_id ?? '',
      typeof m.content === 'string' ? m.content : JSON.stringify(m.content),
    ]);
}
