/**
 * The stdio half: an app (no CLI) serves its session's tools over stdio to
 * the SDK's client, in a real child process, and keeps serving whatever a
 * client writes (an oversized line, a line that is not JSON, escape
 * sequences meant for the operator's terminal); the transport alone for
 * chunk boundaries and its options.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { BoundedStdioTransport } from './stdio.js';

const APP = fileURLToPath(new URL('./__fixtures__/stdio-app.mjs', import.meta.url));

const line = (message: unknown): string => `${JSON.stringify(message)}\n`;

type Response = { jsonrpc: string; id: unknown; result?: unknown; error?: { code: number; message: string } };

function responses(stdout: string): Response[] {
  return stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Response);
}

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** The app as a raw child: write lines, read stdout and stderr, wait for text. */
function startApp(args: string[] = []) {
  const child = spawn(process.execPath, [APP, ...args], { stdio: 'pipe' });
  children.push(child);
  let stdout = '';
  let stderr = '';
  const waiters: Array<() => void> = [];
  const poke = () => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    poke();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    poke();
  });
  // 'close', not 'exit': every byte the app wrote to stdout and stderr has been read by then.
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    write: (text: string) => child.stdin.write(text),
    /** Resolves once stdout holds an answer with this id. */
    async answer(id: number): Promise<Response> {
      for (;;) {
        const found = responses(stdout.slice(0, stdout.lastIndexOf('\n') + 1)).find((r) => r.id === id);
        if (found !== undefined) return found;
        if (child.exitCode !== null) throw new Error(`the app exited (${child.exitCode}): ${stderr}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

async function initialized(args: string[] = []) {
  const app = startApp(args);
  app.write(line(INIT));
  await app.answer(1);
  app.write(line({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  return app;
}

describe('an app serving its session over stdio', () => {
  it("lists the session's tools and the SDK client calls one through the session's hooks", async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [APP], stderr: 'pipe' });
    const client = new Client({ name: 'stdio-test', version: '1' });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()?.name).toBe('amplifier');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['echo', 'slow']);
      expect(tools[0]!.inputSchema).toMatchObject({ type: 'object', required: ['text'] });
      const result = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
      expect(result).toMatchObject({ content: [{ type: 'text', text: 'echo: hello' }], isError: false });
      const denied = await client.callTool({ name: 'echo', arguments: { text: 'forbidden' } });
      expect(denied).toMatchObject({
        isError: true,
        content: [{ text: 'Denied by hook: no forbidden text' }],
      });
      const invalid = await client.callTool({ name: 'echo', arguments: { text: 3 } });
      expect(invalid.isError).toBe(true);
      expect(JSON.stringify(invalid.content)).toContain("invalid input for tool 'echo'");
      await expect(client.callTool({ name: 'mcp_proxied', arguments: {} })).rejects.toMatchObject({
        code: -32602,
      });
    } finally {
      await client.close();
    }
  });

  it('answers an oversized line with a JSON-RPC error (id null) and serves the next request', async () => {
    const app = await initialized(['4096']);
    app.write(line({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { pad: 'x'.repeat(10_000) } }));
    app.write(line({ jsonrpc: '2.0', id: 3, method: 'tools/list' }));
    const listed = await app.answer(3);
    expect((listed.result as { tools: unknown[] }).tools).toHaveLength(2);
    const all = responses(app.stdout());
    expect(all.some((r) => r.id === 2)).toBe(false);
    expect(all.find((r) => r.error !== undefined)).toMatchObject({
      id: null,
      error: {
        code: -32600,
        message: expect.stringMatching(/the line has 1\d{4} bytes, over the limit of 4096/),
      },
    });
    app.child.stdin.end();
    expect(await app.exited).toBe(0);
    // stderr is a pipe of its own: read it once the app has closed it, not when stdout answered.
    expect(app.stderr()).toMatch(/over the limit of 4096 bytes \(maxLineBytes\); it was discarded/);
  });

  it.each([
    ['an OSC title sequence', '\u001b]0;owned\u0007'],
    ['a screen clear (CSI)', '\u001b[2J\u001b[H'],
    ['a C1 CSI', '\u009b31m'],
    ['a carriage return and a bidi override', 'ok\r\u202eevil'],
    ['an OSC 52 clipboard write', '\u001b]52;c;aGVsbG8=\u001b\\'],
  ])(
    'a line that is not JSON holding %s is answered (-32700) and logged without it',
    async (_name, hostile) => {
      const app = await initialized();
      app.write(`${hostile} not json\n`);
      app.write(`{"jsonrpc":"2.0","id":"${hostile}","method":"tools/list"\n`);
      app.write(line({ jsonrpc: '2.0', id: 4, method: 'tools/list' }));
      await app.answer(4);
      expect(responses(app.stdout()).filter((r) => r.error?.code === -32700)).toHaveLength(2);
      app.child.stdin.end();
      expect(await app.exited).toBe(0);
      const log = app.stderr();
      expect(log).toMatch(/answered a line that is not JSON .* with a JSON-RPC error; the server goes on/);
      expect(log).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    },
  );
});

describe('BoundedStdioTransport', () => {
  async function transport(maxLineBytes: number) {
    const input = new PassThrough();
    const output = new PassThrough();
    const messages: JSONRPCMessage[] = [];
    const logs: string[] = [];
    let written = '';
    output.on('data', (chunk: Buffer) => {
      written += chunk.toString('utf8');
    });
    const t = new BoundedStdioTransport({ input, output, maxLineBytes, log: (m) => logs.push(m) });
    t.onmessage = (m) => messages.push(m);
    await t.start();
    const flush = () => new Promise<void>((resolve) => setImmediate(resolve));
    return { input, t, messages, logs, written: () => written, flush };
  }
  it('reads lines split across chunks anywhere, a multi-byte character included', async () => {
    const { input, messages, flush } = await transport(1024);
    const bytes = Buffer.from(
      `${line({ jsonrpc: '2.0', id: 1, method: 'ping', params: { text: 'é東🚀' } })}${line({ jsonrpc: '2.0', method: 'notifications/initialized' })}`,
    );
    for (const byte of bytes) input.write(Buffer.from([byte]));
    await flush();
    expect(messages).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'ping', params: { text: 'é東🚀' } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ]);
  });

  it('discards 50 MB without a newline in small chunks, answers once, and reads the next line', async () => {
    const { input, messages, written, logs, flush } = await transport(4096);
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    for (let i = 0; i < 800; i++) input.write(chunk);
    input.write(`\n${line({ jsonrpc: '2.0', id: 2, method: 'ping' })}`);
    await flush();
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 2, method: 'ping' }]);
    expect(responses(written())).toEqual([
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: expect.stringContaining('the line has 52428800 bytes') },
      },
    ]);
    expect(logs).toHaveLength(1);
  });

  it('logs the first malformed lines, then says it stops logging them, and answers every one', async () => {
    const { input, written, logs, flush } = await transport(1024);
    for (let i = 0; i < 25; i++) input.write(`nonsense ${i}\n`);
    await flush();
    expect(responses(written())).toHaveLength(25);
    expect(logs).toHaveLength(11);
    expect(logs[10]).toMatch(/next ones are answered but not logged/);
  });
});

describe('BoundedStdioTransport options', () => {
  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])(
    'refuses maxLineBytes %s with what it wants',
    (bad) => {
      expect(() => new BoundedStdioTransport({ maxLineBytes: bad, input: new PassThrough() })).toThrow(
        /maxLineBytes must be a positive integer \(bytes\); found/,
      );
    },
  );

  it("names the server and the operator's limit in the log and the answer", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let written = '';
    output.on('data', (chunk: Buffer) => {
      written += chunk.toString('utf8');
    });
    const logs: string[] = [];
    const t = new BoundedStdioTransport({
      input,
      output,
      maxLineBytes: 16,
      name: 'my-app',
      limitHint: '--cap',
      log: (m) => logs.push(m),
    });
    await t.start();
    input.write(`${'x'.repeat(40)}\n`);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(logs[0]).toMatch(/^my-app: a request line of 40 bytes is over the limit of 16 bytes \(--cap\)/);
    expect(responses(written)[0]!.error!.message).toContain('can raise --cap');
    await t.close();
  });
});
