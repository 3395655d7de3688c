/**
 * `amplifier mcp serve`: the plan's tools (or, with `--agent`, the whole
 * agent as one tool) as an MCP server over stdio (default) or Streamable HTTP
 * (`--http`), a thin command over `@amplifier/mcp-server`: this file reads
 * the flags, opens the session from the plan, prints where it listens and
 * writes the runtime file. stdout carries protocol messages only: everything
 * else goes to stderr. Stops on stdin EOF (stdio), SIGTERM and SIGINT:
 * running calls are aborted, then the sessions are cleaned up.
 */
import {
  createMcpServer,
  DEFAULT_HTTP_PORT,
  DEFAULT_MAX_LINE_BYTES,
  type McpServer,
  type McpServerOptions,
  type StdioServing,
  ToolsBackend,
} from '@amplifier/mcp-server';
import {
  type RuntimeFile,
  resolveServiceToken,
  ServiceSetupError,
  writeRuntimeFile,
} from '@amplifier/server';
import { MIN_MAX_LINE_BYTES, parseByteSize } from './commands/options.js';
import { Display } from './display.js';
import { CliError, EXIT_OK, EXIT_USAGE } from './errors.js';
import { cliAgentOptions } from './mcp-agent.js';
import { openToolSession } from './mcp-tools.js';
import { CLI_VERSION } from './modules.js';
import { resolvePlan } from './plan.js';
import { resolveCwd } from './run.js';
import { SessionStore } from './sessions.js';
import { bundleOption } from './tools.js';

export interface ServeOptions {
  plan?: string | undefined;
  bundle?: string | undefined;
  sources?: string[] | undefined;
  cwd?: string | undefined;
  verbose: boolean;
  /** Serve the agent as one tool (`amplifier_agent`) instead of the plan's tools. */
  agent: boolean;
  provider?: string | undefined;
  model?: string | undefined;
  /** `--tools`: serve only these tools. */
  tools?: string[] | undefined;
  /** `--include-mcp`: also serve the plan's own `mcp_*` tools. */
  includeMcp: boolean;
  /** Streamable HTTP instead of stdio. */
  http: boolean;
  host?: string | undefined;
  port?: number | undefined;
  token?: string | undefined;
  /** `--unix <path>`: a 0600 unix socket instead of TCP (no token needed). */
  unix?: string | undefined;
  allowOrigins?: string[] | undefined;
  allowHosts?: string[] | undefined;
  /** stdio: the largest request line in bytes (default `AMPLIFIER_MCP_MAX_LINE_BYTES`, else 4 MiB). */
  maxLineBytes?: number | undefined;
}

/** The environment variable that may hold `mcp serve --http`'s token. */
export const MCP_TOKEN_ENV = 'AMPLIFIER_MCP_TOKEN';

/** The token `mcp serve --http` starts with (null over a unix socket without one); refuses a non-loopback bind without one. */
function httpToken(options: ServeOptions): string | null {
  if (options.unix !== undefined) {
    const given = options.token ?? (process.env[MCP_TOKEN_ENV] || undefined);
    return given ?? null;
  }
  try {
    return resolveServiceToken({
      service: 'amplifier mcp serve --http',
      host: options.host ?? '127.0.0.1',
      flag: options.token,
      envName: MCP_TOKEN_ENV,
    }).token;
  } catch (error) {
    if (error instanceof ServiceSetupError) throw new CliError(error.message, EXIT_USAGE);
    throw error;
  }
}

/** How long cleanup may take after a stop before the process leaves anyway. */
const STOP_GRACE_MS = 2000;

export const DEFAULT_MCP_PORT: number = DEFAULT_HTTP_PORT;

function checkFlags(options: ServeOptions): void {
  if (!options.http) {
    const stray = (
      [
        ['--host', options.host],
        ['--port', options.port],
        ['--token', options.token],
        ['--unix', options.unix],
        ['--allow-origin', options.allowOrigins],
        ['--allow-host', options.allowHosts],
      ] as const
    ).find(([, value]) => value !== undefined);
    if (stray) throw new CliError(`${stray[0]} applies to --http only (stdio is the default).`, EXIT_USAGE);
  } else if (options.maxLineBytes !== undefined) {
    throw new CliError('--max-line-bytes applies to stdio only (not --http).', EXIT_USAGE);
  }
  if (options.unix !== undefined && (options.host !== undefined || options.port !== undefined)) {
    throw new CliError('--unix listens on a socket file instead of TCP: drop --host and --port.', EXIT_USAGE);
  }
  if (options.agent && (options.tools !== undefined || options.includeMcp)) {
    throw new CliError(
      '--tools and --include-mcp choose plan tools; --agent serves one tool, the agent.',
      EXIT_USAGE,
    );
  }
  if (!options.agent && (options.provider !== undefined || options.model !== undefined)) {
    throw new CliError(
      '--provider and --model apply to --agent (serving tools involves no model).',
      EXIT_USAGE,
    );
  }
}

/** What the server exposes and its cleanup (the tools' session), from the plan or bundle. */
async function openExposure(
  options: ServeOptions,
  cwd: string,
  display: Display,
): Promise<{ exposure: McpServerOptions; close(): Promise<void> }> {
  const { bundle, systemPrompt } = await bundleOption(options, cwd, display);
  if (options.agent) {
    const resolved = resolvePlan({
      planFile: options.plan,
      bundle,
      cwd,
      provider: options.provider,
      model: options.model,
    });
    for (const warning of resolved.warnings) display.warn(warning);
    const agent = cliAgentOptions({
      resolved,
      cwd,
      store: new SessionStore(),
      verbose: options.verbose,
      systemPrompt,
    });
    // The agent's sessions end with the server (`McpServer.close`).
    return { exposure: { expose: 'agent', ...agent }, close: async () => {} };
  }
  const resolved = resolvePlan({
    planFile: options.plan,
    bundle,
    cwd,
    provider: 'mock',
    emptySections: ['providers'],
  });
  for (const warning of resolved.warnings) display.warn(warning);
  const session = await openToolSession(resolved, cwd, display);
  const allow =
    options.tools === undefined
      ? undefined
      : new Set(
          options.tools
            .flatMap((t) => t.split(','))
            .map((t) => t.trim())
            .filter(Boolean),
        );
  const mounted = new Set([...session.coordinator.get('tools').values()].map((t) => t.name));
  const missing = [...(allow ?? [])].filter((name) => !mounted.has(name));
  if (missing.length > 0) {
    await session.cleanup().catch(() => undefined);
    throw new CliError(
      `--tools names ${missing.join(', ')}, which the plan does not mount. Mounted: ${[...mounted].sort().join(', ') || '(none)'}`,
      EXIT_USAGE,
    );
  }
  const exposure: McpServerOptions = { expose: 'tools', session, allow, includeMcp: options.includeMcp };
  return { exposure, close: () => session.cleanup() };
}

/** Resolves when the server should stop: SIGTERM, SIGINT, or (stdio) the end of stdin. */
function stopRequested(stdio: boolean): { done: Promise<string>; dispose(): void } {
  let finish!: (why: string) => void;
  const done = new Promise<string>((resolve) => {
    finish = resolve;
  });
  const onTerm = (): void => finish('SIGTERM');
  const onInt = (): void => finish('SIGINT');
  const onEnd = (): void => finish('end of stdin');
  process.on('SIGTERM', onTerm);
  process.on('SIGINT', onInt);
  if (stdio) {
    process.stdin.on('end', onEnd);
    process.stdin.on('close', onEnd);
  }
  return {
    done,
    dispose() {
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
      process.stdin.off('end', onEnd);
      process.stdin.off('close', onEnd);
    },
  };
}

/** `--max-line-bytes`, else `AMPLIFIER_MCP_MAX_LINE_BYTES`, else 4 MiB; a bad value is a usage error. */
export function maxLineBytes(options: ServeOptions, env: NodeJS.ProcessEnv = process.env): number {
  if (options.maxLineBytes !== undefined) return options.maxLineBytes;
  const raw = env.AMPLIFIER_MCP_MAX_LINE_BYTES;
  if (raw === undefined || raw === '') return DEFAULT_MAX_LINE_BYTES;
  const value = parseByteSize(raw);
  if (value === undefined)
    throw new CliError(
      `AMPLIFIER_MCP_MAX_LINE_BYTES must be a size of at least ${MIN_MAX_LINE_BYTES} bytes (4194304, 512KiB, 4MiB); found ${JSON.stringify(raw)}. Unset it for the default (4MiB).`,
      EXIT_USAGE,
    );
  return value;
}

export async function serveCommand(options: ServeOptions): Promise<number> {
  // The display never writes to stdout here: that is the protocol's.
  const display = new Display({ stdout: process.stderr, verbose: options.verbose });
  checkFlags(options);
  const lineCap = options.http ? DEFAULT_MAX_LINE_BYTES : maxLineBytes(options);
  const cwd = resolveCwd(options.cwd);
  const token = options.http ? httpToken(options) : null;
  const stop = stopRequested(!options.http);
  const { exposure, close } = await openExposure(options, cwd, display).catch((error: unknown) => {
    stop.dispose();
    throw error;
  });
  const mcp: McpServer = createMcpServer({ ...exposure, info: { name: 'amplifier', version: CLI_VERSION } });
  if (mcp.backend instanceof ToolsBackend) {
    const names = mcp.backend.exposed().map((t) => t.name);
    display.debug(`serving ${names.join(', ') || 'no tools'}`);
  }
  let runtime: RuntimeFile | undefined;
  let stdio: StdioServing | undefined;
  try {
    if (options.http) {
      const serving = await mcp
        .listen({
          host: options.host ?? '127.0.0.1',
          port: options.port ?? DEFAULT_MCP_PORT,
          unix: options.unix,
          token,
          allowedOrigins: options.allowOrigins ?? [],
          allowedHosts: options.allowHosts ?? [],
          log: (m) => display.debug(m),
        })
        .catch((error: unknown) => {
          if (error instanceof ServiceSetupError) throw new CliError(error.message, EXIT_USAGE);
          throw error;
        });
      try {
        const port = serving.socket === undefined ? new URL(serving.url).port : undefined;
        runtime = writeRuntimeFile(port === undefined ? `mcp-unix-${process.pid}` : `mcp-${port}`, {
          service: 'mcp',
          url: serving.url,
          ...(token !== null && { token, header: `Authorization: Bearer ${token}` }),
          ...(serving.socket !== undefined && { socket: serving.socket }),
          pid: process.pid,
        });
      } catch (error) {
        display.warn(
          `could not write the runtime file (${(error as Error).message}); the URL and token are below`,
        );
      }
      if (serving.socket !== undefined) {
        display.line(
          `amplifier mcp serve: listening on ${serving.url} over the unix socket ${serving.socket}`,
        );
        display.line(
          `  curl --unix-socket ${serving.socket} ${serving.url} ...  (mode 0600: only you can connect)`,
        );
      } else {
        display.line(`amplifier mcp serve: listening on ${serving.url}`);
      }
      if (token !== null) display.line(`  send the header: Authorization: Bearer ${token}`);
      if (runtime !== undefined) display.line(`  (URL and token also in ${runtime.path}, mode 0600)`);
    } else {
      stdio = await mcp.serveStdio({
        maxLineBytes: lineCap,
        name: 'amplifier mcp serve',
        limitHint: '--max-line-bytes',
        log: (m) => display.warn(m),
      });
      display.debug('amplifier mcp serve: serving over stdio');
    }
  } catch (error) {
    stop.dispose();
    await mcp.close().catch(() => undefined);
    await close().catch(() => undefined);
    throw error;
  }
  const why = await stop.done;
  stop.dispose();
  // A last request without its newline at the end of stdin is still answered (bounded).
  await stdio?.transport.settled(STOP_GRACE_MS);
  display.debug(`amplifier mcp serve: stopping (${why})`);
  // Cleanup gets a bounded time: a stuck module must not keep a host waiting on the process.
  setTimeout(() => process.exit(EXIT_OK), STOP_GRACE_MS).unref();
  runtime?.remove();
  // Aborts running calls, ends the connections and the agent's sessions.
  await mcp
    .close(`the server is stopping (${why})`)
    .catch((error: unknown) => display.error(`cleanup failed: ${(error as Error).message}`));
  await close().catch((error: unknown) => display.error(`cleanup failed: ${(error as Error).message}`));
  return EXIT_OK;
}
