/**
 * Limits of delegation: nesting depth (`session.delegation_depth`, registered
 * by the spawner on each child; a root session has none, so 0), children per
 * session, the sub-sessions of the whole tree in one top-level turn (the
 * budget the app's spawner shares down the tree and counts), and the
 * reference's self-delegation depth (`self_delegation_depth`).
 * Each check answers the tool's error (message and code) or undefined.
 */
import {
  type Coordinator,
  SUB_SESSION_BUDGET_CAPABILITY,
  type SubSessionBudget,
  subSessionBudgetMessage,
} from '@amplifier/core';

export interface LimitError {
  message: string;
  code: string;
}

/** A depth capability's value: a finite number >= 0, else 0. */
export function depthOf(coordinator: Coordinator, capability: string): number {
  const value = coordinator.getCapability(capability);
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : 0;
}

/** Refuses a new child when it would nest deeper than `maxDepth` (null: no limit). */
export function checkDepth(depth: number, maxDepth: number | null): LimitError | undefined {
  if (maxDepth === null || depth < maxDepth) return undefined;
  return {
    code: 'DELEGATION_DEPTH_EXCEEDED',
    message: `Delegation depth limit reached: this session is at nesting depth ${depth} and tool-delegate's limits.max_depth is ${maxDepth}, so it cannot start another agent. Do this part of the task yourself, or return what you have to the parent session.`,
  };
}

/** Refuses a new child once `started` children reached `maxChildren` (null: no limit). */
export function checkChildren(started: number, maxChildren: number | null): LimitError | undefined {
  if (maxChildren === null || started < maxChildren) return undefined;
  return {
    code: 'CHILDREN_LIMIT_EXCEEDED',
    message: `Delegation limit reached: this session already started ${started} agent sessions and tool-delegate's limits.max_children is ${maxChildren}. Continue an existing agent with its session_id, or do the rest of the task yourself.`,
  };
}

/** Refuses `self` once the self-delegation depth reached `maxDepth` (the reference's rule). */
export function checkSelfDepth(depth: number, maxDepth: number): LimitError | undefined {
  if (depth < maxDepth) return undefined;
  return {
    code: 'SELF_DELEGATION_DEPTH_EXCEEDED',
    message: `Self-delegation depth limit reached (${depth}/${maxDepth}): this session cannot delegate to 'self' again. Delegate to a named agent or do the task yourself.`,
  };
}

/**
 * Refuses a new child once the turn's sub-session budget (when the app's
 * spawner keeps one) reached `maxSubSessions` (null: no limit of this tool's).
 * The spawner counts, and checks again, atomically.
 */
export function checkSubSessions(
  coordinator: Coordinator,
  maxSubSessions: number | null,
): LimitError | undefined {
  if (maxSubSessions === null) return undefined;
  const budget = coordinator.getCapability<SubSessionBudget>(SUB_SESSION_BUDGET_CAPABILITY);
  const used = typeof budget?.used === 'number' ? budget.used : 0;
  if (used < maxSubSessions) return undefined;
  return { code: 'SUB_SESSION_BUDGET_EXCEEDED', message: subSessionBudgetMessage(maxSubSessions) };
}
