/**
 * Which of the five tools a mount registers: the `tools` key, a mount concern
 * read before the tools' own config. The `tool-search` alias sets it to
 * `["glob", "grep"]`, the two tools of the reference's tool-search module.
 */
import { ownConfig } from '@amplifier/core';

/** The names of the tools this module can mount, in mount order. */
export const TOOL_NAMES: readonly string[] = ['read_file', 'write_file', 'edit_file', 'glob', 'grep'];

/**
 * Split `raw` into the tool names to mount (`tools`, default all five, kept
 * in mount order) and the rest of the config. Throws an Error naming the key
 * when `tools` is not a non-empty list of these names.
 */
export function selectTools(raw: unknown): { names: string[]; config: Record<string, unknown> } {
  const { tools, ...config } = ownConfig(raw, 'tool-filesystem');
  if (tools === undefined) return { names: [...TOOL_NAMES], config };
  const valid =
    Array.isArray(tools) &&
    tools.length > 0 &&
    tools.every((name) => typeof name === 'string' && TOOL_NAMES.includes(name));
  if (!valid) {
    throw new Error(
      `tool-filesystem: config key "tools" must be a non-empty list of ${TOOL_NAMES.join(', ')}; got ${JSON.stringify(tools)}`,
    );
  }
  return { names: TOOL_NAMES.filter((name) => (tools as unknown[]).includes(name)), config };
}
