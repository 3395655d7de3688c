/**
 * The module's configuration: the JSON Schema it is validated against (with
 * core's shared ajv) and the defaults of the reference's context-simple.
 */
import { getOwn, type Logger } from '@amplifier/core';
import { type FromSchema, readModuleConfig } from '@amplifier/schema';

/** The config with every default applied, plus whether `max_tokens` was given. */
export type ResolvedConfig = Required<Omit<ContextSimpleConfig, 'auto_compact'>> & {
  max_tokens_explicit: boolean;
};

/** The reference defaults. */
export const DEFAULT_CONFIG: Readonly<Required<Omit<ContextSimpleConfig, 'auto_compact'>>> = Object.freeze({
  max_tokens: 200_000,
  compact_threshold: 0.92,
  target_usage: 0.5,
  protected_recent: 0.3,
  protected_tool_results: 5,
  truncate_chars: 250,
  compaction_notice_enabled: true,
  compaction_notice_token_reserve: 800,
  compaction_notice_verbosity: 'normal',
  compaction_notice_min_level: 1,
  output_reserve_fraction: 0.5,
  sticky_compaction: true,
});

/** JSON Schema of the config: the one source of `ContextSimpleConfig` (`FromSchema`); `readModuleConfig` (@amplifier/schema) warns about other keys. */
export const CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    /** Fallback budget in tokens; a cap on the provider-derived budget only when set explicitly. */
    max_tokens: { type: 'integer', minimum: 1 },
    /** Compact when estimate / effective budget reaches this fraction. */
    compact_threshold: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
    /** Compact down to this fraction of the effective budget. */
    target_usage: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
    /** Fraction of the most recent messages protected from removal. */
    protected_recent: { type: 'number', minimum: 0, maximum: 1 },
    /** The last N tool results are never truncated or removed (0 or less protects none). */
    protected_tool_results: { type: 'integer' },
    /** Characters of a tool result kept when it is truncated. */
    truncate_chars: { type: 'integer', minimum: 0 },
    compaction_notice_enabled: { type: 'boolean' },
    /** Tokens taken off the budget for the notice when it is enabled. */
    compaction_notice_token_reserve: { type: 'integer', minimum: 0 },
    /** How much the compaction notice says. `verbose` renders like `normal` (as in the reference). */
    compaction_notice_verbosity: { enum: ['minimal', 'normal', 'verbose'] },
    /** The notice is added only when the strategy level is at least this. */
    compaction_notice_min_level: { type: 'integer', minimum: 0, maximum: 8 },
    /** Fraction of the model's max output tokens reserved out of its context window. */
    output_reserve_fraction: { type: 'number', minimum: 0, maximum: 1 },
    /**
     * Keep the compacted view between requests and extend it with new messages,
     * compacting it again only when it reaches the threshold (default true);
     * false compacts the whole history afresh on every request over the threshold.
     */
    sticky_compaction: { type: 'boolean' },
    /** Accepted for compatibility with Amplifier bundles; ignored (compaction is always automatic). */
    auto_compact: { type: 'boolean' },
  },
} as const;

/** Module config, as in a mount plan (snake_case, every key optional): derived from `CONFIG_SCHEMA`. */
export type ContextSimpleConfig = FromSchema<typeof CONFIG_SCHEMA>;

/** How much the compaction notice says. `verbose` renders like `normal` (as in the reference). */
export type NoticeVerbosity = NonNullable<ContextSimpleConfig['compaction_notice_verbosity']>;

/**
 * Read a config by core's config policy and apply the defaults. Only its own
 * properties are read (an inherited or `__proto__` key changes nothing);
 * unknown keys are warned about once through `logger`. Throws a
 * `DataValidationError` naming every bad key (`compact_threshold must be <= 1`).
 */
export function resolveConfig(
  raw: Record<string, unknown> = {},
  logger?: Pick<Logger, 'warn'>,
): ResolvedConfig {
  const config = readModuleConfig(raw, { module: 'context-simple', schema: CONFIG_SCHEMA, logger });
  const resolved: ResolvedConfig = {
    ...DEFAULT_CONFIG,
    max_tokens_explicit: getOwn(config, 'max_tokens') !== undefined,
  };
  for (const key of Object.keys(DEFAULT_CONFIG) as (keyof typeof DEFAULT_CONFIG)[]) {
    const value = getOwn(config, key);
    if (value !== undefined) (resolved as Record<string, unknown>)[key] = value;
  }
  return resolved;
}
