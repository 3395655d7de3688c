/**
 * An orchestrator for tests of everything around the loop (sessions, hooks,
 * apps): it answers with a script instead of calling a provider.
 */
import type { ContextManager, Coordinator, EventData, Orchestrator, OrchestratorRun } from '@amplifier/core';
import { events } from '@amplifier/core';

/** What ScriptedOrchestrator needs from a run: a context, and something to emit events on. */
export interface ScriptedRun {
  context: ContextManager;
  /** A HookRegistry or an EventRecorder; events are skipped when absent. */
  hooks?: { emit(event: string, data?: EventData): Promise<unknown> };
  coordinator?: Coordinator;
  signal?: AbortSignal;
}

/**
 * Returns `responses` in order, then `"DONE"`. Each turn emits `prompt:submit`
 * `{prompt}`, adds the user message and the assistant message to the context,
 * and emits `prompt:complete` `{prompt, response}`. Records every prompt and
 * the run objects it was given (`runs[i].coordinator` is the session's).
 */
export class ScriptedOrchestrator implements Orchestrator {
  readonly responses: readonly string[];
  callCount = 0;
  readonly prompts: string[] = [];
  readonly runs: ScriptedRun[] = [];

  constructor(responses: readonly string[] = []) {
    this.responses = [...responses];
  }

  async execute(prompt: string, run: OrchestratorRun | ScriptedRun): Promise<string> {
    const response = this.responses[this.callCount] ?? 'DONE';
    this.callCount++;
    this.prompts.push(prompt);
    this.runs.push(run);
    await run.hooks?.emit(events.PROMPT_SUBMIT, { prompt });
    await run.context.addMessage({ role: 'user', content: prompt });
    await run.context.addMessage({ role: 'assistant', content: response });
    await run.hooks?.emit(events.PROMPT_COMPLETE, { prompt, response });
    return response;
  }
}
