/**
 * @amplifier/hooks-logging: one JSON record per event (Amplifier's log format)
 * in `<AMPLIFIER_HOME>/projects/<project>/sessions/<session_id>/events.jsonl`,
 * redacted, batched off the hot path, size-bounded with rotation. The format,
 * its writer and its reader are `@amplifier/sessions`' (read a log with its
 * `readEventLog`); the redactor is `@amplifier/secrets`'. This module is the
 * hook: which events, which file, when to write.
 */
import type { Cleanup, Coordinator } from '@amplifier/core';
import { parseConfig } from './config.js';
import { EventLogger } from './logger.js';

export type { ConsoleLevel, LoggingConfig, LoggingConfigInput, RedactionConfig } from './config.js';
export { DEFAULTS, logPath, parseConfig } from './config.js';
export { EventLogger } from './logger.js';

const loggers = new WeakMap<Coordinator, EventLogger>();

/** The logger mounted on `coordinator`, if any (for apps that want its file paths). */
export function getEventLogger(coordinator: Coordinator): EventLogger | undefined {
  return loggers.get(coordinator);
}

/**
 * Subscribe to ALL_EVENTS, the `observability.events` capability and
 * `additional_events` now; events contributed by other modules are added in
 * `onSessionReady`. The cleanup writes everything accepted, then closes.
 */
export async function mount(
  coordinator: Coordinator,
  config: Record<string, unknown> = {},
): Promise<Cleanup> {
  const logger = new EventLogger(coordinator, parseConfig(config, coordinator.logger));
  logger.subscribeInitial();
  loggers.set(coordinator, logger);
  return async () => {
    loggers.delete(coordinator);
    await logger.close();
  };
}

/** Pick up the events other modules contributed on `observability.events`. */
export async function onSessionReady(coordinator: Coordinator): Promise<void> {
  await loggers.get(coordinator)?.subscribeContributed();
}
