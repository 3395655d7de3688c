import type { ChatResponse, ContextManager, Message, Tool } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import {
  ArrayContext,
  contextModule,
  EchoProvider,
  greetTool,
  hookModule,
  MiniLoop,
  orchestratorModule,
  providerModule,
  toolModule,
} from './__fixtures__/sample-modules.js';
import {
  type CheckOutcome,
  ConformanceError,
  contextChecks,
  contextConformance,
  hookChecks,
  hookConformance,
  mountForTest,
  orchestratorChecks,
  orchestratorConformance,
  providerChecks,
  providerConformance,
  runConformanceChecks,
  toolChecks,
  toolConformance,
} from './index.js';

// The suites, called the way a module's own test file calls them: they must all pass.
toolConformance({ mount: toolModule(), tools: ['greet'] });
toolConformance({
  mount: toolModule(() => [greetTool(), greetTool({ name: 'greet_twice', aliases: ['greet2'] })]),
});
contextConformance({ mount: contextModule() });
hookConformance({ mount: hookModule(), events: ['tool:pre'] });
orchestratorConformance({ mount: orchestratorModule() });
providerConformance({ mount: providerModule(), config: { api_key: 'test-key' } });

/** The failed checks, by name. */
function failures(outcomes: CheckOutcome[]): Record<string, string> {
  return Object.fromEntries(outcomes.filter((o) => !o.passed).map((o) => [o.name, o.message]));
}

/** The one check whose name contains `fragment`. */
function named(outcomes: CheckOutcome[], fragment: string): CheckOutcome {
  const found = outcomes.filter((o) => o.name.includes(fragment));
  expect(found, `exactly one check named like "${fragment}"`).toHaveLength(1);
  return found[0]!;
}

describe('the suites pass on correct modules (the same checks, run directly)', () => {
  it.each([
    ['tool', toolChecks, { mount: toolModule() }],
    ['context', contextChecks, { mount: contextModule() }],
    ['hook', hookChecks, { mount: hookModule() }],
    ['orchestrator', orchestratorChecks, { mount: orchestratorModule() }],
    ['provider', providerChecks, { mount: providerModule(), config: { api_key: 'k' } }],
  ] as const)('%s checks all pass', async (_type, checks, module) => {
    const outcomes = await runConformanceChecks(checks as typeof toolChecks, module);
    expect(failures(outcomes)).toEqual({});
    expect(outcomes).toHaveLength(checks.length);
    expect(outcomes.length).toBeGreaterThanOrEqual(5);
  });
});

describe('the harness', () => {
  it('runs setup before mount, passes a copy of config, runs onSessionReady, registers the returned cleanup', async () => {
    const order: string[] = [];
    const config = { a: 1 };
    let seen: Record<string, unknown> | undefined;
    const mounted = await mountForTest({
      setup: (c) => {
        order.push('setup');
        c.registerCapability('x', 1);
      },
      mount: (c, cfg) => {
        order.push(`mount:${String(c.getCapability('x'))}`);
        seen = cfg;
        return () => {
          order.push('cleanup');
        };
      },
      onSessionReady: () => order.push('ready'),
      config,
    });
    expect(seen).toEqual({ a: 1 });
    expect(seen).not.toBe(config);
    await mounted.coordinator.cleanup();
    expect(order).toEqual(['setup', 'mount:1', 'ready', 'cleanup']);
  });

  it('a mount that throws fails every check with the module error', async () => {
    const outcomes = await runConformanceChecks(toolChecks, {
      mount: () => {
        throw new Error('config.root is required');
      },
    });
    expect(outcomes.every((o) => !o.passed)).toBe(true);
    for (const o of outcomes)
      expect(o.message).toContain('mount(coordinator, config) threw: config.root is required');
  });

  it('a check that throws a non-conformance error is reported as that check failing', async () => {
    const outcomes = await runConformanceChecks(
      [
        {
          name: 'boom',
          run: async () => {
            throw new TypeError('bug in the check');
          },
        },
      ],
      { mount: () => {} },
    );
    expect(outcomes).toEqual([{ name: 'boom', passed: false, message: 'bug in the check' }]);
    expect(new ConformanceError('x')).toBeInstanceOf(Error);
  });
});

describe('tool checks report broken tools', () => {
  const run = (tools: () => Tool[], names?: string[]) =>
    runConformanceChecks(toolChecks, { mount: toolModule(tools), ...(names && { tools: names }) });

  it('a missing expected tool', async () => {
    const o = named(await run(() => [greetTool()], ['greet', 'wave']), 'expected tools');
    expect(o.message).toContain('expected tools not mounted: wave');
  });

  it('no tools at all', async () => {
    const o = named(await runConformanceChecks(toolChecks, { mount: () => {} }), 'expected tools');
    expect(o.message).toContain('mount registered no tools');
  });

  it('a tool put into the live map without coordinator.mount', async () => {
    const outcomes = await runConformanceChecks(toolChecks, {
      mount: (c) => {
        c.get('tools').set('greet', greetTool());
      },
    });
    expect(named(outcomes, 'expected tools').message).toContain('was not mounted with coordinator.mount');
  });

  it('a name that is not snake_case, a duplicate mount, an alias collision', async () => {
    expect(named(await run(() => [greetTool({ name: 'ReadFile' })]), 'snake_case').message).toContain(
      '"ReadFile" is not snake_case',
    );
    expect(named(await run(() => [greetTool(), greetTool()]), 'snake_case').message).toContain(
      'was mounted 2 times',
    );
    const collide = () => [greetTool(), greetTool({ name: 'hello', aliases: ['greet'] })];
    expect(named(await run(collide), 'snake_case').message).toContain(
      '"greet" is used by both greet and hello',
    );
  });

  it('an empty description', async () => {
    expect(named(await run(() => [greetTool({ description: ' ' })]), 'description').message).toContain(
      'has no description',
    );
  });

  it('an input schema that does not compile or is not an object', async () => {
    const bad = greetTool({ inputSchema: { type: 'object', properties: { n: { type: 'no-such-type' } } } });
    expect(named(await run(() => [bad]), 'inputSchema').message).toContain('does not compile');
    const str = greetTool({ inputSchema: { type: 'string' } });
    expect(named(await run(() => [str]), 'inputSchema').message).toContain('must be "object"');
  });

  it('execute({}) that throws, or returns something that is not a ToolResult', async () => {
    const throws = greetTool({
      execute: async (input) => ({ success: true, output: (input.name as string).toUpperCase() }),
    });
    const o = named(await run(() => [throws]), 'execute({})');
    expect(o.passed).toBe(false);
    expect(o.message).toMatch(/greet\.execute\(\{\}\) rejected: .*toUpperCase/);
    const plain = greetTool({ execute: async () => 'hello' as never });
    expect(named(await run(() => [plain]), 'execute({})').message).toContain('invalid ToolResult');
  });

  it('success: false without an error message', async () => {
    const silent = greetTool({ execute: async () => ({ success: false }) });
    expect(named(await run(() => [silent]), 'execute({})').message).toContain('without error.message');
  });

  it('wrong-typed values that crash the tool', async () => {
    const naive = greetTool({
      execute: async (input) => {
        if (input.name === undefined) return { success: false, error: { message: 'name is required' } };
        return { success: true, output: (input.name as string).trim() };
      },
    });
    const outcomes = await run(() => [naive]);
    expect(named(outcomes, 'execute({})').passed).toBe(true);
    expect(named(outcomes, 'wrong-typed').message).toMatch(
      /greet\.execute\(\{"name":12345,"times":"not a number"\}\) rejected/,
    );
  });

  it('an aborted signal that makes the tool throw', async () => {
    const strict = greetTool({
      execute: async (_input, options) => {
        options?.signal?.throwIfAborted();
        return { success: false, error: { message: 'name is required' } };
      },
    });
    expect(named(await run(() => [strict]), 'aborted').message).toContain(
      'rejected: aborted by the conformance suite',
    );
  });

  it('a malformed execution profile', async () => {
    const badKeys = greetTool({ executionProfile: { resourceKeys: () => [{ key: '', mode: 'read' }] } });
    expect(named(await run(() => [badKeys]), 'executionProfile').message).toContain(
      'each entry must be { key: string',
    );
    const throws = greetTool({
      executionProfile: {
        resourceKeys: (input) => [{ key: `file:${(input.path as string).toString()}`, mode: 'read' }],
      },
    });
    expect(named(await run(() => [throws]), 'executionProfile').message).toContain('resourceKeys({}) threw');
    const badTimeout = greetTool({ executionProfile: { timeoutMs: -1 } });
    expect(named(await run(() => [badTimeout]), 'executionProfile').message).toContain(
      'timeoutMs must be a positive',
    );
  });

  it('a mount that returns something other than a cleanup, and a cleanup that throws', async () => {
    const weird = await runConformanceChecks(toolChecks, {
      mount: ((c: Parameters<ReturnType<typeof toolModule>>[0]) => {
        c.mount('tools', greetTool());
        return 42;
      }) as never,
    });
    expect(named(weird, 'cleanup').message).toContain(
      'must return nothing or a cleanup function, returned 42',
    );
    const throwing = await runConformanceChecks(toolChecks, {
      mount: (c) => {
        c.mount('tools', greetTool());
        return () => {
          throw new Error('socket already closed');
        };
      },
    });
    expect(named(throwing, 'cleanup').message).toContain('socket already closed');
  });
});

describe('context checks report broken contexts', () => {
  const run = (make: () => ContextManager) =>
    runConformanceChecks(contextChecks, { mount: contextModule(make) });

  it('no context mounted, or one with a method missing', async () => {
    expect(
      named(await runConformanceChecks(contextChecks, { mount: () => {} }), 'five methods').message,
    ).toContain('did not mount a context manager');
    const partial = { addMessage: async () => {} } as unknown as ContextManager;
    expect(named(await run(() => partial), 'five methods').message).toContain(
      'lacks getMessagesForRequest, getMessages, setMessages, clear',
    );
  });

  it('the reference MockContextManager bug: clear() that does not clear', async () => {
    class NoClear extends ArrayContext {
      override async clear(): Promise<void> {}
    }
    const f = failures(await run(() => new NoClear()));
    expect(Object.keys(f)).toEqual(['clear empties the context']);
    expect(f['clear empties the context']).toContain('clear() left 4 messages');
  });

  it('getMessages that hands out the live array', async () => {
    class Leaky extends ArrayContext {
      override async getMessages(): Promise<Message[]> {
        return this.messages;
      }
    }
    const f = failures(await run(() => new Leaky()));
    expect(Object.keys(f)).toEqual(['getMessages returns a copy: changing it does not change the history']);
  });

  it('getMessages returning null, setMessages that ignores its input, lost order', async () => {
    class Nullish extends ArrayContext {
      override async getMessages(): Promise<Message[]> {
        return (this.messages.length ? [...this.messages] : null) as Message[];
      }
    }
    expect(named(await run(() => new Nullish()), 'empty context').message).toContain(
      'must return an array, returned null',
    );
    class Stubborn extends ArrayContext {
      override async setMessages(): Promise<void> {}
    }
    expect(named(await run(() => new Stubborn()), 'setMessages').message).toContain(
      'after setMessages: expected 4',
    );
    class Reversed extends ArrayContext {
      override async getMessages(): Promise<Message[]> {
        return [...this.messages].reverse();
      }
    }
    expect(named(await run(() => new Reversed()), 'order').passed).toBe(false);
  });

  it('a request view without the last user message, or one that compacts the history itself', async () => {
    class Forgetful extends ArrayContext {
      override async getMessagesForRequest(): Promise<Message[]> {
        return this.messages.slice(0, -1);
      }
    }
    expect(named(await run(() => new Forgetful()), 'last user message').message).toContain(
      'does not contain the last user message',
    );
    class Destructive extends ArrayContext {
      override async getMessagesForRequest(): Promise<Message[]> {
        this.messages = this.messages.slice(-1);
        return [...this.messages];
      }
    }
    expect(named(await run(() => new Destructive()), 'last user message').message).toContain(
      'history after getMessagesForRequest',
    );
  });

  it('a context that crashes on an odd message', async () => {
    class Fragile extends ArrayContext {
      override async addMessage(message: Message): Promise<void> {
        if ((message.content as string).length > 40_000) throw new RangeError('too long'); // not a deliberate refusal
        this.messages.push(message);
      }
    }
    expect(named(await run(() => new Fragile()), 'odd messages').message).toContain('crashed');
    class TypeErrorOnMissing extends ArrayContext {
      override async addMessage(message: Message): Promise<void> {
        message.content.slice(0);
        this.messages.push(message);
      }
    }
    expect(named(await run(() => new TypeErrorOnMissing()), 'odd messages').message).toContain(
      'addMessage({"invalid":"message"}) crashed',
    );
    class Refuses extends ArrayContext {
      override async addMessage(message: Message): Promise<void> {
        if (typeof message.role !== 'string') throw new Error('message.role is required');
        this.messages.push(message);
      }
    }
    expect(named(await run(() => new Refuses()), 'odd messages').passed).toBe(true);
  });
});

describe('hook checks report broken hooks', () => {
  it('a hook module that registers nothing', async () => {
    const f = failures(await runConformanceChecks(hookChecks, { mount: () => {} }));
    expect(f['mount registers at least one handler (one for every expected event)']).toContain(
      'mount registered no hook handlers',
    );
  });

  it('an expected event without a handler; handlers registered by setup do not count', async () => {
    const outcomes = await runConformanceChecks(hookChecks, {
      setup: (c) => {
        c.hooks.register('tool:post', () => {});
      },
      mount: hookModule(),
      events: ['tool:post'],
    });
    expect(named(outcomes, 'at least one handler').passed).toBe(true);
    const none = await runConformanceChecks(hookChecks, {
      setup: (c) => {
        c.hooks.register('tool:pre', () => {});
      },
      mount: () => {},
    });
    expect(named(none, 'at least one handler').message).toContain('registered no hook handlers');
    const missing = await runConformanceChecks(hookChecks, { mount: hookModule(), events: ['tool:error'] });
    expect(named(missing, 'at least one handler').message).toContain(
      'no handler registered for expected events: tool:error',
    );
  });

  it('a handler that throws on odd data', async () => {
    const outcomes = await runConformanceChecks(hookChecks, {
      mount: (c) => {
        c.hooks.register('tool:pre', (_e, data) => {
          if ((data.tool_name as string).startsWith('mcp_')) return { action: 'deny' };
          return undefined;
        });
      },
    });
    expect(named(outcomes, 'empty data').message).toMatch(/failed on tool:pre/);
    expect(named(outcomes, 'odd data').message).toMatch(/failed on tool:pre/);
  });

  it('a handler that only breaks on odd data', async () => {
    const outcomes = await runConformanceChecks(hookChecks, {
      mount: (c) => {
        c.hooks.register('tool:pre', (_e, data) => {
          const input = (data.tool_input ?? {}) as Record<string, unknown>;
          return input.command === undefined ? undefined : { action: 'deny', reason: String(input.command) };
        });
      },
    });
    expect(named(outcomes, 'empty data').passed).toBe(true);
    expect(named(outcomes, 'odd data').passed).toBe(true);
    const fragile = await runConformanceChecks(hookChecks, {
      mount: (c) => {
        c.hooks.register('tool:pre', (_e, data) => {
          if (data.tool_input === undefined) return undefined;
          return { action: 'deny', reason: (data.tool_input as { command: string }).command.trim() };
        });
      },
    });
    expect(named(fragile, 'empty data').passed).toBe(true);
    expect(named(fragile, 'odd data').message).toContain('failed on tool:pre');
  });

  it('a handler that returns an invalid HookResult', async () => {
    const outcomes = await runConformanceChecks(hookChecks, {
      mount: (c) => {
        c.hooks.register('tool:pre', () => ({ action: 'block' }) as never);
      },
    });
    expect(named(outcomes, 'empty data').message).toContain('invalid HookResult');
    const badField = await runConformanceChecks(hookChecks, {
      mount: (c) => {
        c.hooks.register('tool:pre', () => ({ action: 'deny', reason: 42 }) as never);
      },
    });
    expect(named(badField, 'empty data').message).toContain('reason must be string or null');
  });

  it('handlers that break after cleanup, and a cleanup that throws', async () => {
    const outcomes = await runConformanceChecks(hookChecks, {
      mount: (c) => {
        let closed = false;
        c.hooks.register('session:end', () => {
          if (closed) throw new Error('write after end');
        });
        return () => {
          closed = true;
        };
      },
    });
    expect(named(outcomes, 'after cleanup').message).toContain('write after end');
    const throwing = await runConformanceChecks(hookChecks, {
      mount: (c) => {
        const off = c.hooks.register('session:end', () => {});
        return () => {
          off();
          throw new Error('flush failed');
        };
      },
    });
    expect(named(throwing, 'after cleanup').message).toContain('flush failed');
    expect(named(throwing, 'cleanup runs').message).toContain('flush failed');
  });
});

describe('orchestrator checks report broken orchestrators', () => {
  const run = (execute: MiniLoop['execute']) =>
    runConformanceChecks(orchestratorChecks, { mount: orchestratorModule(() => ({ execute })) });

  it('nothing mounted', async () => {
    const f = failures(await runConformanceChecks(orchestratorChecks, { mount: () => {} }));
    expect(f['mount mounts an orchestrator with an execute function']).toContain(
      'did not mount an orchestrator',
    );
  });

  it('a loop that returns a non-string, never calls the provider, or forgets the context', async () => {
    expect(named(await run(async () => ({ text: 'hi' }) as never), 'non-empty string').message).toContain(
      'execute must resolve to a string',
    );
    const lazy = await run(async () => 'I did not ask anyone');
    expect(named(lazy, 'provider was called').message).toContain('the provider was never called');
    expect(named(lazy, 'context got').message).toContain('no user message with the prompt');
    const noHistory = await run(async (prompt, r) => {
      const provider = [...r.providers.values()][0]!;
      const response = await provider.complete({ messages: [{ role: 'user', content: prompt }] });
      return response.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    });
    expect(named(noHistory, 'provider was called').passed).toBe(true);
    expect(named(noHistory, 'context got').passed).toBe(false);
  });

  it('a loop that crashes on an empty prompt', async () => {
    const loop = new MiniLoop();
    const outcomes = await run(async (prompt, r) => {
      if (prompt.length === 0) throw new TypeError("Cannot read properties of undefined (reading 'trim')");
      return loop.execute(prompt, r);
    });
    expect(named(outcomes, 'empty prompt').message).toContain('rejected');
    expect(named(outcomes, 'non-empty string').passed).toBe(true);
  });

  it('a loop that ignores tool calls', async () => {
    const outcomes = await run(async (prompt, r) => {
      await r.context.addMessage({ role: 'user', content: prompt });
      const response: ChatResponse = await [...r.providers.values()][0]!.complete({
        messages: await r.context.getMessagesForRequest(),
      });
      const text = response.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      await r.context.addMessage({ role: 'assistant', content: text });
      return text;
    });
    expect(named(outcomes, 'tool call').message).toContain('mock_tool was called 0 times');
    expect(named(outcomes, 'context got').passed).toBe(true);
  });
});

describe('provider checks report broken providers', () => {
  const run = (provider: object) =>
    runConformanceChecks(providerChecks, { mount: (c) => c.mount('providers', provider, { name: 'p' }) });

  it('a provider that does not mount without credentials', async () => {
    const f = failures(await runConformanceChecks(providerChecks, { mount: providerModule() }));
    expect(Object.keys(f)).toHaveLength(providerChecks.length - 1); // all but the cleanup check
    expect(f['mount mounts a provider with a non-empty name']).toContain('pass them in config');
  });

  it('bad info, bad models, an invalid ChatResponse, a parseToolCalls that drops calls', async () => {
    class Broken extends EchoProvider {
      override getInfo() {
        return { id: 'broken' } as never;
      }
      override async listModels() {
        return null as never;
      }
      override async complete() {
        return { text: 'hello' } as never;
      }
      override parseToolCalls() {
        return [];
      }
    }
    const f = failures(await run(new Broken()));
    expect(f['getInfo returns an id and a display_name']).toContain('display_name');
    expect(f['listModels returns an array of models with ids']).toContain(
      'must return an array, returned null',
    );
    expect(f['complete on a minimal request returns a valid ChatResponse']).toContain('content is required');
    expect(f['parseToolCalls returns an array of { id, name, arguments }']).toContain('content is required');

    class DropsCalls extends EchoProvider {
      override parseToolCalls() {
        return [];
      }
    }
    expect(
      failures(await run(new DropsCalls()))['parseToolCalls returns an array of { id, name, arguments }'],
    ).toContain("the response's tool_calls must come back");
  });

  it('a provider whose name is empty', async () => {
    class Nameless extends EchoProvider {
      override readonly name = '' as never;
    }
    expect(named(await run(new Nameless()), 'non-empty name').message).toContain(
      'provider name must be a non-empty string',
    );
  });
});
