import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { AmplifierError, type ToolResult } from '@amplifier/core';
import { createTestCoordinator, EventRecorder, RecordingLogger, skipUnless } from '@amplifier/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  httpServer,
  internalServer,
  rawServer,
  type TestServer,
  writeBytes,
} from './__fixtures__/servers.js';
import { pageOf } from './fetch.js';
import { createWebTools, mount, type WebTools } from './index.js';

const MiB = 1024 * 1024;
const HTML_PAGE = `<!doctype html><html><head><title>Test page</title><style>body{color:red}</style>
<script>var secret = "SCRIPT-CONTENT";</script></head><body><nav>Menu Home About</nav>
<h1>Hello   world</h1><p>First    paragraph with <a href="/next">a link</a>.</p>
<ul><li>alpha</li><li>beta</li></ul><footer>Footer text</footer></body></html>`;
const LONG_HTML = `<html><body><h1>Long</h1>${'<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>'.repeat(100)}</body></html>`;
const DIGITS = '0123456789'.repeat(50_000); // 500,000 characters
const TEXT_300K = 'x'.repeat(300 * 1024);
const BOMB_TEXT = Buffer.alloc(50 * MiB, 'a');
const SJIS_NIHONGO = Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea]); // 日本語 in Shift_JIS

let gzipBomb: Buffer;
let brotliBomb: Buffer;
let deflateBomb: Buffer;
let pub: TestServer;
let internal2: TestServer; // 127.0.0.2, same port as pub (for rebinding)
let internal6: TestServer; // [::1]
let internalLo: TestServer; // 127.0.0.1 on a port that is not allowlisted
let wildcard: TestServer; // 0.0.0.0
const intervals = new Set<NodeJS.Timeout>();
let onRequest: ((req: http.IncomingMessage) => void) | undefined;
let bigSent: Promise<number> | undefined;

function drip(res: http.ServerResponse, text: string, everyMs: number): void {
  const timer = setInterval(() => res.write(text), everyMs);
  intervals.add(timer);
  res.on('close', () => {
    clearInterval(timer);
    intervals.delete(timer);
  });
}

function route(req: http.IncomingMessage, res: http.ServerResponse): unknown {
  onRequest?.(req);
  const url = new URL(req.url ?? '/', 'http://x');
  const send = (type: string, body: string | Buffer, headers: Record<string, string> = {}): void => {
    res.writeHead(200, { 'content-type': type, ...headers });
    res.end(body);
  };
  switch (url.pathname) {
    case '/page.html':
      return send('text/html; charset=utf-8', HTML_PAGE);
    case '/long.html':
      return send('text/html', LONG_HTML);
    case '/digits':
      return send('text/plain', DIGITS);
    case '/300k':
      return send('text/plain', TEXT_300K);
    case '/json':
      return send('application/json', '{"a":1,"b":[true,null]}');
    case '/missing':
      res.writeHead(404);
      return void res.end('not here');
    case '/redir': {
      res.writeHead(302, { location: url.searchParams.get('to') ?? '/' });
      return void res.end();
    }
    case '/chain': {
      const n = Number(url.searchParams.get('n'));
      if (n <= 0) return send('text/plain', 'chain end');
      res.writeHead(301, { location: `/chain?n=${n - 1}` });
      return void res.end();
    }
    case '/gzip-bomb':
      return send('text/plain', gzipBomb, { 'content-encoding': 'gzip' });
    case '/br-bomb':
      return send('text/plain', brotliBomb, { 'content-encoding': 'br' });
    case '/deflate-bomb':
      return send('text/plain', deflateBomb, { 'content-encoding': 'deflate' });
    case '/big-cl':
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(50 * MiB) });
      bigSent = writeBytes(res, 50 * MiB);
      return;
    case '/big-chunked':
      res.writeHead(200, { 'content-type': 'text/plain' });
      bigSent = writeBytes(res, 50 * MiB);
      return;
    case '/endless':
      res.writeHead(200, { 'content-type': 'text/plain' });
      bigSent = writeBytes(res, Number.MAX_SAFE_INTEGER);
      return;
    case '/drip':
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.flushHeaders();
      return drip(res, 'x', 20);
    case '/sse':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      return drip(res, 'data: tick\n\n', 20);
    case '/no-headers':
      return; // never answers
    case '/cp1252':
      return send(
        'text/plain; charset=windows-1252',
        Buffer.concat([Buffer.from([0x93]), Buffer.from('quoted'), Buffer.from([0x94, 0x20, 0x80])]),
      );
    case '/sjis-meta':
      return send(
        'text/html',
        Buffer.concat([
          Buffer.from('<html><head><meta charset="shift_jis"></head><body><p>'),
          SJIS_NIHONGO,
          Buffer.from('</p></body></html>'),
        ]),
      );
    case '/sjis-header':
      return send('text/plain; charset=Shift_JIS', SJIS_NIHONGO);
    case '/bad-charset':
      return send('text/plain; charset=bogus-42', Buffer.from([0x68, 0x69, 0xff]));
    case '/no-type':
      res.writeHead(200);
      return void res.end('plain words without a type');
    case '/html-binary':
      return send('text/html', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x01, 0x02, 0x03]));
    case '/png':
      return send('image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]));
    case '/octet':
      return send('application/octet-stream', Buffer.from([1, 2, 3, 0, 255]));
    case '/euro-split': {
      // '€' is 3 bytes in UTF-8: 1001-byte writes split sequences at every chunk boundary
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      const bytes = Buffer.from('€'.repeat(20_000));
      for (let at = 0; at < bytes.length; at += 1001) res.write(bytes.subarray(at, at + 1001));
      return void res.end();
    }
    case '/deep.html':
      return send(
        'text/html',
        `<html><body>${'<div>'.repeat(100_000)}deep text${'</div>'.repeat(100_000)}</body></html>`,
      );
    case '/meta-refresh':
      return send(
        'text/html',
        `<html><head><meta http-equiv="refresh" content="0;url=http://127.0.0.2:${internal2.port}/"></head><body><p>stay</p><script>fetch("http://127.0.0.2:${internal2.port}/")</script></body></html>`,
      );
    case '/compress':
      return send('text/plain', 'not really compressed', { 'content-encoding': 'compress' });
    case '/close':
      res.writeHead(200, { 'content-type': 'text/plain', connection: 'close' });
      return void res.end('PUBLIC');
    default:
      return send('text/plain', 'ok');
  }
}

const open: WebTools[] = [];
function tools(
  config: Record<string, unknown> = {},
  options: Parameters<typeof createWebTools>[1] = {},
): WebTools {
  const t = createWebTools({ allowed_hosts: [`127.0.0.1:${pub.port}`], timeout: 10, ...config }, options);
  open.push(t);
  return t;
}
function out(result: ToolResult): Record<string, unknown> {
  return result.output as Record<string, unknown>;
}
async function fetchOk(t: WebTools, input: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await t.webFetch.execute(input);
  if (!result.success) throw new Error(`expected success, got: ${result.error?.message}`);
  return out(result);
}
async function fetchError(t: WebTools, input: Record<string, unknown>): Promise<string> {
  const result = await t.webFetch.execute(input);
  expect(result.success).toBe(false);
  expect(result.output).toBe(result.error?.message);
  return result.error!.message;
}
function noInternalHits(): void {
  expect(internal2.hits).toEqual([]);
  expect(internal6.hits).toEqual([]);
  expect(internalLo.hits).toEqual([]);
  expect(wildcard.hits).toEqual([]);
}

beforeAll(async () => {
  gzipBomb = zlib.gzipSync(BOMB_TEXT);
  deflateBomb = zlib.deflateSync(BOMB_TEXT);
  brotliBomb = zlib.brotliCompressSync(BOMB_TEXT, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } });
  pub = await httpServer(route);
  internal2 = await internalServer('127.0.0.2', pub.port);
  internal6 = await internalServer('::1');
  internalLo = await internalServer('127.0.0.1');
  wildcard = await internalServer('0.0.0.0');
});
afterEach(async () => {
  onRequest = undefined;
  await Promise.all(open.splice(0).map((t) => t.close()));
});
afterAll(async () => {
  for (const timer of intervals) clearInterval(timer);
  await Promise.all([pub, internal2, internal6, internalLo, wildcard].map((s) => s?.close()));
});

describe('tool-web checklist (reference section 13)', () => {
  it('item 1: mount registers web_search and web_fetch and returns a cleanup that closes the HTTP session', async () => {
    const coordinator = createTestCoordinator({ bare: true });
    const cleanup = await mount(coordinator, { allowed_hosts: [`127.0.0.1:${pub.port}`] });
    expect([...coordinator.get('tools').keys()].sort()).toEqual(['web_fetch', 'web_search']);
    const webFetch = coordinator.get('tools', 'web_fetch')!;
    const before = pub.openConnections();
    const ok = await webFetch.execute({ url: `${pub.origin}/keepalive` });
    expect(ok.success).toBe(true);
    expect(pub.openConnections()).toBe(before + 1); // the keep-alive connection of the shared client
    const closed = pub.nextClose();
    await cleanup();
    await closed;
    expect(pub.openConnections()).toBe(before);
    const after = await webFetch.execute({ url: `${pub.origin}/keepalive` });
    expect(after.success).toBe(false);
    expect(after.error?.message).toMatch(/cleaned up/);
  });

  it('item 2: ftp://x, http://localhost:8080 and http://10.0.0.1 fail with "Invalid or blocked URL: <url>"', async () => {
    const t = tools();
    for (const url of ['ftp://x', 'http://localhost:8080', 'http://10.0.0.1']) {
      expect(await fetchError(t, { url })).toMatch(
        new RegExp(`^Invalid or blocked URL: ${url.replace(/[.]/g, '\\.')} \\(`),
      );
    }
  });

  it('item 3: with allowed_domains=["example.com"], https://other.org is blocked (no network needed)', async () => {
    const t = tools({ allowed_domains: ['example.com'] });
    expect(await fetchError(t, { url: 'https://other.org/' })).toMatch(
      /^Invalid or blocked URL: https:\/\/other\.org\/ \(other\.org is not in allowed_domains\)/,
    );
  });

  it('item 4: a 404 response fails with "HTTP 404: Not Found"', async () => {
    expect(await fetchError(tools(), { url: `${pub.origin}/missing` })).toBe('HTTP 404: Not Found');
  });

  it('item 5: an HTML page comes back without scripts and styles, whitespace collapsed, truncated: false', async () => {
    const t = tools();
    const md = await fetchOk(t, { url: `${pub.origin}/page.html` });
    expect(md.truncated).toBe(false);
    expect(md.title).toBe('Test page');
    expect(md.content).toBe(
      `# Hello world\n\nFirst paragraph with [a link](${pub.origin}/next).\n\n-   alpha\n-   beta`,
    );
    const text = await fetchOk(t, { url: `${pub.origin}/page.html`, format: 'text' });
    expect(text.content).toBe('Hello world\nFirst paragraph with a link.\nalpha\nbeta');
    expect(text.truncated).toBe(false);
    const html = await fetchOk(t, { url: `${pub.origin}/page.html`, format: 'html' });
    expect(html.content).toBe(HTML_PAGE);
  });

  it('item 6: a 300 KB body with the default limit is truncated at 204800 with the notice (characters now, not bytes)', async () => {
    const o = await fetchOk(tools(), { url: `${pub.origin}/300k` });
    expect(o.truncated).toBe(true);
    expect(o.returned_bytes).toBe(204_800);
    expect(o.returned_chars).toBe(204_800);
    expect(o.content).toMatch(
      /\n\n\[Content truncated at 204800 characters\. Total: unknown characters\. Use offset\/limit to paginate or save_to_file for full content\.\]$/,
    );
    expect((o.content as string).indexOf('\n')).toBe(204_800);
  });

  it('item 7: offset=1000, limit=10 returns characters 1000-1009 of the body', async () => {
    const o = await fetchOk(tools(), { url: `${pub.origin}/digits`, offset: 1000, limit: 10 });
    expect((o.content as string).slice(0, 10)).toBe(DIGITS.slice(1000, 1010));
    expect(o.offset).toBe(1000);
    expect(o.returned_chars).toBe(10);
    expect(o.truncated).toBe(true);
  });

  it('item 8: save_to_file "out.txt" writes the extracted text to working_dir/out.txt with saved_to, saved_bytes and a 1000-char preview', async () => {
    const wd = fs.mkdtempSync(path.join(os.tmpdir(), 'tool-web-save-'));
    try {
      const coordinator = createTestCoordinator({ bare: true });
      coordinator.registerCapability('session.working_dir', wd);
      const recorder = new EventRecorder();
      recorder.attach(coordinator.hooks, ['artifact:write']);
      const cleanup = await mount(coordinator, { allowed_hosts: [`127.0.0.1:${pub.port}`] });
      const result = await coordinator.get('tools', 'web_fetch')!.execute({
        url: `${pub.origin}/long.html`,
        save_to_file: 'out.txt',
      });
      await cleanup();
      expect(result.success).toBe(true);
      const o = out(result);
      const file = path.join(wd, 'out.txt');
      const saved = fs.readFileSync(file, 'utf8');
      expect(saved.startsWith('# Long\n\nLorem ipsum')).toBe(true);
      expect(o.saved_to).toBe(file);
      expect(o.saved_bytes).toBe(Buffer.byteLength(saved));
      expect(o.content).toBe(
        `${saved.slice(0, 1000)}\n\n[... ${saved.length - 1000} more characters saved to out.txt]`,
      );
      expect(recorder.getEvents('artifact:write')[0]?.[1]).toMatchObject({
        path: file,
        bytes: o.saved_bytes,
      });
      expect(fs.readdirSync(wd)).toEqual(['out.txt']); // no temp file left behind
    } finally {
      fs.rmSync(wd, { recursive: true, force: true });
    }
  });
});

describe('SSRF guard at connect time (security 5.3)', () => {
  it('WEB-02: loopback literals in every spelling are blocked before any connection', async () => {
    const t = tools();
    const urls = [
      `http://127.0.0.2:${internal2.port}/`,
      `http://2130706434:${internal2.port}/`,
      `http://0x7f000002:${internal2.port}/`,
      `http://0177.0.0.2:${internal2.port}/`,
      `http://0x7f.0.0.2:${internal2.port}/`,
      `http://①②⑦.0.0.2:${internal2.port}/`,
      `http://127.1:${internalLo.port}/`,
      `http://127.0.0.1:${internalLo.port}/`,
      `http://localhost:${internalLo.port}/`,
      `http://LOCALHOST.:${internalLo.port}/`,
      `http://localhost.localdomain:${internalLo.port}/`,
    ];
    for (const url of urls) expect(await fetchError(t, { url })).toMatch(/^Invalid or blocked URL: /);
    noInternalHits();
  });

  it('WEB-03: IPv6 spellings are blocked', async () => {
    const t = tools();
    const p = internal6.port;
    for (const host of [
      '[::1]',
      '[::ffff:127.0.0.2]',
      '[::ffff:7f00:2]',
      '[0:0:0:0:0:ffff:7f00:2]',
      '[::127.0.0.2]',
      '[::]',
      '[fe80::1%25lo]',
    ]) {
      expect(await fetchError(t, { url: `http://${host}:${p}/` })).toMatch(/^Invalid or blocked URL: /);
    }
    noInternalHits();
  });

  it('WEB-04: unspecified addresses are blocked', async () => {
    const t = tools();
    for (const host of ['0.0.0.0', '0', '[::]']) {
      expect(await fetchError(t, { url: `http://${host}:${wildcard.port}/` })).toMatch(/unspecified/);
    }
    noInternalHits();
  });

  it('redirect chains to private addresses are refused at the hop (10.0.0.1, 169.254.169.254, [::1], decimal/octal/hex/short 127.0.0.1)', async () => {
    const t = tools();
    const targets = [
      'http://10.0.0.1/',
      'http://169.254.169.254/latest/meta-data/',
      `http://[::1]:${internal6.port}/`,
      `http://127.0.0.2:${internal2.port}/secret`,
      `http://2130706433:${internalLo.port}/`,
      `http://0177.0.0.1:${internalLo.port}/`,
      `http://0x7f.1:${internalLo.port}/`,
      `http://127.1:${internalLo.port}/`,
      'file:///etc/passwd',
    ];
    for (const target of targets) {
      const url = `${pub.origin}/redir?to=${encodeURIComponent(target)}`;
      const message = await fetchError(t, { url });
      expect(message).toMatch(/^Invalid or blocked URL: /);
      expect(message).toContain(`(redirected from ${url}:`);
    }
    noInternalHits();
  });

  it('follows allowed redirects hop by hop up to max_redirects', async () => {
    const t = tools({ max_redirects: 3 });
    const o = await fetchOk(t, { url: `${pub.origin}/chain?n=3` });
    expect(o.content).toBe('chain end');
    expect(o.final_url).toBe(`${pub.origin}/chain?n=0`);
    expect(await fetchError(t, { url: `${pub.origin}/chain?n=4` })).toMatch(
      /Too many redirects \(more than max_redirects = 3\)/,
    );
  });

  describe('with a fake resolver', () => {
    // "Public" in these tests is 127.0.0.1 opted in with allowed_cidrs; 127.0.0.2 stays internal.
    const answers: Record<string, string[][]> = {};
    const calls: string[] = [];
    const lookup = async (host: string) => {
      calls.push(host);
      const queue = answers[host];
      if (!queue || queue.length === 0)
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      const list = queue.length > 1 ? queue.shift()! : queue[0]!;
      return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
    const dnsTools = (): WebTools =>
      tools({ allowed_hosts: [], allowed_cidrs: ['127.0.0.1/32'] }, { lookup });
    afterEach(() => {
      for (const key of Object.keys(answers)) delete answers[key];
      calls.length = 0;
    });

    it('resolves once per connection and connects to the checked address', async () => {
      answers['public.test'] = [['127.0.0.1']];
      const o = await fetchOk(dnsTools(), { url: `http://public.test:${pub.port}/close` });
      expect(o.content).toBe('PUBLIC');
      expect(calls).toEqual(['public.test']);
    });

    it('WEB-06: names resolving to private addresses, and answers mixing public and private, are blocked', async () => {
      answers['internal.test'] = [['127.0.0.2']];
      answers['multi.test'] = [['127.0.0.1', '127.0.0.2']];
      answers['multi6.test'] = [['127.0.0.1', '::1']];
      const t = dnsTools();
      expect(await fetchError(t, { url: `http://internal.test:${pub.port}/` })).toMatch(
        /^Invalid or blocked URL: .*internal\.test resolves to 127\.0\.0\.2 is a loopback address/,
      );
      expect(await fetchError(t, { url: `http://multi.test:${pub.port}/` })).toMatch(
        /mixes public and non-public/,
      );
      expect(await fetchError(t, { url: `http://multi6.test:${internal6.port}/` })).toMatch(
        /mixes public and non-public/,
      );
      noInternalHits();
      expect(pub.hits.filter((h) => h === '/')).toEqual([]);
    });

    it('DNS rebinding between two connections cannot reach the internal address', async () => {
      // first connection: 127.0.0.1 (allowed); the next answer rebinds to 127.0.0.2 on the same port
      answers['rebind.test'] = [['127.0.0.1'], ['127.0.0.2']];
      const t = dnsTools();
      const first = await fetchOk(t, { url: `http://rebind.test:${pub.port}/close` });
      expect(first.content).toBe('PUBLIC');
      expect(await fetchError(t, { url: `http://rebind.test:${pub.port}/close` })).toMatch(/loopback/);
      expect(calls).toEqual(['rebind.test', 'rebind.test']); // one resolution per connection, checked and used
      noInternalHits();
    });

    it('a redirect to a name that resolves privately is refused at that hop', async () => {
      answers['public.test'] = [['127.0.0.1']];
      answers['internal.test'] = [['127.0.0.2']];
      const target = `http://internal.test:${internal2.port}/secret`;
      const message = await fetchError(dnsTools(), {
        url: `http://public.test:${pub.port}/redir?to=${encodeURIComponent(target)}`,
      });
      expect(message).toMatch(
        new RegExp(`^Invalid or blocked URL: ${target.replace(/[.?]/g, '\\$&')} \\(redirected from`),
      );
      noInternalHits();
    });

    it('WEB-17: the decision is made on the parsed URL that is requested (fragment with @)', async () => {
      answers['evil.test'] = [['127.0.0.2']];
      const message = await fetchError(dnsTools(), {
        url: `http://evil.test:${internal2.port}#@127.0.0.1:${pub.port}/`,
      });
      expect(message).toMatch(/evil\.test resolves to 127\.0\.0\.2/);
      noInternalHits();
    });
  });
});

describe('limits that stop reading', () => {
  it.each([
    ['gzip', '/gzip-bomb'],
    ['brotli', '/br-bomb'],
    ['deflate', '/deflate-bomb'],
  ])('a %s bomb (50 MiB decoded) stops at max_bytes', async (_name, route) => {
    const o = await fetchOk(tools({ max_bytes: MiB }), { url: `${pub.origin}${route}`, limit: 2 * MiB });
    const content = o.content as string;
    const notice = content.indexOf(
      '\n\n[Content truncated: the body is larger than max_bytes (1048576 bytes)',
    );
    expect(notice).toBe(MiB);
    expect(/^a+$/.test(content.slice(0, notice))).toBe(true);
    expect(o.truncated).toBe(true);
    expect(o.total_bytes).toBeNull();
  });

  it.each([
    ['50 MiB with Content-Length', '/big-cl'],
    ['50 MiB chunked', '/big-chunked'],
    ['an endless chunked stream', '/endless'],
  ])('WEB-10: %s is cut at max_bytes and the connection is aborted', async (_name, route) => {
    bigSent = undefined;
    const o = await fetchOk(tools({ max_bytes: MiB }), { url: `${pub.origin}${route}`, limit: 2 * MiB });
    expect(o.truncated).toBe(true);
    expect((o.content as string).indexOf('\n\n[Content truncated')).toBe(MiB);
    const sent = await bigSent!;
    expect(sent).toBeLessThan(50 * MiB); // the server saw the client hang up long before the end
  });

  it('plain text stops reading once the requested page is complete', async () => {
    bigSent = undefined;
    const o = await fetchOk(tools(), { url: `${pub.origin}/endless`, limit: 1000 });
    expect(o.returned_chars).toBe(1000);
    expect(o.total_chars).toBeNull();
    expect(await bigSent!).toBeLessThan(50 * MiB);
  });

  it('WEB-13: a slow-drip body cannot hold the call past the deadline', async () => {
    const closed = pub.nextClose();
    const message = await fetchError(tools({ timeout: 0.3 }), { url: `${pub.origin}/drip` });
    expect(message).toMatch(
      /^Timeout fetching http:\/\/127\.0\.0\.1:\d+\/drip \(no complete answer within 0\.3 s\)$/,
    );
    await closed; // the connection was closed, not left dripping
  });

  it('WEB-13: headers never sent, an endless event stream, and headers trickled byte by byte all end at the deadline', async () => {
    const t = tools({ timeout: 0.3 });
    expect(await fetchError(t, { url: `${pub.origin}/no-headers` })).toMatch(/^Timeout fetching/);
    expect(await fetchError(t, { url: `${pub.origin}/sse` })).toMatch(/^Timeout fetching/);
    const trickle = await rawServer((socket) => {
      const head = Buffer.from(
        'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
      );
      let at = 0;
      const timer = setInterval(() => {
        if (at < head.length) socket.write(head.subarray(at, ++at));
      }, 20);
      socket.on('close', () => clearInterval(timer));
    });
    try {
      const t2 = tools({ timeout: 0.3, allowed_hosts: [`127.0.0.1:${trickle.port}`] });
      expect(await fetchError(t2, { url: `${trickle.origin}/` })).toMatch(/^Timeout fetching/);
    } finally {
      await trickle.close();
    }
  });

  it('signal aborts the request', async () => {
    const controller = new AbortController();
    onRequest = (req) => {
      if (req.url === '/drip') setImmediate(() => controller.abort());
    };
    const result = await tools().webFetch.execute(
      { url: `${pub.origin}/drip` },
      { signal: controller.signal },
    );
    expect(result.success).toBe(false);
    expect(result.error).toMatchObject({
      type: 'cancelled',
      message: `Cancelled fetching ${pub.origin}/drip`,
    });
  });

  it('WEB-12: lying framing and oversized heads give clean errors', async () => {
    const servers = {
      shortLength: await rawServer((s) =>
        s.end(
          `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n\r\n${'b'.repeat(100_000)}`,
        ),
      ),
      longLength: await rawServer((s) =>
        s.end('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 10000000\r\n\r\nonly ten!!'),
      ),
      garbage: await rawServer((s) => s.end('SMTP READY\r\n\r\n')),
      bigHeader: await rawServer((s) =>
        s.end(`HTTP/1.1 200 OK\r\nX-Big: ${'h'.repeat(64 * 1024)}\r\nContent-Length: 2\r\n\r\nok`),
      ),
      manyHeaders: await rawServer((s) =>
        s.end(
          `HTTP/1.1 200 OK\r\n${Array.from({ length: 5000 }, (_, i) => `X-H${i}: v`).join('\r\n')}\r\nContent-Length: 2\r\n\r\nok`,
        ),
      ),
      reset: await rawServer((s) => {
        s.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\npartial');
        setImmediate(() => s.resetAndDestroy());
      }),
    };
    try {
      const t = tools({ allowed_hosts: Object.values(servers).map((s) => `127.0.0.1:${s.port}`) });
      const short = await fetchOk(t, { url: `${servers.shortLength.origin}/` });
      expect(short.content).toBe('b'.repeat(10));
      expect(await fetchError(t, { url: `${servers.longLength.origin}/` })).toMatch(
        /^Failed to fetch .*\(UND_ERR_/,
      );
      expect(await fetchError(t, { url: `${servers.garbage.origin}/` })).toMatch(/^Failed to fetch /);
      expect(await fetchError(t, { url: `${servers.bigHeader.origin}/` })).toMatch(
        /exceed max_header_bytes \(32768\)/,
      );
      expect(await fetchError(t, { url: `${servers.manyHeaders.origin}/` })).toMatch(
        /exceed max_header_bytes/,
      );
      expect(await fetchError(t, { url: `${servers.reset.origin}/` })).toMatch(/^Failed to fetch /);
    } finally {
      await Promise.all(Object.values(servers).map((s) => s.close()));
    }
  });
});

describe('content handling', () => {
  it('decodes the charset of the Content-Type header (windows-1252, Shift_JIS)', async () => {
    const t = tools();
    expect((await fetchOk(t, { url: `${pub.origin}/cp1252` })).content).toBe('\u201cquoted\u201d \u20ac');
    expect((await fetchOk(t, { url: `${pub.origin}/sjis-header` })).content).toBe('日本語');
  });

  it('decodes the charset of an HTML <meta charset>', async () => {
    expect((await fetchOk(tools(), { url: `${pub.origin}/sjis-meta`, format: 'text' })).content).toBe(
      '日本語',
    );
  });

  it('WEB-15: an invalid charset label falls back to UTF-8 with replacement characters; no Content-Type is sniffed as text', async () => {
    const t = tools();
    expect((await fetchOk(t, { url: `${pub.origin}/bad-charset` })).content).toBe('hi\ufffd');
    expect((await fetchOk(t, { url: `${pub.origin}/no-type` })).content).toBe('plain words without a type');
  });

  it('WEB-15: binary types are refused with the content type named, never dumped', async () => {
    const t = tools();
    expect(await fetchError(t, { url: `${pub.origin}/png` })).toMatch(/binary content \(image\/png/);
    expect(await fetchError(t, { url: `${pub.origin}/octet` })).toMatch(/application\/octet-stream/);
    expect(await fetchError(t, { url: `${pub.origin}/html-binary` })).toMatch(
      /binary content; web_fetch returns text only/,
    );
  });

  it('an unsupported Content-Encoding is a clean error and frees the connection', async () => {
    const t = tools();
    expect(await fetchError(t, { url: `${pub.origin}/compress` })).toMatch(
      /Unsupported Content-Encoding: compress/,
    );
    expect((await fetchOk(t, { url: `${pub.origin}/json` })).status).toBe(200);
  });

  it('pretty-prints JSON', async () => {
    const o = await fetchOk(tools(), { url: `${pub.origin}/json` });
    expect(o.content).toBe('{\n  "a": 1,\n  "b": [\n    true,\n    null\n  ]\n}');
  });

  it('never splits a UTF-8 sequence across network chunks, nor a surrogate pair across pages', async () => {
    const o = await fetchOk(tools(), { url: `${pub.origin}/euro-split`, limit: 100_000 });
    expect(o.content).toBe('€'.repeat(20_000));
    const text = 'a😀b😀c';
    expect(pageOf(text, 0, 2)).toEqual({ start: 0, end: 1 });
    expect(pageOf(text, 2, 2)).toEqual({ start: 1, end: 4 });
    expect(pageOf('😀', 0, 1)).toEqual({ start: 0, end: 2 });
  });

  it('WEB-16: a page of 100k nested elements converts, meta refresh is not followed, scripts never run', async () => {
    const t = tools();
    expect((await fetchOk(t, { url: `${pub.origin}/deep.html` })).content).toBe('deep text');
    expect((await fetchOk(t, { url: `${pub.origin}/meta-refresh` })).content).toBe('stay');
    noInternalHits();
  });
});

describe('save_to_file policy', () => {
  let wd: string;
  let outside: string;
  beforeAll(() => {
    wd = fs.mkdtempSync(path.join(os.tmpdir(), 'tool-web-wd-'));
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'tool-web-out-'));
    fs.symlinkSync(outside, path.join(wd, 'link'));
    fs.symlinkSync(path.join(outside, 'new.txt'), path.join(wd, 'dangling'));
    fs.symlinkSync(path.join(wd, 'secret', 'new.txt'), path.join(wd, 'to-secret'));
    fs.mkdirSync(path.join(wd, 'secret'));
  });
  afterAll(() => {
    fs.rmSync(wd, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it('refuses paths outside the allowed write paths, through symlinks, and inside denied paths', async () => {
    const t = tools({ working_dir: wd, denied_write_paths: [path.join(wd, 'secret')] });
    const url = `${pub.origin}/page.html`;
    expect(await fetchError(t, { url, save_to_file: path.join(outside, 'x.txt') })).toBe(
      `Access denied: ${path.join(outside, 'x.txt')} is not within allowed write paths`,
    );
    expect(await fetchError(t, { url, save_to_file: '../escape.txt' })).toMatch(
      /is not within allowed write paths/,
    );
    expect(await fetchError(t, { url, save_to_file: 'link/x.txt' })).toBe(
      `Access denied: ${path.join(wd, 'link/x.txt')} is not within allowed write paths`,
    );
    expect(await fetchError(t, { url, save_to_file: 'secret/a.txt' })).toMatch(
      /is within denied directories$/,
    );
    // A symlink to a file that does not exist yet is checked where the write would create it.
    expect(await fetchError(t, { url, save_to_file: 'dangling' })).toBe(
      `Access denied: ${path.join(wd, 'dangling')} is not within allowed write paths`,
    );
    expect(await fetchError(t, { url, save_to_file: 'to-secret' })).toMatch(/is within denied directories$/);
    expect(await fetchError(t, { url, save_to_file: '.' })).toMatch(/^Cannot write to directory/);
    expect(fs.readdirSync(outside)).toEqual([]);
    expect(fs.readdirSync(path.join(wd, 'secret'))).toEqual([]);
  });

  it('streams text bodies larger than max_bytes to the file (up to max_save_bytes), creating parent directories', async () => {
    const t = tools({ working_dir: wd, max_bytes: 100_000 });
    const o = await fetchOk(t, { url: `${pub.origin}/digits`, save_to_file: 'deep/dir/digits.txt' });
    expect(fs.readFileSync(path.join(wd, 'deep/dir/digits.txt'), 'utf8')).toBe(DIGITS);
    expect(o.saved_bytes).toBe(DIGITS.length);
    expect(o.truncated).toBe(false);
    const capped = await fetchOk(tools({ working_dir: wd, max_save_bytes: 1000 }), {
      url: `${pub.origin}/digits`,
      save_to_file: 'capped.txt',
    });
    expect(capped.truncated).toBe(true);
    expect(fs.readFileSync(path.join(wd, 'capped.txt'), 'utf8')).toBe(DIGITS.slice(0, 1000));
  });
});

describe('TLS (security WEB-14)', () => {
  const noOpenssl = skipUnless(
    (() => {
      try {
        execFileSync('openssl', ['version'], { stdio: 'ignore' });
        return true;
      } catch {
        return false;
      }
    })(),
    'openssl on PATH',
  );

  it.skipIf(noOpenssl)(
    'WEB-14: a self-signed certificate, TLS to a plain-HTTP port and a stalled handshake fail clearly, with no insecure fallback',
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tool-web-tls-'));
      const key = path.join(dir, 'key.pem');
      const cert = path.join(dir, 'cert.pem');
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-subj',
          '/CN=localhost',
          '-days',
          '1',
          '-keyout',
          key,
          '-out',
          cert,
        ],
        { stdio: 'ignore' },
      );
      const server = https.createServer(
        { key: fs.readFileSync(key), cert: fs.readFileSync(cert) },
        (_req, res) => res.end('tls'),
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as { port: number }).port;
      try {
        const t = tools({ allowed_hosts: [`127.0.0.1:${port}`, `127.0.0.1:${pub.port}`] });
        expect(await fetchError(t, { url: `https://127.0.0.1:${port}/` })).toMatch(
          /self[- ]signed|certificate/i,
        );
        expect(await fetchError(t, { url: `https://127.0.0.1:${pub.port}/` })).toMatch(/^Failed to fetch /);
        // a server that accepts TCP but never completes the handshake ends at the deadline
        const silent = await rawServer(() => {});
        try {
          const quick = tools({ timeout: 0.3, allowed_hosts: [`127.0.0.1:${silent.port}`] });
          expect(await fetchError(quick, { url: `https://127.0.0.1:${silent.port}/` })).toMatch(
            /^Timeout fetching/,
          );
        } finally {
          await silent.close();
        }
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

describe('tool surface', () => {
  it('validates input without throwing', async () => {
    const t = tools();
    expect(await fetchError(t, {})).toBe('URL is required');
    expect(await fetchError(t, { url: '  ' })).toBe('URL is required');
    expect(await fetchError(t, { url: 'https://e.com', offset: -1 })).toMatch(/offset/);
    expect(await fetchError(t, { url: 'https://e.com', limit: 0 })).toMatch(/limit/);
    expect(await fetchError(t, { url: 'https://e.com', format: 'pdf' })).toMatch(/format/);
  });

  it('declares a read on net:<host> (and a write on the saved file)', () => {
    const t = tools({ working_dir: '/srv/work' });
    const keys = t.webFetch.executionProfile?.resourceKeys?.({
      url: 'https://Docs.Example.com/a',
      save_to_file: 'o.md',
    });
    expect(keys).toEqual([
      { key: 'net:docs.example.com', mode: 'read' },
      { key: 'file:/srv/work/o.md', mode: 'write' },
    ]);
    expect(t.webFetch.executionProfile?.resourceKeys?.({ url: 'not a url' })).toEqual([]);
  });

  it('an own `__proto__` key is an unknown key: warned about once and ignored, nothing is loosened', async () => {
    const plan = JSON.parse(
      `{"__proto__": {"allowed_hosts": ["127.0.0.2:${internal2.port}"], "allowed_cidrs": ["127.0.0.0/8"], "max_bytes": 1e12}}`,
    );
    const logger = new RecordingLogger();
    const coordinator = createTestCoordinator({ bare: true, logger });
    const cleanup = await mount(coordinator, plan);
    try {
      expect(logger.problemsSince()).toEqual(["tool-web: unknown config key '__proto__' is ignored"]);
      const result = await coordinator.get('tools', 'web_fetch')!.execute({ url: `${internal2.origin}/` });
      expect(result.error?.message).toMatch(/^Invalid or blocked URL/);
      noInternalHits();
    } finally {
      await cleanup();
    }
  });

  it('a misspelt allow or block list is refused with the reason; an unknown key only warns', async () => {
    const error = await mount(createTestCoordinator({ bare: true }), {
      allowed_domain: ['example.com'],
    }).catch((e: unknown) => e);
    expect(AmplifierError.is(error, 'CONFIG_REFUSED')).toBe(true);
    expect((error as Error).message).toContain('would let web_fetch reach every domain');
    const logger = new RecordingLogger();
    const coordinator = createTestCoordinator({ bare: true, logger });
    const cleanup = await mount(coordinator, { max_size: 1_000_000 });
    expect(coordinator.get('tools').size).toBe(2);
    expect(logger.problemsSince()).toEqual(["tool-web: unknown config key 'max_size' is ignored"]);
    await cleanup();
  });

  it('inherited keys are never read: the SSRF guard stays on and the limits stay at their defaults', async () => {
    const loosening = {
      allowed_hosts: [`127.0.0.2:${internal2.port}`],
      allowed_cidrs: ['127.0.0.0/8'],
      max_bytes: 1e12,
      timeout: 1e6,
      max_redirects: 20,
    };
    const coordinator = createTestCoordinator({ bare: true });
    const cleanup = await mount(coordinator, Object.create(loosening));
    try {
      const result = await coordinator.get('tools', 'web_fetch')!.execute({ url: `${internal2.origin}/` });
      expect(result.error?.message).toMatch(/^Invalid or blocked URL: http:\/\/127\.0\.0\.2:\d+\/ \(/);
      noInternalHits();
    } finally {
      await cleanup();
    }
    // An own allow entry for the test server, the inherited limit ignored: the bomb stops at 5 MiB.
    const config = Object.assign(Object.create(loosening), { allowed_hosts: [`127.0.0.1:${pub.port}`] });
    const t = createWebTools(config);
    open.push(t);
    const o = await fetchOk(t, { url: `${pub.origin}/gzip-bomb`, limit: 6 * MiB });
    expect((o.content as string).indexOf('\n\n[Content truncated: the body is larger than max_bytes')).toBe(
      5 * MiB,
    );
    const blocked = await fetchError(t, { url: `${internal2.origin}/` });
    expect(blocked).toMatch(/^Invalid or blocked URL/);
    noInternalHits();
  });

  it('bad config fails mount with the key named', async () => {
    await expect(mount(createTestCoordinator({ bare: true }), { max_bytes: 'x' })).rejects.toThrow(
      /max_bytes must be integer/,
    );
    await expect(mount(createTestCoordinator({ bare: true }), { timeout: 'ten' })).rejects.toThrow(
      /timeout must be number/,
    );
    await expect(mount(createTestCoordinator({ bare: true }), { allowed_cidrs: ['nope'] })).rejects.toThrow(
      /allowed_cidrs entry 'nope'/,
    );
  });
});
