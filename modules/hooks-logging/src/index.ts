/**
 * @amplifier/hooks-logging: one JSON record per event (Amplifier's log format)
 * in `<AMPLIFIER_HOME>/projects/<project>/sessions/<session_id>/events.jsonl`,
 * redacted, batched off the hot path, size-bounded with rotation; and the
 * reader that gets the records back from a log a crash left torn.
 */
import type { Cleanup, Coordinator } from '@amplifier/core';
import { parseConfig } from './config.js';
import { EventLogger } from './logger.js';

export type { ConsoleLevel, LoggingConfig, RedactionConfig } from './config.js';
export { amplifierHome, DEFAULTS, logPath, parseConfig, projectSlug } from './config.js';
export type { EventLog, LogRecord, ReadEventLogOptions } from './event-log.js';
export { eventLogFiles, isLogRecord, loadEventLog, readEventLog } from './event-log.js';
export type { JsonlNote, JsonlOptions } from './jsonl.js';
export { JsonlParser, readJsonl, readJsonlSync } from './jsonl.js';
export { EventLogger } from './logger.js';
export type { SanitizedValue } from './record.js';
export { buildRecord, LOG_SCHEMA, sanitizeValue } from './record.js';
export { Redactor } from './redact.js';
export { LogWriter } from './writer.js';

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
