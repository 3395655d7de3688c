/**
 * hooks-redaction's config: the reference's keys and defaults. Unknown keys
 * warn once and are ignored; a value of the wrong shape fails the mount (a
 * misspelt rule ignored would redact less than the user asked).
 */
import type { Logger } from '@amplifier/core';
import { defineModuleConfig, type FromSchema } from '@amplifier/schema';
import type { Rule } from './patterns.js';

/**
 * JSON Schema of the config: the one source of `RedactionConfigInput` (`FromSchema`). Unknown keys
 * warn once (`defineModuleConfig`); `rules` lists `RULES` (a test checks the enum is the same list).
 */
export const CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    /** What to mask: `secrets` (keys, tokens, private keys) and `pii-basic` (emails, phone numbers). Default both. */
    rules: { type: 'array', items: { enum: ['secrets', 'pii-basic'] } },
    /** Payload paths left as they are (`a.b[0]`). Default []. */
    allowlist: { type: 'array', items: { type: 'string' } },
    /** Hook priority: lower runs first; loggers run at 100. Default 10. */
    priority: { type: 'number' },
    /** Events not subscribed to (the model needs tool data verbatim). Default `tool:pre`, `tool:post`. */
    skip_events: { type: 'array', items: { type: 'string' } },
  },
} as const;

/** The config as written in a mount plan (every key optional): derived from `CONFIG_SCHEMA`. */
export type RedactionConfigInput = FromSchema<typeof CONFIG_SCHEMA>;

/** The config with its defaults filled in; the lists the handler looks up are sets. */
export type RedactionConfig = Required<Pick<RedactionConfigInput, 'rules' | 'priority'>> & {
  /** Payload paths left as they are (`a.b[0]`), `ALWAYS_KEPT` included. */
  allowlist: Set<string>;
  /** Events not subscribed to (the model needs tool data verbatim). */
  skip_events: Set<string>;
};

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

/** The config's reader: the policy, and `MOUNT_FAILED` naming every bad key. */
const REDACTION_CONFIG = defineModuleConfig({
  module: 'hooks-redaction',
  schema: CONFIG_SCHEMA,
  hint: 'Fix these keys in the module\'s config (rules: "secrets", "pii-basic"; allowlist: payload paths such as a.b[0]).',
});

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

/**
 * Read `raw` by the config policy and fill in the defaults. Unknown keys warn
 * once through `logger`; a wrong-typed key or an unknown rule fails the mount
 * (`MOUNT_FAILED` naming every bad key: a misspelt rule ignored would redact
 * less than the user asked).
 */
export function parseConfig(raw: unknown, logger: Logger): RedactionConfig {
  return REDACTION_CONFIG.resolve(raw, logger, (config) => ({
    rules: [...(config.rules ?? DEFAULTS.rules)],
    allowlist: new Set([...ALWAYS_KEPT, ...(config.allowlist ?? DEFAULTS.allowlist)]),
    priority: config.priority ?? DEFAULTS.priority,
    skip_events: new Set(config.skip_events ?? DEFAULTS.skip_events),
  }));
}
