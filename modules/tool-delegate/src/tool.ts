/**
 * The `delegate` tool: runs a named agent (or `self`) as a child session
 * through the app's `session.spawn` capability, or continues one through
 * `session.resume`, and answers the child's final response. It decides only
 * what the reference's tool decides (input checks, limits, inherited context,
 * provider preferences, events); which modules and providers a child gets is
 * the spawner's policy.
 */
import {
  type Coordinator,
  DELEGATION_DEPTH_CAPABILITY,
  type EventPayload,
  type ExecutionProfile,
  errorMessage,
  getOwn,
  isPlainObject,
  type JSONSchema,
  type ProviderPreference,
  RESUME_CAPABILITY,
  type ResumeCapability,
  SELF_DELEGATION_DEPTH_CAPABILITY,
  SPAWN_CAPABILITY,
  type SpawnCapability,
  type SpawnResult,
  type SpawnUsage,
  type SubSessions,
  type Tool,
  type ToolCallOptions,
  type ToolResult,
} from '@amplifier/core';
import { type ChildOutcome, runChild } from './child-run.js';
import type { DelegateConfig } from './config.js';
import {
  buildInheritedContext,
  CONTEXT_DEPTHS,
  CONTEXT_SCOPES,
  type ContextDepth,
  type ContextScope,
  withInheritedContext,
} from './context-inheritance.js';
import {
  AGENT_CANCELLED,
  AGENT_COMPLETED,
  AGENT_RESUMED,
  AGENT_SPAWNED,
  DELEGATE_ERROR,
  type DelegateEventName,
} from './events.js';
import {
  checkChildren,
  checkDepth,
  checkSelfDepth,
  checkSubSessions,
  depthOf,
  type LimitError,
} from './limits.js';
import { providerPreferences, type RosterAgent, readRoster, rosterLines } from './roster.js';
import { subSessionId } from './sub-session-id.js';
import type { UsageLedger } from './usage-ledger.js';

/** The capability that maps a `model_role` to provider preferences (optional `known_roles` on the function). */
export const MODEL_ROLE_RESOLVER_CAPABILITY = 'model_role_resolver';

/** What `model_role_resolver` is: a function, optionally listing the roles it knows. */
export type ModelRoleResolver = ((role: string) => unknown) & { known_roles?: readonly string[] };

const DEFAULT_DEPTH: ContextDepth = 'recent';
const DEFAULT_TURNS = 5;
const DEFAULT_SCOPE: ContextScope = 'conversation';

const DESCRIPTION = `Delegate a task to an agent: it runs as a separate sub-session with its own context and tools, works on the instruction alone, and answers with its final response (and a session_id).
- agent: a name from the list below, or "self" for a copy of this session's configuration.
- instruction: everything the agent needs to know; it sees the parent conversation only as the context_depth/context_scope inheritance gives it (default: the last 5 turns of user and assistant messages).
- session_id: continue an earlier agent session (from its result) instead of starting a new one.
Several delegate calls in one response run at the same time.`;

function failure(message: string, extra: Record<string, unknown> = {}): ToolResult {
  return { success: false, error: { message, ...extra } };
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function pythonList(names: readonly string[]): string {
  return `[${names.map((n) => `'${n}'`).join(', ')}]`;
}

/** A SpawnResult-shaped answer, or why it is not one. */
function spawnResultOf(value: unknown): SpawnResult | string {
  if (!isPlainObject(value))
    return `it answered ${value === null ? 'null' : typeof value}, not a result object`;
  const status = getOwn(value, 'status');
  if (status !== 'success' && status !== 'error' && status !== 'cancelled') {
    return `its result has status ${JSON.stringify(status)} (wanted success, error or cancelled)`;
  }
  return value as unknown as SpawnResult;
}

function usageOf(value: unknown): SpawnUsage | undefined {
  if (!isPlainObject(value)) return undefined;
  const input = getOwn(value, 'input_tokens');
  const output = getOwn(value, 'output_tokens');
  const cost = getOwn(value, 'cost_usd');
  if (typeof input !== 'number' || typeof output !== 'number') return undefined;
  return { input_tokens: input, output_tokens: output, ...(typeof cost === 'number' && { cost_usd: cost }) };
}

/** Fields every event of one delegation carries. */
type Delegation = {
  agent: string;
  sub_session_id: string;
  parent_session_id: string;
  tool_call_id: string | null;
  parallel_group_id: string | null;
};

function isNotFound(value: unknown): boolean {
  const code = isPlainObject(value) || value instanceof Error ? getOwn(value, 'code') : undefined;
  return code === 'SESSION_NOT_FOUND';
}

export class DelegateTool implements Tool {
  readonly name: string = 'delegate';
  /** Touches no resource: delegations of one response run concurrently; the tool keeps its own deadline. */
  readonly executionProfile: ExecutionProfile = { resourceKeys: () => [], disableTimeout: true };
  /** Each call runs an agent as a sub-session; while it runs, cancellation lists it by the agent's name. */
  readonly subSessions: SubSessions = {
    sessionName: (input) => {
      const agent = getOwn(input, 'agent');
      return typeof agent === 'string' && agent !== '' ? agent : undefined;
    },
  };
  readonly #coordinator: Coordinator;
  readonly #config: DelegateConfig;
  readonly #roster: readonly RosterAgent[];
  readonly #usage: UsageLedger;
  /** Children started by this session (a reservation is taken before the spawn starts). */
  #started = 0;

  constructor(coordinator: Coordinator, config: DelegateConfig, usage: UsageLedger) {
    this.#coordinator = coordinator;
    this.#config = config;
    this.#roster = readRoster(coordinator.config.agents);
    this.#usage = usage;
  }

  get description(): string {
    return `${DESCRIPTION}${rosterLines(this.#roster)}`;
  }

  get inputSchema(): JSONSchema {
    const resolver = this.#resolver();
    const roles = resolver?.known_roles;
    const properties: Record<string, JSONSchema> = {
      instruction: { type: 'string', description: 'The task for the agent, complete and self-contained.' },
      agent: {
        type: 'string',
        description:
          'The agent to run: a name from the Available agents list, or "self". Not needed with session_id.',
      },
      session_id: {
        type: 'string',
        description: 'Continue this earlier agent session (its session_id) instead of starting a new one.',
      },
      context_depth: {
        type: 'string',
        enum: [...CONTEXT_DEPTHS],
        description:
          'How much of this conversation the agent sees: none, recent (the last context_turns turns) or all. Default: recent.',
      },
      context_turns: {
        type: 'integer',
        minimum: 1,
        description: `Turns of context for context_depth recent (default ${DEFAULT_TURNS}, at most ${this.#config.context_inheritance.max_turns}).`,
      },
      context_scope: {
        type: 'string',
        enum: [...CONTEXT_SCOPES],
        description:
          'What the inherited context holds: conversation (user and assistant text), agents (plus earlier agent results) or full (plus every tool result). Default: conversation.',
      },
    };
    if (this.#config.provider_selection) {
      properties.provider_preferences = {
        type: 'array',
        description: 'Providers (and models, globs allowed) for the agent, first available wins.',
        items: {
          type: 'object',
          properties: { provider: { type: 'string' }, model: { type: 'string' } },
          required: ['provider'],
        },
      };
    }
    if (resolver !== undefined) {
      properties.model_role = {
        type: 'string',
        description: 'A model role for the agent (resolved to provider preferences).',
        ...(Array.isArray(roles) && roles.length > 0 && { enum: [...roles] }),
      };
    }
    return { type: 'object', properties, required: ['instruction'] };
  }

  #resolver(): ModelRoleResolver | undefined {
    const value = this.#coordinator.getCapability(MODEL_ROLE_RESOLVER_CAPABILITY);
    return typeof value === 'function' ? (value as ModelRoleResolver) : undefined;
  }

  async execute(input: Record<string, unknown>, options: ToolCallOptions = {}): Promise<ToolResult> {
    try {
      return await this.#execute(input, options);
    } catch (error) {
      // Only a bug of this tool gets here (the children's failures are results).
      return failure(
        `Agent delegation failed (${error instanceof Error ? error.name : 'Error'}): ${errorMessage(error)}`,
      );
    }
  }

  async #execute(input: Record<string, unknown>, options: ToolCallOptions): Promise<ToolResult> {
    const instruction = text(getOwn(input, 'instruction'))?.trim() ?? '';
    if (instruction === '') return failure('Instruction cannot be empty');
    const sessionId = text(getOwn(input, 'session_id'))?.trim() ?? '';
    if (sessionId !== '') {
      if (!this.#config.session_resume) return failure('Session resumption is disabled');
      return this.#resume(sessionId, instruction, options);
    }
    const agent = text(getOwn(input, 'agent'))?.trim() ?? '';
    if (agent === '')
      return failure('Agent name required for new delegation (or provide session_id to resume)');

    const selfDepth = depthOf(this.#coordinator, SELF_DELEGATION_DEPTH_CAPABILITY);
    const rosterAgent = this.#roster.find((a) => a.name === agent);
    if (agent === 'self') {
      if (!this.#config.self_delegation.enabled) {
        return failure(
          "Self-delegation is disabled (tool-delegate's features.self_delegation.enabled is false)",
        );
      }
      const refused = checkSelfDepth(selfDepth, this.#config.self_delegation.max_depth);
      if (refused !== undefined) return this.#refuse(agent, refused, options);
    } else if (!agent.includes(':') && rosterAgent === undefined) {
      return failure(`Agent '${agent}' not found. Available: ${pythonList(this.#roster.map((a) => a.name))}`);
    }

    const spawn = this.#coordinator.getCapability(SPAWN_CAPABILITY);
    if (typeof spawn !== 'function') {
      return failure("Session spawning not available. App layer must register 'session.spawn' capability.");
    }
    const contextDepth = (text(getOwn(input, 'context_depth')) ?? DEFAULT_DEPTH) as ContextDepth;
    const contextScope = (text(getOwn(input, 'context_scope')) ?? DEFAULT_SCOPE) as ContextScope;
    if (!CONTEXT_DEPTHS.includes(contextDepth)) {
      return failure(`context_depth must be one of ${CONTEXT_DEPTHS.join(', ')} (got '${contextDepth}')`);
    }
    if (!CONTEXT_SCOPES.includes(contextScope)) {
      return failure(`context_scope must be one of ${CONTEXT_SCOPES.join(', ')} (got '${contextScope}')`);
    }
    const modelRole = text(getOwn(input, 'model_role'));
    const preferences = await this.#providerPreferences(input, modelRole, rosterAgent);

    // Checked and counted with no await between, so concurrent calls cannot both take the last slot.
    const depth = depthOf(this.#coordinator, DELEGATION_DEPTH_CAPABILITY);
    const limit =
      checkDepth(depth, this.#config.max_depth) ??
      checkChildren(this.#started, this.#config.max_children) ??
      checkSubSessions(this.#coordinator, this.#config.max_sub_sessions);
    if (limit !== undefined) return this.#refuse(agent, limit, options);
    this.#started++;
    const fullInstruction = withInheritedContext(
      instruction,
      await this.#inherited(input, contextDepth, contextScope),
    );
    const delegation: Delegation = {
      agent,
      sub_session_id: subSessionId(this.#coordinator.sessionId, agent),
      parent_session_id: this.#coordinator.sessionId,
      tool_call_id: options.toolCallId ?? null,
      parallel_group_id: null,
    };
    const spawned = {
      ...delegation,
      context_depth: contextDepth,
      context_scope: contextScope,
      model_role: modelRole ?? null,
      provider_preferences: preferences ?? null,
    };
    await this.#emit(AGENT_SPAWNED, spawned);
    const orchestratorConfig = this.#orchestratorConfig();
    const outcome = await runChild(
      (signal) =>
        (spawn as SpawnCapability)({
          agent_name: agent,
          instruction: fullInstruction,
          sub_session_id: delegation.sub_session_id,
          parent_session_id: delegation.parent_session_id,
          tool_inheritance: { exclude: [...this.#config.exclude_tools] },
          hook_inheritance: { exclude: [...this.#config.exclude_hooks] },
          ...(orchestratorConfig !== undefined && { orchestrator_config: orchestratorConfig }),
          ...(preferences !== undefined && { provider_preferences: preferences }),
          self_delegation_depth: agent === 'self' ? selfDepth + 1 : 0,
          ...(this.#config.max_sub_sessions !== null && { max_sub_sessions: this.#config.max_sub_sessions }),
          session_metadata: {
            agent_name: agent,
            ...(options.toolCallId !== undefined && { tool_call_id: options.toolCallId }),
          },
          signal,
        }),
      options.signal,
      this.#config.timeout_ms,
    );
    return this.#finish(outcome, spawned, 'spawn');
  }

  async #resume(sessionId: string, instruction: string, options: ToolCallOptions): Promise<ToolResult> {
    const resume = this.#coordinator.getCapability(RESUME_CAPABILITY);
    if (typeof resume !== 'function') {
      return failure(
        "Session resumption not available. App layer must register 'session.resume' capability.",
      );
    }
    const agent = /_([a-z0-9-]+)$/.exec(sessionId)?.[1] ?? 'unknown';
    const delegation: Delegation = {
      agent,
      sub_session_id: sessionId,
      parent_session_id: this.#coordinator.sessionId,
      tool_call_id: options.toolCallId ?? null,
      parallel_group_id: null,
    };
    await this.#emit(AGENT_RESUMED, delegation);
    const outcome = await runChild(
      (signal) =>
        (resume as ResumeCapability)({
          session_id: sessionId,
          instruction,
          parent_session_id: delegation.parent_session_id,
          ...(this.#config.max_sub_sessions !== null && { max_sub_sessions: this.#config.max_sub_sessions }),
          signal,
        }),
      options.signal,
      this.#config.timeout_ms,
    );
    const missing =
      (outcome.kind === 'threw' && isNotFound(outcome.error)) ||
      (outcome.kind === 'result' &&
        isPlainObject(outcome.result) &&
        getOwn(outcome.result, 'status') === 'error' &&
        isNotFound(getOwn(outcome.result, 'error')));
    if (missing) {
      const message = `Agent session '${sessionId}' not found. May have expired or never existed.`;
      await this.#emit(DELEGATE_ERROR, { ...delegation, error: message });
      return failure(message, { code: 'SESSION_NOT_FOUND' });
    }
    return this.#finish(outcome, delegation, 'resume');
  }

  /** The tool result and the last event of one child run. */
  async #finish(outcome: ChildOutcome, fields: Delegation, how: 'spawn' | 'resume'): Promise<ToolResult> {
    const where = `agent '${fields.agent}', session_id ${fields.sub_session_id}`;
    if (outcome.kind === 'cancelled') {
      await this.#emit(AGENT_CANCELLED, fields);
      return failure(`Agent delegation cancelled: the parent session was cancelled (${where})`, {
        type: 'cancelled',
      });
    }
    if (outcome.kind === 'timed_out') {
      const message = `Agent delegation failed (TimeoutError): the agent did not finish within settings.timeout (${outcome.ms / 1000} s) and was stopped (${where})`;
      await this.#emit(DELEGATE_ERROR, { ...fields, error: message });
      return failure(message, { type: 'timeout' });
    }
    if (outcome.kind === 'threw') {
      const name = outcome.error instanceof Error ? outcome.error.name : 'Error';
      const capability = how === 'spawn' ? SPAWN_CAPABILITY : RESUME_CAPABILITY;
      const message = `Agent delegation failed (${name}): ${errorMessage(outcome.error)} (${capability}, ${where})`;
      await this.#emit(DELEGATE_ERROR, { ...fields, error: message });
      return failure(message);
    }
    const result = spawnResultOf(outcome.result);
    if (typeof result === 'string') {
      const message = `Agent delegation failed (InvalidResult): the app's ${how === 'spawn' ? SPAWN_CAPABILITY : RESUME_CAPABILITY} capability answered no SpawnResult: ${result} (${where})`;
      await this.#emit(DELEGATE_ERROR, { ...fields, error: message });
      return failure(message);
    }
    const sessionId = text(result.session_id) ?? fields.sub_session_id;
    const usage = usageOf(result.usage);
    if (usage !== undefined) this.#usage.add(sessionId, usage);
    const output = {
      response: text(result.output) ?? '',
      session_id: sessionId,
      agent: fields.agent,
      turn_count: typeof result.turn_count === 'number' ? result.turn_count : 0,
      status: result.status,
      usage: usage ?? null,
      ...(isPlainObject(result.metadata) && { metadata: result.metadata }),
    };
    if (result.status === 'error') {
      const error = isPlainObject(result.error) ? result.error : {};
      const code = text(getOwn(error, 'code')) ?? 'Error';
      const message = `Agent delegation failed (${code}): ${text(getOwn(error, 'message')) ?? 'the agent session failed without a message'} (${where})`;
      await this.#emit(DELEGATE_ERROR, { ...fields, error: message, usage: output.usage });
      return failure(message, { session_id: sessionId, usage: output.usage });
    }
    if (result.status === 'cancelled') {
      await this.#emit(AGENT_CANCELLED, fields);
      return failure(
        `Agent delegation cancelled: the agent session was cancelled before it answered (${where})`,
        {
          type: 'cancelled',
          session_id: sessionId,
        },
      );
    }
    await this.#emit(AGENT_COMPLETED, {
      ...fields,
      success: true,
      status: output.status,
      turn_count: output.turn_count,
      usage: output.usage,
    });
    return { success: true, output };
  }

  /** A limit refused the call: `delegate:error` and the limit's message and code. */
  async #refuse(agent: string, refused: LimitError, options: ToolCallOptions): Promise<ToolResult> {
    await this.#emit(DELEGATE_ERROR, {
      agent,
      sub_session_id: null,
      parent_session_id: this.#coordinator.sessionId,
      tool_call_id: options.toolCallId ?? null,
      parallel_group_id: null,
      error: refused.message,
      code: refused.code,
    });
    return failure(refused.message, { code: refused.code });
  }

  /** Explicit preferences, else the model role's, else the roster agent's (first present wins). */
  async #providerPreferences(
    input: Record<string, unknown>,
    modelRole: string | undefined,
    agent: RosterAgent | undefined,
  ): Promise<ProviderPreference[] | undefined> {
    if (this.#config.provider_selection) {
      const explicit = providerPreferences(getOwn(input, 'provider_preferences'));
      if (explicit !== undefined) return explicit;
    }
    const resolver = this.#resolver();
    if (modelRole !== undefined && resolver !== undefined) {
      try {
        const resolved = providerPreferences(await resolver(modelRole));
        if (resolved !== undefined) return resolved;
        this.#coordinator.logger.warn(`tool-delegate: model_role '${modelRole}' resolved to no provider`);
      } catch (error) {
        this.#coordinator.logger.warn(
          `tool-delegate: model_role '${modelRole}' failed to resolve: ${errorMessage(error)}`,
        );
      }
    }
    return agent?.provider_preferences;
  }

  async #inherited(
    input: Record<string, unknown>,
    depth: ContextDepth,
    scope: ContextScope,
  ): Promise<string | undefined> {
    const inheritance = this.#config.context_inheritance;
    if (!inheritance.enabled || depth === 'none') return undefined;
    const context = this.#coordinator.get('context');
    if (context === undefined) return undefined;
    const asked = getOwn(input, 'context_turns');
    const turns = Math.min(
      typeof asked === 'number' && Number.isInteger(asked) && asked >= 1 ? asked : DEFAULT_TURNS,
      inheritance.max_turns,
    );
    return buildInheritedContext(await context.getMessages(), { depth, turns, scope });
  }

  /** The parent's `session.orchestrator.config` (or `orchestrator.config` for the string form). */
  #orchestratorConfig(): Record<string, unknown> | undefined {
    const plan = this.#coordinator.config;
    const orchestrator = plan.session?.orchestrator;
    const config = typeof orchestrator === 'object' ? orchestrator.config : plan.orchestrator?.config;
    return isPlainObject(config) ? { ...config } : undefined;
  }

  async #emit<E extends DelegateEventName>(event: E, data: EventPayload<E>): Promise<void> {
    try {
      await this.#coordinator.hooks.emit(event, data);
    } catch (error) {
      this.#coordinator.logger.warn(`tool-delegate: a hook on ${event} failed: ${errorMessage(error)}`);
    }
  }
}
