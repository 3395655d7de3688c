/**
 * @amplifier/hooks-approval: permission rules and human approval for tool
 * calls (module id `hooks-approval`, type hook). Ordered allow / deny / ask
 * rules per tool and argument pattern; compound shell commands checked command
 * by command; `ask` goes to the app's approval provider through `ask_user`;
 * decisions bound to the call id and the exact arguments; session grants;
 * `approval:*` events and a JSONL audit log.
 *
 * ```ts
 * import { mount } from '@amplifier/hooks-approval';
 * await mount(coordinator, { rules: [{ tool: 'bash', when: { command: 'git status*' }, action: 'allow' }] });
 * ```
 */
import type { ApprovalProvider, Cleanup, Coordinator } from '@amplifier/core';
import { parseConfig } from './config.js';
import { ApprovalHook } from './hook.js';

export type { AuditDecision, AuditRecord, DecisionSource } from './audit.js';
export { argsSummary } from './audit.js';
export { argsHash, canonicalJson } from './binding.js';
export type { ApprovalConfig, ApprovalConfigInput, RuleAction, RuleConfig } from './config.js';
export { DEFAULT_RULES, defaultSessionDir, parseConfig } from './config.js';
export type { Grant } from './grants.js';
export { APPROVAL_OPTIONS, escapeDisguising } from './prompt.js';
export type { Evaluation, MatchedRule } from './rules.js';
export { ApprovalHook };

/** The handler name shown by `hooks.listHandlers('tool:pre')`. */
export const HOOK_NAME = 'hooks-approval';
/** The first handler: remembers the input as the orchestrator emitted it. */
export const ORIGINAL_HOOK_NAME = 'hooks-approval:emitted-input';
/** Priority of the first handler (runs before every other `tool:pre` handler). */
export const ORIGINAL_PRIORITY: number = Number.MIN_SAFE_INTEGER;
/** The second handler: last on `tool:pre`, it checks the final (possibly modified) input. */
export const VERIFY_HOOK_NAME = 'hooks-approval:final-input';
/** Priority of the second handler (runs after every other `tool:pre` handler). */
export const VERIFY_PRIORITY: number = Number.MAX_SAFE_INTEGER;
/** The capability apps call to set their approval provider (the reference's name). */
export const REGISTER_PROVIDER_CAPABILITY = 'approval.register_provider';

/**
 * Register the three `tool:pre` handlers (emitted input, decision, final input) and the `approval.register_provider`
 * capability, and wrap the app's approval provider if one is set. Bad config
 * throws an Error naming the key. The cleanup unregisters everything, puts the
 * app's provider back, records questions never asked and closes the audit log.
 */
export async function mount(
  coordinator: Coordinator,
  config: Record<string, unknown> = {},
): Promise<Cleanup> {
  const hook = new ApprovalHook(coordinator, parseConfig(config, process.env, coordinator.logger));
  const offs = [
    coordinator.hooks.register('tool:pre', (_event, data) => hook.onOriginalInput(data), {
      priority: ORIGINAL_PRIORITY,
      name: ORIGINAL_HOOK_NAME,
    }),
    coordinator.hooks.register('tool:pre', (_event, data) => hook.onToolPre(data), {
      priority: hook.config.priority,
      name: HOOK_NAME,
    }),
    coordinator.hooks.register('tool:pre', (_event, data) => hook.onFinalInput(data), {
      priority: VERIFY_PRIORITY,
      name: VERIFY_HOOK_NAME,
    }),
  ];
  const register = (provider: ApprovalProvider): void => hook.registerProvider(provider);
  coordinator.registerCapability(REGISTER_PROVIDER_CAPABILITY, register);
  hook.ensureBridge();
  let closed = false;
  return async () => {
    if (closed) return;
    closed = true;
    for (const off of offs) off();
    if (coordinator.getCapability(REGISTER_PROVIDER_CAPABILITY) === register) {
      coordinator.registerCapability(REGISTER_PROVIDER_CAPABILITY, undefined);
    }
    hook.restoreProvider();
    await hook.close();
  };
}
