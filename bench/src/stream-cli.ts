/**
 * Time to the first rendered token in the `amplifier` CLI: a local
 * OpenAI-compatible server (127.0.0.1) answers `amplifier run --provider
 * openai` with a streamed reply, and the clock stops when the first byte of
 * the CLI's stdout reaches this process: the CLI's whole path from socket to
 * terminal (undici, the SSE parser, the provider, the hooks, the renderer,
 * the pipe). The rest of the reply is sent only then, so nothing else can be
 * rendered first. One fresh CLI process per sample. Two ways to start the
 * clock:
 * - `open`: as real APIs do, the status, headers and a first chunk without
 *   text (OpenAI's `role` delta) come first; the clock starts when the first
 *   text chunk is written, 50 ms later. This is the latency a user sees
 *   between the model emitting a token and the terminal showing it.
 * - `cold`: status, headers and the first text chunk in one write: the
 *   clock also covers the HTTP client's first response in a fresh process
 *   (undici's parser and streams run for the first time), a cost outside the
 *   kernel that a real API pays before its first token arrives.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const FIRST = 'Hello';

/** Where the clock starts (see above). */
export type FirstTokenMode = 'open' | 'cold';

function chunk(delta: Record<string, string>, finish: string | null = null): string {
  const body = {
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
  return `data: ${JSON.stringify(body)}\n\n`;
}

/** Where the built CLI's bin is, or undefined when it is not built. */
export function cliBin(): string | undefined {
  const pkg = fileURLToPath(import.meta.resolve('@amplifier/cli/package.json'));
  const bin = path.join(path.dirname(pkg), 'dist', 'bin.js');
  return fs.existsSync(bin) ? bin : undefined;
}

/** One sample: ms from the server's write to the CLI's first stdout byte. */
async function sample(bin: string, home: string, mode: FirstTokenMode): Promise<number> {
  let written = 0;
  let release: (() => void) | undefined;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      release = () => {
        res.write(chunk({ content: ' from the benchmark server.' }, 'stop'));
        res.end('data: [DONE]\n\n');
      };
      const first = (): void => {
        written = performance.now();
        res.write(chunk({ content: FIRST }));
      };
      if (mode === 'cold') return first();
      res.write(chunk({ role: 'assistant', content: '' }));
      setTimeout(first, 50);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  try {
    return await new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, [bin, 'run', '--provider', 'openai', 'hello'], {
        cwd: home,
        env: {
          ...process.env,
          HOME: home,
          OPENAI_API_KEY: 'sk-bench',
          OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
          NO_COLOR: '1',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let first: number | undefined;
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (text: string) => {
        if (first === undefined) {
          first = performance.now() - written;
          release?.();
        }
        out += text;
      });
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (text: string) => {
        err += text;
      });
      child.on('error', reject);
      child.on('close', (code) => {
        if (code !== 0 || first === undefined || written === 0 || !out.startsWith(FIRST)) {
          reject(new Error(`amplifier run failed (exit ${code}): ${out.slice(0, 200)}\n${err.slice(-1000)}`));
        } else resolve(first);
      });
    });
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** `runs` samples, one CLI process each, one after the other. */
export async function firstTokenMs(bin: string, runs: number, mode: FirstTokenMode): Promise<number[]> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'amplifier-bench-ttft-'));
  try {
    await sample(bin, home, mode); // warm-up: the OS file cache, the session folder
    const out: number[] = [];
    for (let i = 0; i < runs; i++) out.push(await sample(bin, home, mode));
    return out;
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}
