/**
 * `amplifier mcp serve --agent`: the conversations of `@amplifier/mcp-server`'s
 * agent tool are stored sessions, as `amplifier run` stores them (a
 * `SessionRunner` each); over stdio a `session_id` the server does not hold
 * resumes the stored session. Everything the display prints goes to stderr:
 * stdout is the protocol's.
 */
import type { AgentBackendOptions, AgentConversation } from '@amplifier/mcp-server';
import { Display } from './display.js';
import { describeError } from './errors.js';
import type { ResolvedPlan } from './plan.js';
import { SessionRunner } from './runner.js';
import type { SessionRecord, SessionStore } from './sessions.js';

export interface CliAgentOptions {
  resolved: ResolvedPlan;
  cwd: string;
  store: SessionStore;
  verbose: boolean;
  systemPrompt?: (() => Promise<string | undefined>) | undefined;
}

/** One stored session as a conversation; the host's cancel cancels the turn at once. */
function conversation(runner: SessionRunner): AgentConversation {
  return {
    sessionId: runner.sessionId,
    coordinator: runner.session.coordinator,
    async turn(prompt, signal) {
      const onAbort = (): void =>
        void runner.session.coordinator.requestCancel({ immediate: true }).catch(() => {});
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        const outcome = await runner.turn(prompt);
        if (outcome.status === 'completed') return { status: 'completed', answer: outcome.answer };
        if (outcome.status === 'cancelled') return { status: 'cancelled' };
        return { status: 'failed', error: outcome.error };
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    },
    close: () => runner.close(),
  };
}

/** The agent tool's options: new sessions from the plan, stored ones resumed by id. */
export function cliAgentOptions(options: CliAgentOptions): AgentBackendOptions {
  const { resolved, cwd, store, systemPrompt, verbose } = options;
  return {
    describeError: (error) => describeError(error, verbose).message,
    async open({ resume }) {
      const record: SessionRecord | undefined = resume === undefined ? undefined : store.find(resume, cwd);
      const runner = await SessionRunner.open({
        resolved,
        cwd,
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
      return conversation(runner);
    },
  };
}
