/**
 * The module's config: read by core's config policy (own properties only,
 * unknown keys warned about once and ignored, bad values refused with the key).
 */
import { getOwn, type JSONSchema, type Logger, readModuleConfig } from '@amplifier/core';

export interface OtelConfig {
  /** Handler priority; after hooks-redaction (10) and the loggers (100), so spans see what they saw. */
  priority: number;
  /** Prompts, completions, tool arguments and results on spans (off: metadata only). */
  capture_content: boolean;
  /** Captured content longer than this (characters per string) is shortened. */
  max_content_chars: number;
  /** Record the GenAI metrics (token usage, operation duration). */
  metrics: boolean;
  /** `gen_ai.agent.name` of the session span when the session's metadata names no agent. */
  agent_name: string;
  /** Name of the tracer and meter (the instrumentation scope). */
  instrumentation_name: string;
}

export const DEFAULTS: Readonly<OtelConfig> = Object.freeze({
  priority: 500,
  capture_content: false,
  max_content_chars: 8192,
  metrics: true,
  agent_name: 'amplifier',
  instrumentation_name: '@amplifier/hooks-otel',
});

/** JSON Schema of the config. */
export const CONFIG_SCHEMA: JSONSchema = {
  type: 'object',
  properties: {
    priority: { type: 'number' },
    capture_content: { type: 'boolean' },
    max_content_chars: { type: 'integer', minimum: 16 },
    metrics: { type: 'boolean' },
    agent_name: { type: 'string', minLength: 1 },
    instrumentation_name: { type: 'string', minLength: 1 },
  },
};

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
