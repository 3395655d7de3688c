/**
 * hooks-logging configuration: defaults, validation (ajv through core) and the
 * log file path (template + project slug).
 */
import os from 'node:os';
import path from 'node:path';
import { compileSchema, formatDataErrors, type JSONSchema } from '@amplifier/core';

export type ConsoleLevel = 'debug' | 'info' | 'warn' | 'error';

export interface RedactionConfig {
  /** Default true. */
  enabled: boolean;
  /** Extra key names (case-insensitive, `-`/`_` ignored) whose values are secrets. */
  keys: string[];
  /** Extra regular expressions (JavaScript syntax) whose matches are secrets. */
  patterns: string[];
  /** Also redact exact values of secret-looking environment variables. Default true. */
  env_values: boolean;
}

export interface LoggingConfig {
  priority: number;
  session_log_template: string;
  auto_discover: boolean;
  additional_events: string[];
  exclude_events: string[];
  strip_raw: boolean;
  redaction: RedactionConfig;
  /** Rotate when the file would grow past this many bytes; null = never. */
  max_file_bytes: number | null;
  /** Files kept including the current one (`events.jsonl`, `events.1.jsonl`, ...). */
  max_files: number;
  /** Longest string value written; longer ones are cut with a marker. */
  max_value_chars: number;
  /** Bounded queue between the hook and the writer. */
  queue_max_records: number;
  queue_max_bytes: number;
  /** How long a hook call waits for room when the queue is full before the record is dropped. */
  queue_full_wait_ms: number;
  /** A compact line per event on stderr at or above this level; false = off. */
  console: ConsoleLevel | false;
}

export const DEFAULT_TEMPLATE = '{amplifier_home}/projects/{project}/sessions/{session_id}/events.jsonl';

export const DEFAULTS: Readonly<LoggingConfig> = Object.freeze({
  priority: 100,
  session_log_template: DEFAULT_TEMPLATE,
  auto_discover: true,
  additional_events: [],
  exclude_events: ['llm:stream_*delta'],
  strip_raw: false,
  redaction: { enabled: true, keys: [], patterns: [], env_values: true },
  max_file_bytes: 100 * 1024 * 1024,
  max_files: 5,
  max_value_chars: 1_000_000,
  queue_max_records: 10_000,
  queue_max_bytes: 16 * 1024 * 1024,
  queue_full_wait_ms: 100,
  console: false,
});

const stringList: JSONSchema = { type: 'array', items: { type: 'string' } };

const CONFIG_SCHEMA: JSONSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    priority: { type: 'number' },
    session_log_template: { type: 'string', minLength: 1 },
    auto_discover: { type: 'boolean' },
    additional_events: stringList,
    exclude_events: stringList,
    strip_raw: { type: 'boolean' },
    redaction: {
      anyOf: [
        { type: 'boolean' },
        {
          type: 'object',
          additionalProperties: false,
          properties: {
            enabled: { type: 'boolean' },
            keys: stringList,
            patterns: stringList,
            env_values: { type: 'boolean' },
          },
        },
      ],
    },
    max_file_bytes: { type: ['integer', 'null'], minimum: 1024 },
    max_files: { type: 'integer', minimum: 1 },
    max_value_chars: { type: 'integer', minimum: 16 },
    queue_max_records: { type: 'integer', minimum: 1 },
    queue_max_bytes: { type: 'integer', minimum: 1024 },
    queue_full_wait_ms: { type: 'integer', minimum: 0 },
    console: { enum: [false, 'debug', 'info', 'warn', 'error'] },
  },
};

/** Defaults filled in; throws an Error listing every bad key. */
export function parseConfig(raw: Record<string, unknown>): LoggingConfig {
  const errors = compileSchema(CONFIG_SCHEMA)(raw);
  if (errors.length > 0) {
    throw new Error(`hooks-logging: invalid config:\n${formatDataErrors(errors)}`);
  }
  const given = raw as Partial<LoggingConfig> & { redaction?: boolean | Partial<RedactionConfig> };
  const redaction =
    typeof given.redaction === 'boolean'
      ? { ...DEFAULTS.redaction, enabled: given.redaction }
      : { ...DEFAULTS.redaction, ...given.redaction };
  for (const pattern of redaction.patterns) {
    try {
      new RegExp(pattern);
    } catch (error) {
      throw new Error(`hooks-logging: invalid config: redaction.patterns: ${(error as Error).message}`);
    }
  }
  return { ...DEFAULTS, ...given, redaction } as LoggingConfig;
}

/** `/home/u/app` -> `-home-u-app` (the reference's project slug). */
export function projectSlug(workingDir: string): string {
  const slug = path.resolve(workingDir).replace(/[/\\]/g, '-').replace(/:/g, '');
  return slug.startsWith('-') ? slug : `-${slug}`;
}

/** Where `AMPLIFIER_HOME` points, else `~/.amplifier`. */
export function amplifierHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.AMPLIFIER_HOME || path.join(os.homedir(), '.amplifier');
}

/** Fill the template's `{amplifier_home}`, `{project}` and `{session_id}`, expand `~`. */
export function logPath(template: string, sessionId: string, workingDir: string): string {
  const safeId = sessionId.replace(/[^A-Za-z0-9._-]/g, '_');
  let file = template
    .replaceAll('{amplifier_home}', amplifierHome())
    .replaceAll('{project}', projectSlug(workingDir))
    .replaceAll('{session_id}', safeId);
  if (file === '~' || file.startsWith('~/')) file = path.join(os.homedir(), file.slice(1));
  return path.resolve(file);
}
