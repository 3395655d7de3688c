/**
 * `amplifier mcp serve`: the plan's tools (or, with `--agent`, the whole
 * agent as one tool) as an MCP server over stdio (default) or Streamable HTTP
 * (`--http`). stdout carries protocol messages only: everything else goes to
 * stderr. Stops on stdin EOF (stdio), SIGTERM and SIGINT: running calls are
 * aborted, then the sessions are cleaned up.
 */
import {
  type RuntimeFile,
  resolveServiceToken,
  ServiceSetupError,
  writeRuntimeFile,
} from '@amplifier/server';
import { MIN_MAX_LINE_BYTES, parseByteSize } from './commands/options.js';
import { Display } from './display.js';
import { CliError, EXIT_OK, EXIT_USAGE } from './errors.js';
import { AgentBackend } from './mcp-agent.js';
import { serveHttp } from './mcp-http.js';
import { createMcpServer, type ServeBackend } from './mcp-server.js';
import { BoundedStdioTransport, DEFAULT_MAX_LINE_BYTES } from './mcp-stdio.js';
import { openToolSession, ToolsBackend } from './mcp-tools.js';
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

export const DEFAULT_MCP_PORT = 8808;

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

/** The backend and its cleanup, from the plan or bundle. */
async function openBackend(
  options: ServeOptions,
  cwd: string,
  display: Display,
): Promise<{ backend: ServeBackend; close(): Promise<void> }> {
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
    const backend = new AgentBackend({
      resolved,
      cwd,
      store: new SessionStore(),
      verbose: options.verbose,
      systemPrompt,
    });
    return { backend, close: () => backend.close() };
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
  const backend = new ToolsBackend(session, { allow, includeMcp: options.includeMcp });
  const mounted = new Set([...session.coordinator.get('tools').values()].map((t) => t.name));
  const missing = [...(allow ?? [])].filter((name) => !mounted.has(name));
  if (missing.length > 0) {
    await session.cleanup().catch(() => undefined);
    throw new CliError(
      `--tools names ${missing.join(', ')}, which the plan does not mount. Mounted: ${[...mounted].sort().join(', ') || '(none)'}`,
      EXIT_USAGE,
    );
  }
  display.debug(
    `serving ${
      backend
        .exposed()
        .map((t) => t.name)
        .join(', ') || 'no tools'
    }`,
  );
  return { backend, close: () => session.cleanup() };
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
  const stopping = new AbortController();
  const { backend, close } = await openBackend(options, cwd, display).catch((error: unknown) => {
    stop.dispose();
    throw error;
  });
  let closeTransport: () => Promise<void>;
  let stdio: BoundedStdioTransport | undefined;
  try {
    if (options.http) {
      const serving = await serveHttp(backend, {
        host: options.host ?? '127.0.0.1',
        port: options.port ?? DEFAULT_MCP_PORT,
        unix: options.unix,
        token,
        allowedOrigins: options.allowOrigins ?? [],
        allowedHosts: options.allowHosts ?? [],
        stopping: stopping.signal,
        log: (m) => display.debug(m),
      });
      let runtime: RuntimeFile | undefined;
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
      closeTransport = async () => {
        runtime?.remove();
        await serving.close();
      };
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
      const server = createMcpServer(backend, { principal: 'stdio', stopping: stopping.signal });
      const transport = new BoundedStdioTransport({
        maxLineBytes: lineCap,
        log: (m) => display.warn(m),
      });
      await server.connect(transport);
      stdio = transport;
      closeTransport = () => server.close();
      display.debug('amplifier mcp serve: serving over stdio');
    }
  } catch (error) {
    stop.dispose();
    await close().catch(() => undefined);
    throw error;
  }
  const why = await stop.done;
  stop.dispose();
  // A last request without its newline at the end of stdin is still answered (bounded).
  await stdio?.settled(STOP_GRACE_MS);
  display.debug(`amplifier mcp serve: stopping (${why})`);
  // Cleanup gets a bounded time: a stuck module must not keep a host waiting on the process.
  setTimeout(() => process.exit(EXIT_OK), STOP_GRACE_MS).unref();
  stopping.abort(new Error(`the server is stopping (${why})`));
  await closeTransport().catch(() => undefined);
  await close().catch((error: unknown) => display.error(`cleanup failed: ${(error as Error).message}`));
  return EXIT_OK;
}
