/**
 * hooks-approval configuration: the default rules (the reference's
 * permission classes), validation with ajv through core, and where the audit
 * log and the session's grants live.
 */
import os from 'node:os';
import path from 'node:path';
import { getOwn, type Logger } from '@amplifier/core';
import { type FromSchema, readModuleConfig, warnConfigKey } from '@amplifier/schema';
import { DEFAULT_PATH_ARGUMENTS } from './path-match.js';

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

/**
 * JSON Schema of the config: the one source of `ApprovalConfigInput`, `RuleConfig` and
 * `RuleAction` (`FromSchema`). `readModuleConfig` (@amplifier/schema) warns about unknown
 * keys, refuses the unsafe ones.
 */
export const CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    /** Evaluated first, in order. */
    rules: {
      type: 'array',
      items: {
        type: 'object',
        required: ['tool', 'action'],
        properties: {
          /** A tool name, a glob (`mcp_*`), or a list of them. */
          tool: {
            anyOf: [
              { type: 'string', minLength: 1 },
              { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
            ],
          },
          /** Argument path (dotted: `command`, `options.path`) -> glob, or `/regex/flags`. All must match. */
          when: {
            type: 'object',
            propertyNames: { minLength: 1 },
            additionalProperties: { type: 'string', minLength: 1 },
          },
          action: { enum: ['allow', 'deny', 'ask'] },
          reason: { type: 'string' },
        },
      },
    },
    /** Append DEFAULT_RULES after `rules`. Default true. */
    default_rules: { type: 'boolean' },
    /** When no rule matches. Default `ask`. */
    default_action: { enum: ['allow', 'deny', 'ask'] },
    /** Seconds the person has to answer (the kernel enforces it). Default 300. */
    approval_timeout: { type: 'number', exclusiveMinimum: 0, maximum: 2_147_483 },
    /** What a timeout (or an app without a person, like the CLI without a TTY) decides. Default `deny`. */
    approval_default: { enum: ['allow', 'deny'] },
    /** Tools whose `command` argument is a shell command line, checked command by command. Default `['bash']`. */
    shell_tools: { type: 'array', items: { type: 'string', minLength: 1 } },
    /** Argument names whose values are file system paths, matched as absolute and real paths. */
    path_arguments: { type: 'array', items: { type: 'string', minLength: 1 } },
    /** Append an audit record for every decision. Default true. */
    audit: {
      anyOf: [{ type: 'boolean' }, { type: 'object', properties: { enabled: { type: 'boolean' } } }],
    },
    /** Default `<AMPLIFIER_HOME>/audit/approvals.jsonl`. */
    audit_file: { type: 'string', minLength: 1 },
    /** Longest approval prompt; longer arguments are cut with a marker. Default 4000. */
    max_prompt_chars: { type: 'integer', minimum: 200 },
    /** Priority of the `tool:pre` handler (lower runs first). Default -10. */
    priority: { type: 'number' },
    // The reference's keys.
    tools: {
      type: 'object',
      additionalProperties: { type: 'object', properties: { require_approval: { type: 'boolean' } } },
    },
    policy_driven_only: { type: 'boolean' },
    default_timeout: { type: ['number', 'null'], exclusiveMinimum: 0, maximum: 2_147_483 },
  },
} as const;

/** The config as written (plain JSON, snake_case): derived from `CONFIG_SCHEMA`. */
export type ApprovalConfigInput = FromSchema<typeof CONFIG_SCHEMA>;

/** One rule as written in config (plain JSON, snake_case). */
export type RuleConfig = NonNullable<ApprovalConfigInput['rules']>[number];

export type RuleAction = RuleConfig['action'];

/**
 * The config with its defaults filled in; the reference's keys resolved (`tools` into `rules`,
 * `default_timeout` into `approval_timeout`, `audit: {enabled}` into `audit`).
 */
export type ApprovalConfig = Required<
  Omit<ApprovalConfigInput, 'audit' | 'tools' | 'policy_driven_only' | 'default_timeout'>
> & {
  /** Append an audit record for every decision. Default true. */
  audit: boolean;
};

const WEAKER = 'ignoring it could approve a call the config meant to ask about or deny';

/**
 * The safety-relevant keys (see README): an unknown key inside them (a rule's
 * misspelt `action` or `when`) or a misspelling of one (`rule`, `Rules`) is
 * refused with the reason, never ignored.
 */
export const SAFETY_KEYS: Readonly<Record<string, string>> = {
  rules: `${WEAKER} (a rule)`,
  default_rules: WEAKER,
  default_action: WEAKER,
  approval_default: `${WEAKER} (what a timeout decides)`,
  shell_tools: `${WEAKER} (which tools run shell command lines)`,
  path_arguments: `${WEAKER} (which arguments are paths)`,
  tools: `${WEAKER} (tools.<name>.require_approval)`,
};

/**
 * Read `raw` by core's config policy and fill in the defaults. Only own
 * properties are read (rules and their `when` included): an inherited key
 * never reaches a setting, and an own `__proto__` key is an unknown key.
 * Unknown keys are warned about through `logger` once; a wrong type throws a
 * DataValidationError naming the key; an unknown key inside a rule, or a
 * misspelt safety key, throws a ConfigRefusedError that says why.
 *
 * The reference's keys: `tools.<name>.require_approval: true` asks before that
 * tool (a rule after the configured ones, before the defaults);
 * `default_timeout` is `approval_timeout`; `audit: {enabled}` is `audit`;
 * `policy_driven_only` is accepted and not honoured (it could only ask less).
 */
export function parseConfig(
  raw: unknown,
  env: NodeJS.ProcessEnv = process.env,
  logger?: Pick<Logger, 'warn'>,
): ApprovalConfig {
  const config = readModuleConfig(raw, {
    module: 'hooks-approval',
    schema: CONFIG_SCHEMA,
    safety: SAFETY_KEYS,
    logger,
  });
  const given = config as ApprovalConfigInput;
  if (given.policy_driven_only === true) {
    warnConfigKey(
      logger,
      'hooks-approval',
      'policy_driven_only',
      'is accepted and not honoured: every tool call goes through the rules here (write allow rules to skip a question); ignoring it only asks more',
    );
  }
  const asked: RuleConfig[] = [];
  for (const [tool, settings] of Object.entries(given.tools ?? {})) {
    if (getOwn(settings, 'require_approval') === true) {
      asked.push({ tool, action: 'ask', reason: `tools.${tool}.require_approval is true` });
    }
  }
  const audit = typeof given.audit === 'object' ? getOwn<boolean>(given.audit, 'enabled') : given.audit;
  return {
    rules: [...(given.rules ?? []), ...asked],
    default_rules: given.default_rules ?? true,
    default_action: given.default_action ?? 'ask',
    approval_timeout: given.approval_timeout ?? given.default_timeout ?? 300,
    approval_default: given.approval_default ?? 'deny',
    shell_tools: given.shell_tools ?? ['bash'],
    path_arguments: given.path_arguments ?? [...DEFAULT_PATH_ARGUMENTS],
    audit: audit ?? true,
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
