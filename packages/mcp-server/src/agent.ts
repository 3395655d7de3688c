/**
 * `expose: 'agent'`: the whole agent as one MCP tool, `amplifier_agent
 * {prompt, session_id?}`. Each call is one turn of a conversation the app
 * opens (`AgentBackendOptions.open`); `session_id` continues one. The answer
 * comes back as text and as `structuredContent {text, session_id}`; progress
 * is reported per model call and per tool call (from the conversation's
 * hooks). Conversations stay with the principal that made them (the MCP
 * session over HTTP); over stdio an id the server does not hold is passed to
 * `open` to resume (from the app's storage).
 */
import { type AmplifierSession, type Coordinator, errorMessage, events } from '@amplifier/core';
import { terminalSafe } from '@amplifier/process/terminal';
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { ServeBackend, ServedCallContext } from './protocol.js';

/** The name of the one tool `expose: 'agent'` serves. */
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

/** How one turn ended. */
export type AgentTurnOutcome =
  | { status: 'completed'; answer: string }
  | { status: 'cancelled' }
  | { status: 'failed'; error: unknown };

/** One conversation the agent tool runs turns in (an app's session and how it stores it). */
export interface AgentConversation {
  /** The id the host passes back as `session_id`. */
  readonly sessionId: string;
  /** The session's coordinator: its `provider:request` and `tool:pre` events become progress. */
  readonly coordinator: Coordinator;
  /** Run one turn; `signal` aborts when the host cancels the call or the server stops. */
  turn(prompt: string, signal: AbortSignal): Promise<AgentTurnOutcome>;
  /** End the conversation (session:end, module cleanup). */
  close(): Promise<void>;
}

/** Where the agent tool's conversations come from. */
export interface AgentBackendOptions {
  /**
   * A new conversation (`resume` undefined), or, over stdio only, the stored
   * one with this id (throw when there is none: the message reaches the host).
   */
  open(request: { resume?: string | undefined }): Promise<AgentConversation>;
  /** The text of a failure for the host (default: the error's message). */
  describeError?: ((error: unknown) => string) | undefined;
  /** Where a failed cleanup is reported (default: stderr, terminal-safe). */
  log?: ((message: string) => void) | undefined;
}

interface Entry {
  conversation: AgentConversation;
  owner: string;
  busy: boolean;
}

function failure(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * A conversation over an initialized `AmplifierSession` of the app: a turn is
 * `session.execute(prompt, { signal })`, closing it is `session.cleanup()`.
 */
export function sessionConversation(session: AmplifierSession): AgentConversation {
  return {
    sessionId: session.sessionId,
    coordinator: session.coordinator,
    async turn(prompt, signal) {
      try {
        const answer = await session.execute(prompt, { signal });
        return signal.aborted ? { status: 'cancelled' } : { status: 'completed', answer };
      } catch (error) {
        return signal.aborted ? { status: 'cancelled' } : { status: 'failed', error };
      }
    },
    close: () => session.cleanup(),
  };
}

/** The agent as one tool; see the module comment. */
export class AgentBackend implements ServeBackend {
  readonly #options: AgentBackendOptions;
  readonly #sessions = new Map<string, Entry>();

  /** Serve `amplifier_agent` over the conversations `options.open` gives. */
  constructor(options: AgentBackendOptions) {
    this.#options = options;
  }

  #describe(error: unknown): string {
    return (this.#options.describeError ?? errorMessage)(error);
  }

  /** The one tool, `amplifier_agent`. */
  listTools(): McpTool[] {
    return [AGENT_TOOL_SCHEMA];
  }

  /** Run one turn; `undefined` for any other tool name. */
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
      return failure(`Error: ${this.#describe(error)}`);
    }
    const { conversation } = entry;
    if (entry.busy) {
      return failure(
        `Error: session ${conversation.sessionId} is answering another call; wait for it first.`,
      );
    }
    entry.busy = true;
    const hooks = conversation.coordinator.hooks;
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
    try {
      if (context.signal.aborted) return failure('Error: cancelled before the turn started.');
      const outcome = await conversation.turn(prompt, context.signal);
      const id = conversation.sessionId;
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
      return failure(`Error: ${this.#describe(outcome.error)} (session_id: ${id})`);
    } finally {
      for (const unregister of off) unregister();
      entry.busy = false;
    }
  }

  /** The conversation to run: a new one, one of this principal's, or (over stdio) a stored one. */
  async #entry(sessionId: string | undefined, principal: string): Promise<Entry | string> {
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
    }
    const conversation = await this.#options.open({ resume: sessionId });
    const entry: Entry = { conversation, owner: principal, busy: false };
    this.#sessions.set(conversation.sessionId, entry);
    return entry;
  }

  /** End every conversation. */
  async close(): Promise<void> {
    const entries = [...this.#sessions.values()];
    this.#sessions.clear();
    const log =
      this.#options.log ?? ((message: string) => process.stderr.write(`${terminalSafe(message)}\n`));
    await Promise.all(
      entries.map((e) =>
        e.conversation.close().catch((error: unknown) => log(`cleanup failed: ${errorMessage(error)}`)),
      ),
    );
  }
}
