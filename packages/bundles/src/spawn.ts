/**
 * `createSpawner`: the app layer's `session.spawn` and `session.resume`
 * (reference B5/B6). A child session is built from the parent's plan by the
 * spawn policy (`childPlan`), shares the parent's loader (modules already
 * imported are not imported again), approval, display and logger, gets the
 * agent's instruction as its system prompt, runs the task, is stored (a
 * `ChildStore`: in memory by default, the CLI's writes session folders) and
 * cleaned up. Each child gets its own `session.spawn` / `session.resume`, so
 * nesting works, and `session.delegation_depth` / `self_delegation_depth`.
 * Every child, resumed ones too, counts against the sub-session budget of the
 * root's current turn (`subSessionBudget` below, shared down the tree):
 * `maxSubSessions` (default 32), the bundle's `spawn.max_sub_sessions` and the
 * caller's `max_sub_sessions`, the lowest wins.
 * Cancelling the parent cancels the child; a child's failure is a result
 * with `status: 'error'`, never an exception in the parent.
 */
import {
  AmplifierSession,
  type ContextManager,
  type Coordinator,
  DEFAULT_MAX_SUB_SESSIONS,
  DELEGATION_DEPTH_CAPABILITY,
  errorMessage,
  type Message,
  type MountPlan,
  type ProviderPreference,
  RESUME_CAPABILITY,
  type ResumeRequest,
  SELF_DELEGATION_DEPTH_CAPABILITY,
  type SessionOptions,
  SPAWN_CAPABILITY,
  type SpawnRequest,
  type SpawnResult,
  type SpawnUsage,
  SUB_SESSION_BUDGET_CAPABILITY,
  type SubSessionBudget,
  subSessionBudgetMessage,
} from '@amplifier/core';
import { type AgentConfig, agentFromData, agentOverlay } from './agents.js';
import { applySystemPrompt } from './instructions.js';
import { childPlan, type Inheritance, type SpawnRule } from './spawn-policy.js';

/** What a child session is stored with, so it can be resumed (and shown). */
export interface StoredChild {
  session_id: string;
  parent_id: string;
  agent_name: string;
  /** The plan it ran (informational: a resume applies the policy to the live parent again). */
  config: MountPlan;
  agent_overlay: Record<string, unknown>;
  turn_count: number;
  self_delegation_depth: number;
  delegation_depth: number;
  status: SpawnResult['status'];
  /** What the caller asked for, so a resume builds the same child. */
  request: {
    tool_inheritance?: Inheritance;
    hook_inheritance?: Inheritance;
    orchestrator_config?: Record<string, unknown>;
    provider_preferences?: ProviderPreference[];
    session_metadata?: Record<string, unknown>;
  };
  usage: SpawnUsage;
  /** The child's whole history (the store drops system messages if it wants). */
  messages: Message[];
}

/** Where children are kept between a spawn and a resume. */
export interface ChildStore {
  save(child: StoredChild): void | Promise<void>;
  load(sessionId: string): StoredChild | undefined | Promise<StoredChild | undefined>;
}

/** A child about to be initialized: the app may attach its display, logging or capabilities. */
export interface ChildInfo {
  session: AmplifierSession;
  parent: Coordinator;
  agentName: string;
  /** Delegation depth of the child (1 under a root). */
  depth: number;
  resumed: boolean;
}

/** Options of `createSpawner`. */
export interface SpawnerOptions {
  /** The roster (default: the parent plan's `agents`, as the CLI writes it from the bundle). */
  agents?: Readonly<Record<string, AgentConfig>>;
  /** The bundle's `spawn` section. */
  spawn?: SpawnRule;
  /** Default: in memory (resume works within the process). */
  store?: ChildStore;
  /** Deepest delegation allowed (a root's child is 1). Default 5; deeper spawns fail with `DELEGATION_DEPTH_EXCEEDED`. */
  maxDepth?: number;
  /**
   * The most sub-sessions (spawned or resumed, at any depth) one top-level turn
   * of the root may start. Default 32 (core's `DEFAULT_MAX_SUB_SESSIONS`); `null`: no cap of its own.
   * The bundle's `spawn.max_sub_sessions` and a request's `max_sub_sessions` can only lower it.
   */
  maxSubSessions?: number | null;
  /** The child's system prompt (default: the agent's instruction; `self`: none). */
  systemPrompt?: (agent: AgentConfig | undefined) => Promise<string | undefined>;
  /** More session options for a child (default: the parent's approval, display, logger, loader, working dir). */
  sessionOptions?: (parent: Coordinator) => SessionOptions;
  /** Called before the child initializes; a returned function is called after it is cleaned up. */
  onChild?: (info: ChildInfo) => void | (() => void);
}

/** The spawn capabilities of one app. */
export interface Spawner {
  spawn(parent: Coordinator, request: SpawnRequest): Promise<SpawnResult>;
  resume(parent: Coordinator, request: ResumeRequest): Promise<SpawnResult>;
  /** Register `session.spawn` and `session.resume` on a (root) coordinator. */
  register(coordinator: Coordinator): void;
}

/** A store that keeps children in memory. */
export function memoryChildStore(): ChildStore {
  const children = new Map<string, StoredChild>();
  return {
    save: (child) => {
      children.set(child.session_id, child);
    },
    load: (id) => children.get(id),
  };
}

interface RunInput {
  parent: Coordinator;
  agentName: string;
  agent: AgentConfig | undefined;
  sessionId: string;
  instruction: string;
  selfDepth: number;
  request: StoredChild['request'];
  signal: AbortSignal | undefined;
  resumed?: StoredChild | undefined;
  /** The caller's cap on the sub-sessions of this turn. */
  maxSubSessions?: number | undefined;
}

function isBudget(value: unknown): value is SubSessionBudget {
  return typeof value === 'object' && value !== null && typeof (value as SubSessionBudget).used === 'number';
}

/**
 * The budget `coordinator` counts against: the one registered on it (a child's
 * is its root's), else a new one registered on it, which is then a root's and
 * goes back to 0 at each of its `prompt:submit` (a new top-level turn).
 */
function subSessionBudget(coordinator: Coordinator): SubSessionBudget {
  const existing = coordinator.getCapability(SUB_SESSION_BUDGET_CAPABILITY);
  if (isBudget(existing)) return existing;
  const budget: SubSessionBudget = { used: 0 };
  coordinator.registerCapability(SUB_SESSION_BUDGET_CAPABILITY, budget);
  coordinator.hooks.register(
    'prompt:submit',
    () => {
      budget.used = 0;
    },
    { name: 'sub-session-budget', priority: -1000 },
  );
  return budget;
}

/** A cap as given: a whole number >= 0, else none. */
function validLimit(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;
}

/** The lowest of the caps that are set (null: none is). */
function lowest(a: number | null, b: unknown): number | null {
  const other = validLimit(b);
  if (a === null) return other;
  return other === null ? a : Math.min(a, other);
}

function emptyUsage(): SpawnUsage {
  return { input_tokens: 0, output_tokens: 0 };
}

function addUsage(into: SpawnUsage, add: SpawnUsage): void {
  into.input_tokens += add.input_tokens;
  into.output_tokens += add.output_tokens;
  if (add.cost_usd !== undefined) into.cost_usd = (into.cost_usd ?? 0) + add.cost_usd;
}

function failure(
  sessionId: string,
  message: string,
  code: string,
  status: SpawnResult['status'] = 'error',
): SpawnResult {
  return { output: '', session_id: sessionId, status, turn_count: 0, error: { message, code } };
}

/** A roster value as an agent (plan data written by hand is checked like an agent file). */
function rosterAgent(name: string, value: unknown): AgentConfig {
  const data = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const agent = agentFromData(
    data,
    typeof data.instruction === 'string' ? data.instruction : undefined,
    typeof data.file === 'string' ? data.file : `agents.${name}`,
    name,
  );
  return { ...agent, name };
}

/** Model ids of the parent's mounted providers a glob preference names. */
async function modelsFor(
  parent: Coordinator,
  preferences: readonly ProviderPreference[],
): Promise<Record<string, string[]>> {
  const models: Record<string, string[]> = {};
  const providers = parent.get('providers');
  for (const preference of preferences) {
    if (preference.model === undefined || !/[*?[]/.test(preference.model)) continue;
    const provider = providers.get(preference.provider);
    if (provider === undefined || models[preference.provider] !== undefined) continue;
    try {
      models[preference.provider] = (await provider.listModels()).map((m) => m.id);
    } catch {
      models[preference.provider] = [];
    }
  }
  return models;
}

/** Create the spawn capabilities (one per app; they hold no state but the store). */
export function createSpawner(options: SpawnerOptions = {}): Spawner {
  const store = options.store ?? memoryChildStore();
  const maxDepth = options.maxDepth ?? 5;
  const maxSubSessions = lowest(
    options.maxSubSessions === undefined ? DEFAULT_MAX_SUB_SESSIONS : options.maxSubSessions,
    options.spawn?.max_sub_sessions,
  );
  const usageOf = new WeakMap<Coordinator, SpawnUsage>();

  /** A root's roster is `options.agents` (else its plan's); a child's is in its plan, already filtered. */
  function roster(parent: Coordinator): Record<string, unknown> {
    if (usageOf.has(parent)) return (parent.config.agents ?? {}) as Record<string, unknown>;
    return (options.agents ?? parent.config.agents ?? {}) as Record<string, unknown>;
  }

  function register(coordinator: Coordinator): void {
    coordinator.registerCapability(SPAWN_CAPABILITY, (request: SpawnRequest) => spawn(coordinator, request));
    coordinator.registerCapability(RESUME_CAPABILITY, (request: ResumeRequest) =>
      resume(coordinator, request),
    );
  }

  async function spawn(parent: Coordinator, request: SpawnRequest): Promise<SpawnResult> {
    const name = request.agent_name;
    let agent: AgentConfig | undefined;
    if (name !== 'self') {
      const agents = roster(parent);
      if (!Object.hasOwn(agents, name)) {
        const known = Object.keys(agents);
        return failure(
          request.sub_session_id,
          `Agent '${name}' not found in configuration. Available: ${known.length > 0 ? known.join(', ') : 'none (the bundle lists no agents)'}.`,
          'AGENT_NOT_FOUND',
        );
      }
      try {
        agent = rosterAgent(name, agents[name]);
      } catch (error) {
        return failure(
          request.sub_session_id,
          `Agent '${name}' is malformed: ${errorMessage(error)}`,
          'AGENT_INVALID',
        );
      }
    }
    return run({
      parent,
      agentName: name,
      agent,
      sessionId: request.sub_session_id,
      instruction: request.instruction,
      selfDepth: request.self_delegation_depth,
      signal: request.signal,
      maxSubSessions: request.max_sub_sessions,
      request: {
        ...(request.tool_inheritance && { tool_inheritance: request.tool_inheritance }),
        ...(request.hook_inheritance && { hook_inheritance: request.hook_inheritance }),
        ...(request.orchestrator_config && { orchestrator_config: request.orchestrator_config }),
        ...(request.provider_preferences && { provider_preferences: request.provider_preferences }),
        session_metadata: { agent_name: name, ...request.session_metadata },
      },
    });
  }

  async function resume(parent: Coordinator, request: ResumeRequest): Promise<SpawnResult> {
    let stored: StoredChild | undefined;
    try {
      stored = await store.load(request.session_id);
    } catch (error) {
      return failure(
        request.session_id,
        `Cannot read the agent session '${request.session_id}': ${errorMessage(error)}`,
        'SESSION_UNREADABLE',
      );
    }
    if (stored === undefined) {
      return failure(
        request.session_id,
        `Agent session '${request.session_id}' not found. May have expired or never existed.`,
        'SESSION_NOT_FOUND',
      );
    }
    const name = stored.agent_name;
    let agent: AgentConfig | undefined;
    if (name !== 'self') {
      const agents = roster(parent);
      agent = Object.hasOwn(agents, name)
        ? rosterAgent(name, agents[name])
        : // The agent left the roster since: its stored overlay still describes it.
          rosterAgent(name, stored.agent_overlay);
    }
    return run({
      parent,
      agentName: name,
      agent,
      sessionId: stored.session_id,
      instruction: request.instruction,
      selfDepth: stored.self_delegation_depth,
      signal: request.signal,
      request: stored.request,
      resumed: stored,
      maxSubSessions: request.max_sub_sessions,
    });
  }

  async function run(input: RunInput): Promise<SpawnResult> {
    const { parent, agent, sessionId } = input;
    const depth = (parent.getCapability<number>(DELEGATION_DEPTH_CAPABILITY) ?? 0) + 1;
    if (depth > maxDepth) {
      return failure(
        sessionId,
        `Delegation is nested too deep: this child would be at depth ${depth}, the limit is ${maxDepth}. Do the task here instead of delegating it.`,
        'DELEGATION_DEPTH_EXCEEDED',
      );
    }
    if (parent.cancellation.isCancelled || input.signal?.aborted) {
      return failure(sessionId, 'Cancelled before the agent started.', 'CANCELLED', 'cancelled');
    }
    // Checked and counted before any await: parallel delegations cannot both take the last slot.
    const budget = subSessionBudget(parent);
    const limit = lowest(maxSubSessions, validLimit(input.maxSubSessions));
    if (limit !== null && budget.used >= limit)
      return failure(sessionId, subSessionBudgetMessage(limit), 'SUB_SESSION_BUDGET_EXCEEDED');
    budget.used++;
    const preferences = input.request.provider_preferences?.length
      ? input.request.provider_preferences
      : (agent?.provider_preferences ?? []);
    let plan: MountPlan;
    let provider: { name: string; model?: string | undefined } | undefined;
    try {
      ({ plan, provider } = childPlan({
        parent: parent.config,
        roster: roster(parent),
        agent,
        spawn: options.spawn,
        toolInheritance: input.request.tool_inheritance,
        hookInheritance: input.request.hook_inheritance,
        orchestratorConfig: input.request.orchestrator_config,
        providerPreferences: input.request.provider_preferences,
        sessionMetadata: input.request.session_metadata,
        models: await modelsFor(parent, preferences),
      }));
    } catch (error) {
      return failure(sessionId, `Cannot build the agent's session: ${errorMessage(error)}`, 'SPAWN_FAILED');
    }

    const usage = emptyUsage();
    const workingDir = parent.getCapability<string>('session.working_dir');
    let child: AmplifierSession;
    try {
      child = new AmplifierSession(plan, {
        ...(parent.loader && { loader: parent.loader }),
        ...(parent.approval && { approval: parent.approval }),
        ...(parent.display && { display: parent.display }),
        logger: parent.logger,
        ...(workingDir !== undefined && { workingDir }),
        ...options.sessionOptions?.(parent),
        sessionId,
        parentId: parent.sessionId,
        isResumed: input.resumed !== undefined,
      });
    } catch (error) {
      return failure(sessionId, `The agent's plan is invalid: ${errorMessage(error)}`, 'SPAWN_FAILED');
    }
    const coordinator = child.coordinator;
    usageOf.set(coordinator, usage);
    const resolver = parent.get('module-source-resolver');
    if (resolver !== undefined) coordinator.mount('module-source-resolver', resolver);
    register(coordinator);
    coordinator.registerCapability(DELEGATION_DEPTH_CAPABILITY, depth);
    coordinator.registerCapability(SUB_SESSION_BUDGET_CAPABILITY, budget);
    coordinator.registerCapability(SELF_DELEGATION_DEPTH_CAPABILITY, input.selfDepth);
    coordinator.hooks.register(
      'llm:response',
      (_event, data) => {
        const reported = (
          data as { usage?: { input_tokens?: unknown; output_tokens?: unknown; cost_usd?: unknown } }
        ).usage;
        if (reported === undefined) return;
        addUsage(usage, {
          input_tokens: typeof reported.input_tokens === 'number' ? reported.input_tokens : 0,
          output_tokens: typeof reported.output_tokens === 'number' ? reported.output_tokens : 0,
          ...(reported.cost_usd !== undefined &&
            Number.isFinite(Number(reported.cost_usd)) && { cost_usd: Number(reported.cost_usd) }),
        });
      },
      { name: 'spawner-usage', priority: 1000 },
    );
    let detach: (() => void) | undefined;
    const cancellation = parent.cancellation;
    const signals = [cancellation.signal, ...(input.signal ? [input.signal] : [])];
    const signal = signals.length === 1 ? signals[0] : AbortSignal.any(signals);
    let status: SpawnResult['status'] = 'success';
    let output = '';
    let error: SpawnResult['error'];
    const turnCount = (input.resumed?.turn_count ?? 0) + 1;
    try {
      detach =
        options.onChild?.({
          session: child,
          parent,
          agentName: input.agentName,
          depth,
          resumed: input.resumed !== undefined,
        }) ?? undefined;
      await child.initialize();
      for (const f of child.failures) {
        parent.logger.warn(
          `agent '${input.agentName}': ${f.section} module '${f.module}' was not loaded: ${errorMessage(f.error)}`,
        );
      }
      const context = coordinator.get('context') as ContextManager;
      if (input.resumed !== undefined) await context.setMessages(input.resumed.messages);
      const build = options.systemPrompt ?? (async (a: AgentConfig | undefined) => a?.instruction);
      await applySystemPrompt(context, () => build(agent));
      cancellation.registerChild(coordinator.cancellation);
      output = await child.execute(input.instruction, signal ? { signal } : {});
      if (coordinator.cancellation.isCancelled) status = 'cancelled';
    } catch (caught) {
      if (coordinator.cancellation.isCancelled || signal?.aborted) {
        status = 'cancelled';
        error = { message: 'The agent was cancelled.', code: 'CANCELLED' };
      } else {
        status = 'error';
        error = { message: errorMessage(caught), code: 'AGENT_FAILED' };
      }
    } finally {
      cancellation.unregisterChild(coordinator.cancellation);
    }
    const total: SpawnUsage = { ...usage };
    try {
      const context = coordinator.get('context') as ContextManager | undefined;
      await store.save({
        session_id: sessionId,
        parent_id: parent.sessionId,
        agent_name: input.agentName,
        config: plan,
        agent_overlay: agent === undefined ? {} : agentOverlay(agent),
        turn_count: turnCount,
        self_delegation_depth: input.selfDepth,
        delegation_depth: depth,
        status,
        request: input.request,
        usage: total,
        messages: context === undefined ? [] : await context.getMessages(),
      });
    } catch (caught) {
      parent.logger.warn(
        `agent '${input.agentName}': the session ${sessionId} could not be stored: ${errorMessage(caught)}`,
      );
    }
    try {
      await child.cleanup();
    } catch (caught) {
      parent.logger.warn(
        `agent '${input.agentName}': cleanup of ${sessionId} failed: ${errorMessage(caught)}`,
      );
    } finally {
      detach?.();
    }
    const parentUsage = usageOf.get(parent);
    if (parentUsage !== undefined) addUsage(parentUsage, total);
    return {
      output,
      session_id: sessionId,
      status,
      turn_count: turnCount,
      usage: total,
      metadata: {
        agent_name: input.agentName,
        delegation_depth: depth,
        ...(provider !== undefined && {
          provider: provider.name,
          ...(provider.model && { model: provider.model }),
        }),
        ...(child.failures.length > 0 && { skipped_modules: child.failures.map((f) => f.module) }),
      },
      ...(error !== undefined && { error }),
    };
  }

  return { spawn, resume, register };
}
