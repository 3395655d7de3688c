/**
 * The event logger of one session (one coordinator): subscribes to the event
 * set, turns each event into a record, and hands whole lines to the writer of
 * the record's session file. The hook handler never waits on disk.
 */
import {
  ALL_EVENTS,
  type Coordinator,
  dynamicEvent,
  type EventData,
  errorMessage,
  OBSERVABILITY_EVENTS_CHANNEL,
} from '@amplifier/core';
import { sharedRedactor } from '@amplifier/secrets';
import {
  buildCapturedRecord,
  buildRecord,
  type CapturedEvent,
  captureEvent,
  LogWriter,
  type RecordOptions,
} from '@amplifier/sessions';
import type { ConsoleLevel, LoggingConfig } from './config.js';
import { levelRank, logPath } from './config.js';
import { eventMatcher } from './event-match.js';

const CONSOLE_RANK: Record<string, number> = { DEBUG: 0, INFO: 1, WARN: 2, WARNING: 2, ERROR: 3 };
const CONSOLE_MIN: Record<ConsoleLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
/** Event names whose exclusion is remembered before the memo starts over. */
const EXCLUDED_MEMO_LIMIT = 1024;

export class EventLogger {
  readonly config: LoggingConfig;
  readonly #coordinator: Coordinator;
  readonly #recordOptions: RecordOptions;
  readonly #excluded: (event: string) => boolean;
  /** Records below this rank (`config.level`) are not written. */
  readonly #minRank: number;
  readonly #writers = new Map<string, LogWriter>();
  readonly #subscribed = new Set<string>();
  readonly #unregister: (() => void)[] = [];
  #reportedError = false;

  constructor(coordinator: Coordinator, config: LoggingConfig) {
    this.#coordinator = coordinator;
    this.config = config;
    this.#recordOptions = {
      redactor: config.redaction.enabled ? sharedRedactor(config.redaction) : undefined,
      stripRaw: config.strip_raw,
      maxValueChars: config.max_value_chars,
    };
    this.#minRank = levelRank(config.level);
    const matches = eventMatcher(config.exclude_events);
    // Events are a small set of names: match each once.
    const known = new Map<string, boolean>();
    this.#excluded = (event) => {
      let excluded = known.get(event);
      if (excluded === undefined) {
        excluded = matches(event);
        if (known.size >= EXCLUDED_MEMO_LIMIT) known.clear();
        known.set(event, excluded);
      }
      return excluded;
    };
  }

  /** Every writer opened so far (one per session id seen). */
  get writers(): LogWriter[] {
    return [...this.#writers.values()];
  }

  /** Subscribe to ALL_EVENTS, the `observability.events` capability and `additional_events`. */
  subscribeInitial(): void {
    const events: string[] = [...ALL_EVENTS];
    if (this.config.auto_discover)
      events.push(...flattenNames(this.#coordinator.getCapability(OBSERVABILITY_EVENTS_CHANNEL)));
    events.push(...this.config.additional_events);
    this.#subscribe(events);
  }

  /** Add events contributed on `observability.events` (called once every module is mounted). */
  async subscribeContributed(): Promise<void> {
    if (!this.config.auto_discover) return;
    const contributed = await this.#coordinator.collectContributions(OBSERVABILITY_EVENTS_CHANNEL);
    this.#subscribe([
      ...flattenNames(this.#coordinator.getCapability(OBSERVABILITY_EVENTS_CHANNEL)),
      ...flattenNames(contributed),
    ]);
  }

  /** The events this logger listens to, in subscription order. */
  get events(): string[] {
    return [...this.#subscribed];
  }

  #subscribe(events: readonly string[]): void {
    for (const event of events) {
      if (this.#subscribed.has(event)) continue;
      this.#subscribed.add(event);
      this.#unregister.push(
        // Names come from config and contributions at run time: ALL_EVENTS, observability.events, additional_events.
        this.#coordinator.hooks.register(dynamicEvent(event), (name, data) => this.handle(name, data), {
          priority: this.config.priority,
          name: 'hooks-logging',
        }),
      );
    }
  }

  /**
   * The hook handler: capture the event (a copy of its plain data) and queue
   * it; the writer serialises and redacts it in its next batch. Data that is
   * not plain, and every event when console lines are on, is serialised here.
   * Returns nothing (continue), or, only when the queue is full, a promise
   * that waits briefly for room.
   */
  handle(event: string, data: EventData): Promise<void> | undefined {
    try {
      if (this.#excluded(event)) return undefined;
      const sessionId = data?.session_id;
      if (typeof sessionId !== 'string' || sessionId === '') return undefined;
      if (this.config.console === false) {
        const captured = captureEvent(event, data);
        if (captured !== undefined) return this.#writer(sessionId).push(captured);
      }
      const built = buildRecord(event, data, this.#recordOptions);
      if (built === undefined) return undefined;
      if (this.#minRank > 0 && levelRank(built.level) < this.#minRank) return undefined;
      if (this.config.console !== false) this.#console(event, built.level, built.line);
      return this.#writer(built.sessionId).push(built.line);
    } catch (error) {
      this.#report(`hooks-logging: could not log ${event}: ${errorMessage(error)}`);
      return undefined;
    }
  }

  #writer(sessionId: string): LogWriter {
    let writer = this.#writers.get(sessionId);
    if (writer === undefined) {
      const workingDir = this.#coordinator.getCapability<string>('session.working_dir') ?? process.cwd();
      writer = new LogWriter(logPath(this.config.session_log_template, sessionId, workingDir), {
        maxRecords: this.config.queue_max_records,
        maxBytes: this.config.queue_max_bytes,
        fullWaitMs: this.config.queue_full_wait_ms,
        maxFileBytes: this.config.max_file_bytes,
        maxFiles: this.config.max_files,
        onError: (message) => this.#report(message),
        onNote: (message) => this.#report(message, 'info'),
        format: (captured) => this.#format(captured),
      });
      this.#writers.set(sessionId, writer);
    }
    return writer;
  }

  /** The line of a captured event, made in the writer's batch; undefined below `config.level`. */
  #format(captured: CapturedEvent): string | undefined {
    const built = buildCapturedRecord(captured, this.#recordOptions);
    if (built === undefined) return undefined;
    if (this.#minRank > 0 && levelRank(built.level) < this.#minRank) return undefined;
    return built.line;
  }

  #report(message: string, level: 'info' | 'warning' = 'warning'): void {
    const display = this.#coordinator.display;
    try {
      if (display) display.showMessage(message, level, 'hooks-logging');
      else console.error(message);
    } catch {
      if (!this.#reportedError) console.error(message);
    }
    this.#reportedError = true;
  }

  /** A compact, already redacted line (built from the record, not from the raw data). */
  #console(event: string, level: string, line: string): void {
    const min = CONSOLE_MIN[this.config.console as ConsoleLevel];
    if ((CONSOLE_RANK[level] ?? 1) < min) return;
    const time = new Date().toISOString().slice(11, 23);
    const record = JSON.parse(line) as { data?: Record<string, unknown>; error?: unknown };
    const fields = { ...(record.error !== undefined && { error: record.error }), ...record.data };
    const summary = Object.entries(fields)
      .filter(([key]) => key !== 'parent_id')
      .slice(0, 4)
      .map(([key, value]) => `${key}=${shortValue(value)}`)
      .join(' ');
    process.stderr.write(`${time} ${level.padEnd(5)} ${event}${summary ? ` ${summary}` : ''}\n`);
  }

  /** Unsubscribe, then write everything accepted so far and close the files. */
  async close(): Promise<void> {
    for (const off of this.#unregister.splice(0)) off();
    await Promise.all([...this.#writers.values()].map((writer) => writer.close()));
  }
}

function flattenNames(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(flattenNames);
  return [];
}

function shortValue(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  text = text.replace(/\s+/g, ' ');
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
