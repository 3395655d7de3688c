/**
 * The `session.spawn` and `session.resume` capabilities: how a tool (the
 * delegate tool) asks the app layer to run a child session for an agent.
 * The kernel only stores `parentId` and emits `session:fork`; which modules,
 * providers and instructions a child gets is app policy (the CLI registers
 * the reference policy, apps can register their own). Field names follow the
 * reference's spawn call (snake_case data).
 */

/** A provider the child should prefer; `model` may be a glob (`claude-*`). */
export interface ProviderPreference {
  provider: string;
  model?: string;
}

/** Which of the parent's tools or hooks a child inherits (before the agent's own are added). */
export interface ModuleInheritance {
  /** Module ids the child does not inherit. */
  exclude?: string[];
  /** When set, only these module ids are inherited (an allow-list). */
  inherit?: string[];
}

/** What the delegate tool passes to `session.spawn`. */
export interface SpawnRequest {
  /** A roster name, or `self` (the parent's own configuration, no overlay). */
  agent_name: string;
  /** The task, with any inherited parent context already prepended as text. */
  instruction: string;
  /** The child's id, chosen by the caller. */
  sub_session_id: string;
  parent_session_id: string;
  tool_inheritance?: ModuleInheritance;
  hook_inheritance?: ModuleInheritance;
  /** Merged into the child's `session.orchestrator.config`. */
  orchestrator_config?: Record<string, unknown>;
  provider_preferences?: ProviderPreference[];
  /** Depth of self-delegation: parent's + 1 for `self`, 0 for a named agent. */
  self_delegation_depth: number;
  /** Becomes the child's session metadata (echoed in `session:fork` and `session:start`). */
  session_metadata?: { agent_name: string; tool_call_id?: string; parallel_group_id?: string } & Record<
    string,
    unknown
  >;
  /** Aborting it cancels the child's turn (and everything it started). */
  signal?: AbortSignal;
  /**
   * The caller's own cap on the sub-sessions of this top-level turn (tool-delegate's
   * `limits.max_sub_sessions`); the spawner applies the lower of it and its own.
   */
  max_sub_sessions?: number;
}

/** Token usage a child reports up to its parent. */
export interface SpawnUsage {
  input_tokens: number;
  output_tokens: number;
  cost_usd?: number;
}

/** What `session.spawn` and `session.resume` answer. */
export interface SpawnResult {
  /** The child's final answer text. */
  output: string;
  session_id: string;
  status: 'success' | 'error' | 'cancelled';
  turn_count: number;
  usage?: SpawnUsage;
  metadata?: Record<string, unknown>;
  /** Set when `status` is `error`. */
  error?: { message: string; code?: string };
}

/** What the delegate tool passes to `session.resume`. */
export interface ResumeRequest {
  session_id: string;
  instruction: string;
  parent_session_id: string;
  signal?: AbortSignal;
  /** As `SpawnRequest.max_sub_sessions`: a resumed child is a sub-session started in this turn too. */
  max_sub_sessions?: number;
}

/** The function registered as the `session.spawn` capability. */
export type SpawnCapability = (request: SpawnRequest) => Promise<SpawnResult>;
/** The function registered as the `session.resume` capability. */
export type ResumeCapability = (request: ResumeRequest) => Promise<SpawnResult>;

/** Name of the capability that starts a child session for an agent (`SpawnCapability`). */
export const SPAWN_CAPABILITY = 'session.spawn';
/** Name of the capability that continues a stored child session by id (`ResumeCapability`). */
export const RESUME_CAPABILITY = 'session.resume';
/** Capability the spawner registers on every child: its nesting depth (a root has none: 0; its child 1). */
export const DELEGATION_DEPTH_CAPABILITY = 'session.delegation_depth';
/** The reference's capability: how many `self` delegations led to this session (the spawner registers it). */
export const SELF_DELEGATION_DEPTH_CAPABILITY = 'self_delegation_depth';

// ------------------------------------------------------------ sub-session budget

/**
 * Capability: the sub-session budget of the current top-level turn, one
 * object shared by a root session and every session under it (the spawner
 * registers the parent's on each child), so the whole delegation tree
 * counts against it, not only depth x fan-out. The spawner (the app layer:
 * the bundles kit's `createSpawner`) creates it and counts; the delegate
 * tool reads it to refuse early.
 */
export const SUB_SESSION_BUDGET_CAPABILITY = 'session.sub_session_budget';

/** The default cap on the sub-sessions started within one top-level turn. */
export const DEFAULT_MAX_SUB_SESSIONS = 32;

/** How many sub-sessions the current top-level turn started (spawns and resumes, the whole tree). */
export interface SubSessionBudget {
  used: number;
}

/** What the model reads when the budget of `limit` is used up. */
export function subSessionBudgetMessage(limit: number): string {
  return `The sub-session budget of ${limit} for this turn is used up: ${limit} agent sessions were already started under this prompt (the whole delegation tree counts, resumed ones too), so no other agent can start before the next prompt. Do the rest of the task yourself with the results you have, or return them to the parent session.`;
}
