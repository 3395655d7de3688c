/**
 * BasicOrchestrator: Amplifier's reference agent loop. Ask the provider, run
 * the tool calls it asks for, repeat until it answers with content; hooks see
 * every step and may deny, modify, inject context or ask the user.
 */
import {
  AmplifierError,
  type ChatRequest,
  type ChatResponse,
  type CompleteOptions,
  type ContextManager,
  type Coordinator,
  type EmitResult,
  errorMessage,
  events,
  type HookRegistry,
  type HookResult,
  type Message,
  type Orchestrator,
  type OrchestratorRun,
  type Provider,
  STEP_CAPABILITY,
  type StepRunner,
  type Tool,
  type ToolCall,
} from '@amplifier/core';
import { AbortHub } from './abort-hub.js';
import { Deadlines } from './call-run.js';
import type { ResolvedConfig } from './config.js';
import { emitBlocks, emitProviderError } from './loop-events.js';
import {
  applyEphemeral,
  assistantMessage,
  type Ephemeral,
  ephemeralOf,
  hasContent,
  parseToolCalls,
  textOf,
} from './messages.js';
import { type RoundContext, runToolRound } from './tool-runner.js';
import { ToolTable } from './tool-table.js';

const E = events;
const NAME = 'loop-basic';
/** The hook name the loop's own hook steps are processed under (injection metadata, approval requests). */
const HOOK_NAME = 'orchestrator';
const CONTINUE: EmitResult = Object.freeze({ action: 'continue' }) as EmitResult;

/** The assistant message stored after an immediate cancellation during tool execution. */
export const CANCELLED_MESSAGE =
  'The previous operation was cancelled. Results from completed tools have been preserved.';

/** The user message of the wrap-up call when `max_iterations` is reached. */
export const LOOP_LIMIT_REMINDER: string =
  '<system-reminder source="orchestrator-loop-limit">\n' +
  'You have reached the maximum number of iterations for this turn. Please provide a response to the user now, summarizing your progress and noting what remains to be done. You can continue in the next turn if needed.\n\n' +
  'DO NOT mention this iteration limit or reminder to the user explicitly. Simply wrap up naturally.\n' +
  '</system-reminder>';

/** State of one `execute` call. */
interface Turn {
  readonly context: ContextManager;
  readonly hooks: HookRegistry;
  readonly coordinator: Coordinator;
  readonly tools: ReadonlyMap<string, Tool>;
  readonly signal: AbortSignal;
  readonly hub: AbortHub;
  readonly round: RoundContext;
  readonly completeOptions: CompleteOptions;
  readonly provider: Provider;
  readonly providerName: string;
  /** The session's `session.step` runner (undefined: provider and tool calls run directly). */
  readonly step: StepRunner | undefined;
  iteration: number;
  cancelRequestedEmitted: boolean;
  pending: Ephemeral[];
}

export class BasicOrchestrator implements Orchestrator {
  readonly config: ResolvedConfig;
  readonly #table: ToolTable;
  readonly #deadlines: Deadlines = new Deadlines();

  constructor(config: ResolvedConfig) {
    this.config = config;
    this.#table = new ToolTable(config.toolAliases);
  }

  async execute(prompt: string, run: OrchestratorRun): Promise<string> {
    const { context, hooks, coordinator, providers, tools } = run;
    const signal = run.signal ?? coordinator.cancellation.signal;

    const submitted = await coordinator.emitAndProcess(E.PROMPT_SUBMIT, { prompt }, HOOK_NAME);
    if (submitted.action === 'deny') return `Operation denied: ${submitted.reason ?? ''}`;
    await context.addMessage({ role: 'user', content: prompt });

    const [providerName, provider] = this.#selectProvider(providers);
    const hub = new AbortHub(signal);
    const step = coordinator.getCapability<StepRunner>(STEP_CAPABILITY);
    let turn: Turn | undefined;
    try {
      turn = {
        context,
        hooks,
        coordinator,
        tools,
        signal,
        hub,
        round: {
          table: this.#table,
          settings: this.config,
          hooks,
          coordinator,
          hub,
          deadlines: this.#deadlines,
          step,
          iteration: () => turn?.iteration ?? 0,
        },
        completeOptions: this.config.extendedThinking ? { signal, extended_thinking: true } : { signal },
        provider,
        providerName,
        step,
        iteration: 0,
        cancelRequestedEmitted: false,
        pending: [],
      };
      return await this.#run(turn, submitted);
    } finally {
      hub.dispose();
    }
  }

  async #run(turn: Turn, submitted: HookResult): Promise<string> {
    const { context, hooks, coordinator, hub, provider, providerName } = turn;
    // An ephemeral injection on prompt:submit goes with the first request.
    pushEphemeral(turn, submitted);

    const { maxIterations, maxEmptyResponses } = this.config;
    let finalContent = '';
    let empties = 0;
    while (maxIterations === -1 || turn.iteration < maxIterations) {
      if (coordinator.cancellation.isCancelled || hub.aborted) return this.#cancel(turn, finalContent);

      const requested = hooks.has(E.PROVIDER_REQUEST)
        ? await coordinator.emitAndProcess(
            E.PROVIDER_REQUEST,
            { provider: providerName, iteration: turn.iteration },
            HOOK_NAME,
          )
        : CONTINUE;
      if (requested.action === 'deny') return `Operation denied: ${requested.reason ?? ''}`;

      const messages = await this.#messagesFor(turn, requested);
      let response: ChatResponse;
      let toolCalls: ToolCall[];
      try {
        response = await this.#complete(turn, messages);
        if (coordinator.cancellation.isImmediate || hub.aborted) return this.#cancel(turn, finalContent);
        toolCalls = parseToolCalls(provider, response);
        if (hooks.has(E.PROVIDER_RESPONSE)) {
          await hooks.emit(E.PROVIDER_RESPONSE, {
            provider: providerName,
            usage: response.usage ?? null,
            tool_calls: toolCalls.length > 0,
          });
        }
        if (hooks.has(E.CONTENT_BLOCK_START) || hooks.has(E.CONTENT_BLOCK_END))
          await emitBlocks(hooks, response, toolCalls);
      } catch (error) {
        if (coordinator.cancellation.isImmediate || hub.aborted) return this.#cancel(turn, finalContent);
        await emitProviderError(hooks, providerName, error);
        throw error;
      }

      if (toolCalls.length > 0) {
        empties = 0;
        await context.addMessage(assistantMessage(response, toolCalls));
        const round = await runToolRound(toolCalls, turn.round);
        for (let i = 0; i < toolCalls.length; i++) {
          await context.addMessage({
            role: 'tool',
            tool_call_id: toolCalls[i]!.id,
            content: round.contents[i]!,
          });
        }
        // Injections from tool:pre and tool:post land after every result of the round.
        for (const { result, event, hookName } of round.injections) {
          try {
            const processed = await coordinator.processHookResult(result, event, hookName);
            pushEphemeral(turn, processed);
          } catch (error) {
            coordinator.logger.warn(
              `${NAME}: injection from '${hookName}' on ${event} dropped: ${errorMessage(error)}`,
            );
          }
        }
        if (coordinator.cancellation.isImmediate || hub.aborted) {
          await context.addMessage({ role: 'assistant', content: CANCELLED_MESSAGE });
          return this.#cancel(turn, finalContent);
        }
        turn.iteration++;
        continue;
      }

      if (hasContent(response.content)) {
        finalContent = textOf(response.content);
        await context.addMessage(assistantMessage(response));
        break;
      }

      turn.iteration++;
      empties++;
      coordinator.logger.warn(`${NAME}: the provider returned an empty response (${empties} in a row)`);
      if (empties >= maxEmptyResponses) {
        const message = `The model returned an empty response ${empties} times in a row, so this turn was ended without an answer. Try again or rephrase the request.`;
        return this.#finish(turn, message, 'incomplete');
      }
    }

    if (maxIterations !== -1 && turn.iteration >= maxIterations && !finalContent) {
      finalContent = await this.#wrapUp(turn);
    }
    return this.#finish(turn, finalContent, finalContent ? 'success' : 'incomplete');
  }

  /** `default_provider` when mounted, else the lowest `priority` (default 100; ties keep Map order). */
  #selectProvider(providers: ReadonlyMap<string, Provider>): [string, Provider] {
    const preferred = this.config.defaultProvider;
    if (preferred !== undefined) {
      const provider = providers.get(preferred);
      if (provider !== undefined) return [preferred, provider];
    }
    let best: [string, Provider] | undefined;
    let bestPriority = Number.POSITIVE_INFINITY;
    for (const [name, provider] of providers) {
      const priority = providerPriority(provider);
      if (priority < bestPriority) {
        best = [name, provider];
        bestPriority = priority;
      }
    }
    if (best === undefined) {
      throw new AmplifierError('SESSION_INVALID', 'No provider available: mount at least one provider');
    }
    return best;
  }

  /** The request view plus this request's ephemeral injections (copied only when there are some). */
  #messagesFor(turn: Turn, requested: HookResult): Promise<Message[]> {
    const view = turn.context.getMessagesForRequest({ provider: turn.provider });
    pushEphemeral(turn, requested);
    if (turn.pending.length === 0) return view;
    const pending = turn.pending;
    turn.pending = [];
    return view.then((messages) => applyEphemeral(messages, pending));
  }

  #complete(turn: Turn, messages: Message[], wrapUp = false): Promise<ChatResponse> {
    this.#table.sync(turn.tools);
    const request: ChatRequest = { messages, tools: this.#table.specs };
    if (this.config.reasoningEffort !== undefined) request.reasoning_effort = this.config.reasoningEffort;
    const step = turn.step;
    if (step === undefined) return turn.hub.race(turn.provider.complete(request, turn.completeOptions));
    const name = wrapUp ? 'llm:wrap-up' : `llm:${turn.iteration}`;
    const info = { kind: 'provider', target: turn.providerName, iteration: turn.iteration } as const;
    return turn.hub.race(step(name, () => turn.provider.complete(request, turn.completeOptions), info));
  }

  /** The reference's wrap-up call after max_iterations: one more answer, tools ignored, errors swallowed. */
  async #wrapUp(turn: Turn): Promise<string> {
    const { hooks, coordinator } = turn;
    try {
      const requested = await coordinator.emitAndProcess(
        E.PROVIDER_REQUEST,
        { provider: turn.providerName, iteration: turn.iteration, max_reached: true },
        HOOK_NAME,
      );
      if (requested.action === 'deny') return '';
      // As the reference: an ephemeral injection (counted against the turn's budget, never stored).
      await coordinator.processHookResult(
        {
          action: 'inject_context',
          context_injection: LOOP_LIMIT_REMINDER,
          context_injection_role: 'system',
          ephemeral: true,
          suppress_output: true,
        },
        E.PROVIDER_REQUEST,
        HOOK_NAME,
      );
      const messages = [...(await this.#messagesFor(turn, requested))];
      messages.push({ role: 'user', content: LOOP_LIMIT_REMINDER });
      const response = await this.#complete(turn, messages, true);
      if (coordinator.cancellation.isImmediate || turn.signal.aborted) return '';
      // Tool calls are ignored here; tool_call blocks are not stored, so no call is left unanswered.
      const content = Array.isArray(response.content)
        ? response.content.filter((block) => block.type !== 'tool_call')
        : response.content;
      if (!hasContent(content)) return '';
      await turn.context.addMessage(assistantMessage({ ...response, content }));
      return textOf(content);
    } catch (error) {
      await emitProviderError(hooks, turn.providerName, error);
      return '';
    }
  }

  /** The cancel sequence (§6.4): cancel:requested once, callbacks, cancel:completed, orchestrator:complete. */
  async #cancel(turn: Turn, finalContent: string): Promise<string> {
    const { hooks, coordinator } = turn;
    const token = coordinator.cancellation;
    if (!turn.cancelRequestedEmitted) {
      turn.cancelRequestedEmitted = true;
      await hooks.emit(E.CANCEL_REQUESTED, {
        orchestrator: NAME,
        state: token.state,
        turn_count: turn.iteration,
      });
      try {
        await token.triggerCallbacks();
      } catch (error) {
        coordinator.logger.warn(`${NAME}: a cancellation callback failed: ${errorMessage(error)}`);
      }
    }
    await hooks.emit(E.CANCEL_COMPLETED, {
      orchestrator: NAME,
      was_immediate: token.isImmediate || turn.signal.aborted,
      turn_count: turn.iteration,
    });
    await hooks.emit(E.ORCHESTRATOR_COMPLETE, {
      orchestrator: NAME,
      turn_count: turn.iteration,
      status: 'cancelled',
    });
    return finalContent;
  }

  async #finish(turn: Turn, finalContent: string, status: 'success' | 'incomplete'): Promise<string> {
    const { hooks } = turn;
    await hooks.emit(E.PROMPT_COMPLETE, {
      response_preview: finalContent.slice(0, 200),
      length: finalContent.length,
    });
    await hooks.emit(E.ORCHESTRATOR_COMPLETE, { orchestrator: NAME, turn_count: turn.iteration, status });
    return finalContent;
  }
}

function providerPriority(provider: Provider): number {
  if (typeof provider.priority === 'number') return provider.priority;
  const config = (provider as { config?: { priority?: unknown } }).config;
  return typeof config?.priority === 'number' ? config.priority : 100;
}

function pushEphemeral(turn: Turn, result: HookResult): void {
  const injection = ephemeralOf(result);
  if (injection !== undefined) turn.pending.push(injection);
}
