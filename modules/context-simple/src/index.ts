/**
 * @amplifier/context-simple: the reference in-memory context manager. History
 * is never modified by compaction; `getMessagesForRequest` returns a compacted
 * view when the history nears the provider-derived budget.
 */
import type { Coordinator } from '@amplifier/core';
import { SimpleContextManager } from './context.js';

export { SAFETY_MARGIN_TOKENS } from './budget.js';
export type { CompactionResult, CompactionSettings, CompactionStats } from './compaction.js';
export { compactMessages, estimateTokens } from './compaction.js';
export type { ContextSimpleConfig, NoticeVerbosity, ResolvedConfig } from './config.js';
export { CONFIG_SCHEMA, DEFAULT_CONFIG, resolveConfig } from './config.js';
export type { EventEmitterLike, SimpleContextOptions, SystemPromptFactory } from './context.js';
export { SimpleContextManager } from './context.js';
export { formatCompactionNotice, NOTICE_SOURCE, noticeMessage, stubText, truncatedText } from './notice.js';

/**
 * Mount a `SimpleContextManager` at the `context` mount point, emitting
 * `context:compaction` through `coordinator.hooks`. Invalid config fails with a
 * message naming each bad key; unknown keys are warned about once and ignored
 * (core's config policy). Only
 * the config's own properties are read.
 */
export async function mount(coordinator: Coordinator, raw: Record<string, unknown> = {}): Promise<void> {
  const context = new SimpleContextManager(raw, { hooks: coordinator.hooks, logger: coordinator.logger });
  coordinator.mount('context', context);
}
