import type http from 'node:http';
import type { ToolResult } from '@amplifier/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { httpServer, type TestServer } from './__fixtures__/servers.js';
import { createWebTools, type WebTools } from './index.js';

interface Seen {
  method: string;
  url: URL;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const seen: Seen[] = [];
let backend: TestServer;
let attempts = 0;

const many = (n: number, make: (i: number) => Record<string, unknown>) =>
  Array.from({ length: n }, (_, i) => make(i));

function json(
  res: http.ServerResponse,
  value: unknown,
  status = 200,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
}

function route(req: http.IncomingMessage, res: http.ServerResponse, body: string): unknown {
  const url = new URL(req.url ?? '/', backend.origin);
  seen.push({ method: req.method ?? '', url, headers: req.headers, body });
  switch (url.pathname) {
    case '/searxng/search':
      return json(res, {
        query: url.searchParams.get('q'),
        results: many(8, (i) => ({
          title: `Sx ${i}`,
          url: `https://sx.example/${i}`,
          content: `sx snippet ${i}`,
        })),
      });
    case '/res/v1/web/search':
      return json(res, {
        web: {
          results: many(8, (i) => ({
            title: `Brave &amp; ${i}`,
            url: `https://brave.example/${i}`,
            description: `<strong>bold</strong> part ${i}`,
          })),
        },
      });
    case '/tavily/search':
      return json(res, {
        results: many(8, (i) => ({ title: `Tv ${i}`, url: `https://tv.example/${i}`, content: `tv ${i}` })),
      });
    case '/custom':
      return json(res, {
        data: {
          items: many(4, (i) => ({ name: `C ${i}`, link: `https://c.example/${i}`, summary: `c ${i}` })),
        },
      });
    case '/flaky/search':
      attempts++;
      if (attempts === 1) return json(res, { error: 'slow down' }, 429, { 'retry-after': '0' });
      if (attempts === 2) return json(res, { error: 'oops' }, 500);
      return json(res, { results: [{ title: 'T', url: 'https://ok.example/', content: 'recovered' }] });
    case '/limited/search':
      return json(res, { error: 'slow down' }, 429, { 'retry-after': '3600' });
    case '/broken/search':
      return json(res, { error: 'down' }, 503);
    case '/malformed/search':
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end('{"results": [ {"title": ');
    case '/unauthorized/search':
      return json(res, { error: 'bad key' }, 401);
    case '/hang/search':
      return; // never answers
    default:
      return json(res, { error: 'unknown route' }, 404);
  }
}

const open: WebTools[] = [];
function search(config: Record<string, unknown>): WebTools['webSearch'] {
  const tools = createWebTools({ timeout: 10, ...config });
  open.push(tools);
  return tools.webSearch;
}
function ok(result: ToolResult): {
  query: string;
  results: { title: string; url: string; snippet: string }[];
  count: number;
} {
  if (!result.success) throw new Error(`expected success, got: ${result.error?.message}`);
  return result.output as never;
}
function error(result: ToolResult): string {
  expect(result.success).toBe(false);
  expect(result.output).toBe(result.error?.message);
  return result.error!.message;
}

beforeAll(async () => {
  backend = await httpServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => route(req, res, body));
  });
});
afterEach(async () => {
  seen.length = 0;
  attempts = 0;
  await Promise.all(open.splice(0).map((t) => t.close()));
});
afterAll(() => backend.close());

describe('web_search', () => {
  it('checklist item 9: no query fails with "Query is required"; a success returns {query, results[{title,url,snippet}], count <= max_results}', async () => {
    const tool = search({
      search_engine: 'searxng',
      search_url: `${backend.origin}/searxng`,
      max_results: 3,
    });
    expect(error(await tool.execute({}))).toBe('Query is required');
    expect(error(await tool.execute({ query: '   ' }))).toBe('Query is required');
    const out = ok(await tool.execute({ query: 'amplifier kernel' }));
    expect(out.query).toBe('amplifier kernel');
    expect(out.count).toBe(3);
    expect(out.results).toEqual([
      { title: 'Sx 0', url: 'https://sx.example/0', snippet: 'sx snippet 0' },
      { title: 'Sx 1', url: 'https://sx.example/1', snippet: 'sx snippet 1' },
      { title: 'Sx 2', url: 'https://sx.example/2', snippet: 'sx snippet 2' },
    ]);
    expect(seen[0]?.url.searchParams.get('q')).toBe('amplifier kernel');
    expect(seen[0]?.url.searchParams.get('format')).toBe('json');
  });

  it('no backend configured (or the reference default "mock") is a clear error, never fake results', async () => {
    for (const config of [{}, { search_engine: 'mock' }]) {
      const result = await search(config).execute({ query: 'x' });
      expect(error(result)).toMatch(/^No search backend configured: set search_engine/);
      // The CLI README's environment variables are named too.
      expect(error(result)).toContain('BRAVE_API_KEY, TAVILY_API_KEY or SEARXNG_URL');
      expect(result.error?.type).toBe('configuration');
    }
    expect(seen).toEqual([]);
  });

  it('brave: the key comes from config or BRAVE_API_KEY, count is max_results, HTML is stripped from snippets', async () => {
    const url = `${backend.origin}/res/v1/web/search`;
    const saved = process.env.BRAVE_API_KEY;
    delete process.env.BRAVE_API_KEY;
    try {
      expect(
        error(await search({ search_engine: 'brave', search_url: url }).execute({ query: 'q' })),
      ).toMatch(
        /No API key for the brave search backend: set api_key in the tool-web config or the BRAVE_API_KEY environment variable/,
      );
      process.env.BRAVE_API_KEY = 'env-key';
      const out = ok(
        await search({ search_engine: 'brave', search_url: url, max_results: 2 }).execute({ query: 'q' }),
      );
      expect(out.results[0]).toEqual({
        title: 'Brave & 0',
        url: 'https://brave.example/0',
        snippet: 'bold part 0',
      });
      expect(out.count).toBe(2);
      expect(seen[0]?.headers['x-subscription-token']).toBe('env-key');
      expect(seen[0]?.url.searchParams.get('count')).toBe('2');
      ok(
        await search({ search_engine: 'brave', search_url: url, api_key: 'cfg-key' }).execute({ query: 'q' }),
      );
      expect(seen[1]?.headers['x-subscription-token']).toBe('cfg-key');
    } finally {
      if (saved === undefined) delete process.env.BRAVE_API_KEY;
      else process.env.BRAVE_API_KEY = saved;
    }
  });

  it('tavily: POSTs the query with a bearer key', async () => {
    const out = ok(
      await search({
        search_engine: 'tavily',
        search_url: `${backend.origin}/tavily/search`,
        api_key: 'tv-key',
      }).execute({
        query: 'what is amplifier',
      }),
    );
    expect(out.count).toBe(5);
    expect(out.results[4]).toEqual({ title: 'Tv 4', url: 'https://tv.example/4', snippet: 'tv 4' });
    expect(seen[0]?.method).toBe('POST');
    expect(seen[0]?.headers.authorization).toBe('Bearer tv-key');
    expect(JSON.parse(seen[0]!.body)).toEqual({ query: 'what is amplifier', max_results: 5 });
  });

  it('custom: URL template, headers with the key, result path and field names', async () => {
    const tool = search({
      search_engine: 'custom',
      search_url: `${backend.origin}/custom?term={query}&n={max_results}`,
      api_key_env: 'TOOL_WEB_TEST_KEY',
      search_headers: { 'x-key': '{api_key}' },
      search_results_path: 'data.items',
      search_fields: { title: 'name', url: 'link', snippet: 'summary' },
    });
    process.env.TOOL_WEB_TEST_KEY = 'custom-key';
    try {
      const out = ok(await tool.execute({ query: 'a&b c' }));
      expect(out.results).toHaveLength(4);
      expect(out.results[1]).toEqual({ title: 'C 1', url: 'https://c.example/1', snippet: 'c 1' });
      expect(seen[0]?.url.searchParams.get('term')).toBe('a&b c');
      expect(seen[0]?.url.searchParams.get('n')).toBe('5');
      expect(seen[0]?.headers['x-key']).toBe('custom-key');
    } finally {
      delete process.env.TOOL_WEB_TEST_KEY;
    }
  });

  it('the operator-configured backend on 127.0.0.1 is not subject to the SSRF guard (documented decision)', async () => {
    const tools = createWebTools({ search_engine: 'searxng', search_url: `${backend.origin}/searxng` });
    open.push(tools);
    expect(ok(await tools.webSearch.execute({ query: 'x' })).count).toBe(5);
    // ... while web_fetch of the same address stays blocked
    expect(error(await tools.webFetch.execute({ url: `${backend.origin}/searxng/search` }))).toMatch(
      /^Invalid or blocked URL/,
    );
    expect(tools.webSearch.executionProfile?.resourceKeys?.({ query: 'x' })).toEqual([
      { key: 'net:127.0.0.1', mode: 'read' },
    ]);
  });

  describe('backend faults (security WEB-18)', () => {
    const engine = (path: string, extra: Record<string, unknown> = {}) =>
      search({ search_engine: 'searxng', search_url: `${backend.origin}${path}`, ...extra });

    it('WEB-18: 429 with Retry-After then 500 are retried (bounded), then the answer is used', async () => {
      const out = ok(await engine('/flaky').execute({ query: 'x' }));
      expect(out.results[0]?.snippet).toBe('recovered');
      expect(attempts).toBe(3);
    });

    it('WEB-18: a Retry-After past the deadline fails at once with a clear error', async () => {
      expect(error(await engine('/limited').execute({ query: 'x' }))).toBe(
        'Search backend searxng failed: HTTP 429: Too Many Requests; it asks to retry after 3600 s, past the deadline',
      );
      expect(seen).toHaveLength(1);
    });

    it('WEB-18: a backend that keeps failing gives up after 3 attempts', async () => {
      expect(error(await engine('/broken').execute({ query: 'x' }))).toBe(
        'Search backend searxng failed: HTTP 503: Service Unavailable (after 3 attempts)',
      );
      expect(seen).toHaveLength(3);
    });

    it('WEB-18: malformed JSON and client errors are not retried', async () => {
      expect(error(await engine('/malformed').execute({ query: 'x' }))).toBe(
        'Search backend searxng failed: the answer is not valid JSON (searxng JSON API expected)',
      );
      expect(error(await engine('/unauthorized').execute({ query: 'x' }))).toBe(
        'Search backend searxng failed: HTTP 401: Unauthorized',
      );
      expect(seen).toHaveLength(2);
    });

    it('WEB-18: a backend that hangs ends at the deadline', async () => {
      const result = await engine('/hang', { timeout: 0.3 }).execute({ query: 'x' });
      expect(error(result)).toBe('Search backend searxng did not answer within 0.3 s');
      expect(result.error?.type).toBe('timeout');
    });

    it('signal aborts a search', async () => {
      const controller = new AbortController();
      const pending = engine('/hang').execute({ query: 'x' }, { signal: controller.signal });
      controller.abort();
      expect(error(await pending)).toBe('Cancelled searching for "x"');
    });
  });
});
