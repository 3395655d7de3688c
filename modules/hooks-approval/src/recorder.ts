/**
 * How a decision is made known: the `approval:granted` or `approval:denied`
 * event (the reference payload plus the call id, args hash, rule and source)
 * and the audit record. Decisions that arrive outside a hook call (a kernel
 * timeout, a cancellation) are recorded in the background and awaited at
 * cleanup.
 */
import {
  type ApprovalDeniedEvent,
  type ApprovalGrantedEvent,
  type Coordinator,
  type EventData,
  type EventKey,
  type EventPayload,
  errorMessage,
  events,
  utcTimestamp,
} from '@amplifier/core';
import {
  type AuditDecision,
  type AuditLog,
  type AuditRecord,
  argsSummary,
  type DecisionSource,
} from './audit.js';
import type { PendingAsk } from './bridge.js';
import type { GrantMatch } from './grants.js';
import type { Evaluation } from './rules.js';

/** One call, from the decision to the check of its final input. */
export interface CallCheck {
  tool: string;
  toolCallId: string;
  hash: string;
  input: Record<string, unknown>;
  evaluation: Evaluation;
  /** The decision before asking: a grant turns an `ask` into `allow`. */
  action: 'allow' | 'deny' | 'ask';
  grant?: GrantMatch;
  ask?: PendingAsk;
}

export interface Outcome {
  decision: AuditDecision;
  approved: boolean;
  scope: 'once' | 'session' | null;
  source: DecisionSource;
  reason: string;
  /** The person's answer. */
  answer?: string;
}

export class DecisionRecorder {
  readonly #coordinator: Coordinator;
  readonly #audit: AuditLog | undefined;
  readonly #inflight = new Set<Promise<void>>();

  constructor(coordinator: Coordinator, audit: AuditLog | undefined) {
    this.#coordinator = coordinator;
    this.#audit = audit;
  }

  /** Emit an event; a failure is logged, never thrown. */
  async emit<E extends EventKey>(event: E, payload: EventPayload<E>): Promise<void> {
    try {
      await this.#coordinator.hooks.emit(event, payload);
    } catch (error) {
      this.#coordinator.logger.warn(`hooks-approval: emitting ${event} failed: ${errorMessage(error)}`);
    }
  }

  /** Emit granted/denied and append the audit record. */
  async finish(check: CallCheck, outcome: Outcome): Promise<void> {
    const payload: ApprovalGrantedEvent | ApprovalDeniedEvent = {
      tool_name: check.tool,
      reason: outcome.reason,
      tool_call_id: check.toolCallId,
      args_hash: check.hash,
      rule: check.evaluation.rule,
      source: outcome.source,
    };
    if (outcome.approved) payload.scope = outcome.scope ?? 'once';
    await this.emit(outcome.approved ? events.APPROVAL_GRANTED : events.APPROVAL_DENIED, payload);
    if (this.#audit === undefined) return;
    const record: AuditRecord = {
      timestamp: utcTimestamp(),
      session_id: this.#coordinator.sessionId,
      tool_call_id: check.toolCallId,
      tool: check.tool,
      args_hash: check.hash,
      args: argsSummary(check.input),
      action: check.evaluation.action,
      decision: outcome.decision,
      approved: outcome.approved,
      scope: outcome.scope,
      source: outcome.source,
      rule: check.evaluation.rule,
      reason: outcome.reason,
    };
    if (outcome.answer !== undefined) record.answer = outcome.answer;
    this.#audit.append(record);
  }

  /** `finish` without a caller to wait for it (kernel timeouts, cancellations). */
  finishLater(check: CallCheck, outcome: Outcome): void {
    const tracked = this.finish(check, outcome).catch((error: unknown) => {
      this.#coordinator.logger.warn(`hooks-approval: recording a decision failed: ${errorMessage(error)}`);
    });
    this.#inflight.add(tracked);
    void tracked.finally(() => this.#inflight.delete(tracked));
  }

  /** A call refused because the hook itself failed: logged, `approval:denied` emitted. */
  async internalError(error: unknown, data: EventData): Promise<string> {
    const reason = `hooks-approval: internal error, call refused: ${errorMessage(error)}`;
    this.#coordinator.logger.warn(reason);
    await this.emit(events.APPROVAL_DENIED, {
      tool_name: typeof data.tool_name === 'string' ? data.tool_name : null,
      reason,
      tool_call_id: typeof data.tool_call_id === 'string' ? data.tool_call_id : null,
      source: 'internal_error' satisfies DecisionSource,
    });
    return reason;
  }

  /** Wait for background records, then close the audit log. */
  async close(): Promise<void> {
    while (this.#inflight.size > 0) await Promise.all([...this.#inflight]);
    this.#audit?.close();
  }
}
