/**
 * Real sessions for the tests: loop-basic, context-simple and provider-mock
 * (dev dependencies) plus this module, loaded in process, and a few tools
 * that show concurrency, failures and cancellation without any sleep.
 */
import { mount as mountContext } from '@amplifier/context-simple';
import {
  AmplifierSession,
  type Coordinator,
  type ModuleLoaderLike,
  type MountFunction,
  type MountPlan,
  silentLogger,
  type Tool,
} from '@amplifier/core';
import { mount as mountLoop } from '@amplifier/loop-basic';
import { mount as mountMock } from '@amplifier/provider-mock';
import { mount } from '../index.js';

/** Two tools that each wait until the other has started: they finish only when run concurrently. */
export function barrierTools(): Tool[] {
  const started: Record<string, () => void> = {};
  const both = {
    a: new Promise<void>((resolve) => {
      started.a = resolve;
    }),
    b: new Promise<void>((resolve) => {
      started.b = resolve;
    }),
  };
  const make = (me: 'a' | 'b', other: 'a' | 'b'): Tool => ({
    name: `wait_${me}`,
    description: `waits for wait_${other}`,
    executionProfile: { resourceKeys: () => [] },
    async execute() {
      started[me]!();
      await both[other];
      return { success: true, output: `${me} done` };
    },
  });
  return [make('a', 'b'), make('b', 'a')];
}

export const failingTool: Tool = {
  name: 'fail_tool',
  description: 'reports a failure',
  executionProfile: { resourceKeys: () => [] },
  async execute() {
    return { success: false, error: { message: 'the file is missing', type: 'NotFound' } };
  },
};

export const throwingTool: Tool = {
  name: 'throw_tool',
  description: 'throws',
  executionProfile: { resourceKeys: () => [] },
  async execute() {
    throw new TypeError('boom');
  },
};

/** A tool that aborts the turn (through `abort`) and waits until its own signal says so. */
export function hangingTool(abort: () => void): Tool {
  return {
    name: 'hang',
    description: 'cancels the turn and waits',
    async execute(_input, options) {
      const signal = options?.signal;
      const stopped = new Promise<void>((resolve) => {
        if (signal?.aborted) resolve();
        signal?.addEventListener('abort', () => resolve(), { once: true });
      });
      abort();
      await stopped;
      return { success: true, output: 'stopped' };
    },
  };
}

export interface SessionOptions {
  script: unknown[];
  tools?: Tool[];
  otel?: Record<string, unknown>;
  parentId?: string;
  sessionId?: string;
  metadata?: Record<string, unknown>;
}

export function createSession(options: SessionOptions): AmplifierSession {
  const mounts: Record<string, MountFunction> = {
    'loop-basic': mountLoop,
    'context-simple': mountContext,
    'provider-mock': mountMock,
    'hooks-otel': mount,
    'test-tools': async (coordinator: Coordinator) => {
      for (const tool of options.tools ?? []) coordinator.mount('tools', tool);
    },
  };
  const loader: ModuleLoaderLike = {
    async load(id, config = {}) {
      return { id, type: undefined, mount: async (coordinator) => mounts[id]!(coordinator, config) };
    },
  };
  const plan: MountPlan = {
    session: {
      orchestrator: 'loop-basic',
      context: 'context-simple',
      ...(options.metadata && { metadata: options.metadata }),
    },
    providers: [{ module: 'provider-mock', config: { script: options.script } }],
    tools: [{ module: 'test-tools' }],
    hooks: [{ module: 'hooks-otel', config: options.otel ?? {} }],
  };
  return new AmplifierSession(plan, {
    loader,
    logger: silentLogger,
    ...(options.parentId !== undefined && { parentId: options.parentId }),
    ...(options.sessionId !== undefined && { sessionId: options.sessionId }),
  });
}
