/**
 * The module's config, read by the config policy of `@amplifier/schema` (own properties only,
 * unknown keys warned about once and ignored, bad values refused with the key).
 */
import { getOwn, type Logger } from '@amplifier/core';
import { type FromSchema, readModuleConfig } from '@amplifier/schema';

/** JSON Schema of the config: the one source of `OtelConfig`. */
export const CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    /** Handler priority; after hooks-redaction (10) and the loggers (100), so spans see what they saw. */
    priority: { type: 'number' },
    /** Prompts, completions, tool arguments and results on spans (off: metadata only). */
    capture_content: { type: 'boolean' },
    /** Captured content longer than this (characters per string) is shortened. */
    max_content_chars: { type: 'integer', minimum: 16 },
    /** Record the GenAI metrics (token usage, operation duration). */
    metrics: { type: 'boolean' },
    /** `gen_ai.agent.name` of the session span when the session's metadata names no agent. */
    agent_name: { type: 'string', minLength: 1 },
    /** Name of the tracer and meter (the instrumentation scope). */
    instrumentation_name: { type: 'string', minLength: 1 },
  },
} as const;

/** The config with its defaults filled in (every key of `CONFIG_SCHEMA`). */
export type OtelConfig = Required<FromSchema<typeof CONFIG_SCHEMA>>;

export const DEFAULTS: Readonly<OtelConfig> = Object.freeze({
  priority: 500,
  capture_content: false,
  max_content_chars: 8192,
  metrics: true,
  agent_name: 'amplifier',
  instrumentation_name: '@amplifier/hooks-otel',
});

/** Read `raw` by core's config policy and fill in the defaults; throws naming a key with a bad value. */
export function parseConfig(raw: unknown, logger?: Pick<Logger, 'warn'>): OtelConfig {
  const config = readModuleConfig(raw, { module: 'hooks-otel', schema: CONFIG_SCHEMA, logger });
  const own = <K extends keyof OtelConfig>(key: K): OtelConfig[K] =>
    getOwn<OtelConfig[K]>(config, key) ?? DEFAULTS[key];
  return {
    priority: own('priority'),
    capture_content: own('capture_content'),
    max_content_chars: own('max_content_chars'),
    metrics: own('metrics'),
    agent_name: own('agent_name'),
    instrumentation_name: own('instrumentation_name'),
  };
}
