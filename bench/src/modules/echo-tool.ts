/**
 * The trivial echo tool as an Amplifier module, for the benchmarks. It declares
 * that it touches no resource (`resourceKeys` returns none), as a side-effect
 * free tool should, so the loop may run several calls of it at once.
 */
import type { Coordinator, Tool, ToolResult } from '@amplifier/core';
import { ECHO_SCHEMA, type Script, TOOL_DESCRIPTION, TOOL_NAME } from '../adapters/scenario.js';
import { SCRIPT_CAPABILITY } from './scripted-provider.js';

/**
 * Mount `echo`; it counts its calls on the `bench.script` capability when there
 * is one. `{ profile: false }` mounts it without an execution profile, as most
 * third-party tools are (the loop then runs its calls one after the other).
 */
export async function mount(coordinator: Coordinator, config: Record<string, unknown> = {}): Promise<void> {
  const script = coordinator.getCapability<Script>(SCRIPT_CAPABILITY);
  const tool: Tool = {
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    inputSchema: ECHO_SCHEMA,
    ...(config.profile !== false && { executionProfile: { resourceKeys: () => [] } }),
    async execute(input): Promise<ToolResult> {
      const text = String(input.text);
      return { success: true, output: script ? script.echo(text) : text };
    },
  };
  coordinator.mount('tools', tool, { name: TOOL_NAME });
}
