/**
 * @amplifier/context-simple: the reference in-memory context manager. History
 * is never modified by compaction; `getMessagesForRequest` returns a compacted
 * view when the history nears the provider-derived budget. `memory_files` are
 * loaded at mount as system messages (the reference's context-persistent,
 * which this module also answers to).
 */
import { type Coordinator, ownConfig } from '@amplifier/core';
import { SimpleContextManager } from './context.js';
import { memoryFileList, readMemoryFiles } from './memory-files.js';

export { SAFETY_MARGIN_TOKENS } from './budget.js';
export type { CompactionResult, CompactionSettings, CompactionStats } from './compaction.js';
export { compactMessages, estimateTokens } from './compaction.js';
export type { ContextSimpleConfig, NoticeVerbosity, ResolvedConfig } from './config.js';
export { CONFIG_SCHEMA, DEFAULT_CONFIG, resolveConfig } from './config.js';
export type { SimpleContextOptions, SystemPromptFactory } from './context.js';
export { SimpleContextManager } from './context.js';
export {
  amplifierHomeOf,
  MEMORY_FILE_SOURCE,
  type MemoryFileScope,
  readMemoryFiles,
} from './memory-files.js';
export { formatCompactionNotice, NOTICE_SOURCE, noticeMessage, stubText, truncatedText } from './notice.js';

/**
 * Mount a `SimpleContextManager` at the `context` mount point, emitting
 * `context:compaction` through `coordinator.hooks`. Invalid config fails with a
 * message naming each bad key; unknown keys are warned about once and ignored
 * (core's config policy). Only the config's own properties are read.
 * `memory_files` (paths relative to the `session.working_dir` capability,
 * else the process cwd) are read now and stored first, as system messages;
 * they must lie in the folders of the `session.reference_roots` capability
 * (a list of folders the app registers), else in the working directory.
 */
export async function mount(coordinator: Coordinator, raw: Record<string, unknown> = {}): Promise<void> {
  const { memory_files, ...config } = ownConfig(raw, 'context-simple');
  const files = memoryFileList(memory_files);
  const context = new SimpleContextManager(config, { hooks: coordinator.hooks, logger: coordinator.logger });
  if (files.length > 0) {
    const workingDir = coordinator.getCapability('session.working_dir');
    const baseDir = typeof workingDir === 'string' && workingDir !== '' ? workingDir : process.cwd();
    const roots = coordinator.getCapability('session.reference_roots');
    const scope = {
      roots:
        Array.isArray(roots) && roots.every((r) => typeof r === 'string') ? (roots as string[]) : [baseDir],
    };
    for (const message of await readMemoryFiles(files, baseDir, coordinator.logger, scope)) {
      await context.addMessage(message);
    }
  }
  coordinator.mount('context', context);
}
