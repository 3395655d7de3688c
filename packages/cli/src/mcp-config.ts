/**
 * `amplifier mcp list|add|remove|test`: the MCP servers of the user's config
 * (`~/.amplifier/mcp.json`, default for add/remove), the project's
 * (`./.amplifier/mcp.json`, `--project`) and the file at `AMPLIFIER_MCP_CONFIG`,
 * in the Claude Desktop shape `{ "mcpServers": { name: entry } }`. Reading and
 * probing go through `@amplifier/tool-mcp`, so this command and a session see
 * the same servers. Writes are atomic, keep every other key and server, and
 * never touch a file that does not parse.
 */
import fs from 'node:fs';
import path from 'node:path';
import { errorMessage, isPlainObject } from '@amplifier/core';
import { loadMcpServers, mcpConfigPaths, probeMcpServer } from '@amplifier/tool-mcp';
import { writeAtomic } from './atomic-write.js';
import type { Display } from './display.js';
import { CliError, EXIT_ERROR, EXIT_OK, EXIT_USAGE } from './errors.js';
import { table } from './modules.js';

export interface McpAddOptions {
  cwd: string;
  project: boolean;
  force: boolean;
  url?: string | undefined;
  type?: string | undefined;
  headers?: string[] | undefined;
  env?: string[] | undefined;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const MASK = '***';

/** The file add/remove write: the user's, or the project's with `--project`. */
export function targetFile(cwd: string, project: boolean): string {
  const paths = mcpConfigPaths({ cwd });
  return project ? paths.project : paths.user;
}

/** The file's JSON object (`{}` when it does not exist); a CliError naming the file otherwise. */
function readConfig(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new CliError(`Cannot read ${file}: ${errorMessage(error)}`);
  }
  if (text.trim() === '') return {};
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new CliError(
      `${file} is not valid JSON (${errorMessage(error)}). Fix it by hand; it was left as it is.`,
    );
  }
  if (!isPlainObject(data)) {
    throw new CliError(`${file} must hold a JSON object ({ "mcpServers": { ... } }); it was left as it is.`);
  }
  for (const key of ['mcpServers', 'servers']) {
    const value = Object.hasOwn(data, key) ? data[key] : undefined;
    if (value !== undefined && !isPlainObject(value)) {
      throw new CliError(`${file}: "${key}" must be an object of servers; it was left as it is.`);
    }
  }
  return data;
}

function servers(
  data: Record<string, unknown>,
  key: 'mcpServers' | 'servers',
): Record<string, unknown> | undefined {
  const value = Object.hasOwn(data, key) ? data[key] : undefined;
  return isPlainObject(value) ? value : undefined;
}

function writeConfig(file: string, data: Record<string, unknown>): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeAtomic(file, `${JSON.stringify(data, null, 2)}\n`);
}

/** `K=V` (env) or `K: V` / `K:V` (headers) pairs as an object; a usage error names the bad one. */
function pairs(
  items: readonly string[] | undefined,
  separator: '=' | ':',
  flag: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items ?? []) {
    const at = item.indexOf(separator);
    const key = at > 0 ? item.slice(0, at).trim() : '';
    if (key === '') {
      const shape = separator === '=' ? 'KEY=value' : 'Name: value';
      throw new CliError(`${flag} takes ${shape}; got '${item}'`, EXIT_USAGE);
    }
    out[key] = item.slice(at + 1).trim();
  }
  return out;
}

/** The entry `mcp add` writes, from its flags and the command after `--`. */
export function entryFromFlags(command: readonly string[], options: McpAddOptions): Record<string, unknown> {
  const hasUrl = options.url !== undefined;
  if (hasUrl === command.length > 0) {
    throw new CliError(
      hasUrl
        ? 'Give --url or a command after --, not both.'
        : 'Give the server to start after -- (amplifier mcp add <name> -- <command> [args...]) or --url <url>.',
      EXIT_USAGE,
    );
  }
  if (hasUrl) {
    if (options.env !== undefined)
      throw new CliError('--env applies to a command, not to --url.', EXIT_USAGE);
    let url: URL;
    try {
      url = new URL(options.url!);
    } catch {
      throw new CliError(`--url ${options.url} is not a URL (http://host:port/mcp)`, EXIT_USAGE);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new CliError(`--url must be http:// or https://; got ${url.protocol}`, EXIT_USAGE);
    }
    const type = options.type ?? 'http';
    if (type !== 'http' && type !== 'sse')
      throw new CliError(`--type with --url is http or sse; got ${type}`, EXIT_USAGE);
    const headers = pairs(options.headers, ':', '--header');
    return { type, url: options.url, ...(Object.keys(headers).length > 0 && { headers }) };
  }
  if (options.headers !== undefined)
    throw new CliError('--header applies to --url, not to a command.', EXIT_USAGE);
  if (options.type !== undefined && options.type !== 'stdio') {
    throw new CliError(`--type ${options.type} needs --url; a command is a stdio server`, EXIT_USAGE);
  }
  const env = pairs(options.env, '=', '--env');
  const [program, ...args] = command;
  return {
    command: program,
    ...(args.length > 0 && { args }),
    ...(Object.keys(env).length > 0 && { env }),
  };
}

/** `amplifier mcp add <name> -- <command> [args...]` or `--url <url>`. */
export function addServer(
  name: string,
  command: readonly string[],
  options: McpAddOptions,
  out: NodeJS.WritableStream,
): number {
  if (!NAME.test(name)) {
    throw new CliError(
      `'${name}' is not a server name: letters, digits, '_', '-' and '.', starting with a letter or digit (64 at most)`,
      EXIT_USAGE,
    );
  }
  const entry = entryFromFlags(command, options);
  const file = targetFile(options.cwd, options.project);
  const data = readConfig(file);
  const existing = servers(data, 'mcpServers') ?? {};
  const exists = Object.hasOwn(existing, name) || Object.hasOwn(servers(data, 'servers') ?? {}, name);
  if (exists && !options.force) {
    throw new CliError(`${file} already has a server '${name}'. Pass --force to replace it.`);
  }
  const vsc = servers(data, 'servers');
  if (vsc !== undefined && Object.hasOwn(vsc, name)) delete vsc[name];
  data.mcpServers = { ...existing, [name]: entry };
  writeConfig(file, data);
  out.write(`${exists ? 'Replaced' : 'Added'} server '${name}' in ${file}\n`);
  return EXIT_OK;
}

/** `amplifier mcp remove <name>`. */
export function removeServer(
  name: string,
  options: { cwd: string; project: boolean },
  display: Display,
  out: NodeJS.WritableStream,
): number {
  const file = targetFile(options.cwd, options.project);
  const data = readConfig(file);
  let found = false;
  for (const key of ['mcpServers', 'servers'] as const) {
    const map = servers(data, key);
    if (map !== undefined && Object.hasOwn(map, name)) {
      delete map[name];
      found = true;
    }
  }
  if (!found) {
    const other = targetFile(options.cwd, !options.project);
    const where = options.project ? 'the user config (drop --project)' : 'the project config (--project)';
    const hint = Object.hasOwn(loadMcpServers({ cwd: options.cwd }).sources, name)
      ? ` It is defined elsewhere: try ${where}, ${other}.`
      : '';
    throw new CliError(`No server '${name}' in ${file}.${hint}`);
  }
  writeConfig(file, data);
  out.write(`Removed server '${name}' from ${file}\n`);
  const still = loadMcpServers({ cwd: options.cwd }).sources[name];
  if (still !== undefined) display.warn(`'${name}' is still defined in ${still}.`);
  return EXIT_OK;
}

function masked(values: Record<string, string> | undefined): Record<string, string> | undefined {
  if (values === undefined || Object.keys(values).length === 0) return undefined;
  return Object.fromEntries(Object.keys(values).map((key) => [key, MASK]));
}

/** The raw entries of one file (for showing every layer); undefined when it cannot be read. */
function fileEntries(file: string): Record<string, unknown> | undefined {
  try {
    const data = readConfig(file);
    return { ...(servers(data, 'servers') ?? {}), ...(servers(data, 'mcpServers') ?? {}) };
  } catch {
    return undefined; // reported by loadMcpServers' warnings
  }
}

interface ListedServer {
  name: string;
  scope: 'user' | 'project' | 'env';
  file: string;
  /** Used by sessions; false when a later layer defines the same name. */
  active: boolean;
  status: string;
  type?: string;
  command?: string;
  args?: string[];
  url?: string;
  env?: Record<string, string>;
  headers?: Record<string, string>;
}

/** `amplifier mcp list`: every layer's servers, where each comes from, values of env and headers masked. */
export function listServers(
  options: { cwd: string; json: boolean; projectTrusted?: boolean },
  display: Display,
  out: NodeJS.WritableStream,
): number {
  const paths = mcpConfigPaths({ cwd: options.cwd });
  const loaded = loadMcpServers({ cwd: options.cwd });
  for (const warning of loaded.warnings) display.warn(warning);
  const layers = [
    ['user', paths.user],
    ['project', paths.project],
    ...(paths.env ? [['env', paths.env]] : []),
  ] as Array<[ListedServer['scope'], string]>;
  const rows: ListedServer[] = [];
  for (const [scope, file] of layers) {
    const entries = fileEntries(file) ?? {};
    for (const name of Object.keys(entries).sort()) {
      const active = loaded.sources[name] === file;
      const row: ListedServer = { name, scope, file, active, status: 'ok' };
      // The layer's own entry, read by tool-mcp's parser (variables expanded, values masked below).
      const single = loadMcpServers({ cwd: options.cwd, files: false, inline: { [name]: entries[name] } });
      const config = single.servers[name];
      if (config !== undefined) {
        row.type = config.type;
        if (config.command !== undefined) row.command = config.command;
        if (config.args !== undefined && config.args.length > 0) row.args = config.args;
        if (config.url !== undefined) row.url = config.url;
        const env = masked(config.env);
        if (env) row.env = env;
        const headers = masked(config.headers);
        if (headers) row.headers = headers;
        if (!config.enabled) row.status = 'disabled';
      } else {
        row.status = `error: ${single.failed[name] ?? 'unreadable entry'}`;
      }
      if (!active) {
        const winner = loaded.sources[name];
        row.status = `overridden by ${layers.find(([, f]) => f === winner)?.[0] ?? winner}`;
      }
      if (scope === 'project' && options.projectTrusted !== true) {
        row.status = `not started: folder not trusted (amplifier trust)`;
      }
      rows.push(row);
    }
  }
  if (options.json) {
    out.write(`${JSON.stringify({ files: Object.fromEntries(layers), servers: rows }, null, 2)}\n`);
    return EXIT_OK;
  }
  if (rows.length === 0) {
    display.line(`No MCP servers in ${layers.map(([, f]) => f).join(', ')}.`);
    display.line('Add one with: amplifier mcp add <name> -- <command> [args...]   (or --url <url>)');
    return EXIT_OK;
  }
  out.write(
    table(
      ['NAME', 'SCOPE', 'TYPE', 'STATUS', 'TARGET'],
      rows.map((r) => {
        const target = r.url ?? [r.command, ...(r.args ?? [])].filter(Boolean).join(' ');
        const extra = [
          ...Object.keys(r.env ?? {}).map((k) => `${k}=${MASK}`),
          ...Object.keys(r.headers ?? {}).map((k) => `${k}: ${MASK}`),
        ];
        return [r.name, r.scope, r.type ?? '-', r.status, [target, ...extra].join('  ')];
      }),
    ),
  );
  display.line(layers.map(([scope, file]) => `${scope}: ${file}`).join('\n'));
  return EXIT_OK;
}

/**
 * The servers as a command that starts one should see them: a server of the
 * folder's `.amplifier/mcp.json` only when the folder is trusted (else the
 * user's entry of that name, if any, with a notice); a project entry that
 * replaces the user's is said so.
 */
function trustedServers(
  name: string,
  options: { cwd: string; projectTrusted?: boolean | undefined; trustReason?: string | undefined },
  display: Display,
): ReturnType<typeof loadMcpServers> {
  const loaded = loadMcpServers({ cwd: options.cwd });
  const paths = mcpConfigPaths({ cwd: options.cwd });
  if (loaded.sources[name] !== paths.project) return loaded;
  const mine = fileEntries(paths.user) ?? {};
  const hasMine = Object.hasOwn(mine, name);
  if (options.projectTrusted === true) {
    if (hasMine)
      display.warn(
        `'${name}': the project's ${paths.project} replaces yours in ${paths.user} (the folder is trusted). Rename one to keep both.`,
      );
    return loaded;
  }
  const why = `the folder is not trusted${options.trustReason ? ` (${options.trustReason})` : ''}`;
  if (!hasMine) {
    throw new CliError(
      `Server '${name}' is defined by ${paths.project}, and ${why}: testing it would start a program a cloned repository chose. Review it, then run: amplifier trust ${options.cwd} (or set AMPLIFIER_TRUST_PROJECT=1 for one run).`,
    );
  }
  display.warn(
    `'${name}': using yours from ${paths.user}; the project's ${paths.project} entry is ignored: ${why}.`,
  );
  const user = loadMcpServers({ cwd: options.cwd, files: false, inline: { [name]: mine[name] } });
  return {
    ...user,
    sources: { ...loaded.sources, [name]: paths.user },
    warnings: loaded.warnings,
  };
}

/** `amplifier mcp test <name>`: start the server, list its tools, call none, stop it. */
export async function testServer(
  name: string,
  options: {
    cwd: string;
    json: boolean;
    timeoutMs?: number | undefined;
    projectTrusted?: boolean | undefined;
    trustReason?: string | undefined;
  },
  display: Display,
  out: NodeJS.WritableStream,
): Promise<number> {
  const loaded = trustedServers(name, options, display);
  const failed = loaded.failed[name];
  if (failed !== undefined)
    throw new CliError(`Server '${name}' (${loaded.sources[name]}) cannot start: ${failed}`);
  const config = loaded.servers[name];
  if (config === undefined) {
    const known = Object.keys(loaded.sources).sort().join(', ') || '(none)';
    throw new CliError(`No MCP server '${name}'. Configured: ${known}. See amplifier mcp list.`);
  }
  for (const warning of loaded.warnings) display.warn(warning);
  const controller = new AbortController();
  const onSigint = (): void => controller.abort(new Error('interrupted'));
  process.on('SIGINT', onSigint);
  try {
    display.line(`Starting '${name}' from ${loaded.sources[name]}...`);
    const result = await probeMcpServer(name, config, {
      cwd: options.cwd,
      signal: controller.signal,
      ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    });
    if (options.json) {
      out.write(`${JSON.stringify({ name, source: loaded.sources[name], ...result }, null, 2)}\n`);
      return EXIT_OK;
    }
    out.write(
      `${name}: ${result.serverInfo.name} ${result.serverInfo.version} over ${result.transport}, ${result.tools.length} tool${result.tools.length === 1 ? '' : 's'}\n`,
    );
    if (result.tools.length > 0) {
      out.write(
        table(
          ['TOOL', 'MOUNTED AS', 'DESCRIPTION'],
          result.tools.map((t) => [
            t.name,
            t.mountedName,
            (t.description ?? '').split('\n')[0]!.slice(0, 80),
          ]),
        ),
      );
    }
    return EXIT_OK;
  } catch (error) {
    display.error(`Server '${name}' failed: ${errorMessage(error)}`);
    return EXIT_ERROR;
  } finally {
    process.off('SIGINT', onSigint);
  }
}
