/**
 * The `web_search` tool over a pluggable backend: SearXNG's JSON API, Brave
 * Search, Tavily, or a custom JSON API (URL template + result path). No
 * backend configured, or a backend failure, is a clear error: never made-up
 * results. The backend URL comes from the operator's config, so it is not
 * subject to the SSRF guard (a local SearXNG on 127.0.0.1 is the common case).
 */
import { STATUS_CODES } from 'node:http';
import { TextDecoder } from 'node:util';
import type { JSONSchema, ResourceKey, Tool, ToolCallOptions, ToolResult } from '@amplifier/core';
import { errorMessage, sleep } from '@amplifier/core';
import type { Dispatcher } from 'undici';
import { callSignal, readBody } from './body.js';
import type { ResolvedConfig, SearchEngine } from './config.js';

/** One search result, as the model sees it. */
export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

/** A request to the backend and how to read its answer. */
interface BackendCall {
  url: URL;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** The list of results in the parsed JSON. */
  results(json: unknown): unknown;
  fields: { title: string[]; url: string[]; snippet: string[] };
}

const DEFAULT_URLS: Partial<Record<SearchEngine, string>> = {
  brave: 'https://api.search.brave.com/res/v1/web/search',
  tavily: 'https://api.tavily.com/search',
};
const KEY_ENV: Partial<Record<SearchEngine, string>> = { brave: 'BRAVE_API_KEY', tavily: 'TAVILY_API_KEY' };
const RETRIES = 2;
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

function at(value: unknown, dotPath: string): unknown {
  let current = value;
  for (const part of dotPath.split('.').filter((p) => p !== '')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** Strip HTML tags and the common entities some backends put in snippets. */
function plain(text: string): string {
  return text
    .replace(/<[^>]{0,200}>/g, '')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .trim();
}

function apiKey(config: ResolvedConfig, engine: SearchEngine): string | undefined {
  const raw = config.raw;
  if (raw.api_key) return raw.api_key;
  const env = raw.api_key_env ?? KEY_ENV[engine];
  return env ? process.env[env] || undefined : undefined;
}

/** Build the backend call, or return an error message (no backend, no key, bad URL). */
export function backendCall(config: ResolvedConfig, query: string, count: number): BackendCall | string {
  const raw = config.raw;
  const engine = raw.search_engine;
  if (engine === undefined || engine === 'mock') {
    return "No search backend configured: set search_engine (searxng, brave, tavily or custom) and search_url/api_key in the tool-web config, or, with the amplifier CLI's built-in plan, one of the environment variables BRAVE_API_KEY, TAVILY_API_KEY or SEARXNG_URL";
  }
  const key = apiKey(config, engine);
  const needsKey = engine === 'brave' || engine === 'tavily';
  if (needsKey && key === undefined) {
    return `No API key for the ${engine} search backend: set api_key in the tool-web config or the ${raw.api_key_env ?? KEY_ENV[engine]} environment variable`;
  }
  const base = raw.search_url ?? DEFAULT_URLS[engine];
  if (base === undefined) return `search_url is required for the ${engine} search backend`;
  const defaults = {
    title: ['title'],
    url: ['url', 'link', 'href'],
    snippet: ['snippet', 'content', 'description', 'body'],
  };
  try {
    switch (engine) {
      case 'searxng': {
        const url = new URL(base);
        if (!url.pathname.endsWith('/search')) url.pathname = `${url.pathname.replace(/\/$/, '')}/search`;
        url.searchParams.set('q', query);
        url.searchParams.set('format', 'json');
        return { url, method: 'GET', headers: {}, results: (j) => at(j, 'results'), fields: defaults };
      }
      case 'brave': {
        const url = new URL(base);
        url.searchParams.set('q', query);
        url.searchParams.set('count', String(count));
        return {
          url,
          method: 'GET',
          headers: { 'x-subscription-token': key!, accept: 'application/json' },
          results: (j) => at(j, 'web.results'),
          fields: defaults,
        };
      }
      case 'tavily':
        return {
          url: new URL(base),
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query, max_results: count }),
          results: (j) => at(j, 'results'),
          fields: defaults,
        };
      case 'custom': {
        const fill = (s: string, encode: boolean): string =>
          s.replace(/\{(query|max_results|api_key)\}/g, (_m, name: string) => {
            const value = name === 'query' ? query : name === 'max_results' ? String(count) : (key ?? '');
            return encode ? encodeURIComponent(value) : value;
          });
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(raw.search_headers ?? {}))
          headers[name] = fill(value, false);
        const f = raw.search_fields ?? {};
        return {
          url: new URL(fill(base, true)),
          method: 'GET',
          headers,
          results: (j) => at(j, raw.search_results_path ?? 'results'),
          fields: {
            title: f.title ? [f.title] : defaults.title,
            url: f.url ? [f.url] : defaults.url,
            snippet: f.snippet ? [f.snippet] : defaults.snippet,
          },
        };
      }
    }
  } catch {
    return `search_url is not a valid URL for the ${engine} search backend: ${base}`;
  }
}

function pick(item: Record<string, unknown>, names: readonly string[]): string {
  for (const name of names) {
    const value = at(item, name);
    if (typeof value === 'string' && value !== '') return value;
  }
  return '';
}

/** Seconds of a Retry-After header (a number or an HTTP date), if any. */
function retryAfterMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

class BackendError extends Error {}

async function callBackend(
  dispatcher: Dispatcher,
  call: BackendCall,
  config: ResolvedConfig,
  signal: AbortSignal,
  deadlineAt: number,
): Promise<unknown> {
  const engine = config.raw.search_engine;
  for (let attempt = 0; ; attempt++) {
    const res = await dispatcher.request({
      origin: call.url.origin,
      path: `${call.url.pathname}${call.url.search}`,
      method: call.method,
      headers: { 'user-agent': config.userAgent, accept: 'application/json', ...call.headers },
      ...(call.body === undefined ? {} : { body: call.body }),
      signal,
    });
    if (res.statusCode === 429 || res.statusCode >= 500) {
      await res.body.dump({ limit: 65_536, signal }).catch(() => {});
      const header = res.headers['retry-after'];
      const asked = retryAfterMs(Array.isArray(header) ? header[0] : header);
      const delay = asked ?? 250 * 2 ** attempt;
      const status = `HTTP ${res.statusCode}: ${STATUS_CODES[res.statusCode] ?? 'Unknown'}`;
      if (attempt >= RETRIES) throw new BackendError(`${status} (after ${attempt + 1} attempts)`);
      if (Date.now() + delay >= deadlineAt) {
        throw new BackendError(
          `${status}${asked !== undefined ? `; it asks to retry after ${Math.ceil(asked / 1000)} s, past the deadline` : ''}`,
        );
      }
      await sleep(delay, signal);
      continue;
    }
    if (res.statusCode < 200 || res.statusCode > 299) {
      await res.body.dump({ limit: 65_536, signal }).catch(() => {});
      throw new BackendError(`HTTP ${res.statusCode}: ${STATUS_CODES[res.statusCode] ?? 'Unknown'}`);
    }
    const ce = res.headers['content-encoding'];
    const body = await readBody(res.body, {
      contentEncoding: Array.isArray(ce) ? ce[0] : ce,
      maxBytes: MAX_ANSWER_BYTES,
      maxWireBytes: MAX_ANSWER_BYTES,
      decoderFor: () => new TextDecoder('utf-8'),
      signal,
    });
    if (body.capped) throw new BackendError(`the answer is larger than ${MAX_ANSWER_BYTES} bytes`);
    try {
      return JSON.parse(body.text);
    } catch {
      throw new BackendError(`the answer is not valid JSON (${engine} JSON API expected)`);
    }
  }
}

function fail(message: string, type?: string): ToolResult {
  return { success: false, output: message, error: type ? { message, type } : { message } };
}

/** What web_search needs from its mount. */
export interface SearchContext {
  config: ResolvedConfig;
  /** The dispatcher for the backend (created on first use, closed with the mount). */
  dispatcher(): Dispatcher;
  isClosed(): boolean;
}

/** JSON Schema of web_search's input. */
export const WEB_SEARCH_SCHEMA: JSONSchema = {
  type: 'object',
  properties: { query: { type: 'string', description: 'What to search the web for' } },
  required: ['query'],
};

/** The web_search tool of a mount. */
export function createWebSearchTool(ctx: SearchContext): Tool {
  const maxResults = ctx.config.raw.max_results ?? 5;
  return {
    name: 'web_search',
    description: `Search the web and return up to ${maxResults} results (title, url, snippet). Use web_fetch to read a result.`,
    inputSchema: WEB_SEARCH_SCHEMA,
    executionProfile: {
      resourceKeys(): ResourceKey[] {
        const url = ctx.config.raw.search_url ?? DEFAULT_URLS[ctx.config.raw.search_engine as SearchEngine];
        try {
          return url ? [{ key: `net:${new URL(url).hostname.toLowerCase()}`, mode: 'read' }] : [];
        } catch {
          return [];
        }
      },
    },
    async execute(input: Record<string, unknown>, options: ToolCallOptions = {}): Promise<ToolResult> {
      const query = typeof input?.query === 'string' ? input.query.trim() : '';
      if (query === '') return fail('Query is required');
      const call = backendCall(ctx.config, query, maxResults);
      if (typeof call === 'string') return fail(call, 'configuration');
      if (ctx.isClosed()) return fail('web_search is not available: the tool-web module was cleaned up');
      const engine = ctx.config.raw.search_engine;
      const deadline = callSignal(ctx.config.timeoutMs, options.signal);
      const signal = deadline.signal;
      try {
        const json = await callBackend(
          ctx.dispatcher(),
          call,
          ctx.config,
          signal,
          Date.now() + ctx.config.timeoutMs,
        );
        const list = call.results(json);
        if (!Array.isArray(list)) throw new BackendError('the answer has no result list');
        const results: SearchResult[] = [];
        for (const item of list) {
          if (results.length >= maxResults) break;
          if (item === null || typeof item !== 'object') continue;
          const record = item as Record<string, unknown>;
          const url = pick(record, call.fields.url);
          if (url === '') continue;
          results.push({
            title: plain(pick(record, call.fields.title)),
            url,
            snippet: plain(pick(record, call.fields.snippet)),
          });
        }
        return { success: true, output: { query, results, count: results.length, engine } };
      } catch (error) {
        if (options.signal?.aborted) return fail(`Cancelled searching for "${query}"`, 'cancelled');
        if (deadline.timedOut()) {
          return fail(
            `Search backend ${engine} did not answer within ${ctx.config.timeoutMs / 1000} s`,
            'timeout',
          );
        }
        return fail(`Search backend ${engine} failed: ${errorMessage(error)}`);
      } finally {
        deadline.dispose();
      }
    },
  };
}
