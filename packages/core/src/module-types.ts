/**
 * Module types and what modules say about themselves: the six module types
 * and their mount points, `ModuleInfo`, what a provider and its models
 * describe (`ProviderInfo`, `ModelInfo`, `ConfigField`), the capability names,
 * and a session's status. Plain JSON-able objects with Amplifier's snake_case
 * names.
 */

/**
 * A model a provider offers (`listModels`, `getModelInfo`): its `id` and
 * `display_name`, its `context_window` and `max_output_tokens` in tokens, its
 * `capabilities` (see `CAPABILITIES`) and default settings. Plain snake_case JSON
 * data.
 */
export interface ModelInfo {
  id: string;
  display_name: string;
  context_window: number;
  max_output_tokens: number;
  capabilities?: string[];
  defaults?: Record<string, unknown>;
}

/** A field an app asks for when a user sets a provider up interactively. */
export interface ConfigField {
  id: string;
  display_name: string;
  field_type?: 'text' | 'secret' | 'choice' | 'boolean';
  prompt: string;
  env_var?: string;
  choices?: string[];
  required?: boolean;
  default?: string;
  show_when?: Record<string, string>;
  requires_model?: boolean;
}

/**
 * What a provider says about itself (`getInfo`): id, display name, the environment
 * variables that hold its credentials, capabilities, default settings and the
 * `config_fields` an app asks for during setup. Plain snake_case JSON data.
 */
export interface ProviderInfo {
  id: string;
  display_name: string;
  credential_env_vars?: string[];
  capabilities?: string[];
  /** Conventional keys: model, max_tokens, temperature, timeout, context_window, max_output_tokens. */
  defaults?: Record<string, unknown>;
  config_fields?: ConfigField[];
}

/**
 * What a module is, as the `"amplifier"` field of its package.json declares; it
 * decides the mount point (`TYPE_TO_MOUNT_POINT`).
 */
export type ModuleType = 'orchestrator' | 'context' | 'provider' | 'tool' | 'hook' | 'resolver';

/** The six module types: `orchestrator`, `context`, `provider`, `tool`, `hook`, `resolver`. */
export const MODULE_TYPES: readonly ModuleType[] = [
  'orchestrator',
  'context',
  'provider',
  'tool',
  'hook',
  'resolver',
];

/** What the loader knows about a module package. */
export interface ModuleInfo {
  id: string;
  type: ModuleType;
  /** The npm package name. */
  name: string;
  version: string;
  /** Real path of the package directory. */
  path: string;
  description?: string;
  mount_point: MountPoint;
  /** The other ids it answers to (only those no module claims as its own id), with their notes. */
  aliases?: ModuleAlias[];
  /** A placeholder: loading it fails with this reason. */
  unavailable?: string;
}

/**
 * An id a module also answers to (`"amplifier": { "aliases": [...] }`): the ids of real
 * Amplifier bundles, such as `loop-streaming` for loop-basic. Plain JSON data.
 */
export interface ModuleAlias {
  id: string;
  /** Config defaults under this id; the mount plan's keys override them one by one. */
  config?: Record<string, unknown>;
  /** How the module differs from what the id names elsewhere (shown by `amplifier modules list`). */
  note?: string;
}

/**
 * Where the coordinator holds a module: the single slots `orchestrator`, `context`
 * and `module-source-resolver`, the named collections `providers` and `tools`, and
 * `hooks` (the hook registry, registered with rather than mounted).
 */
export type MountPoint =
  | 'orchestrator'
  | 'context'
  | 'providers'
  | 'tools'
  | 'hooks'
  | 'module-source-resolver';

/**
 * The mount point of each module type (`tool` -> `tools`, `hook` -> `hooks`,
 * `resolver` -> `module-source-resolver`, ...).
 */
export const TYPE_TO_MOUNT_POINT: Readonly<Record<ModuleType, MountPoint>> = {
  orchestrator: 'orchestrator',
  context: 'context',
  provider: 'providers',
  tool: 'tools',
  hook: 'hooks',
  resolver: 'module-source-resolver',
};

/**
 * A session's state (`session.status`): `status` (running, completed, failed or
 * cancelled), the start and end times as ISO strings, and the `last_error` of a
 * failed turn. Plain snake_case JSON data.
 */
export interface SessionStatus {
  session_id: string;
  started_at: string;
  ended_at?: string;
  status: 'running' | 'completed' | 'failed' | 'cancelled';
  last_error?: { message: string };
}

// ------------------------------------------------------------ capabilities

/** Well-known model capability names (open taxonomy: custom snake_case names are fine). */
export const CAPABILITIES = {
  TOOLS: 'tools',
  STREAMING: 'streaming',
  THINKING: 'thinking',
  VISION: 'vision',
  JSON_MODE: 'json_mode',
  FAST: 'fast',
  CODE_EXECUTION: 'code_execution',
  WEB_SEARCH: 'web_search',
  DEEP_RESEARCH: 'deep_research',
  LOCAL: 'local',
  AUDIO: 'audio',
  IMAGE_GENERATION: 'image_generation',
  COMPUTER_USE: 'computer_use',
  EMBEDDINGS: 'embeddings',
  LONG_CONTEXT: 'long_context',
  BATCH: 'batch',
} as const;
