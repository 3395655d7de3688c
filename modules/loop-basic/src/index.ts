/**
 * @amplifier/loop-basic: Amplifier's reference agent loop (module id
 * `loop-basic`, type orchestrator) with validated, resource-scheduled,
 * time-limited tool calls.
 *
 * ```ts
 * import { mount } from '@amplifier/loop-basic';
 * await mount(coordinator, { max_iterations: 50, tool_aliases: { Read: 'read_file' } });
 * ```
 */
import type { Coordinator } from '@amplifier/core';
import { resolveConfig } from './config.js';
import { BasicOrchestrator } from './orchestrator.js';

export type { LoopBasicConfig, ResolvedConfig } from './config.js';
export { DEFAULTS, resolveConfig } from './config.js';
export { MAX_ARGUMENT_DEPTH } from './depth.js';
export { textOf } from './messages.js';
export { BasicOrchestrator, CANCELLED_MESSAGE, LOOP_LIMIT_REMINDER } from './orchestrator.js';
export type { ScheduleEntry } from './scheduler.js';
export { conflicts, runScheduled } from './scheduler.js';
export { cancelledContent } from './tool-runner.js';
export { truncateOutput } from './truncate.js';

/**
 * Mount a `BasicOrchestrator` at `orchestrator`. Throws a clear error for bad
 * config; warns once about each key it does not know (core's config policy). The config is read through its
 * own properties only. The returned cleanup unmounts it (if it is still the
 * mounted orchestrator).
 */
export function mount(coordinator: Coordinator, raw: Record<string, unknown> = {}): () => void {
  const resolved = resolveConfig(raw, coordinator.logger);
  const orchestrator = new BasicOrchestrator(resolved);
  coordinator.mount('orchestrator', orchestrator);
  return () => {
    if (coordinator.get('orchestrator') === orchestrator) coordinator.unmount('orchestrator');
  };
}
