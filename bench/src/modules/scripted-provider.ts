/**
 * A provider module for the benchmarks: answers from the `Script` registered
 * as the `bench.script` capability (zero latency, O(1) per call, records
 * nothing), like the fake models given to the peers. Loaded by the session's
 * loader from a mount plan entry with `source: <this file>`. It reports a
 * 1M-token context window (like today's large models) so that the 1,000-step
 * histories (up to 9,000 messages) fit without compaction, as they do for the
 * peers, which never compact; compaction is measured in the context group.
 */
import type { ChatResponse, Coordinator, Provider, ToolCall } from '@amplifier/core';
import { ECHO_ARGS, FINAL_TEXT, type Script, TOOL_NAME } from '../adapters/scenario.js';

/** The capability the adapter registers before `initialize()`. */
export const SCRIPT_CAPABILITY = 'bench.script';

function scriptedProvider(script: Script, limits: boolean): Provider {
  const defaults = limits ? { context_window: 1_000_000, max_output_tokens: 8192 } : {};
  return {
    name: 'scripted',
    getInfo: () => ({ id: 'scripted', display_name: 'Scripted benchmark model', defaults }),
    listModels: async () => [],
    async complete(): Promise<ChatResponse> {
      const ids = script.next();
      if (ids === undefined) {
        return { content: [{ type: 'text', text: FINAL_TEXT }], finish_reason: 'stop' };
      }
      return {
        content: [],
        tool_calls: ids.map((id) => ({ id, name: TOOL_NAME, arguments: { ...ECHO_ARGS } })),
        finish_reason: 'tool_calls',
      };
    },
    parseToolCalls: (response: ChatResponse): ToolCall[] => response.tool_calls ?? [],
  };
}

/**
 * Mount the scripted provider as `scripted`; `{ limits: false }` reports no
 * context window, so context-simple uses its 200k-token default budget and compacts.
 */
export async function mount(coordinator: Coordinator, config: Record<string, unknown> = {}): Promise<void> {
  const script = coordinator.getCapability<Script>(SCRIPT_CAPABILITY);
  if (script === undefined) throw new Error(`register the '${SCRIPT_CAPABILITY}' capability first`);
  coordinator.mount('providers', scriptedProvider(script, config.limits !== false), { name: 'scripted' });
}
