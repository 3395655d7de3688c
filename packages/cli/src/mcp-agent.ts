/**
 * `amplifier mcp serve --agent`: the whole agent as one MCP tool,
 * `amplifier_agent {prompt, session_id?}`. Each call is one turn of a stored
 * session (as `amplifier run` stores them); `session_id` continues one. The
 * answer comes back as text and as `structuredContent {text, session_id}`;
 * progress is reported per model call and per tool call. Sessions stay with
 * the principal that made them (the MCP session over HTTP).
 */
import { errorMessage, events } from '@amplifier/core';
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { Display } from './display.js';
import { describeError } from './errors.js';
import type { ServeBackend, ServedCallContext } from './mcp-server.js';
import type { ResolvedPlan } from './plan.js';
import { SessionRunner } from './runner.js';
import type { SessionRecord, SessionStore } from './sessions.js';

export const AGENT_TOOL = 'amplifier_agent';

const AGENT_TOOL_SCHEMA: McpTool = {
  name: AGENT_TOOL,
  description:
    'Run the Amplifier agent (its model, tools and hooks) on a prompt and return its final answer. ' +
    'Pass the session_id of an earlier answer to continue that conversation.',
  inputSchema: {
    type: 'object',
    properties: {
      prompt: { type: 'string', minLength: 1, description: 'What the agent should do.' },
      session_id: {
        type: 'string',
        description: 'Continue this session (from an earlier answer); omit to start a new one.',
      },
    },
    required: ['prompt'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      text: { type: 'string', description: "The agent's final answer." },
      session_id: { type: 'string', description: 'Pass it back to continue this conversation.' },
    },
    required: ['text', 'session_id'],
  },
};

export interface AgentBackendOptions {
  resolved: ResolvedPlan;
  cwd: string;
  store: SessionStore;
  verbose: boolean;
  systemPrompt?: (() => Promise<string | undefined>) | undefined;
}

interface Entry {
  runner: SessionRunner;
  owner: string;
  busy: boolean;
}

function failure(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

export class AgentBackend implements ServeBackend {
  readonly #options: AgentBackendOptions;
  readonly #sessions = new Map<string, Entry>();

  constructor(options: AgentBackendOptions) {
    this.#options = options;
  }

  listTools(): McpTool[] {
    return [AGENT_TOOL_SCHEMA];
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    context: ServedCallContext,
  ): Promise<CallToolResult | undefined> {
    if (name !== AGENT_TOOL) return undefined;
    const { prompt, session_id: sessionId } = args;
    if (typeof prompt !== 'string' || prompt.trim() === '') {
      return failure('Error: invalid input: prompt must be a non-empty string.');
    }
    if (sessionId !== undefined && typeof sessionId !== 'string') {
      return failure('Error: invalid input: session_id must be a string (from an earlier answer).');
    }
    const unknownKey = Object.keys(args).find((k) => k !== 'prompt' && k !== 'session_id');
    if (unknownKey !== undefined) {
      return failure(`Error: invalid input: unknown argument '${unknownKey}' (only prompt and session_id).`);
    }
    let entry: Entry;
    try {
      const found = await this.#entry(sessionId, context.principal);
      if (typeof found === 'string') return failure(found);
      entry = found;
    } catch (error) {
      return failure(`Error: ${describeError(error, this.#options.verbose).message}`);
    }
    if (entry.busy) {
      return failure(
        `Error: session ${entry.runner.sessionId} is answering another call; wait for it first.`,
      );
    }
    entry.busy = true;
    const { runner } = entry;
    const hooks = runner.session.coordinator.hooks;
    let calls = 0;
    const off = [
      hooks.register(events.PROVIDER_REQUEST, () => {
        context.progress({ message: `model call ${++calls}` }, { each: true });
        return undefined;
      }),
      hooks.register(events.TOOL_PRE, (_event, data) => {
        context.progress({ message: `tool ${String(data.tool_name)}` }, { each: true });
        return undefined;
      }),
    ];
    const onAbort = (): void =>
      void runner.session.coordinator.requestCancel({ immediate: true }).catch(() => {});
    context.signal.addEventListener('abort', onAbort, { once: true });
    try {
      if (context.signal.aborted) return failure('Error: cancelled before the turn started.');
      const outcome = await runner.turn(prompt);
      const id = runner.sessionId;
      if (outcome.status === 'completed') {
        return {
          content: [
            { type: 'text', text: outcome.answer },
            { type: 'text', text: `session_id: ${id}` },
          ],
          structuredContent: { text: outcome.answer, session_id: id },
        };
      }
      if (outcome.status === 'cancelled') return failure(`The turn was cancelled (session_id: ${id}).`);
      return failure(
        `Error: ${describeError(outcome.error, this.#options.verbose).message} (session_id: ${id})`,
      );
    } finally {
      context.signal.removeEventListener('abort', onAbort);
      for (const unregister of off) unregister();
      entry.busy = false;
    }
  }

  /** The session to run: a new one, one of this principal's, or (over stdio) a stored one. */
  async #entry(sessionId: string | undefined, principal: string): Promise<Entry | string> {
    let record: SessionRecord | undefined;
    if (sessionId !== undefined) {
      const live = this.#sessions.get(sessionId);
      if (live !== undefined) {
        return live.owner === principal
          ? live
          : `Error: session ${sessionId} belongs to another client; start a new one (omit session_id).`;
      }
      if (principal !== 'stdio') {
        return `Error: no session ${sessionId} in this connection; start a new one (omit session_id).`;
      }
      record = this.#options.store.find(sessionId, this.#options.cwd);
    }
    const { resolved, cwd, store, systemPrompt, verbose } = this.#options;
    const runner = await SessionRunner.open({
      resolved,
      cwd,
      // Everything the display prints (tool lines, streamed text) goes to stderr: stdout is the protocol's.
      display: new Display({ stdout: process.stderr, stderr: process.stderr, verbose }),
      store,
      record,
      systemPrompt,
      interactive: false,
      remember: {
        bundle: resolved.bundle ?? null,
        sources: null,
        provider:
          resolved.planFile !== undefined || resolved.bundle !== undefined ? null : resolved.provider.name,
        model: resolved.model ?? null,
        max_iterations: null,
      },
    });
    const entry: Entry = { runner, owner: principal, busy: false };
    this.#sessions.set(runner.sessionId, entry);
    return entry;
  }

  /** End every session (session:end, module cleanup, final metadata). */
  async close(): Promise<void> {
    const entries = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(
      entries.map((e) =>
        e.runner
          .close()
          .catch((error: unknown) => process.stderr.write(`cleanup failed: ${errorMessage(error)}\n`)),
      ),
    );
  }
}
