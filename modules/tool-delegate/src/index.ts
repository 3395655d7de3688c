/**
 * @amplifier/tool-delegate (module id `tool-delegate`, alias `tool-task`): the
 * `delegate` tool, which runs agents as child sessions through the app's
 * `session.spawn` / `session.resume` capabilities (core's spawn seam).
 */
import { type Cleanup, type Coordinator, OBSERVABILITY_EVENTS_CHANNEL } from '@amplifier/core';
import { parseConfig } from './config.js';
import { DELEGATE_EVENTS } from './events.js';
import { DelegateTool } from './tool.js';
import { UsageLedger } from './usage-ledger.js';

export type { DelegateConfig, DelegateConfigInput } from './config.js';
export { CONFIG_SCHEMA, DEFAULTS, parseConfig, SAFETY_KEYS } from './config.js';
export type { ContextDepth, ContextScope, InheritanceOptions } from './context-inheritance.js';
export {
  buildInheritedContext,
  MESSAGE_CHARS,
  TOOL_RESULT_CHARS,
  withInheritedContext,
} from './context-inheritance.js';
export type {
  AgentCompletedEvent,
  AgentSpawnedEvent,
  DelegateErrorEvent,
  DelegateEventName,
  DelegationEventFields,
} from './events.js';
export {
  AGENT_CANCELLED,
  AGENT_COMPLETED,
  AGENT_RESUMED,
  AGENT_SPAWNED,
  DELEGATE_ERROR,
  DELEGATE_EVENTS,
} from './events.js';
export type { RosterAgent } from './roster.js';
export { readRoster } from './roster.js';
export { agentSlug, SUB_SESSION_ID, subSessionId } from './sub-session-id.js';
export type { ModelRoleResolver } from './tool.js';
export { DelegateTool, MODEL_ROLE_RESOLVER_CAPABILITY } from './tool.js';
export { SESSION_COST_CHANNEL, UsageLedger } from './usage-ledger.js';

/**
 * Mount the `delegate` tool. Bad config fails naming the key; a misspelt key
 * under `limits` is refused. Declares the `delegate:*` events on
 * `observability.events`.
 */
export async function mount(
  coordinator: Coordinator,
  config: Record<string, unknown> = {},
): Promise<Cleanup> {
  const settings = parseConfig(config, coordinator.logger);
  const tool = new DelegateTool(coordinator, settings, new UsageLedger(coordinator));
  coordinator.mount('tools', tool, { name: tool.name });
  coordinator.registerContributor(OBSERVABILITY_EVENTS_CHANNEL, 'tool-delegate', () => [...DELEGATE_EVENTS]);
  return () => {
    coordinator.unmount('tools', { name: tool.name });
  };
}
