/**
 * hooks-approval configuration: the default rules (the reference's
 * permission classes), validation with ajv through core, and where the audit
 * log and the session's grants live.
 */
import os from 'node:os';
import path from 'node:path';
import { compileSchema, formatDataErrors, type JSONSchema, ownConfig } from '@amplifier/core';
import { DEFAULT_PATH_ARGUMENTS } from './path-match.js';

export type RuleAction = 'allow' | 'deny' | 'ask';

/** One rule as written in config (plain JSON, snake_case). */
export interface RuleConfig {
  /** A tool name, a glob (`mcp_*`), or a list of them. */
  tool: string | string[];
  /** Argument path (dotted: `command`, `options.path`) -> glob, or `/regex/flags`. All must match. */
  when?: Record<string, string>;
  action: RuleAction;
  reason?: string;
}

export interface ApprovalConfig {
  /** Evaluated first, in order. */
  rules: RuleConfig[];
  /** Append DEFAULT_RULES after `rules`. Default true. */
  default_rules: boolean;
  /** When no rule matches. Default `ask`. */
  default_action: RuleAction;
  /** Seconds the person has to answer (the kernel enforces it). Default 300. */
  approval_timeout: number;
  /** What a timeout (or an app without a person, like the CLI without a TTY) decides. Default `deny`. */
  approval_default: 'allow' | 'deny';
  /** Tools whose `command` argument is a shell command line, checked command by command. Default `['bash']`. */
  shell_tools: string[];
  /** Argument names whose values are file system paths, matched as absolute and real paths. */
  path_arguments: string[];
  /** Append an audit record for every decision. Default true. */
  audit: boolean;
  /** Default `<AMPLIFIER_HOME>/audit/approvals.jsonl`. */
  audit_file: string;
  /** Longest approval prompt; longer arguments are cut with a marker. Default 4000. */
  max_prompt_chars: number;
  /** Priority of the `tool:pre` handler (lower runs first). Default -10. */
  priority: number;
}

const HARMLESS = 'harmless command (the reference auto-approves it)';

/** The reference's permission classes as rules, evaluated after the configured ones. */
export const DEFAULT_RULES: readonly RuleConfig[] = Object.freeze([
  { tool: 'bash', when: { command: 'ls*' }, action: 'allow', reason: HARMLESS },
  { tool: 'bash', when: { command: 'pwd' }, action: 'allow', reason: HARMLESS },
  { tool: 'bash', when: { command: 'echo*' }, action: 'allow', reason: HARMLESS },
  {
    tool: ['read_file', 'glob', 'grep', 'web_fetch', 'web_search', 'bash_output'],
    action: 'allow',
    reason: 'read-only tool',
  },
  {
    tool: ['bash', 'write_file', 'edit_file', 'bash_kill'],
    action: 'ask',
    reason: 'runs commands or changes files',
  },
] satisfies RuleConfig[]);

const ACTIONS = ['allow', 'deny', 'ask'];

const RULE_SCHEMA: JSONSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['tool', 'action'],
  properties: {
    tool: {
      anyOf: [
        { type: 'string', minLength: 1 },
        { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
      ],
    },
    when: {
      type: 'object',
      propertyNames: { minLength: 1 },
      additionalProperties: { type: 'string', minLength: 1 },
    },
    action: { enum: ACTIONS },
    reason: { type: 'string' },
  },
};

const CONFIG_SCHEMA: JSONSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    rules: { type: 'array', items: RULE_SCHEMA },
    default_rules: { type: 'boolean' },
    default_action: { enum: ACTIONS },
    approval_timeout: { type: 'number', exclusiveMinimum: 0, maximum: 2_147_483 },
    approval_default: { enum: ['allow', 'deny'] },
    shell_tools: { type: 'array', items: { type: 'string', minLength: 1 } },
    path_arguments: { type: 'array', items: { type: 'string', minLength: 1 } },
    audit: { type: 'boolean' },
    audit_file: { type: 'string', minLength: 1 },
    max_prompt_chars: { type: 'integer', minimum: 200 },
    priority: { type: 'number' },
  },
};

let validate: ReturnType<typeof compileSchema> | undefined;

/**
 * Defaults filled in; throws an Error that lists every bad key. Only own
 * properties are read (rules and their `when` included): an inherited key
 * never reaches a setting, and an own `__proto__` key is an unknown key.
 */
export function parseConfig(raw: unknown, env: NodeJS.ProcessEnv = process.env): ApprovalConfig {
  const config = ownConfig(raw, 'hooks-approval');
  validate ??= compileSchema(CONFIG_SCHEMA);
  const errors = validate(config);
  if (errors.length > 0) {
    throw new Error(`hooks-approval: invalid config:\n${formatDataErrors(errors)}`);
  }
  const given = config as Partial<ApprovalConfig>;
  return {
    rules: given.rules ?? [],
    default_rules: given.default_rules ?? true,
    default_action: given.default_action ?? 'ask',
    approval_timeout: given.approval_timeout ?? 300,
    approval_default: given.approval_default ?? 'deny',
    shell_tools: given.shell_tools ?? ['bash'],
    path_arguments: given.path_arguments ?? [...DEFAULT_PATH_ARGUMENTS],
    audit: given.audit ?? true,
    audit_file: expandHome(given.audit_file ?? path.join(amplifierHome(env), 'audit', 'approvals.jsonl')),
    max_prompt_chars: given.max_prompt_chars ?? 4000,
    priority: given.priority ?? -10,
  };
}

/** Where `AMPLIFIER_HOME` points, else `~/.amplifier`. */
export function amplifierHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.AMPLIFIER_HOME || path.join(os.homedir(), '.amplifier');
}

function expandHome(file: string): string {
  if (file === '~' || file.startsWith('~/')) return path.resolve(path.join(os.homedir(), file.slice(1)));
  return path.resolve(file);
}

/** `/home/u/app` -> `-home-u-app` (the reference's project slug, as hooks-logging computes it). */
export function projectSlug(workingDir: string): string {
  const slug = path.resolve(workingDir).replace(/[/\\]/g, '-').replace(/:/g, '');
  return slug.startsWith('-') ? slug : `-${slug}`;
}

/** `<AMPLIFIER_HOME>/projects/<slug>/sessions/<session_id>`: the reference's session directory. */
export function defaultSessionDir(
  sessionId: string,
  workingDir: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  let safeId = sessionId.replace(/[^A-Za-z0-9._-]/g, '_');
  if (/^\.*$/.test(safeId)) safeId = safeId.replace(/\./g, '_') || '_';
  return path.resolve(amplifierHome(env), 'projects', projectSlug(workingDir), 'sessions', safeId);
}
