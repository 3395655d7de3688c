/**
 * @amplifier/tool-delegate (module id `tool-delegate`, also `tool-task`): a
 * placeholder. Its manifest says `"unavailable"`, so the loader refuses it,
 * by id and by alias, with the reason below and never imports this file; an
 * app that imports it directly gets the same refusal from `mount`.
 */
import type { Coordinator } from '@amplifier/core';

/** Why the module does not load (the manifest's `"unavailable"`, kept in step by a test). */
export const UNAVAILABLE: string =
  "sub-agents are not available yet: tool-delegate and tool-task run agents, which this project does not have (they come with agent support). Remove the tool from the bundle's tools (for the foundation bundle: the agents behavior) to run without sub-agents";

/** Always fails: sub-agents are not available yet. Nothing is mounted. */
export async function mount(
  _coordinator: Coordinator,
  _config: Record<string, unknown> = {},
): Promise<never> {
  throw new Error(`tool-delegate: ${UNAVAILABLE}`);
}
