/**
 * MCP server entries: the config layers (`~/.amplifier/mcp.json` <
 * `./.amplifier/mcp.json` < the file at `AMPLIFIER_MCP_CONFIG` < inline, later
 * wins by server name), the shapes users already have (Claude Desktop / Code,
 * Cursor and Amplifier's `mcpServers`, VS Code's `servers`), `type` aliases
 * and inference, `${VAR}` expansion, and one entry read into a
 * `McpServerConfig`. A bad file or a bad entry never stops the others: it is a
 * warning (file) or a failed server (entry, in `failed`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { errorMessage, getOwn, isPlainObject } from '@amplifier/core';

/** One MCP server, as tool-mcp starts it. */
export interface McpServerConfig {
  type: 'stdio' | 'http' | 'sse';
  /** stdio: the program and its arguments, variables expanded. */
  command?: string;
  args?: string[];
  /** stdio: variables set for the server (on top of the secret policy's environment). */
  env?: Record<string, string>;
  /** stdio: host variables passed by name even when secret-named (`env_vars`). */
  env_vars?: string[];
  cwd?: string;
  /** http / sse: the endpoint and static headers (variables expanded). */
  url?: string;
  headers?: Record<string, string>;
  enabled: boolean;
  /** Only these of the server's own tool names are mounted (absent: all). */
  enabled_tools?: string[];
  /** These are never mounted (applied after `enabled_tools`). */
  disabled_tools?: string[];
  /** Initialize (and first list) deadline, ms. Default 30 000 (`DEFAULT_STARTUP_TIMEOUT_MS`). */
  startup_timeout_ms?: number;
  /** Idle deadline of one tool call (reset by progress), ms. Default 60 000 (`DEFAULT_TOOL_TIMEOUT_MS`). */
  tool_timeout_ms?: number;
  /** A server that fails to start fails the mount (default false). */
  required?: boolean;
}

export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/** Where the config files are (the env file only when `AMPLIFIER_MCP_CONFIG` is set). */
export function mcpConfigPaths(options: { cwd: string; home?: string; env?: NodeJS.ProcessEnv }): {
  user: string;
  project: string;
  env?: string;
} {
  const home = options.home ?? os.homedir();
  const env = options.env ?? process.env;
  const fromEnv = env.AMPLIFIER_MCP_CONFIG;
  return {
    user: path.join(home, '.amplifier', 'mcp.json'),
    project: path.join(path.resolve(options.cwd), '.amplifier', 'mcp.json'),
    ...(fromEnv ? { env: path.resolve(options.cwd, fromEnv) } : {}),
  };
}

/** What `loadMcpServers` found. */
export interface LoadedMcpServers {
  /** Usable entries, by server name. */
  servers: Record<string, McpServerConfig>;
  /** Where each server's entry (usable or failed) came from: a file path, or `inline`. */
  sources: Record<string, string>;
  /** Files skipped and keys ignored. */
  warnings: string[];
  /** Entries that cannot start (unknown `type`, unset `${VAR}`, no command): name -> why. */
  failed: Record<string, string>;
}

/**
 * Read every layer, later winning by server name. `inline` is the module
 * config's `servers` / `mcpServers` map, or an object holding either.
 */
export function loadMcpServers(options: {
  cwd: string;
  home?: string;
  env?: NodeJS.ProcessEnv;
  inline?: unknown;
  /** Read the three files (default true); false: the inline servers only. */
  files?: boolean;
}): LoadedMcpServers {
  const env = options.env ?? process.env;
  const paths = mcpConfigPaths({ cwd: options.cwd, env, ...(options.home ? { home: options.home } : {}) });
  const warnings: string[] = [];
  const raw = new Map<string, { entry: unknown; source: string }>();
  const add = (entries: Record<string, unknown>, source: string): void => {
    for (const [name, entry] of Object.entries(entries)) raw.set(name, { entry, source });
  };
  for (const file of options.files === false ? [] : [paths.user, paths.project, paths.env]) {
    if (file === undefined) continue;
    const entries = readConfigFile(file, warnings, file === paths.env);
    if (entries) add(entries, file);
  }
  if (options.inline !== undefined && options.inline !== null) {
    const entries = serverMap(options.inline);
    if (entries) add(entries, 'inline');
    else warnings.push('tool-mcp: inline servers must be an object of server entries; ignored');
  }
  const result: LoadedMcpServers = { servers: {}, sources: {}, warnings, failed: {} };
  for (const [name, { entry, source }] of raw) {
    result.sources[name] = source;
    try {
      result.servers[name] = parseServerEntry(name, entry, { env, cwd: options.cwd, warnings });
    } catch (error) {
      result.failed[name] = errorMessage(error);
    }
  }
  return result;
}

function readConfigFile(
  file: string,
  warnings: string[],
  mustExist: boolean,
): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if (mustExist || (error as NodeJS.ErrnoException).code !== 'ENOENT')
      warnings.push(`tool-mcp: cannot read ${file} (${errorMessage(error)}); skipped`);
    return undefined;
  }
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    warnings.push(`tool-mcp: ${file} is not valid JSON (${errorMessage(error)}); skipped, fix or remove it`);
    return undefined;
  }
  const entries = isPlainObject(data)
    ? (wrapped(data) ?? (Object.keys(data).length === 0 ? {} : undefined))
    : undefined;
  if (entries === undefined) {
    warnings.push(`tool-mcp: ${file} has no "mcpServers" (or "servers") object; skipped`);
  }
  return entries;
}

/** `{ mcpServers: {...} }` or `{ servers: {...} }` (both: merged, `mcpServers` winning). */
function wrapped(data: Record<string, unknown>): Record<string, unknown> | undefined {
  const servers = getOwn(data, 'servers');
  const mcpServers = getOwn(data, 'mcpServers');
  if (!isPlainObject(servers) && !isPlainObject(mcpServers)) return undefined;
  return {
    ...(isPlainObject(servers) ? servers : {}),
    ...(isPlainObject(mcpServers) ? mcpServers : {}),
  };
}

function serverMap(inline: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(inline)) return undefined;
  return wrapped(inline) ?? inline;
}

const TYPE_ALIASES: Readonly<Record<string, McpServerConfig['type']>> = {
  stdio: 'stdio',
  http: 'http',
  'streamable-http': 'http',
  streamable_http: 'http',
  streamablehttp: 'http',
  sse: 'sse',
};

/** Keys an entry may have besides the ones read (host-specific, harmless). */
const KNOWN_KEYS = new Set([
  'type',
  'transport',
  'command',
  'args',
  'env',
  'env_vars',
  'cwd',
  'url',
  'headers',
  'enabled',
  'disabled',
  'enabled_tools',
  'disabled_tools',
  'allowedToolNames',
  'blockedToolNames',
  'startup_timeout_sec',
  'startup_timeout_ms',
  'tool_timeout_sec',
  'tool_timeout_ms',
  'required',
  'bearer_token_env_var',
  'env_http_headers',
  'envFile',
  'description',
  'autoApprove',
  'alwaysAllow',
  'timeout',
]);

/** Misspellings of the tool filters widen what is mounted: such an entry fails instead. */
const FILTER_KEYS = ['enabled_tools', 'disabled_tools', 'allowedToolNames', 'blockedToolNames'];

interface ParseContext {
  env: NodeJS.ProcessEnv;
  cwd: string;
  warnings: string[];
}

/** Read one server entry; throws an Error saying what to fix (that server only fails). */
export function parseServerEntry(name: string, entry: unknown, context: ParseContext): McpServerConfig {
  if (!isPlainObject(entry)) throw new Error(`server '${name}': the entry must be an object`);
  const where = `server '${name}'`;
  for (const key of Object.keys(entry)) {
    if (KNOWN_KEYS.has(key)) continue;
    const near = FILTER_KEYS.find((known) => similar(key, known));
    if (near !== undefined)
      throw new Error(
        `${where}: unknown key '${key}' looks like a misspelt '${near}' (a tool filter); fix it`,
      );
    context.warnings.push(`tool-mcp: ${where}: unknown key '${key}' is ignored`);
  }
  const expand = (value: string, key: string): string =>
    expandVariables(value, context.env, `${where} ${key}`);
  const str = (key: string): string | undefined => {
    const value = getOwn(entry, key);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw new Error(`${where}: '${key}' must be a string`);
    return value;
  };
  const strings = (key: string): string[] | undefined => {
    const value = getOwn(entry, key);
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string'))
      throw new Error(`${where}: '${key}' must be an array of strings`);
    return [...(value as string[])];
  };
  // Command-line words: YAML and JSON users write `args: [--port, 8080]`; numbers and booleans become their text.
  const words = (key: string): string[] | undefined => {
    const value = getOwn(entry, key);
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value)) throw new Error(`${where}: '${key}' must be an array of strings`);
    return value.map((item, i) => {
      if (typeof item === 'string') return item;
      if ((typeof item === 'number' && Number.isFinite(item)) || typeof item === 'boolean')
        return String(item);
      throw new Error(
        `${where}: '${key}[${i}]' must be a string (got ${item === null ? 'null' : Array.isArray(item) ? 'an array' : typeof item}); quote it`,
      );
    });
  };
  const record = (key: string): Record<string, string> | undefined => {
    const value = getOwn(entry, key);
    if (value === undefined || value === null) return undefined;
    if (!isPlainObject(value)) throw new Error(`${where}: '${key}' must be an object of strings`);
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean')
        throw new Error(`${where}: '${key}.${k}' must be a string`);
      out[k] = expand(String(v), `${key}.${k}`);
    }
    return out;
  };
  const seconds = (key: string, fallback: number): number => {
    const sec = getOwn(entry, `${key}_sec`);
    const ms = getOwn(entry, `${key}_ms`);
    for (const [k, v] of [
      [`${key}_sec`, sec],
      [`${key}_ms`, ms],
    ] as const) {
      if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v <= 0))
        throw new Error(`${where}: '${k}' must be a number > 0`);
    }
    if (typeof ms === 'number') return ms;
    if (typeof sec === 'number') return sec * 1000;
    return fallback;
  };

  const rawType = str('type') ?? str('transport');
  const url = str('url');
  let type: McpServerConfig['type'];
  if (rawType !== undefined) {
    const known = TYPE_ALIASES[rawType.toLowerCase()];
    if (known === undefined)
      throw new Error(`${where}: unknown type '${rawType}' (use stdio, http, streamable-http or sse)`);
    type = known;
  } else {
    type = url !== undefined ? 'http' : 'stdio';
  }

  const disabled = getOwn(entry, 'disabled');
  const enabledValue = getOwn(entry, 'enabled');
  const enabled = enabledValue === false ? false : disabled !== true;
  const config: McpServerConfig = {
    type,
    enabled,
    startup_timeout_ms: seconds('startup_timeout', DEFAULT_STARTUP_TIMEOUT_MS),
    tool_timeout_ms: seconds('tool_timeout', DEFAULT_TOOL_TIMEOUT_MS),
    required: getOwn(entry, 'required') === true,
  };
  const allow = strings('enabled_tools') ?? strings('allowedToolNames');
  const deny = strings('disabled_tools') ?? strings('blockedToolNames');
  if (allow) config.enabled_tools = allow;
  if (deny) config.disabled_tools = deny;
  if (!enabled) return config; // a disabled entry is never started: do not fail it on its variables
  if (type === 'stdio') {
    const command = str('command');
    if (command === undefined || command.trim() === '')
      throw new Error(`${where}: a stdio server needs 'command' (or give 'url' for an HTTP server)`);
    config.command = expand(command, 'command');
    const args = words('args');
    if (args) config.args = args.map((arg, i) => expand(arg, `args[${i}]`));
    const env = record('env');
    if (env) config.env = env;
    const envVars = strings('env_vars');
    if (envVars) config.env_vars = envVars;
    const cwd = str('cwd');
    if (cwd !== undefined) config.cwd = path.resolve(context.cwd, expand(cwd, 'cwd'));
  } else {
    if (url === undefined) throw new Error(`${where}: an ${type} server needs 'url'`);
    const expanded = expand(url, 'url');
    let parsed: URL;
    try {
      parsed = new URL(expanded);
    } catch {
      throw new Error(`${where}: 'url' is not a URL: ${expanded}`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new Error(`${where}: 'url' must be http:// or https://, got ${parsed.protocol}`);
    config.url = expanded;
    const headers = record('headers') ?? {};
    const bearer = str('bearer_token_env_var');
    if (bearer !== undefined) {
      const token = context.env[bearer];
      if (!token) throw new Error(`${where}: bearer_token_env_var names ${bearer}, which is not set`);
      headers.Authorization = `Bearer ${token}`;
    }
    const envHeaders = getOwn(entry, 'env_http_headers');
    if (isPlainObject(envHeaders)) {
      for (const [header, variable] of Object.entries(envHeaders)) {
        const value = typeof variable === 'string' ? context.env[variable] : undefined;
        if (value) headers[header] = value;
      }
    }
    if (Object.keys(headers).length > 0) {
      config.headers = headers;
      if (parsed.protocol === 'http:' && !isLoopback(parsed.hostname))
        throw new Error(
          `${where}: refusing to send headers (credentials) over plain http:// to ${parsed.hostname}; use https://`,
        );
    }
  }
  return config;
}

/** `${VAR}`, `${VAR:-default}`, `${env:VAR}`; an unset variable without a default fails the server. */
export function expandVariables(value: string, env: NodeJS.ProcessEnv, where: string): string {
  return value.replace(/\$\{([^}]*)\}/g, (_match, body: string) => {
    if (body.startsWith('input:'))
      throw new Error(
        `${where}: \${${body}} asks the user for a value, which cannot be done here; set it directly`,
      );
    const [rawName, fallback] = splitDefault(body.startsWith('env:') ? body.slice(4) : body);
    const name = rawName.trim();
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new Error(`${where}: bad variable reference \${${body}}`);
    const found = env[name];
    if (found !== undefined && found !== '') return found;
    if (fallback !== undefined) return fallback;
    throw new Error(`${where}: variable ${name} is not set (set it, or write \${${name}:-default})`);
  });
}

function splitDefault(body: string): [string, string | undefined] {
  const at = body.indexOf(':-');
  return at < 0 ? [body, undefined] : [body.slice(0, at), body.slice(at + 2)];
}

export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/** Same letters up to case, `_`/`-`, or one edit apart. */
function similar(a: string, b: string): boolean {
  const norm = (s: string): string => s.toLowerCase().replace(/[^a-z]/g, '');
  const x = norm(a);
  const y = norm(b);
  if (x === y) return true;
  if (Math.abs(x.length - y.length) > 2) return false;
  return editDistance(x, y) <= 2;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}
