/**
 * `createMcpServer`: what an app calls to serve a session's tools (or its
 * agent) over MCP: stdio (`serveStdio`) and Streamable HTTP (`listen`, or
 * `httpHandler` to mount on the app's own server), any number of each at
 * once over one backend. `close()` aborts running calls and ends every
 * connection; the app's session stays the app's to clean up.
 */
import type { Coordinator } from '@amplifier/core';
import { AgentBackend, type AgentBackendOptions } from './agent.js';
import {
  createHttpHandler,
  type HttpHandlerOptions,
  type HttpListenOptions,
  type HttpServing,
  listenHttp,
  type McpHttpHandler,
} from './http.js';
import { createProtocolServer, type ServeBackend, type ServerInfo } from './protocol.js';
import { type BoundedStdioOptions, BoundedStdioTransport } from './stdio.js';
import { type ToolFilter, ToolsBackend } from './tools.js';

/** Serve the tools mounted on a session (or a coordinator), through its hooks. */
export interface ToolsExposure extends ToolFilter {
  expose: 'tools';
  /** An initialized `AmplifierSession` (anything with a `coordinator`), or a coordinator. */
  session: { readonly coordinator: Coordinator } | Coordinator;
}

/** Serve the agent as one tool, `amplifier_agent {prompt, session_id?}`. */
export interface AgentExposure extends AgentBackendOptions {
  expose: 'agent';
}

/** Serve an app's own backend. */
export interface BackendExposure {
  expose: 'backend';
  backend: ServeBackend;
}

/** What `createMcpServer` serves, and how it names itself. */
export type McpServerOptions = (ToolsExposure | AgentExposure | BackendExposure) & {
  /** `serverInfo` in `initialize` (default `{ name: 'amplifier', version: <this package's version> }`). */
  info?: ServerInfo | undefined;
};

/** Where and how `serveStdio` serves (defaults: stdin and stdout, 4 MiB lines). */
export type StdioServeOptions = BoundedStdioOptions;

/** One stdio connection being served. */
export interface StdioServing {
  /** The bounded transport (`settled(ms)` waits for the answers to a last line without a newline). */
  readonly transport: BoundedStdioTransport;
  /** Resolves when the input ends or closes (the host went away). */
  readonly ended: Promise<void>;
  /** Stop serving this connection. */
  close(): Promise<void>;
}

/** HTTP endpoint options without what the server supplies itself (`stopping`, `info`). */
export type McpHttpOptions = Omit<HttpHandlerOptions, 'stopping' | 'info'>;

/** `listenHttp` options without what the server supplies itself. */
export type McpListenOptions = Omit<HttpListenOptions, 'stopping' | 'info'>;

/** A server over one backend, serving any number of connections. */
export interface McpServer {
  /** What is served. */
  readonly backend: ServeBackend;
  /** Aborted by `close()`: every running call's signal follows it. */
  readonly signal: AbortSignal;
  /** Serve one stdio connection (newline-delimited JSON-RPC, bounded lines). */
  serveStdio(options?: StdioServeOptions): Promise<StdioServing>;
  /** A gated Streamable HTTP endpoint to mount on the app's own `node:http` server. */
  httpHandler(options: McpHttpOptions): McpHttpHandler;
  /** Listen on TCP (token required) or a 0600 unix socket and serve the gated endpoint. */
  listen(options: McpListenOptions): Promise<HttpServing>;
  /** Abort running calls, end every connection and listener, and end the agent's conversations. */
  close(reason?: string): Promise<void>;
}

function backendOf(options: McpServerOptions): { backend: ServeBackend; owned?: AgentBackend } {
  switch (options.expose) {
    case 'tools': {
      const source = options.session;
      const coordinator = 'coordinator' in source ? source.coordinator : source;
      return { backend: new ToolsBackend(coordinator, options) };
    }
    case 'agent': {
      const agent = new AgentBackend(options);
      return { backend: agent, owned: agent };
    }
    case 'backend':
      return { backend: options.backend };
    default: {
      const given: unknown = (options as { expose?: unknown }).expose;
      throw new TypeError(
        `createMcpServer: expose must be 'tools', 'agent' or 'backend'; found ${JSON.stringify(given) ?? String(given)}`,
      );
    }
  }
}

/**
 * A server exposing a session's tools (`expose: 'tools'`), the agent
 * (`expose: 'agent'`) or an app's own backend.
 *
 * @example
 * const mcp = createMcpServer({ expose: 'tools', session });
 * await mcp.serveStdio();                       // an MCP host started this process
 * const http = await mcp.listen({ token, port: 0 }); // or: Streamable HTTP on 127.0.0.1
 */
export function createMcpServer(options: McpServerOptions): McpServer {
  const { backend, owned } = backendOf(options);
  const stopping = new AbortController();
  const info = options.info;
  const closers = new Set<() => Promise<void>>();
  const track = (close: () => Promise<void>): (() => Promise<void>) => {
    const once = async (): Promise<void> => {
      closers.delete(once);
      await close();
    };
    closers.add(once);
    return once;
  };
  return {
    backend,
    signal: stopping.signal,
    async serveStdio(stdio = {}) {
      const server = createProtocolServer(backend, { principal: 'stdio', stopping: stopping.signal, info });
      const transport = new BoundedStdioTransport(stdio);
      const input = stdio.input ?? process.stdin;
      const ended = new Promise<void>((resolve) => {
        input.once('end', () => resolve());
        input.once('close', () => resolve());
      });
      await server.connect(transport);
      return { transport, ended, close: track(() => server.close()) };
    },
    httpHandler(http) {
      const handler = createHttpHandler(backend, { ...http, stopping: stopping.signal, info });
      track(() => handler.close());
      return handler;
    },
    async listen(http) {
      const serving = await listenHttp(backend, { ...http, stopping: stopping.signal, info });
      return { ...serving, close: track(() => serving.close()) };
    },
    async close(reason = 'the MCP server is closing') {
      if (!stopping.signal.aborted) stopping.abort(new Error(reason));
      await Promise.all([...closers].map((close) => close().catch(() => undefined)));
      await owned?.close();
    },
  };
}
