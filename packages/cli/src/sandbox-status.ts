/**
 * The sandbox of each mounted subprocess tool (tool-bash, tool-agentpm), as
 * its mount reports it on the process kit's `SANDBOX_STATUS_CHANNEL`: one line
 * per module for `/status` and `amplifier run --verbose`.
 */
import type { Coordinator } from '@amplifier/core';
import { SANDBOX_STATUS_CHANNEL } from '@amplifier/process';

/** `tool-bash: auto (bubblewrap, network off, process limit: cgroup)`, one per mount; none without such tools. */
export async function sandboxLines(coordinator: Coordinator): Promise<string[]> {
  const lines: string[] = [];
  for (const item of await coordinator.collectContributions(SANDBOX_STATUS_CHANNEL)) {
    if (typeof item !== 'object' || item === null) continue;
    const { module, mode } = item as { module?: unknown; mode?: unknown };
    if (typeof module === 'string' && typeof mode === 'string') lines.push(`${module}: ${mode}`);
  }
  return lines;
}
