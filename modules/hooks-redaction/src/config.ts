/**
 * hooks-redaction's config: the reference's keys and defaults. Unknown keys
 * warn once and are ignored; a value of the wrong shape fails the mount (a
 * misspelt rule ignored would redact less than the user asked).
 */
import { type Logger, ownConfig } from '@amplifier/core';
import { RULES, type Rule } from './patterns.js';

export interface RedactionConfig {
  rules: Rule[];
  /** Payload paths left as they are (`a.b[0]`). */
  allowlist: Set<string>;
  priority: number;
  /** Events not subscribed to (the model needs tool data verbatim). */
  skip_events: Set<string>;
}

/** The reference's defaults. */
export const DEFAULTS: Readonly<{
  rules: Rule[];
  allowlist: string[];
  priority: number;
  skip_events: string[];
}> = Object.freeze({
  rules: ['secrets', 'pii-basic'] satisfies Rule[],
  allowlist: [],
  priority: 10,
  skip_events: ['tool:pre', 'tool:post'],
});

const KEYS = new Set(Object.keys(DEFAULTS));

/**
 * Top-level fields never masked: the kernel's default fields and the ids that
 * tie records together. The phone pattern hits the digits of a timestamp
 * (`2026-11-26` becomes `[REDACTED:PII]`), which then breaks every log
 * record's `ts`, as it does in the reference.
 */
export const ALWAYS_KEPT: readonly string[] = [
  'timestamp',
  'session_id',
  'parent_id',
  'request_id',
  'tool_call_id',
  'parallel_group_id',
  'span_id',
  'parent_span_id',
];

function stringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** Validate `raw` and fill in the defaults; throws an Error naming every bad key. */
export function parseConfig(raw: unknown, logger: Logger): RedactionConfig {
  const config = ownConfig(raw, 'hooks-redaction');
  const errors: string[] = [];
  for (const key of Object.keys(config)) {
    if (!KEYS.has(key)) logger.warn(`hooks-redaction: unknown config key '${key}' is ignored`);
  }
  const { rules = DEFAULTS.rules, allowlist = DEFAULTS.allowlist, priority = DEFAULTS.priority } = config;
  const skip = config.skip_events ?? DEFAULTS.skip_events;
  if (!stringList(rules) || !rules.every((rule) => (RULES as readonly string[]).includes(rule))) {
    errors.push(
      `rules must be a list of ${RULES.map((r) => `"${r}"`).join(', ')}; got ${JSON.stringify(rules)}`,
    );
  }
  if (!stringList(allowlist))
    errors.push(`allowlist must be a list of payload paths (a.b[0]); got ${JSON.stringify(allowlist)}`);
  if (typeof priority !== 'number' || !Number.isFinite(priority)) {
    errors.push(
      `priority must be a number (lower runs first; loggers run at 100); got ${JSON.stringify(priority)}`,
    );
  }
  if (!stringList(skip))
    errors.push(`skip_events must be a list of event names; got ${JSON.stringify(skip)}`);
  if (errors.length > 0) throw new Error(`hooks-redaction: invalid config:\n  - ${errors.join('\n  - ')}`);
  return {
    rules: rules as Rule[],
    allowlist: new Set([...ALWAYS_KEPT, ...(allowlist as string[])]),
    priority: priority as number,
    skip_events: new Set(skip as string[]),
  };
}
