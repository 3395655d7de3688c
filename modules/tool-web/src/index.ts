/**
 * @amplifier/tool-web: `web_fetch` and `web_search` for Amplifier sessions.
 * `web_fetch` goes through an undici dispatcher whose connector refuses
 * private, loopback, link-local, metadata and other non-public addresses at
 * connect time, on every hop; limits stop reading; HTML becomes Markdown.
 * `web_search` asks a configured backend (SearXNG, Brave, Tavily, custom).
 */
import type { Cleanup, Coordinator, HookRegistry, Logger, Tool } from '@amplifier/core';
import { Agent } from 'undici';
import { resolveConfig } from './config.js';
import { createGuardedAgent, type LookupFunction } from './connector.js';
import { createWebFetchTool } from './fetch.js';
import { createWebSearchTool } from './search.js';

export type { SearchEngine, WebConfig } from './config.js';
export { CONFIG_SCHEMA } from './config.js';
export type { LookupAddress, LookupFunction } from './connector.js';
export { createGuardedAgent, createGuardedConnector, systemLookup } from './connector.js';
export { pageOf, WEB_FETCH_SCHEMA } from './fetch.js';
export { htmlToMarkdown, htmlToText } from './html.js';
export { MAX_DEPTH, prepareHtml } from './prepare.js';
export type { SearchResult } from './search.js';
export { WEB_SEARCH_SCHEMA } from './search.js';
export type { NetworkPolicy } from './ssrf.js';
export { addressRefusal, BlockedError, checkUrl, createPolicy, WEB_ERRORS } from './ssrf.js';

/** Options of `createWebTools` that are not JSON config. */
export interface WebToolsOptions {
  /** The resolver of the SSRF guard (default: the system's, every address). */
  lookup?: LookupFunction;
  /** Where `artifact:write` is emitted after a save. */
  hooks?: HookRegistry;
  /** Fallback working directory when the config has none (default: the process cwd). */
  workingDir?: string;
  /** Where config warnings go (unknown keys, once each); `mount` passes the coordinator's logger. */
  logger?: Pick<Logger, 'warn'>;
}

/** The tools of one mount and the function that closes their HTTP clients. */
export interface WebTools {
  webFetch: Tool;
  webSearch: Tool;
  /** Close the dispatchers (idempotent); the tools then return an error. */
  close(): Promise<void>;
}

/**
 * Build both tools over one guarded dispatcher (and, when a search backend is
 * configured, one plain dispatcher for it). Throws an AmplifierError for bad config.
 */
export function createWebTools(
  config: Record<string, unknown> = {},
  options: WebToolsOptions = {},
): WebTools {
  const resolved = resolveConfig(config, options.logger);
  const { raw, policy } = resolved;
  const workingDir = raw.working_dir ?? options.workingDir ?? process.cwd();
  const dispatcher = createGuardedAgent({
    policy,
    ...(options.lookup ? { lookup: options.lookup } : {}),
    connectTimeoutMs: resolved.timeoutMs,
    maxHeaderBytes: resolved.maxHeaderBytes,
    headersTimeoutMs: resolved.timeoutMs,
    bodyTimeoutMs: resolved.timeoutMs,
  });
  let searchDispatcher: Agent | undefined;
  let closed = false;
  const isClosed = (): boolean => closed;
  const webFetch = createWebFetchTool({
    config: resolved,
    policy,
    dispatcher,
    writePolicy: {
      workingDir,
      allowed: raw.allowed_write_paths ?? [workingDir],
      denied: raw.denied_write_paths ?? [],
    },
    ...(options.hooks ? { hooks: options.hooks } : {}),
    isClosed,
  });
  const webSearch = createWebSearchTool({
    config: resolved,
    dispatcher() {
      searchDispatcher ??= new Agent({
        maxHeaderSize: resolved.maxHeaderBytes,
        headersTimeout: resolved.timeoutMs,
        bodyTimeout: resolved.timeoutMs,
        connect: { timeout: resolved.timeoutMs },
      });
      return searchDispatcher;
    },
    isClosed,
  });
  return {
    webFetch,
    webSearch,
    async close() {
      if (closed) return;
      closed = true;
      // destroy, not close: an in-flight slow response must not hold the cleanup.
      await Promise.all([dispatcher.destroy(), searchDispatcher?.destroy()]);
    },
  };
}

/**
 * Mount `web_fetch` and `web_search`. Relative `save_to_file` paths resolve
 * against `working_dir`, else the `session.working_dir` capability. Returns the
 * cleanup that closes the module's HTTP clients.
 */
export async function mount(
  coordinator: Coordinator,
  config: Record<string, unknown> = {},
): Promise<Cleanup> {
  const workingDir = coordinator.getCapability<string>('session.working_dir');
  const tools = createWebTools(config, {
    hooks: coordinator.hooks,
    logger: coordinator.logger,
    ...(typeof workingDir === 'string' ? { workingDir } : {}),
  });
  coordinator.mount('tools', tools.webFetch, { name: tools.webFetch.name });
  coordinator.mount('tools', tools.webSearch, { name: tools.webSearch.name });
  return () => tools.close();
}
