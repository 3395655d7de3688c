/**
 * @amplifier/tool-filesystem (module id `tool-filesystem`, also `tool-search`):
 * `read_file`, `write_file`, `edit_file`, `glob` and `grep` behind one path
 * sandbox; the `tools` key picks which of them a mount registers.
 */
import type { Cleanup, Coordinator } from '@amplifier/core';
import { warnConfigKey } from '@amplifier/schema';
import { parseConfig, type ToolContext } from './config.js';
import type { GrepWorkers } from './grep-pool.js';
import { ReadTracker } from './read-tracker.js';
import { type MentionResolver, Sandbox } from './sandbox.js';
import { selectTools } from './tool-selection.js';
import { toolBuilders } from './tools.js';

export type { FilesystemConfig, FilesystemConfigInput, GrepLimits } from './config.js';
export { DEFAULT_EXCLUSIONS, DEFAULT_MAX_READ_BYTES } from './config.js';
export { FILE_TYPE_ALIASES, FILE_TYPES } from './file-types.js';
export type { MentionResolver } from './sandbox.js';
export { FILESYSTEM_ERRORS, SandboxError } from './sandbox.js';
export { TOOL_NAMES } from './tool-selection.js';

/**
 * Mount the five tools, or those `tools` names (`tool-search`, this module's
 * alias, mounts `glob` and `grep`). `working_dir` defaults to the
 * `session.working_dir` capability, else the process cwd. Bad config throws
 * an Error naming every bad key. The returned cleanup unmounts the tools and
 * stops grep's workers.
 */
export async function mount(
  coordinator: Coordinator,
  config: Record<string, unknown> = {},
): Promise<Cleanup> {
  const capability = coordinator.getCapability('session.working_dir');
  const fallback = typeof capability === 'string' && capability !== '' ? capability : process.cwd();
  const selected = selectTools(config);
  const parsed = parseConfig(selected.config, fallback, coordinator.logger);
  if (parsed.require_approval) {
    warnConfigKey(
      coordinator.logger,
      'tool-filesystem',
      'require_approval',
      'is accepted as in the reference, where the tools never ask: approval is a hook concern (mount hooks-approval, which asks before write_file and edit_file by default)',
    );
  }
  const sandbox = await Sandbox.create(parsed, () =>
    coordinator.getCapability<MentionResolver>('mention_resolver'),
  );
  const ctx: ToolContext = { config: parsed, sandbox, tracker: new ReadTracker(), coordinator };
  // grep's worker pool (and node:worker_threads) is loaded by the first search, not at mount.
  let pool: Promise<GrepWorkers> | undefined;
  const workers = (): Promise<GrepWorkers> =>
    (pool ??= import('./grep-pool.js').then(({ GrepWorkers }) => new GrepWorkers()));
  const build = toolBuilders(ctx, workers);
  const tools = selected.names.map((name) => build[name]!());
  for (const tool of tools) coordinator.mount('tools', tool, { name: tool.name });
  return async () => {
    for (const tool of tools) {
      if (coordinator.get('tools', tool.name) === tool) coordinator.unmount('tools', { name: tool.name });
    }
    if (pool !== undefined) await (await pool).close();
  };
}
