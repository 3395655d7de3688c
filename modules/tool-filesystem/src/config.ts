/**
 * tool-filesystem configuration: defaults (the reference's, for the keys it
 * has), validation with ajv through core, and what the tools share at run time.
 */
import path from 'node:path';
import type { Coordinator, Logger } from '@amplifier/core';
import { type FromSchema, readModuleConfig } from '@amplifier/schema';
import type { ReadTracker } from './read-tracker.js';
import type { Sandbox } from './sandbox.js';

/** Directory names glob and grep skip (matched as whole path components). */
export const DEFAULT_EXCLUSIONS: readonly string[] = Object.freeze([
  'node_modules',
  '.venv',
  'venv',
  '.git',
  '__pycache__',
  '.mypy_cache',
  '.pytest_cache',
  '.tox',
  'dist',
  'build',
  '.next',
  '.nuxt',
  'target',
  'vendor',
  '.gradle',
  '.idea',
  '.vscode',
  'coverage',
  '.nyc_output',
]);

export const DEFAULT_MAX_READ_BYTES: number = 10 * 1024 * 1024;
const DEFAULT_LIMITS: GrepLimits = { files_with_matches: 200, content: 500, count: 200 };

/** The keys this module reads besides the search keys (see `CONFIG_SCHEMA`). */
const PATH_CONFIG_PROPERTIES = {
  /** Absolute, or relative to the session's working directory. Relative paths given to the tools are joined onto it. */
  working_dir: { type: 'string', minLength: 1 },
  /** `null`: reads are allowed anywhere (minus `denied_paths`). */
  allowed_read_paths: {
    anyOf: [{ type: 'array', items: { type: 'string', minLength: 1 } }, { type: 'null' }],
  },
  allowed_write_paths: { type: 'array', items: { type: 'string', minLength: 1 } },
  // The reference's keys (the mount plan specification's plans, its current README).
  /** Every read and write must also be inside one of these. */
  allowed_paths: { type: 'array', items: { type: 'string', minLength: 1 } },
  /** Single files write_file and edit_file may write besides `allowed_write_paths` (exact paths). */
  allowed_write_files: { type: 'array', items: { type: 'string', minLength: 1 } },
  /** Refused for every tool, whatever the allow lists say. */
  denied_paths: { type: 'array', items: { type: 'string', minLength: 1 } },
  /** Refused for write_file and edit_file (the reference's key). */
  denied_write_paths: { type: 'array', items: { type: 'string', minLength: 1 } },
  /** Most bytes read_file and edit_file read from one file. */
  max_read_bytes: { type: 'integer', minimum: 1 },
  require_read_before_edit: { type: 'boolean' },
  /** The reference's key, accepted as there: the tools never ask (approval is hooks-approval's). */
  require_approval: { type: 'boolean' },
} as const;

/**
 * The search keys, written once: at the top level they apply to glob and grep, in
 * the `glob` and `grep` sections to that tool only.
 */
export const SEARCH_CONFIG_PROPERTIES = {
  /** Most paths glob returns. Default 500. */
  max_results: { type: 'integer', minimum: 1 },
  /** Directory names skipped (whole path components). Default `DEFAULT_EXCLUSIONS`. */
  exclusions: { type: 'array', items: { type: 'string', minLength: 1 } },
  /** Seconds a search may take. Default 60. */
  timeout: { type: 'number', exclusiveMinimum: 0 },
  /** Files larger than this many bytes are not searched by grep. Default 10 MiB. */
  max_file_size: { type: 'integer', minimum: 1 },
  /** Per-mode default `head_limit` of grep. */
  default_limits: {
    type: 'object',
    properties: {
      files_with_matches: { type: 'integer', minimum: 0 },
      content: { type: 'integer', minimum: 0 },
      count: { type: 'integer', minimum: 0 },
    },
  },
} as const;

/** A `glob` or `grep` section: the search keys. */
type SearchSection = { type: 'object'; properties: typeof SEARCH_CONFIG_PROPERTIES };

/** The type of `CONFIG_SCHEMA`: the path keys, the search keys, and a search section per tool. */
type FilesystemSchema = {
  type: 'object';
  properties: typeof PATH_CONFIG_PROPERTIES &
    typeof SEARCH_CONFIG_PROPERTIES & { glob: SearchSection; grep: SearchSection };
};

const SEARCH_SECTION: SearchSection = { type: 'object', properties: SEARCH_CONFIG_PROPERTIES };

/**
 * JSON Schema of the config: the keys this module reads (`readModuleConfig` (@amplifier/schema)
 * warns about others), the one source of `FilesystemConfigInput` (`FromSchema`).
 */
export const CONFIG_SCHEMA: FilesystemSchema = {
  type: 'object',
  properties: {
    ...PATH_CONFIG_PROPERTIES,
    ...SEARCH_CONFIG_PROPERTIES,
    glob: SEARCH_SECTION,
    grep: SEARCH_SECTION,
  },
};

/** The config as written in a mount plan: derived from `CONFIG_SCHEMA`. */
export type FilesystemConfigInput = FromSchema<typeof CONFIG_SCHEMA>;

type SearchConfig = NonNullable<FilesystemConfigInput['grep']>;

/** Per-mode default `head_limit` of grep. */
export type GrepLimits = Required<NonNullable<SearchConfig['default_limits']>>;

/** The configuration after defaults are filled in (value types from `CONFIG_SCHEMA`). */
export type FilesystemConfig = Required<
  Pick<
    FilesystemConfigInput,
    | 'working_dir'
    | 'allowed_read_paths'
    | 'allowed_write_paths'
    | 'allowed_write_files'
    | 'denied_paths'
    | 'denied_write_paths'
    | 'max_read_bytes'
    | 'require_read_before_edit'
    | 'require_approval'
  >
> & {
  /** `allowed_paths`: every read and write must also be inside one of these; `null`: no such bound. */
  allowed_paths: string[] | null;
  glob: Required<Pick<SearchConfig, 'max_results' | 'exclusions' | 'timeout'>>;
  grep: Required<Pick<SearchConfig, 'max_file_size' | 'exclusions' | 'timeout'>> & {
    default_limits: GrepLimits;
  };
};

const WIDER = 'ignoring it would let the tools read or write more than the config allows';

/** The safety-relevant keys: a misspelling of one of them is refused, not ignored (see README). */
export const SAFETY_KEYS: Readonly<Record<string, string>> = {
  allowed_paths: WIDER,
  allowed_read_paths: WIDER,
  allowed_write_paths: WIDER,
  allowed_write_files: WIDER,
  denied_paths: `${WIDER} (a deny list)`,
  denied_write_paths: `${WIDER} (a deny list)`,
};

/**
 * Read `raw` by core's config policy and fill in the defaults.
 * `fallbackWorkingDir` is the `session.working_dir` capability or the process
 * cwd. Only own properties are read (an own `__proto__` key is an unknown key
 * like any other); unknown keys are warned about through `logger` once. Throws
 * a DataValidationError naming every bad key, or a ConfigRefusedError for a
 * misspelt path list (see `SAFETY_KEYS`).
 *
 * The reference's `allowed_paths` bounds every access: reads and writes default
 * to it, and explicit read or write lists are cut to it. `allowed_write_files`
 * allows those exact files; given without `allowed_write_paths`, only they (and
 * no default working directory) may be written.
 */
export function parseConfig(
  raw: unknown,
  fallbackWorkingDir: string,
  logger?: Pick<Logger, 'warn'>,
): FilesystemConfig {
  const config = readModuleConfig(raw, {
    module: 'tool-filesystem',
    schema: CONFIG_SCHEMA,
    safety: SAFETY_KEYS,
    logger,
  });
  const given = config as FilesystemConfigInput;

  const workingDir = path.resolve(fallbackWorkingDir, given.working_dir ?? fallbackWorkingDir);
  const bound = given.allowed_paths ?? null;
  const exclusions = given.exclusions ?? [...DEFAULT_EXCLUSIONS];
  const timeout = given.timeout ?? 60;
  const globOwn = given.glob ?? {};
  const grepOwn = given.grep ?? {};
  return {
    working_dir: workingDir,
    allowed_read_paths: given.allowed_read_paths ?? bound,
    allowed_write_paths:
      given.allowed_write_paths ?? (given.allowed_write_files !== undefined ? [] : (bound ?? [workingDir])),
    allowed_write_files: given.allowed_write_files ?? [],
    allowed_paths: bound,
    denied_paths: given.denied_paths ?? [],
    denied_write_paths: given.denied_write_paths ?? [],
    max_read_bytes: given.max_read_bytes ?? DEFAULT_MAX_READ_BYTES,
    require_read_before_edit: given.require_read_before_edit ?? true,
    require_approval: given.require_approval ?? false,
    glob: {
      max_results: globOwn.max_results ?? given.max_results ?? 500,
      exclusions: globOwn.exclusions ?? exclusions,
      timeout: globOwn.timeout ?? timeout,
    },
    grep: {
      max_file_size: grepOwn.max_file_size ?? given.max_file_size ?? 10 * 1024 * 1024,
      exclusions: grepOwn.exclusions ?? exclusions,
      timeout: grepOwn.timeout ?? timeout,
      default_limits: { ...DEFAULT_LIMITS, ...given.default_limits, ...grepOwn.default_limits },
    },
  };
}

/** What every tool of the package shares. */
export interface ToolContext {
  config: FilesystemConfig;
  sandbox: Sandbox;
  tracker: ReadTracker;
  coordinator: Coordinator;
}
