/**
 * tool-filesystem configuration: defaults (the reference's, for the keys it
 * has), validation with ajv through core, and what the tools share at run time.
 */
import path from 'node:path';
import {
  type Coordinator,
  compileSchema,
  formatDataErrors,
  type JSONSchema,
  ownConfig,
} from '@amplifier/core';
import type { ReadTracker } from './read-tracker.js';
import type { Sandbox } from './sandbox.js';

/** Per-mode default `head_limit` of grep. */
export interface GrepLimits {
  files_with_matches: number;
  content: number;
  count: number;
}

/** The configuration after defaults are filled in. */
export interface FilesystemConfig {
  /** Absolute. Relative paths given to the tools are joined onto it. */
  working_dir: string;
  /** `null`: reads are allowed anywhere (minus `denied_paths`). */
  allowed_read_paths: string[] | null;
  allowed_write_paths: string[];
  /** Refused for every tool, whatever the allow lists say. */
  denied_paths: string[];
  /** Refused for write_file and edit_file (the reference's key). */
  denied_write_paths: string[];
  /** Most bytes read_file and edit_file read from one file. */
  max_read_bytes: number;
  require_read_before_edit: boolean;
  glob: { max_results: number; exclusions: string[]; timeout: number };
  grep: { max_file_size: number; exclusions: string[]; timeout: number; default_limits: GrepLimits };
}

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

const stringList: JSONSchema = { type: 'array', items: { type: 'string', minLength: 1 } };
const limitsSchema: JSONSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    files_with_matches: { type: 'integer', minimum: 0 },
    content: { type: 'integer', minimum: 0 },
    count: { type: 'integer', minimum: 0 },
  },
};
const searchKeys = {
  max_results: { type: 'integer', minimum: 1 },
  exclusions: stringList,
  timeout: { type: 'number', exclusiveMinimum: 0 },
  max_file_size: { type: 'integer', minimum: 1 },
  default_limits: limitsSchema,
} satisfies Record<string, JSONSchema>;

const CONFIG_SCHEMA: JSONSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    working_dir: { type: 'string', minLength: 1 },
    allowed_read_paths: { anyOf: [stringList, { type: 'null' }] },
    allowed_write_paths: stringList,
    denied_paths: stringList,
    denied_write_paths: stringList,
    max_read_bytes: { type: 'integer', minimum: 1 },
    require_read_before_edit: { type: 'boolean' },
    require_approval: {},
    ...searchKeys,
    glob: { type: 'object', additionalProperties: false, properties: searchKeys },
    grep: { type: 'object', additionalProperties: false, properties: searchKeys },
  },
};

/** Keys of other modules' configs that people may carry over, and what to use instead. */
const RENAMED: Readonly<Record<string, string>> = {
  allowed_paths: 'allowed_read_paths (tool-search\'s "allowed_paths" was never enforced; here reads are)',
};

type SearchOverrides = Partial<{
  max_results: number;
  exclusions: string[];
  timeout: number;
  max_file_size: number;
  default_limits: Partial<GrepLimits>;
}>;

/**
 * Validate `raw` and fill in the defaults. `fallbackWorkingDir` is the
 * `session.working_dir` capability or the process cwd. Only own properties
 * are read (an own `__proto__` key is an unknown key like any other). Throws
 * an Error that lists every bad key.
 */
export function parseConfig(raw: unknown, fallbackWorkingDir: string): FilesystemConfig {
  // Own properties only, from here on: an inherited or `__proto__` key never reaches a setting.
  const config = ownConfig(raw, 'tool-filesystem');
  for (const [key, instead] of Object.entries(RENAMED)) {
    if (Object.hasOwn(config, key)) {
      throw new Error(`tool-filesystem: config key "${key}" is not supported; use ${instead}`);
    }
  }
  const errors = compileSchema(CONFIG_SCHEMA)(config);
  if (errors.length > 0) throw new Error(`tool-filesystem: invalid config:\n${formatDataErrors(errors)}`);
  const given = config as Partial<Omit<FilesystemConfig, 'glob' | 'grep'>> &
    SearchOverrides & { glob?: SearchOverrides; grep?: SearchOverrides };

  const workingDir = path.resolve(fallbackWorkingDir, given.working_dir ?? fallbackWorkingDir);
  const exclusions = given.exclusions ?? [...DEFAULT_EXCLUSIONS];
  const timeout = given.timeout ?? 60;
  const globOwn = given.glob ?? {};
  const grepOwn = given.grep ?? {};
  return {
    working_dir: workingDir,
    allowed_read_paths: given.allowed_read_paths ?? null,
    allowed_write_paths: given.allowed_write_paths ?? [workingDir],
    denied_paths: given.denied_paths ?? [],
    denied_write_paths: given.denied_write_paths ?? [],
    max_read_bytes: given.max_read_bytes ?? DEFAULT_MAX_READ_BYTES,
    require_read_before_edit: given.require_read_before_edit ?? true,
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
