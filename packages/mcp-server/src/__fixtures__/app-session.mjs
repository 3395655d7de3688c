/**
 * An app's session, no CLI: modules kept in memory (an orchestrator that
 * echoes, a context, a provider that is never called, two tools and a hook
 * that denies), started with `new AmplifierSession(plan, { loader })`.
 *
 * - `echo {text}` answers `echo: <text>`; `slow {steps}` reports progress,
 *   then waits for its signal and records the abort in `state.aborted`.
 * - The hook denies any call whose `text` is `forbidden`.
 */
import { AmplifierSession } from '@amplifier/core';

export async function openAppSession() {
  const state = { aborted: 0, events: [] };
  const modules = {
    orchestrator: (c) => {
      c.mount('orchestrator', {
        async execute(prompt) {
          await c.hooks.emit('provider:request', { provider: 'fake' });
          if (prompt === 'fail') throw new Error('the model is away');
          const context = c.get('context');
          await context.addMessage({ role: 'user', content: prompt });
          const turns = (await context.getMessages()).length;
          return `echo: ${prompt} (turn ${turns})`;
        },
      });
    },
    context: (c) => {
      const messages = [];
      c.mount('context', {
        addMessage: async (m) => void messages.push(m),
        getMessagesForRequest: async () => [...messages],
        getMessages: async () => [...messages],
        setMessages: async (all) => void messages.splice(0, messages.length, ...all),
        clear: async () => void messages.splice(0),
      });
    },
    provider: (c) => {
      c.mount('providers', {
        name: 'fake',
        getInfo: () => ({ id: 'fake', display_name: 'fake' }),
        listModels: async () => [],
        complete: async () => ({ content: [{ type: 'text', text: 'unused' }] }),
        parseToolCalls: () => [],
      });
    },
    tools: (c) => {
      c.mount('tools', {
        name: 'echo',
        description: 'Answers with its text.',
        inputSchema: {
          type: 'object',
          properties: { text: { type: 'string' } },
          required: ['text'],
          additionalProperties: false,
        },
        execute: async (input) => ({ success: true, output: `echo: ${input.text}` }),
      });
      c.mount('tools', {
        name: 'slow',
        description: 'Reports progress, then waits until it is cancelled.',
        inputSchema: { type: 'object', properties: { steps: { type: 'integer' } } },
        async execute(input, options) {
          const steps = input.steps ?? 2;
          for (let i = 1; i <= steps; i++)
            options.onProgress?.({ progress: i, total: steps, message: `step ${i}` });
          await new Promise((resolve) => {
            if (options.signal.aborted) return resolve();
            options.signal.addEventListener('abort', resolve, { once: true });
          });
          state.aborted++;
          return { success: false, error: { message: 'aborted' } };
        },
      });
      c.mount('tools', {
        name: 'mcp_proxied',
        description: 'A tool another MCP server gave this session.',
        execute: async () => ({ success: true, output: 'proxied' }),
      });
    },
    hooks: (c) =>
      c.hooks.register('tool:pre', (event, data) => {
        state.events.push(`${event} ${data.tool_name}`);
        if (data.tool_input?.text === 'forbidden') return { action: 'deny', reason: 'no forbidden text' };
        return undefined;
      }),
  };
  const loader = {
    async load(id, _config, options = {}) {
      const mount = modules[id];
      if (mount === undefined) throw new Error(`no module ${id}`);
      return { id, type: options.type, mount: async (c) => mount(c) ?? undefined };
    },
  };
  const plan = {
    session: { orchestrator: 'orchestrator', context: 'context' },
    providers: [{ module: 'provider' }],
    tools: [{ module: 'tools' }],
    hooks: [{ module: 'hooks' }],
  };
  const session = new AmplifierSession(plan, { loader });
  await session.initialize();
  return { session, state };
}
