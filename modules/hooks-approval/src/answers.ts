/**
 * What a decision becomes: the outcome of an allow (by rule, default_action
 * or session grant), and what happens to an asked call when the person
 * answers ("Allow always" stores a session grant), when the kernel stops
 * waiting (timeout, cancellation), or when the app's provider fails.
 */
import { errorMessage, utcTimestamp } from '@amplifier/core';
import type { DecisionSource } from './audit.js';
import type { PendingAsk, Unanswered } from './bridge.js';
import type { GrantStore } from './grants.js';
import type { CallCheck, DecisionRecorder, Outcome } from './recorder.js';
import { commandPrefixes } from './shell-match.js';

/** Answers the kernel treats as allow (compared trimmed and lower-cased). */
const ALLOW_ANSWERS: ReadonlySet<string> = new Set(['allow', 'allow once', 'allow always']);

/** Rule or default_action: who decided a call no person was asked about. */
export function sourceOf(check: CallCheck): DecisionSource {
  return check.evaluation.rule === null ? 'default_action' : 'rule';
}

/** The outcome of a call allowed without asking. */
export function allowOutcome(check: CallCheck): Outcome {
  if (check.grant !== undefined) {
    const how = check.grant.by === 'prefix' ? 'command prefix' : 'same arguments';
    return {
      decision: 'allowed',
      approved: true,
      scope: 'session',
      source: 'grant',
      reason: `Allowed by a session grant (${how}, granted for call ${check.grant.grant.tool_call_id})`,
    };
  }
  return {
    decision: 'allowed',
    approved: true,
    scope: null,
    source: sourceOf(check),
    reason: check.evaluation.rule !== null ? 'Auto-approved by rule' : 'Allowed by default_action',
  };
}

export interface AnswerDeps {
  recorder: DecisionRecorder;
  grants: () => GrantStore;
  approvalDefault: 'allow' | 'deny';
}

/** The question for `check`, waiting in the bridge for core to ask it. */
export function pendingAsk(check: CallCheck, prompt: string, deps: AnswerDeps): PendingAsk {
  const { recorder } = deps;
  const denied = (source: DecisionSource, reason: string): Outcome => ({
    decision: 'denied',
    approved: false,
    scope: null,
    source,
    reason,
  });
  return {
    prompt,
    answered: async (answer) => {
      const normalized = answer.trim().toLowerCase();
      if (!ALLOW_ANSWERS.has(normalized)) {
        await recorder.finish(check, { ...denied('user', 'Denied by user'), answer });
        return;
      }
      const scope = normalized === 'allow always' ? 'session' : 'once';
      if (scope === 'session') {
        const shell = check.evaluation.shell;
        const prefixes = shell ? commandPrefixes(shell) : undefined;
        await deps.grants().add({
          tool: check.tool,
          args_hash: check.hash,
          ...(prefixes && { prefixes }),
          tool_call_id: check.toolCallId,
          granted_at: utcTimestamp(),
        });
      }
      const reason = `Approved by user (${scope === 'session' ? 'for this session' : 'once'})`;
      await recorder.finish(check, {
        decision: 'allowed',
        approved: true,
        scope,
        source: 'user',
        reason,
        answer,
      });
    },
    unanswered: (why: Unanswered) => {
      const approved = why === 'timeout' && deps.approvalDefault === 'allow';
      const reason = {
        timeout: `Approval request timed out (approval_default: ${deps.approvalDefault})`,
        cancelled: 'Cancelled while waiting for approval',
        abandoned: 'The question was never asked (another hook asked first, or the session ended)',
      }[why];
      recorder.finishLater(check, {
        decision: why,
        approved,
        scope: approved ? 'once' : null,
        source: 'user',
        reason,
      });
    },
    failed: (error) => {
      recorder.finishLater(check, {
        ...denied('user', `Approval system error: ${errorMessage(error)}`),
        decision: 'error',
      });
    },
  };
}
