/**
 * `amplifier mcp serve` over stdio keeps serving whatever a client writes
 * (issue 37): an oversized line, garbage, a line that is not JSON, JSON that
 * is not JSON-RPC, a last line without its newline. Against a real child
 * process: the command over @amplifier/mcp-server's transport (whose own
 * tests cover chunk boundaries).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CliProcess, cliEnv, removeTempDirs, runCli } from './__fixtures__/cli.js';
import { mcpProject } from './__fixtures__/mcp.js';

afterEach(removeTempDirs);

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
const line = (message: unknown): string => `${JSON.stringify(message)}\n`;

type Response = { jsonrpc: string; id: unknown; result?: unknown; error?: { code: number; message: string } };

function responses(stdout: string): Response[] {
  return stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Response);
}

/** A started `mcp serve` that answered `initialize`. */
async function serve(extra: string[] = [], env: Record<string, string> = {}) {
  const project = mcpProject();
  const cli = new CliProcess(['mcp', 'serve', '--plan', project.plan, ...extra], {
    cwd: project.cwd,
    env: cliEnv(project.home, env),
    keepStdin: true,
  });
  cli.write(line(INIT));
  await cli.waitFor('stdout', '"id":1');
  cli.write(line(INITIALIZED));
  return cli;
}

/** Write a large text in pieces, waiting for the pipe to drain (as a real client does). */
async function writeAll(cli: CliProcess, text: string, piece = 1 << 20): Promise<void> {
  const stdin = cli.child.stdin!;
  for (let i = 0; i < text.length; i += piece) {
    if (!stdin.write(text.slice(i, i + piece)))
      await new Promise<void>((resolve) => stdin.once('drain', () => resolve()));
  }
}

describe('amplifier mcp serve (stdio) under hostile input', () => {
  it('a 12 MB line gets a JSON-RPC error with id null and a log line; the next tools/list is answered', async () => {
    const cli = await serve();
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/list',
      params: { pad: 'x'.repeat(12 * 1024 * 1024) },
    });
    await writeAll(cli, `${big}\n`);
    cli.write(line({ jsonrpc: '2.0', id: 3, method: 'tools/list' }));
    await cli.waitFor('stdout', '"id":3');
    const all = responses(cli.stdout);
    const rejected = all.find((r) => r.error !== undefined)!;
    expect(rejected).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(rejected.error!.message).toMatch(
      /Request too large: the line has 125\d{5} bytes, over the limit of 4194304/,
    );
    expect(all.some((r) => r.id === 2)).toBe(false);
    const listed = all.find((r) => r.id === 3)!.result as { tools: Array<{ name: string }> };
    expect(listed.tools.map((t) => t.name)).toContain('read_file');
    expect(cli.stderr).toMatch(
      /a request line of 125\d{5} bytes is over the limit of 4194304 bytes \(--max-line-bytes\); it was discarded/,
    );
    cli.child.stdin!.end();
    expect((await cli.done()).code).toBe(0);
  });

  it('answers a line that is not JSON (-32700), JSON that is not JSON-RPC (-32600, with its id), a batch, and garbage bytes, and goes on serving', async () => {
    const cli = await serve();
    const garbage = Buffer.from(
      Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256).filter((b) => b !== 10),
    );
    cli.write('this is not json\n');
    cli.write('{"jsonrpc":"2.0","id":\n');
    cli.write(line({ id: 7, hello: 'world' }));
    cli.write(line({ jsonrpc: '1.0', id: 'eight', method: 'tools/list' }));
    cli.write(line([{ jsonrpc: '2.0', id: 9, method: 'tools/list' }]));
    cli.write(line({ jsonrpc: '2.0', id: { nested: true }, method: 'tools/list' }));
    cli.child.stdin!.write(Buffer.concat([garbage, Buffer.from('\n')]));
    cli.write('\n\r\n   \n'); // blank lines are skipped, not answered
    cli.write(line({ jsonrpc: '2.0', id: 10, method: 'tools/list' }));
    await cli.waitFor('stdout', '"id":10');
    const all = responses(cli.stdout).filter((r) => r.id !== 1);
    const errors = all.filter((r) => r.error !== undefined);
    expect(errors.map((r) => [r.id, r.error!.code])).toEqual([
      [null, -32700],
      [null, -32700],
      [7, -32600],
      ['eight', -32600],
      [null, -32600],
      [null, -32600],
      [null, -32700],
    ]);
    expect(all.find((r) => r.id === 10)!.result).toMatchObject({ tools: expect.any(Array) });
    expect(cli.stderr).toMatch(
      /answered a line that is not JSON .* with a JSON-RPC error; the server goes on/,
    );
    cli.child.stdin!.end();
    expect((await cli.done()).code).toBe(0);
  });

  it('a stream of garbage without newlines past the cap is discarded, answered once, and the server still serves', async () => {
    const cli = await serve(['--max-line-bytes', '64KiB']);
    const noise = Buffer.alloc(1024 * 1024, 0xff);
    for (let i = 0; i < 3; i++) cli.child.stdin!.write(noise);
    cli.write('\n');
    cli.write(line({ jsonrpc: '2.0', id: 4, method: 'tools/list' }));
    await cli.waitFor('stdout', '"id":4');
    const errors = responses(cli.stdout).filter((r) => r.error !== undefined);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.error!.message).toContain('the line has 3145728 bytes, over the limit of 65536');
    cli.child.stdin!.end();
    expect((await cli.done()).code).toBe(0);
  });

  it('answers a last request without its newline before it exits at the end of stdin', async () => {
    const cli = await serve();
    cli.write(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }));
    cli.child.stdin!.end();
    const exit = await cli.done();
    expect(exit.code, exit.stderr).toBe(0);
    expect(responses(exit.stdout).find((r) => r.id === 5)?.result).toMatchObject({
      tools: expect.any(Array),
    });
  });

  it('answers an oversized last line without its newline with the error, then exits', async () => {
    const cli = await serve(['--max-line-bytes', '2048']);
    cli.write(`{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"pad":"${'y'.repeat(5000)}"}}`);
    cli.child.stdin!.end();
    const exit = await cli.done();
    expect(exit.code, exit.stderr).toBe(0);
    expect(responses(exit.stdout).filter((r) => r.error)).toEqual([
      expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32600 }) }),
    ]);
  });

  it('serves a request just under a small cap, refuses one just over it', async () => {
    const cli = await serve(['--max-line-bytes', '2048']);
    const sized = (id: number, bytes: number): string => {
      const base = JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/list',
        params: { _meta: { pad: '' } },
      });
      return JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/list',
        params: { _meta: { pad: 'z'.repeat(bytes - base.length) } },
      });
    };
    expect(sized(11, 2048)).toHaveLength(2048);
    cli.write(`${sized(11, 2048)}\n${sized(12, 2049)}\n`);
    cli.write(line({ jsonrpc: '2.0', id: 13, method: 'tools/list' }));
    await cli.waitFor('stdout', '"id":13');
    const all = responses(cli.stdout);
    expect(all.find((r) => r.id === 11)?.result).toBeDefined();
    expect(all.some((r) => r.id === 12)).toBe(false);
    expect(all.filter((r) => r.error).map((r) => r.id)).toEqual([null]);
    cli.child.stdin!.end();
    await cli.done();
  });

  it.each([
    [['--max-line-bytes', '12'], {}, /a size of at least 1024 bytes/],
    [['--max-line-bytes', 'lots'], {}, /a size of at least 1024 bytes/],
    [['--http', '--max-line-bytes', '4MiB'], {}, /--max-line-bytes applies to stdio only/],
    [[], { AMPLIFIER_MCP_MAX_LINE_BYTES: '-5' }, /AMPLIFIER_MCP_MAX_LINE_BYTES must be a size .* found "-5"/],
  ])('refuses a bad cap %j %j', async (args, env, message) => {
    const project = mcpProject();
    const result = await runCli(['mcp', 'serve', '--plan', project.plan, ...args], {
      cwd: project.cwd,
      env: cliEnv(project.home, env),
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(message);
  });
});
