/**
 * In-memory fakes for session tests: a loader mapping module ids to plain
 * objects (no packages), a context, providers, an orchestrator whose turns the
 * test sets, the standard modules that log their mounts, and a recorder of
 * emitted events.
 */
import type {
  Cleanup,
  ContextManager,
  LoadedModule,
  LoadOptions,
  Logger,
  ModuleLoaderLike,
  Orchestrator,
  OrchestratorRun,
  Provider,
} from '../contracts.js';
import type { Coordinator } from '../coordinator.js';
import { ModuleNotFoundError } from '../errors.js';
import { dynamicEvent, type EventData } from '../hooks.js';
import type { Message } from '../messages.js';
import type { MountPlan } from '../mount-plan.js';
import { AmplifierSession, type SessionOptions } from '../session.js';

export function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const push =
    (level: string) =>
    (message: string): void => {
      lines.push(`${level}: ${message}`);
    };
  return { lines, debug: push('debug'), info: push('info'), warn: push('warn'), error: push('error') };
}

export interface FakeModule {
  mount(coordinator: Coordinator, config: Record<string, unknown>): Cleanup | void | Promise<Cleanup | void>;
  onSessionReady?(coordinator: Coordinator): void | Promise<void>;
}

/** An in-memory ModuleLoaderLike: module ids map to plain objects, no packages needed. */
export class MemoryLoader implements ModuleLoaderLike {
  readonly loads: { id: string; config: Record<string, unknown>; options: LoadOptions }[] = [];
  cleanups = 0;
  readonly modules: Record<string, FakeModule>;
  constructor(modules: Record<string, FakeModule>) {
    this.modules = modules;
  }
  async load(
    id: string,
    config: Record<string, unknown> = {},
    options: LoadOptions = {},
  ): Promise<LoadedModule> {
    this.loads.push({ id, config, options });
    const module = this.modules[id];
    if (module === undefined) throw new ModuleNotFoundError(id, `Module '${id}' not found`);
    const loaded: LoadedModule = {
      id,
      type: options.type,
      mount: async (coordinator) => (await module.mount(coordinator, config)) ?? undefined,
    };
    const ready = module.onSessionReady;
    if (ready) loaded.onSessionReady = async (coordinator) => ready.call(module, coordinator);
    return loaded;
  }
  cleanup(): void {
    this.cleanups++;
  }
}

export class MemoryContext implements ContextManager {
  readonly messages: Message[] = [];
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
    this.messages.splice(0, this.messages.length, ...messages);
  }
  async clear(): Promise<void> {
    this.messages.length = 0;
  }
}

export function fakeProvider(name: string): Provider {
  return {
    name,
    getInfo: () => ({ id: name, display_name: name }),
    listModels: async () => [],
    complete: async () => ({ content: [{ type: 'text', text: 'hi' }] }),
    parseToolCalls: () => [],
  };
}

export type Turn = (prompt: string, run: OrchestratorRun) => Promise<string>;

/** An orchestrator whose behaviour per turn is set by the test; records every run. */
export class FakeOrchestrator implements Orchestrator {
  readonly runs: { prompt: string; run: OrchestratorRun }[] = [];
  turn: Turn = async (prompt) => `echo: ${prompt}`;
  async execute(prompt: string, run: OrchestratorRun): Promise<string> {
    this.runs.push({ prompt, run });
    return this.turn(prompt, run);
  }
}

/** Standard modules: an orchestrator, a context, providers/tools/hooks that record their mounts in `log`. */
export function standardModules(log: string[] = []) {
  const orchestrator = new FakeOrchestrator();
  const context = new MemoryContext();
  const modules: Record<string, FakeModule> = {
    'loop-basic': {
      mount(c, config) {
        log.push(`mount loop-basic ${JSON.stringify(config)}`);
        c.mount('orchestrator', orchestrator);
        return () => {
          log.push('cleanup loop-basic');
        };
      },
    },
    'context-simple': {
      mount(c, config) {
        log.push(`mount context-simple ${JSON.stringify(config)}`);
        c.mount('context', context);
      },
    },
    'provider-mock': {
      mount(c, config) {
        log.push(`mount provider-mock ${JSON.stringify(config)}`);
        c.mount('providers', Object.assign(fakeProvider('mock'), { config }));
        return async () => {
          log.push('cleanup provider-mock');
        };
      },
    },
    'provider-openai': {
      mount(c, config) {
        log.push(`mount provider-openai ${JSON.stringify(config)}`);
        c.mount('providers', Object.assign(fakeProvider('openai'), { config }));
      },
    },
    'tool-a': {
      mount(c) {
        log.push('mount tool-a');
        c.mount('tools', { name: 'a', description: 'a', execute: async () => ({ success: true }) });
      },
    },
    'tool-b': {
      mount(c) {
        log.push('mount tool-b');
        c.mount('tools', { name: 'b', description: 'b', execute: async () => ({ success: true }) });
      },
    },
    'hooks-x': {
      mount(c) {
        log.push('mount hooks-x');
        return c.hooks.register('tool:pre', () => undefined, { name: 'x' });
      },
    },
  };
  return { orchestrator, context, modules, log };
}

export const basePlan = (): MountPlan => ({
  session: { orchestrator: 'loop-basic', context: 'context-simple' },
  providers: [{ module: 'provider-mock' }],
});

export function makeSession(
  plan: MountPlan = basePlan(),
  options: SessionOptions & { extra?: Record<string, FakeModule> } = {},
) {
  const std = standardModules();
  const { extra, ...rest } = options;
  const loader = new MemoryLoader({ ...std.modules, ...extra });
  const logger = recordingLogger();
  const session = new AmplifierSession(plan, { loader, logger, ...rest });
  return { session, loader, logger, ...std };
}

/** Record every emit of `events` on the session's hooks, in order. */
export function record(session: AmplifierSession, ...events: string[]): [string, EventData][] {
  const seen: [string, EventData][] = [];
  for (const event of events) {
    session.coordinator.hooks.register(dynamicEvent(event), (e, data) => {
      seen.push([e, data]);
    });
  }
  return seen;
}
