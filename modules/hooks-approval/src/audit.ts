/**
 * The audit log: one JSON line per decision, appended to a file opened once
 * in append mode, one `write` per line, in the order of the decisions. A
 * failing write is reported once through the logger and never thrown (the
 * decision stands either way).
 */
import fs from 'node:fs';
import path from 'node:path';
import { errorMessage, redactSecrets, stringifyJson, truncateValues } from '@amplifier/core';
import type { MatchedRule } from './rules.js';

/** What the rules said, and how the call ended. */
export type AuditDecision =
  | 'allowed'
  | 'denied'
  | 'timeout'
  | 'cancelled'
  | 'invalidated'
  | 'error'
  | 'abandoned';

/** How the decision was reached. */
export type DecisionSource =
  | 'rule'
  | 'default_action'
  | 'grant'
  | 'user'
  | 'no_provider'
  | 'modified'
  | 'internal_error';

export interface AuditRecord {
  timestamp: string;
  session_id: string;
  tool_call_id: string;
  tool: string;
  args_hash: string;
  /** The arguments with secret-named keys redacted and long strings cut, at most ~2 KB of JSON. */
  args: unknown;
  /** What the rules decided: allow, deny or ask. */
  action: 'allow' | 'deny' | 'ask';
  decision: AuditDecision;
  approved: boolean;
  /** `once` or `session` for approvals, null otherwise. */
  scope: 'once' | 'session' | null;
  source: DecisionSource;
  rule: MatchedRule | null;
  reason: string;
  /** The person's answer, as the approval provider returned it. */
  answer?: string;
}

const MAX_ARGS_CHARS = 2000;

/** A bounded, redacted copy of a call's arguments for the audit log. */
export function argsSummary(input: unknown): unknown {
  const redacted = truncateValues(redactSecrets(input), 200);
  const text = stringifyJson(redacted);
  if (text.length <= MAX_ARGS_CHARS) return redacted;
  return `${text.slice(0, MAX_ARGS_CHARS)}... [truncated ${text.length - MAX_ARGS_CHARS} chars]`;
}

export class AuditLog {
  readonly file: string;
  readonly #warn: (message: string) => void;
  #fd: number | undefined;
  #reported = false;

  constructor(file: string, warn: (message: string) => void) {
    this.file = file;
    this.#warn = warn;
  }

  /**
   * Append one record before the decision takes effect: a synchronous append
   * of one line (a few microseconds on a local disk), so no decision is lost
   * and the order is the order of decisions. Never throws.
   */
  append(record: AuditRecord): void {
    try {
      const line = Buffer.from(`${stringifyJson(record)}\n`);
      if (this.#fd === undefined) {
        fs.mkdirSync(path.dirname(this.file), { recursive: true });
        this.#fd = fs.openSync(this.file, 'a', 0o600);
      }
      let written = 0;
      while (written < line.length) written += fs.writeSync(this.#fd, line, written);
    } catch (error) {
      this.#closeFd(); // open again for the next record
      this.#report(error);
    }
  }

  #report(error: unknown): void {
    if (this.#reported) return;
    this.#reported = true;
    this.#warn(
      `hooks-approval: cannot write the audit log ${this.file}: ${errorMessage(error)} (reported once)`,
    );
  }

  #closeFd(): void {
    const fd = this.#fd;
    this.#fd = undefined;
    if (fd === undefined) return;
    try {
      fs.closeSync(fd);
    } catch {
      // already closed or invalid: nothing left to release
    }
  }

  /** Close the file (a later record opens it again). */
  close(): void {
    this.#closeFd();
  }
}
