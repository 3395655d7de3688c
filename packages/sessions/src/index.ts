/**
 * @amplifier/sessions: the session folder on disk, the one owner of its
 * format (ours and Python Amplifier's):
 * `<AMPLIFIER_HOME>/projects/<slug>/sessions/<id>/` with `metadata.json`,
 * `transcript.jsonl` and `events.jsonl` (Amplifier's log record format,
 * rotated as `events.<n>.jsonl`).
 *
 * - Paths: `amplifierHome`, `projectSlug`, `projectSessionsDir`, `SESSION_FILES`.
 * - Reading, tolerant of what a crash leaves (a torn last line, a torn line
 *   in the middle, foreign lines): `readJsonl`/`readJsonlSync`/`JsonlParser`,
 *   `readEventLog`, `readTranscript`, `readMetadataFile`, `readSessionMetadata`.
 * - Writing, redacted with `@amplifier/secrets`' redactor: event records
 *   (`buildRecord`, `LogWriter`), `TranscriptAppender`, `storedText` /
 *   `storedData` for what metadata.json keeps of prompts and configs.
 */
export type { CapturedEvent } from './capture.js';
export { captureEvent, MAX_CAPTURE_DEPTH } from './capture.js';
export type { EventLog, LogRecord, ReadEventLogOptions } from './event-log.js';
export { eventLogFiles, isLogRecord, loadEventLog, readEventLog } from './event-log.js';
export type { JsonlNote, JsonlOptions } from './jsonl.js';
export { DEFAULT_MAX_LINE_BYTES, JsonlParser, readJsonl, readJsonlSync } from './jsonl.js';
export type { MetadataRead, SessionMetadata } from './metadata.js';
export {
  displayStatus,
  readMetadataFile,
  readSessionMetadata,
  storedData,
  storedText,
} from './metadata.js';
export { amplifierHome, projectSessionsDir, projectSlug, SESSION_FILES, sessionFolderName } from './paths.js';
export type { BuiltRecord, RecordOptions, SanitizedValue } from './record.js';
export { buildCapturedRecord, buildRecord, LOG_SCHEMA, sanitizeValue } from './record.js';
export type { TranscriptMessage } from './transcript.js';
export {
  isTranscriptMessage,
  isUnstoredRole,
  readTranscript,
  TranscriptAppender,
  transcriptText,
} from './transcript.js';
export type { QueuedEntry, WriterOptions } from './writer.js';
export { LogWriter } from './writer.js';
