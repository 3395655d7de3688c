/**
 * tool-delegate configuration, read through core's config policy
 * (`readModuleConfig`): the reference's keys (`features.*`, `settings.*`)
 * with their meaning, plus this project's `limits` (nesting depth, children
 * per session, sub-sessions per top-level turn), a safety section.
 */
import { DEFAULT_MAX_SUB_SESSIONS, type Logger } from '@amplifier/core';
import { configDurationMs, type FromSchema, readModuleConfig } from '@amplifier/schema';

export const DEFAULTS: Readonly<DelegateConfig> = Object.freeze({
  self_delegation: { enabled: true, max_depth: 3 },
  session_resume: true,
  context_inheritance: { enabled: true, max_turns: 10 },
  provider_selection: true,
  exclude_tools: ['tool-delegate'],
  exclude_hooks: [],
  timeout_ms: undefined,
  max_depth: 3,
  max_children: 16,
  max_sub_sessions: DEFAULT_MAX_SUB_SESSIONS,
});

/**
 * JSON Schema of the config: the one source of `DelegateConfigInput` (`FromSchema`) and of
 * `DelegateConfig`'s value types. Unknown keys are warned about and ignored, except under `limits`.
 */
export const CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    features: {
      type: 'object',
      properties: {
        self_delegation: {
          type: 'object',
          properties: { enabled: { type: 'boolean' }, max_depth: { type: 'integer', minimum: 0 } },
        },
        session_resume: { type: 'object', properties: { enabled: { type: 'boolean' } } },
        context_inheritance: {
          type: 'object',
          properties: { enabled: { type: 'boolean' }, max_turns: { type: 'integer', minimum: 1 } },
        },
        provider_selection: { type: 'object', properties: { enabled: { type: 'boolean' } } },
      },
    },
    settings: {
      type: 'object',
      properties: {
        /** Module ids children do not inherit (passed to the spawner as `tool_inheritance.exclude`). */
        exclude_tools: { type: 'array', items: { type: 'string' } },
        exclude_hooks: { type: 'array', items: { type: 'string' } },
        /** Deadline of one delegation in seconds (`timeout_ms`: milliseconds). */
        timeout: { type: 'number', exclusiveMinimum: 0 },
        timeout_ms: { type: 'number', exclusiveMinimum: 0 },
      },
    },
    limits: {
      type: 'object',
      properties: {
        /** Deepest nesting a delegation may create (root = 0); null: no limit. */
        max_depth: { anyOf: [{ type: 'null' }, { type: 'integer', minimum: 0 }] },
        /** Children one session may start (resumes not counted); null: no limit. */
        max_children: { anyOf: [{ type: 'null' }, { type: 'integer', minimum: 0 }] },
        /**
         * Sub-sessions (spawned or resumed, at any depth of the tree) one top-level
         * turn may start, counted by the app's spawner; null: no cap of this tool's own.
         */
        max_sub_sessions: { anyOf: [{ type: 'null' }, { type: 'integer', minimum: 0 }] },
      },
    },
  },
} as const;

/** The config as written in a mount plan: derived from `CONFIG_SCHEMA`. */
export type DelegateConfigInput = FromSchema<typeof CONFIG_SCHEMA>;

type Features = NonNullable<DelegateConfigInput['features']>;
type Settings = NonNullable<DelegateConfigInput['settings']>;

/**
 * The config with its defaults filled in, its sections flattened (`features.x.enabled` -> `x`,
 * `settings.timeout` -> `timeout_ms`, `limits.*` at the top); value types from `CONFIG_SCHEMA`.
 */
export type DelegateConfig = {
  self_delegation: Required<NonNullable<Features['self_delegation']>>;
  session_resume: boolean;
  context_inheritance: Required<NonNullable<Features['context_inheritance']>>;
  provider_selection: boolean;
  /** Deadline of one delegation in ms; undefined: none. */
  timeout_ms: number | undefined;
} & Required<Pick<Settings, 'exclude_tools' | 'exclude_hooks'>> &
  Required<NonNullable<DelegateConfigInput['limits']>>;

/** Keys refused when misspelt: ignoring them would allow more nesting or more children than asked. */
export const SAFETY_KEYS: Readonly<Record<string, string>> = Object.freeze({
  limits: 'ignoring it would let delegations nest deeper or start more children than the config allows',
});

type Section = Record<string, unknown>;

function section(record: Section | undefined, key: string): Section {
  const value = record?.[key];
  return typeof value === 'object' && value !== null ? (value as Section) : {};
}

function pick<T>(record: Section, key: string, fallback: T): T {
  return Object.hasOwn(record, key) ? (record[key] as T) : fallback;
}

/** Validate `raw` and fill in the defaults. A bad value throws naming the key. */
export function parseConfig(raw: unknown, logger?: Pick<Logger, 'warn'>): DelegateConfig {
  const config = readModuleConfig(raw, {
    module: 'tool-delegate',
    schema: CONFIG_SCHEMA,
    safety: SAFETY_KEYS,
    logger,
  });
  const features = section(config, 'features');
  const self = section(features, 'self_delegation');
  const inheritance = section(features, 'context_inheritance');
  const settings = section(config, 'settings');
  const limits = section(config, 'limits');
  return {
    self_delegation: {
      enabled: pick(self, 'enabled', DEFAULTS.self_delegation.enabled),
      max_depth: pick(self, 'max_depth', DEFAULTS.self_delegation.max_depth),
    },
    session_resume: pick(section(features, 'session_resume'), 'enabled', DEFAULTS.session_resume),
    context_inheritance: {
      enabled: pick(inheritance, 'enabled', DEFAULTS.context_inheritance.enabled),
      max_turns: pick(inheritance, 'max_turns', DEFAULTS.context_inheritance.max_turns),
    },
    provider_selection: pick(section(features, 'provider_selection'), 'enabled', DEFAULTS.provider_selection),
    exclude_tools: [...pick(settings, 'exclude_tools', DEFAULTS.exclude_tools)],
    exclude_hooks: [...pick(settings, 'exclude_hooks', DEFAULTS.exclude_hooks)],
    timeout_ms: configDurationMs(settings, 'timeout', 'tool-delegate'),
    max_depth: pick(limits, 'max_depth', DEFAULTS.max_depth),
    max_children: pick(limits, 'max_children', DEFAULTS.max_children),
    max_sub_sessions: pick(limits, 'max_sub_sessions', DEFAULTS.max_sub_sessions),
  };
}
