/**
 * @amplifier/hooks-redaction (module id `hooks-redaction`): masks secrets and
 * PII in the payloads of the reference's classic events before the hooks that
 * run after it (loggers at priority 100, exporters) see them, by returning
 * `modify` with a masked copy and `redaction: { applied: true, rules }`.
 */
import {
  type Cleanup,
  type Coordinator,
  events as E,
  type EventData,
  type EventName,
  type HookResult,
} from '@amplifier/core';
import { parseConfig } from './config.js';
import { scrub } from './scrub.js';

export type { RedactionConfig } from './config.js';
export { ALWAYS_KEPT, DEFAULTS, parseConfig } from './config.js';
export type { Rule } from './patterns.js';
export { maskText, PII_MARK, RULES, SECRET_MARK } from './patterns.js';
export { scrub } from './scrub.js';

/** The events the reference subscribes to (no `llm:*`), before `skip_events`. */
export const REDACTED_EVENTS: readonly EventName[] = [
  E.SESSION_START,
  E.SESSION_END,
  E.PROMPT_SUBMIT,
  E.PROMPT_COMPLETE,
  E.PLAN_START,
  E.PLAN_END,
  E.PROVIDER_REQUEST,
  E.PROVIDER_RESPONSE,
  E.PROVIDER_ERROR,
  E.TOOL_PRE,
  E.TOOL_POST,
  E.TOOL_ERROR,
  E.CONTEXT_PRE_COMPACT,
  E.CONTEXT_POST_COMPACT,
  E.ARTIFACT_WRITE,
  E.ARTIFACT_READ,
  E.POLICY_VIOLATION,
  E.APPROVAL_REQUIRED,
  E.APPROVAL_GRANTED,
  E.APPROVAL_DENIED,
];

/** Register the redaction handler on each event not skipped; the cleanup unregisters them. */
export async function mount(
  coordinator: Coordinator,
  config: Record<string, unknown> = {},
): Promise<Cleanup> {
  const parsed = parseConfig(config, coordinator.logger);
  const rules = [...parsed.rules];
  const handler = (_event: string, data: EventData): HookResult | undefined => {
    const masked = scrub(data, parsed.rules, parsed.allowlist);
    if (!masked.changed) return undefined;
    return {
      action: 'modify',
      data: { ...(masked.value as EventData), redaction: { applied: true, rules } },
    };
  };
  const unregister = REDACTED_EVENTS.filter((event) => !parsed.skip_events.has(event)).map((event) =>
    coordinator.hooks.register(event, handler, { priority: parsed.priority, name: 'hooks-redaction' }),
  );
  return () => {
    for (const off of unregister) off();
  };
}
