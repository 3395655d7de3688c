/**
 * tool-mcp's module config, read by core's config policy (`readModuleConfig`):
 * unknown keys warn, the sandbox keys and `on_tool_change` are safety keys
 * (a misspelling is refused: ignoring it would be less safe than asked).
 */
import os from 'node:os';
import path from 'node:path';
import { getOwn, type JSONSchema, type Logger } from '@amplifier/core';
import {
  SANDBOX_CONFIG_PROPERTIES,
  SANDBOX_SAFETY_KEYS,
  type SandboxPolicy,
  sandboxPolicyFrom,
} from '@amplifier/process';
import { configDurationMs, defineModuleConfig, type FromSchema, warnConfigKey } from '@amplifier/schema';

export const MODULE_ID = 'tool-mcp';

export const DEFAULTS = {
  config_files: true,
  trust_project: false,
  max_content_size: 50_000,
  max_tool_timeout_ms: 600_000,
  shutdown_grace_ms: 2000,
  on_tool_change: 'warn',
  expose_resources: false,
  expose_prompts: false,
  use_instructions: false,
  max_tools_per_server: 128,
  max_definition_bytes: 262_144,
} as const;

/**
 * JSON Schema of the config: the one source of `McpConfigInput` (`FromSchema`). The sandbox keys
 * are `@amplifier/process`'s `SANDBOX_CONFIG_PROPERTIES`, named one by one (an exported `as const`
 * schema is one literal under `isolatedDeclarations`; a test checks none is missing).
 */
export const CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    /** Inline servers (`servers` and `mcpServers` merged, `mcpServers` winning). */
    servers: { type: 'object' },
    mcpServers: { type: 'object' },
    /** Read the config files (user, project, `AMPLIFIER_MCP_CONFIG`) besides the inline servers. */
    config_files: { type: 'boolean' },
    /** Start servers from `./.amplifier/mcp.json` (a cloned repository's file runs commands). */
    trust_project: { type: 'boolean' },
    /** Where config files are looked up and stdio servers run (null: `session.working_dir`, else the process cwd). */
    working_dir: { type: ['string', 'null'] },
    verbose_servers: { type: 'boolean' },
    server_log_dir: { type: 'string', minLength: 1 },
    max_content_size: { type: 'integer', minimum: 1 },
    max_tool_timeout: { type: 'number', exclusiveMinimum: 0 },
    max_tool_timeout_ms: { type: 'number', exclusiveMinimum: 0 },
    shutdown_grace: { type: 'number', minimum: 0 },
    shutdown_grace_ms: { type: 'number', minimum: 0 },
    on_tool_change: { enum: ['warn', 'disable'] },
    /** Mount each server's resources as `mcp_<server>_resource_<name>` tools (default false). */
    expose_resources: { type: 'boolean' },
    /** Mount each server's prompts as `mcp_<server>_prompt_<name>` tools (default false). */
    expose_prompts: { type: 'boolean' },
    /** Give the servers' `instructions` to the model, marked untrusted, with every request (default false). */
    use_instructions: { type: 'boolean' },
    /** The most tools (resource and prompt tools included) mounted from one server; the rest are dropped (logged). */
    max_tools_per_server: { type: 'integer', minimum: 1 },
    /** The most bytes of tool definitions (name, description, input schema as JSON) this module mounts in all; the rest are dropped (logged). */
    max_definition_bytes: { type: 'integer', minimum: 1 },
    // Accepted from the reference, not implemented yet (warned).
    visibility: { type: 'object' },
    tool_name_format: { type: 'string' },
    sandbox: SANDBOX_CONFIG_PROPERTIES.sandbox as JSONSchema,
    sandbox_policy: SANDBOX_CONFIG_PROPERTIES.sandbox_policy as JSONSchema,
  },
} as const;

/** The config as written in a mount plan: derived from `CONFIG_SCHEMA`. */
export type McpConfigInput = FromSchema<typeof CONFIG_SCHEMA>;

/** The config with its defaults filled in (value types from `CONFIG_SCHEMA`). */
export type McpModuleConfig = Required<
  Pick<
    McpConfigInput,
    | 'config_files'
    | 'trust_project'
    | 'working_dir'
    | 'verbose_servers'
    | 'server_log_dir'
    | 'max_content_size'
    | 'max_tool_timeout_ms'
    | 'shutdown_grace_ms'
    | 'on_tool_change'
    | 'expose_resources'
    | 'expose_prompts'
    | 'use_instructions'
    | 'max_tools_per_server'
    | 'max_definition_bytes'
  >
> & {
  /** Inline servers (`servers` and `mcpServers` merged, `mcpServers` winning). */
  inline: Record<string, unknown> | undefined;
  sandbox: SandboxPolicy;
};

export const SAFETY_KEYS: Readonly<Record<string, string>> = {
  on_tool_change: 'ignoring it would keep tools mounted whose definition changed after approval',
  max_tools_per_server: "ignoring it would mount more of a server's tools than asked",
  max_definition_bytes: 'ignoring it would send more tool definitions with every request than asked',
  ...SANDBOX_SAFETY_KEYS,
};

const NOT_YET = ['visibility', 'tool_name_format'];

function truthy(value: string | undefined): boolean {
  return value !== undefined && ['1', 'true', 'yes'].includes(value.toLowerCase());
}

/** The config's reader: the policy, and `MOUNT_FAILED` for a bad key. */
const CONFIG = defineModuleConfig({ module: MODULE_ID, schema: CONFIG_SCHEMA, safety: SAFETY_KEYS });

/** Read the module config; MOUNT_FAILED naming the key, or CONFIG_REFUSED for a misspelt safety key. */
export function parseConfig(
  raw: unknown,
  logger?: Logger,
  env: NodeJS.ProcessEnv = process.env,
): McpModuleConfig {
  return CONFIG.resolve(raw, logger, (config) => {
    for (const key of NOT_YET) {
      if (getOwn(config, key) !== undefined)
        warnConfigKey(logger, MODULE_ID, key, 'is not supported yet and is ignored');
    }
    const inlineServers = getOwn<Record<string, unknown>>(config, 'servers');
    const inlineMcp = getOwn<Record<string, unknown>>(config, 'mcpServers');
    const own = <K extends keyof McpConfigInput>(key: K): McpConfigInput[K] => getOwn(config, key);
    return {
      inline: inlineServers || inlineMcp ? { ...(inlineServers ?? {}), ...(inlineMcp ?? {}) } : undefined,
      config_files: own('config_files') ?? DEFAULTS.config_files,
      trust_project: own('trust_project') ?? truthy(env.AMPLIFIER_MCP_TRUST_PROJECT),
      working_dir: own('working_dir') ?? null,
      verbose_servers: own('verbose_servers') ?? truthy(env.AMPLIFIER_MCP_VERBOSE),
      server_log_dir: own('server_log_dir') ?? path.join(os.homedir(), '.amplifier', 'logs', 'mcp-servers'),
      max_content_size: own('max_content_size') ?? DEFAULTS.max_content_size,
      max_tool_timeout_ms:
        configDurationMs(config, 'max_tool_timeout', MODULE_ID) ?? DEFAULTS.max_tool_timeout_ms,
      shutdown_grace_ms: configDurationMs(config, 'shutdown_grace', MODULE_ID) ?? DEFAULTS.shutdown_grace_ms,
      on_tool_change: own('on_tool_change') ?? DEFAULTS.on_tool_change,
      expose_resources: own('expose_resources') ?? DEFAULTS.expose_resources,
      expose_prompts: own('expose_prompts') ?? DEFAULTS.expose_prompts,
      use_instructions: own('use_instructions') ?? DEFAULTS.use_instructions,
      max_tools_per_server: own('max_tools_per_server') ?? DEFAULTS.max_tools_per_server,
      max_definition_bytes: own('max_definition_bytes') ?? DEFAULTS.max_definition_bytes,
      sandbox: sandboxPolicyFrom(config),
    };
  });
}
