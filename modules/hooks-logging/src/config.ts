/**
 * hooks-logging configuration: defaults, validation (ajv through @amplifier/schema) and the
 * log file path (template + project slug).
 */
import os from 'node:os';
import path from 'node:path';
import { getOwn, isPlainObject, type Logger } from '@amplifier/core';
import { configDurationMs, type FromSchema, readModuleConfig, warnConfigKey } from '@amplifier/schema';
import { DEFAULT_REDACTION, type RedactionConfig } from '@amplifier/secrets';
import { amplifierHome, projectSlug, sessionFolderName } from '@amplifier/sessions';

export type { RedactionConfig };

export type ConsoleLevel = 'debug' | 'info' | 'warn' | 'error';

/** Record levels, lowest first (the reference's names; `WARN` reads as `WARNING`). */
export const RECORD_LEVELS = ['DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL'] as const;
export type RecordLevel = (typeof RECORD_LEVELS)[number];

/** The rank of a record's `lvl` (unknown levels count as INFO). */
export function levelRank(level: string): number {
  const upper = level.toUpperCase();
  const rank = RECORD_LEVELS.indexOf((upper === 'WARN' ? 'WARNING' : upper) as RecordLevel);
  return rank === -1 ? 1 : rank;
}

export const DEFAULT_TEMPLATE = '{amplifier_home}/projects/{project}/sessions/{session_id}/events.jsonl';

export const DEFAULTS: Readonly<LoggingConfig> = Object.freeze({
  priority: 100,
  session_log_template: DEFAULT_TEMPLATE,
  auto_discover: true,
  additional_events: [],
  exclude_events: ['llm:stream_*delta'],
  strip_raw: false,
  redaction: { ...DEFAULT_REDACTION, keys: [], patterns: [] },
  max_file_bytes: 100 * 1024 * 1024,
  max_files: 5,
  max_value_chars: 1_000_000,
  queue_max_records: 10_000,
  queue_max_bytes: 16 * 1024 * 1024,
  queue_full_wait_ms: 100,
  console: false,
  level: 'DEBUG',
});

/**
 * JSON Schema of the config: the one source of `LoggingConfigInput` (`FromSchema`);
 * `readModuleConfig` (@amplifier/schema) warns about other keys.
 */
export const CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    /** Handler priority. Default 100. */
    priority: { type: 'number' },
    /** Where the file goes: `{amplifier_home}`, `{project}`, `{session_id}` are filled in. */
    session_log_template: { type: 'string', minLength: 1 },
    /** Subscribe to the events other modules contribute on `observability.events`. */
    auto_discover: { type: 'boolean' },
    /** Events logged besides the kernel's. */
    additional_events: { type: 'array', items: { type: 'string' } },
    /** Event names or patterns not logged. */
    exclude_events: { type: 'array', items: { type: 'string' } },
    /** Leave providers' raw payloads out of the records. */
    strip_raw: { type: 'boolean' },
    /** `false` turns redaction off; a section adds keys and patterns. */
    redaction: {
      anyOf: [
        { type: 'boolean' },
        {
          type: 'object',
          // Refused, not warned (SAFETY_KEYS): a misspelt `keys` or `patterns` would redact less than asked.
          properties: {
            enabled: { type: 'boolean' },
            keys: { type: 'array', items: { type: 'string' } },
            patterns: { type: 'array', items: { type: 'string' } },
            env_values: { type: 'boolean' },
          },
        },
      ],
    },
    /** Rotate when the file would grow past this many bytes; null = never. */
    max_file_bytes: { type: ['integer', 'null'], minimum: 1024 },
    /** Files kept including the current one (`events.jsonl`, `events.1.jsonl`, ...). */
    max_files: { type: 'integer', minimum: 1 },
    /** Longest string value written; longer ones are cut with a marker. */
    max_value_chars: { type: 'integer', minimum: 16 },
    /** Bounded queue between the hook and the writer: records. */
    queue_max_records: { type: 'integer', minimum: 1 },
    /** Bounded queue between the hook and the writer: bytes. */
    queue_max_bytes: { type: 'integer', minimum: 1024 },
    /** Seconds a hook call waits for room when the queue is full before the record is dropped. */
    queue_full_wait: { type: 'number', minimum: 0 },
    /** The same in milliseconds (the alias of earlier releases). */
    queue_full_wait_ms: { type: 'integer', minimum: 0 },
    /** A compact line per event on stderr at or above this level; false = off. */
    console: { enum: [false, 'debug', 'info', 'warn', 'error'] },
    // The reference's keys: the foundation bundle's `mode`, the mount plan specification's
    // `output_dir`, the reference README's `level`.
    /** `session-only`: the session file only, no console lines. */
    mode: { type: 'string' },
    /** The file goes to `<output_dir>/<session_id>/events.jsonl` unless `session_log_template` is given. */
    output_dir: { type: 'string', minLength: 1 },
    /** The lowest record level written (`RECORD_LEVELS`, `WARN`, either case). */
    level: {
      enum: [
        'DEBUG',
        'INFO',
        'WARNING',
        'ERROR',
        'CRITICAL',
        'WARN',
        'debug',
        'info',
        'warning',
        'error',
        'critical',
        'warn',
      ],
    },
  },
} as const;

/** The config as written: derived from `CONFIG_SCHEMA`. */
export type LoggingConfigInput = FromSchema<typeof CONFIG_SCHEMA>;

/**
 * The config with its defaults filled in: every key of `CONFIG_SCHEMA` but the
 * ones resolved into others (`mode`, `output_dir` -> `session_log_template`,
 * `console`; `queue_full_wait` -> `queue_full_wait_ms`), with `redaction` as a
 * whole section and `level` as one of `RECORD_LEVELS`.
 */
export type LoggingConfig = Required<
  Omit<LoggingConfigInput, 'mode' | 'output_dir' | 'queue_full_wait' | 'redaction' | 'level'>
> & {
  redaction: RedactionConfig;
  /** The reference's `level`: records below it are not written (`DEBUG` writes all). */
  level: RecordLevel;
};

/** The safety-relevant keys (see README): refused when misspelt or with unknown keys inside. */
export const SAFETY_KEYS: Readonly<Record<string, string>> = {
  redaction: 'ignoring it would write secrets the config asked to redact',
};

/** The `mode` values this module knows. */
export const MODES = ['session-only'] as const;

/**
 * Read `raw` by core's config policy (own properties only; unknown keys warned
 * about once through `logger` and ignored; unknown keys inside `redaction`
 * refused) and fill in the defaults. Throws when a known key has a bad value.
 *
 * The reference's keys: `mode: session-only` writes the session's JSONL file
 * only (no console lines); `output_dir` puts the file at
 * `<output_dir>/<session_id>/events.jsonl` (relative to the session's working
 * directory) unless `session_log_template` is given; `level` is the lowest
 * record level written.
 */
export function parseConfig(raw: unknown, logger?: Pick<Logger, 'warn'>): LoggingConfig {
  const config = readModuleConfig(raw, {
    module: 'hooks-logging',
    schema: CONFIG_SCHEMA,
    safety: SAFETY_KEYS,
    logger,
  });
  const mode = getOwn<string>(config, 'mode');
  if (mode !== undefined && !(MODES as readonly string[]).includes(mode)) {
    warnConfigKey(
      logger,
      'hooks-logging',
      'mode',
      `value '${mode}' is not known (known: ${MODES.join(', ')}); the session file is written, as with session-only`,
    );
  }
  const outputDir = getOwn<string>(config, 'output_dir');
  const template = getOwn<string>(config, 'session_log_template');
  if (outputDir !== undefined && template !== undefined) {
    warnConfigKey(
      logger,
      'hooks-logging',
      'output_dir',
      'is ignored: session_log_template is given and says where the file goes',
    );
  }
  const level = getOwn<string>(config, 'level');
  const own = <K extends keyof LoggingConfig>(key: K): LoggingConfig[K] =>
    getOwn<LoggingConfig[K]>(config, key) ?? (DEFAULTS[key] as LoggingConfig[K]);
  const redaction = parseRedaction(getOwn(config, 'redaction'));
  return {
    priority: own('priority'),
    session_log_template:
      template ??
      (outputDir === undefined ? DEFAULTS.session_log_template : `${outputDir}/{session_id}/events.jsonl`),
    auto_discover: own('auto_discover'),
    additional_events: [...own('additional_events')],
    exclude_events: [...own('exclude_events')],
    strip_raw: own('strip_raw'),
    redaction,
    // null is a value here (never rotate), not "not given".
    max_file_bytes: Object.hasOwn(config, 'max_file_bytes')
      ? (config.max_file_bytes as number | null)
      : DEFAULTS.max_file_bytes,
    max_files: own('max_files'),
    max_value_chars: own('max_value_chars'),
    queue_max_records: own('queue_max_records'),
    queue_max_bytes: own('queue_max_bytes'),
    // Seconds, as Amplifier's duration keys are; `queue_full_wait_ms` is the alias of earlier releases.
    queue_full_wait_ms: Math.round(
      configDurationMs(config, 'queue_full_wait', 'hooks-logging') ?? DEFAULTS.queue_full_wait_ms,
    ),
    console: mode === 'session-only' ? false : own('console'),
    level: level === undefined ? DEFAULTS.level : RECORD_LEVELS[levelRank(level)]!,
  };
}

function parseRedaction(given: unknown): RedactionConfig {
  const defaults = DEFAULTS.redaction;
  if (typeof given === 'boolean') return { ...defaults, keys: [], patterns: [], enabled: given };
  const section = isPlainObject(given) ? given : {};
  const redaction: RedactionConfig = {
    enabled: getOwn<boolean>(section, 'enabled') ?? defaults.enabled,
    keys: [...(getOwn<string[]>(section, 'keys') ?? [])],
    patterns: [...(getOwn<string[]>(section, 'patterns') ?? [])],
    env_values: getOwn<boolean>(section, 'env_values') ?? defaults.env_values,
  };
  for (const pattern of redaction.patterns) {
    try {
      new RegExp(pattern);
    } catch (error) {
      throw new Error(`hooks-logging: invalid config: redaction.patterns: ${(error as Error).message}`);
    }
  }
  return redaction;
}

/** Fill the template's `{amplifier_home}`, `{project}` and `{session_id}`, expand `~`; a relative path is taken from `workingDir`. */
export function logPath(template: string, sessionId: string, workingDir: string): string {
  const safeId = sessionFolderName(sessionId);
  let file = template
    .replaceAll('{amplifier_home}', amplifierHome())
    .replaceAll('{project}', projectSlug(workingDir))
    .replaceAll('{session_id}', safeId);
  if (file === '~' || file.startsWith('~/')) file = path.join(os.homedir(), file.slice(1));
  return path.resolve(workingDir, file);
}
