// Informal measurements of @amplifier/tool-web (run after `pnpm build`):
//   node bench/web-fetch.mjs
// The HTTP server runs in a child process so the RSS figures are the client's only.
import { fork } from 'node:child_process';
import diagnostics from 'node:diagnostics_channel';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createWebTools, htmlToMarkdown } from '../dist/index.js';

const MiB = 1024 * 1024;
// Bytes the client actually read from its sockets (undici publishes every new connection).
const sockets = [];
diagnostics.subscribe('undici:client:connected', ({ socket }) => sockets.push(socket));
const bytesRead = () => sockets.splice(0).reduce((sum, socket) => sum + socket.bytesRead, 0) / MiB;
const SERVER = `
const http = require('node:http');
const chunk = Buffer.alloc(64 * 1024, 'a');
let sent = 0;
const server = http.createServer((req, res) => {
  sent = 0;
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(50 * 1024 * 1024) });
  const pump = () => {
    while (sent < 50 * 1024 * 1024 && !res.destroyed) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end();
  };
  res.on('close', () => process.send({ sent }));
  pump();
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
`;

function sampler() {
  const start = process.memoryUsage().rss;
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  return () => {
    clearInterval(timer);
    peak = Math.max(peak, process.memoryUsage().rss);
    return (peak - start) / MiB;
  };
}

const child = fork('-e', [SERVER], {
  execArgv: ['-e', SERVER],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const port = await new Promise((resolve) => child.once('message', (m) => resolve(m.port)));
const nextSent = () => new Promise((resolve) => child.once('message', (m) => resolve(m.sent)));
const url = `http://127.0.0.1:${port}/big`;
const wd = fs.mkdtempSync(path.join(os.tmpdir(), 'tool-web-bench-'));
const rows = [];

global.gc?.();
{
  const tools = createWebTools({ allowed_hosts: [`127.0.0.1:${port}`], max_bytes: MiB, timeout: 60 });
  const sent = nextSent();
  const stop = sampler();
  const t0 = performance.now();
  const r = await tools.webFetch.execute({ url, limit: 2 * MiB });
  const ms = performance.now() - t0;
  const rss = stop();
  await tools.close();
  if (!r.success) throw new Error(r.error.message);
  rows.push([
    '50 MiB body, max_bytes 1 MiB',
    `${ms.toFixed(0)} ms`,
    `${bytesRead().toFixed(2)} MiB read by the client (the server had written ${((await sent) / MiB).toFixed(2)} MiB into the socket)`,
    `${rss.toFixed(1)} MiB`,
  ]);
}
global.gc?.();
{
  const tools = createWebTools({
    allowed_hosts: [`127.0.0.1:${port}`],
    working_dir: wd,
    max_save_bytes: 64 * MiB,
    timeout: 60,
  });
  const sent = nextSent();
  const stop = sampler();
  const t0 = performance.now();
  const r = await tools.webFetch.execute({ url, save_to_file: 'big.txt' });
  const ms = performance.now() - t0;
  const rss = stop();
  await tools.close();
  if (!r.success) throw new Error(r.error.message);
  const mbps = 50 / (ms / 1000);
  rows.push([
    '50 MiB body saved to a file',
    `${ms.toFixed(0)} ms (${mbps.toFixed(0)} MiB/s)`,
    `${bytesRead().toFixed(2)} MiB read (server wrote ${((await sent) / MiB).toFixed(2)} MiB)`,
    `${rss.toFixed(1)} MiB`,
  ]);
}
{
  let html = '<html><head><title>Bench</title><script>var x = 1;</script></head><body><nav>menu</nav>';
  let i = 0;
  while (html.length < MiB) {
    html += `<section><h2>Section ${i}</h2><p>Some <a href="/p/${i}">linked text</a> with <em>emphasis</em> and <code>code</code> in a sentence that goes on a while.</p><ul><li>item a</li><li>item b</li></ul><table><tr><th>k</th><th>v</th></tr><tr><td>${i}</td><td>x</td></tr></table></section>\n`;
    i++;
  }
  html += '</body></html>';
  const times = [];
  let out = '';
  for (let k = 0; k < 5; k++) {
    const t0 = performance.now();
    out = htmlToMarkdown(html, 'https://example.com/').content;
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  rows.push([
    `HTML to Markdown, ${(html.length / MiB).toFixed(2)} MiB page`,
    `${times[2].toFixed(0)} ms (median of 5)`,
    `${(out.length / 1024).toFixed(0)} KiB of Markdown`,
    '',
  ]);
}

child.kill();
fs.rmSync(wd, { recursive: true, force: true });
process.stdout.write(
  `node ${process.version}, ${os.cpus().length} CPUs\n\n| case | time | bytes | RSS growth (peak) |\n|---|---|---|---|\n`,
);
for (const row of rows) process.stdout.write(`| ${row.join(' | ')} |\n`);
