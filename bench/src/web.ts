/**
 * tool-web against a local HTTP server started here (127.0.0.1, port 0, opted
 * in with `allowed_hosts`): a 50 MB body fetched with `max_bytes` 1 MiB (what
 * the server managed to send before the client stopped reading, and the RSS
 * growth of the fetching process), the same body saved uncapped to a file, and
 * the HTML-to-Markdown conversion of a 1 MB page.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  fmt,
  type Group,
  type GroupOptions,
  meets,
  missing,
  notAvailable,
  type Row,
  runChild,
  summarize,
} from './stats.js';

const GROUP = 'web';
const MIB = 2 ** 20;
const BODY_BYTES = 50 * MIB;

/** A server whose `/big` streams `BODY_BYTES` of text and records bytes written per request. */
function startServer(): Promise<{ server: Server; port: number; sent: number[] }> {
  const sent: number[] = [];
  const chunk = Buffer.from('a line of plain text in a large response body, 64 bytes long..\n'.repeat(1024));
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': String(BODY_BYTES) });
    let left = BODY_BYTES;
    const socket = req.socket;
    const pump = (): void => {
      while (left > 0) {
        const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= piece.length;
        if (!res.write(piece)) {
          res.once('drain', pump);
          return;
        }
      }
      res.end();
    };
    socket.once('close', () => sent.push(socket.bytesWritten));
    pump();
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, port: (server.address() as AddressInfo).port, sent }),
    );
  });
}

/** A ~1 MB article: headings, paragraphs with links and emphasis, lists, tables, code. */
export function bigPage(bytes: number): string {
  const parts: string[] = [
    '<!doctype html><html><head><title>Benchmark page</title><style>p{margin:0}</style></head><body><nav><a href="/">Home</a></nav><main><article>',
  ];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const section = `<h2 id="s${i}">Section ${i}</h2><p>This is <strong>paragraph ${i}</strong> with a <a href="/page/${i}">link</a>, some <em>emphasis</em> and <code>inline code</code>. It goes on for a while so that the page looks like real documentation text.</p><ul><li>First item ${i}</li><li>Second item with <a href="https://example.com/${i}">an external link</a></li></ul><table><tr><th>key</th><th>value</th></tr><tr><td>a${i}</td><td>${i * 7}</td></tr></table><pre><code>function f${i}(x) {\n  return x * ${i};\n}</code></pre>`;
    parts.push(section);
    size += section.length;
  }
  parts.push('</article></main><footer>Footer</footer><script>console.log(1)</script></body></html>');
  return parts.join('');
}

async function webFetch(config: Record<string, unknown>) {
  const { Coordinator, silentLogger } = await import('@amplifier/core');
  const { mount } = await import('@amplifier/tool-web');
  const coordinator = new Coordinator({ sessionId: 'bench', logger: silentLogger });
  const cleanup = await mount(coordinator, config);
  return { tool: coordinator.get('tools', 'web_fetch')!, cleanup };
}

/** Bytes this process has read through read-like system calls (Linux `/proc/self/io` rchar), or NaN. */
function bytesReadSoFar(): number {
  try {
    const match = /^rchar:\s*(\d+)/m.exec(readFileSync('/proc/self/io', 'utf8'));
    return match ? Number(match[1]) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Child task: one web_fetch call in this fresh process; RSS before it, bytes read during it, what it returned. */
async function fetchOnce(args: {
  url: string;
  port: number;
  maxBytes?: number;
  limit?: number;
  saveDir?: string;
}) {
  const { tool, cleanup } = await webFetch({
    allowed_hosts: [`127.0.0.1:${args.port}`],
    timeout: 120,
    ...(args.maxBytes !== undefined && { max_bytes: args.maxBytes }),
    ...(args.saveDir !== undefined && { working_dir: args.saveDir }),
  });
  const before = process.memoryUsage().rss / MIB;
  const readBefore = bytesReadSoFar();
  const start = performance.now();
  const r = await tool.execute({
    url: args.url,
    ...(args.limit !== undefined && { limit: args.limit }),
    ...(args.saveDir !== undefined && { save_to_file: 'body.txt' }),
  });
  const ms = performance.now() - start;
  const read = bytesReadSoFar() - readBefore;
  await cleanup();
  if (!r.success) throw new Error(`web_fetch failed: ${JSON.stringify(r.error)}`);
  const out = r.output as Record<string, unknown>;
  return {
    before,
    ms,
    read,
    truncated: out.truncated,
    saved: args.saveDir ? statSync(path.join(args.saveDir, 'body.txt')).size : 0,
  };
}

/** Child task: ms per `htmlToMarkdown` of a page of `bytes`. */
async function markdownTimes(args: { bytes: number; runs: number }) {
  const { htmlToMarkdown } = await import('@amplifier/tool-web');
  const html = bigPage(args.bytes);
  htmlToMarkdown(html, 'https://example.com/');
  const times: number[] = [];
  let chars = 0;
  for (let i = 0; i < args.runs; i++) {
    const start = performance.now();
    chars = htmlToMarkdown(html, 'https://example.com/').content.length;
    times.push(performance.now() - start);
  }
  return { times, chars, htmlBytes: html.length };
}

export const tasks = { fetchOnce, markdownTimes };

async function run(options: GroupOptions): Promise<Row[]> {
  const reason = await missing('@amplifier/tool-web');
  if (reason !== undefined) return [notAvailable(GROUP, 'tool-web web_fetch', reason)];
  const runs = Math.max(5, options.runs);
  const { server, port, sent } = await startServer();
  const url = `http://127.0.0.1:${port}/big`;
  const rows: Row[] = [];
  try {
    for (const limit of [4 * MIB, undefined]) {
      options.log(`web: 50 MB body capped at 1 MiB, limit ${limit ?? 'default'}`);
      const capped: { ms: number; growth: number; sent: number; read: number }[] = [];
      for (let i = 0; i < runs; i++) {
        const r = await runChild<{ before: number; ms: number; read: number }>('child.js', [
          GROUP,
          'fetchOnce',
          JSON.stringify({ url, port, maxBytes: MIB, limit }),
        ]);
        await new Promise((resolve) => setTimeout(resolve, 50)); // the server records the socket's close
        capped.push({
          ms: r.value.ms,
          growth: r.peakRssMb - r.value.before,
          sent: sent.at(-1) ?? Number.NaN,
          read: r.value.read,
        });
      }
      const readMb = summarize(capped.map((c) => c.read / MIB));
      const sentMb = summarize(capped.map((c) => c.sent / MIB));
      const growth = summarize(capped.map((c) => c.growth));
      const ms = summarize(capped.map((c) => c.ms));
      const call =
        limit === undefined
          ? 'web_fetch of a 50 MB body, max_bytes 1 MiB, default limit (204,800 characters returned)'
          : 'web_fetch of a 50 MB body with max_bytes 1 MiB (call limit 4 MiB, so the cap is what stops it)';
      rows.push({
        group: GROUP,
        what: `${call}: bytes read by the fetching process during the call`,
        value: `${fmt(readMb.median)} MiB`,
        range: `${fmt(readMb.min)}–${fmt(readMb.max)}`,
        target: '≤ 2 MB read',
        meets: meets(readMb.median * 1.048576, 2),
        note: `the child's rchar delta in /proc/self/io (bytes of every read-like system call of the process during the call); the server had handed ${fmt(sentMb.median)} MiB (${fmt(sentMb.min)}–${fmt(sentMb.max)}) to its socket when the connection closed: what the client did not read of that was left in the loopback socket buffers`,
      });
      rows.push({
        group: GROUP,
        what: `${call}: RSS growth of the fetching process`,
        value: `${fmt(growth.median)} MiB`,
        range: `${fmt(growth.min)}–${fmt(growth.max)}`,
        target: '≤ 20 MB RSS growth',
        meets: meets(growth.median * 1.048576, 20),
        note: `call time ${fmt(ms.median)} ms (${fmt(ms.min)}–${fmt(ms.max)}); fresh process per call; growth = peak RSS − RSS just before the call`,
      });
    }

    options.log('web: 50 MB body saved to a file');
    const saved: { ms: number; growth: number; size: number }[] = [];
    for (let i = 0; i < runs; i++) {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'amp-bench-web-'));
      try {
        const r = await runChild<{ before: number; ms: number; saved: number }>('child.js', [
          GROUP,
          'fetchOnce',
          JSON.stringify({ url, port, saveDir: dir }),
        ]);
        saved.push({ ms: r.value.ms, growth: r.peakRssMb - r.value.before, size: r.value.saved });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    const sms = summarize(saved.map((s) => s.ms));
    rows.push({
      group: GROUP,
      what: 'web_fetch of the 50 MB body uncapped, `save_to_file`',
      value: `${fmt(sms.median)} ms`,
      range: `${fmt(sms.min)}–${fmt(sms.max)}`,
      note: `${fmt(50 / (sms.median / 1000))} MiB/s; file size ${fmt((saved[0]?.size ?? 0) / MIB)} MiB; RSS growth ${fmt(summarize(saved.map((s) => s.growth)).median)} MiB`,
    });
  } finally {
    server.closeAllConnections();
    server.close();
  }

  options.log('web: HTML to Markdown, 1 MB page');
  const md = (
    await runChild<{ times: number[]; chars: number; htmlBytes: number }>('child.js', [
      GROUP,
      'markdownTimes',
      JSON.stringify({ bytes: MIB, runs }),
    ])
  ).value;
  const m = summarize(md.times);
  rows.push({
    group: GROUP,
    what: `htmlToMarkdown of a ${fmt(md.htmlBytes / MIB)} MB HTML page`,
    value: `${fmt(m.median)} ms`,
    range: `${fmt(m.min)}–${fmt(m.max)}`,
    note: `${fmt(md.chars)} characters of Markdown`,
  });
  return rows;
}

export const group: Group = { name: GROUP, title: 'tool-web', run };
