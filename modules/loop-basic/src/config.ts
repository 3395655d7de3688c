/**
 * The orchestrator's config: the reference keys (snake_case, as in a mount
 * plan) plus the scheduling, timeout, truncation and alias settings. Checked
 * with core's ajv at mount time; a bad value fails `mount` with every problem.
 */
import { getOwn, type Logger } from '@amplifier/core';
import { defineModuleConfig, type FromSchema } from '@amplifier/schema';

/** The config with every default filled in (tool_timeout in ms, null: none). */
export interface ResolvedConfig {
  maxIterations: number;
  maxConcurrentTools: number;
  toolTimeoutMs: number | null;
  maxToolOutputBytes: number;
  toolAliases: ReadonlyMap<string, string>;
  extendedThinking: boolean;
  reasoningEffort: string | undefined;
  maxEmptyResponses: number;
  defaultProvider: string | undefined;
}

/** JSON Schema of the config: the one source of `LoopBasicConfig` (`FromSchema`); `defineModuleConfig` (@amplifier/schema) warns about unknown keys. */
export const CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    /** Provider calls per turn before the wrap-up call; -1 means unlimited. Default -1. */
    max_iterations: { type: 'integer', minimum: -1 },
    /** Tool calls of one response that may run at the same time. Default 10. */
    max_concurrent_tools: { type: 'integer', minimum: 1 },
    /** Seconds before a tool call is aborted (0 or null: no default timeout). Default 120. */
    tool_timeout: { type: ['number', 'null'], minimum: 0 },
    /** Tool output above this many UTF-8 bytes is cut to its head and tail. Default 102400. */
    max_tool_output_bytes: { type: 'integer', minimum: 256 },
    /** Extra names the model may use: `{ Read: 'read_file' }`. */
    tool_aliases: { type: 'object', additionalProperties: { type: 'string', minLength: 1 } },
    /** Passed to `provider.complete` as `extended_thinking: true`. Default false. */
    extended_thinking: { type: 'boolean' },
    /** Copied into `ChatRequest.reasoning_effort`. Default: not set. */
    reasoning_effort: { type: ['string', 'null'] },
    /** Empty responses in a row after which the turn ends. Default 3. */
    max_empty_responses: { type: 'integer', minimum: 1 },
    /** Name of the provider to use when it is mounted (otherwise: lowest priority). */
    default_provider: { type: ['string', 'null'] },
    // Read by the reference's README, unused by the loop; accepted for plan compatibility.
    timeout: {},
  },
} as const;

/** The config as given in a mount plan (every key optional): derived from `CONFIG_SCHEMA`. */
export type LoopBasicConfig = FromSchema<typeof CONFIG_SCHEMA>;

/** Defaults of the optional settings, in their config units. */
export const DEFAULTS: Readonly<{
  max_iterations: number;
  max_concurrent_tools: number;
  tool_timeout: number;
  max_tool_output_bytes: number;
  max_empty_responses: number;
}> = Object.freeze({
  max_iterations: -1,
  max_concurrent_tools: 10,
  tool_timeout: 120,
  max_tool_output_bytes: 100 * 1024,
  max_empty_responses: 3,
});

/** The config's reader: the policy, the `max_iterations: 0` rule, and `MOUNT_FAILED` listing every bad key. */
const LOOP_CONFIG = defineModuleConfig({
  module: 'loop-basic',
  schema: CONFIG_SCHEMA,
  check: (config) =>
    getOwn(config, 'max_iterations') === 0
      ? [{ path: 'max_iterations', message: 'must be -1 (unlimited) or at least 1' }]
      : [],
  hint: "Fix the orchestrator's config in the mount plan (max_iterations: -1 or >= 1; tool_timeout in seconds).",
});

/**
 * Read `raw` by the config policy (`defineModuleConfig`) and fill in the
 * defaults. Only the config's own properties are read (an inherited or
 * `__proto__` key changes nothing); unknown keys are warned about once through
 * `logger`. Throws an `AmplifierError` (`MOUNT_FAILED`) listing every bad key
 * and what it must be.
 */
export function resolveConfig(raw: Record<string, unknown>, logger?: Pick<Logger, 'warn'>): ResolvedConfig {
  return LOOP_CONFIG.resolve(raw, logger, (c) => {
    const timeout = c.tool_timeout === undefined ? DEFAULTS.tool_timeout : c.tool_timeout;
    return {
      maxIterations: c.max_iterations ?? DEFAULTS.max_iterations,
      maxConcurrentTools: c.max_concurrent_tools ?? DEFAULTS.max_concurrent_tools,
      toolTimeoutMs: timeout === null || timeout === 0 ? null : timeout * 1000,
      maxToolOutputBytes: c.max_tool_output_bytes ?? DEFAULTS.max_tool_output_bytes,
      toolAliases: new Map(Object.entries(c.tool_aliases ?? {})),
      extendedThinking: c.extended_thinking ?? false,
      reasoningEffort: c.reasoning_effort ?? undefined,
      maxEmptyResponses: c.max_empty_responses ?? DEFAULTS.max_empty_responses,
      defaultProvider: c.default_provider ?? undefined,
    };
  });
}
